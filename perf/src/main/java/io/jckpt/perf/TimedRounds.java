package io.jckpt.perf;

import io.jckpt.CkptOptions;
import io.jckpt.policy.TwoLevelCheckpointer;
import io.jckpt.testkit.RankThreads;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.IntFunction;

/**
 * The micro level of the suite: the test kit's ranks as threads ({@link RankThreads}) running the real
 * {@link TwoLevelCheckpointer}, each rank its own "node" directory under /dev/shm, and the timing of
 * one round as a rank sees it.
 */
final class TimedRounds {
    /** How long a rank may take for one step (and how long barriers between ranks wait). */
    static final Duration BOUND = Duration.ofSeconds(120);

    private TimedRounds() {
    }

    /** n ranks as threads of this JVM, opening {@link TwoLevelCheckpointer}s. */
    static RankThreads<TwoLevelCheckpointer> ranks(int n) {
        return new RankThreads<>(n, BOUND, "perf-rank", TwoLevelCheckpointer::open);
    }

    /** Each rank's options: m replicas in its node under {@code nodes}, the disk level when {@code disk} is not null. */
    static IntFunction<CkptOptions> options(Path nodes, Path disk, int m, int diskRatio) {
        return rank -> RankThreads.options(nodes, rank, m, disk, diskRatio, 3L << 30);
    }

    /** One checkpoint round as a rank saw it: here() blocking, and here()'s start to replicated everywhere. */
    record Round(long hereNanos, long replicatedNanos) {
    }

    /**
     * here() on {@code rank}, then the wait (bounded by {@link #BOUND}) until the round is replicated
     * on every rank; timed.
     *
     * @throws IllegalStateException when the round is not replicated in time
     */
    static Round timedRound(TwoLevelCheckpointer c, int rank) {
        long t0 = System.nanoTime();
        c.here();
        long t1 = System.nanoTime();
        if (!c.awaitReplicated(BOUND)) {
            throw new IllegalStateException("rank " + rank + ": round " + c.round() + " not replicated within "
                    + BOUND.toSeconds() + " s");
        }
        return new Round(t1 - t0, System.nanoTime() - t0);
    }
}
