package io.jckpt.perf;

import io.jckpt.CkptOptions;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.policy.TwoLevelCheckpointer;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankContext;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntPredicate;

/**
 * N ranks as threads of this JVM (the micro level of the suite): each rank its own "node"
 * directory under /dev/shm, real loopback sockets between ranks, the real
 * {@link TwoLevelCheckpointer}, and an in-process status exchange instead of the launcher's.
 * Adapted from two-level-policy's test helper RankGroup.
 */
final class ThreadRanks implements AutoCloseable {
    static final Duration BOUND = Duration.ofSeconds(120);

    private final Path nodes;
    private final Path disk;
    private final int n;
    private final int m;
    private final int diskRatio;
    private final ExecutorService pool;

    /** A per-rank task that may throw. */
    interface RankTask<T> {
        T run(int rank) throws Exception;
    }

    ThreadRanks(Path nodes, Path disk, int n, int m, int diskRatio) {
        this.nodes = nodes;
        this.disk = disk;
        this.n = n;
        this.m = m;
        this.diskRatio = diskRatio;
        AtomicInteger k = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, "perf-rank-" + k.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
    }

    int size() {
        return n;
    }

    CkptOptions options(int rank) {
        CkptOptions.Builder b = CkptOptions.builder().replicas(m).memoryDirectory(nodes.resolve("node-" + rank))
                .diskRatio(diskRatio).maxMemoryBytes(3L << 30);
        if (disk != null) {
            b.diskDirectory(disk);
        }
        return b.build();
    }

    /** Opens one world (collective); {@code openNanos[rank]} receives each rank's open() time. */
    List<TwoLevelCheckpointer> open(String jobId, int epoch, IntPredicate newRank, long[] openNanos) throws Exception {
        List<LocalRankCollective> exchanges = LocalRankCollective.group(n);
        byte[] secret = new byte[32];
        secret[0] = 7;
        java.util.concurrent.CyclicBarrier start = new java.util.concurrent.CyclicBarrier(n);
        return parallel(rank -> {
            RankContext context = RankContext.builder().rank(rank).size(n).jobId(jobId).epoch(epoch)
                    .recovery(epoch > 0).newRank(epoch > 0 && newRank.test(rank)).build();
            CkptOptions options = options(rank);
            start.await(BOUND.toSeconds(), TimeUnit.SECONDS);
            long t0 = System.nanoTime();
            TwoLevelCheckpointer c = TwoLevelCheckpointer.open(options, context, exchanges.get(rank), secret,
                    "127.0.0.1", null);
            if (openNanos != null) {
                openNanos[rank] = System.nanoTime() - t0;
            }
            return c;
        });
    }

    /** Closes a world (collective when the disk level is on). */
    void close(List<TwoLevelCheckpointer> world) throws Exception {
        parallel(rank -> {
            world.get(rank).close();
            return null;
        });
    }

    /** The node of {@code rank} is lost: its node-local store is wiped. */
    void wipeNode(int rank) throws IOException {
        ReplicaStore.wipe(nodes.resolve("node-" + rank));
    }

    /** Runs task(rank) on every rank's thread concurrently; bounded; rethrows the first failure. */
    <T> List<T> parallel(RankTask<T> task) throws Exception {
        List<Future<T>> futures = new ArrayList<>();
        for (int rank = 0; rank < n; rank++) {
            int r = rank;
            futures.add(pool.submit((Callable<T>) () -> task.run(r)));
        }
        List<T> results = new ArrayList<>();
        Exception first = null;
        for (int rank = 0; rank < n; rank++) {
            try {
                results.add(futures.get(rank).get(BOUND.toSeconds(), TimeUnit.SECONDS));
            } catch (ExecutionException e) {
                Exception cause = e.getCause() instanceof Exception c ? c : e;
                if (first == null) {
                    first = cause;
                }
            } catch (java.util.concurrent.TimeoutException e) {
                futures.forEach(f -> f.cancel(true));
                throw new IllegalStateException("rank " + rank + " did not finish within " + BOUND.toSeconds() + " s", e);
            }
        }
        if (first != null) {
            throw first;
        }
        return results;
    }

    @Override
    public void close() {
        pool.shutdownNow();
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
