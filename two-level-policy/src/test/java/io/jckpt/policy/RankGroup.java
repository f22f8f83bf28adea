package io.jckpt.policy;

import io.jckpt.CkptOptions;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RingOrder;
import io.jckpt.testkit.RankThreads;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * The test kit's {@link RankThreads} bound to {@link TwoLevelCheckpointer}, as the static calls these
 * tests make. Only the binding lives here: the kit cannot open a TwoLevelCheckpointer by itself, as
 * it depends on ckpt-api only (this module's tests depend on the kit; the kit depending on this module
 * would be a cycle).
 */
final class RankGroup {
    private static final Duration BOUND = Duration.ofSeconds(90);
    /**
     * The bound of the tests that move GiBs ({@link LargeArrayTest}, {@link ImagesBeyondOneMappingTest}):
     * seconds on an idle machine, but over 90 s when it is shared with other jobs.
     */
    static final Duration LARGE_BOUND = Duration.ofSeconds(400);
    private static volatile Duration bound = BOUND;

    private RankGroup() {
    }

    private static RankThreads<TwoLevelCheckpointer> ranks(int n) {
        return new RankThreads<>(n, bound, "test-rank", TwoLevelCheckpointer::open);
    }

    /** Sets the bound of every rank task until {@link #defaultBound()} (a test class's @BeforeAll). */
    static void bound(Duration d) {
        bound = d;
    }

    /** Back to the usual bound (a test class's @AfterAll). */
    static void defaultBound() {
        bound = BOUND;
    }

    /** Per-rank options: each rank's memory directory is its own node's. */
    static CkptOptions options(Path nodes, int rank, int replicas, Path diskDir, int diskRatio) {
        return RankThreads.options(nodes, rank, replicas, diskDir, diskRatio, 1L << 30);
    }

    /** Opens every rank of one world concurrently (open is a collective). */
    static List<TwoLevelCheckpointer> open(int n, String jobId, int epoch, IntFunction<CkptOptions> options,
                                           IntFunction<Boolean> newRank) throws Exception {
        return open(n, jobId, epoch, options, newRank, r -> null);
    }

    /**
     * As {@link #open(int, String, int, IntFunction, IntFunction)}, every rank given {@code jobKey} as the
     * launcher's job key (null: none, the ranks use the job's key files).
     */
    static List<TwoLevelCheckpointer> openWithKey(int n, String jobId, int epoch, IntFunction<CkptOptions> options,
                                                  IntFunction<Boolean> newRank, byte[] jobKey) throws Exception {
        try (RankThreads<TwoLevelCheckpointer> ranks = ranks(n).jobKey(jobKey)) {
            return ranks.open(jobId, epoch, options, newRank::apply, null, null);
        }
    }

    /** As {@link #open(int, String, int, IntFunction, IntFunction)}, every rank's context carrying the replication ring. */
    static List<TwoLevelCheckpointer> open(int n, String jobId, int epoch, IntFunction<CkptOptions> options,
                                           IntFunction<Boolean> newRank, RingOrder ring) throws Exception {
        try (RankThreads<TwoLevelCheckpointer> ranks = ranks(n).ring(ring)) {
            return ranks.open(jobId, epoch, options, newRank::apply, null, null);
        }
    }

    /** As the ring overload, each rank's data endpoint bound to {@code host.apply(rank)} (127.0.x.y: another "host"). */
    static List<TwoLevelCheckpointer> open(int n, String jobId, int epoch, IntFunction<CkptOptions> options,
                                           IntFunction<Boolean> newRank, RingOrder ring, IntFunction<String> host)
            throws Exception {
        try (RankThreads<TwoLevelCheckpointer> ranks = ranks(n).ring(ring).bindHosts(host)) {
            return ranks.open(jobId, epoch, options, newRank::apply, null, null);
        }
    }

    /** As {@link #open(int, String, int, IntFunction, IntFunction)}, with each rank's event sink (the launcher's log). */
    static List<TwoLevelCheckpointer> open(int n, String jobId, int epoch, IntFunction<CkptOptions> options,
                                           IntFunction<Boolean> newRank, IntFunction<Consumer<io.jckpt.spi.RankEvent>> events)
            throws Exception {
        return open(LocalRankCollective.group(n), jobId, epoch, options, newRank, events);
    }

    /** As above, over the given exchange endpoints (one per rank), so that a test can read their counters. */
    static List<TwoLevelCheckpointer> open(List<LocalRankCollective> exchanges, String jobId, int epoch,
                                           IntFunction<CkptOptions> options, IntFunction<Boolean> newRank,
                                           IntFunction<Consumer<io.jckpt.spi.RankEvent>> events) throws Exception {
        try (RankThreads<TwoLevelCheckpointer> ranks = ranks(exchanges.size())) {
            return ranks.open(exchanges, jobId, epoch, options, newRank::apply, events, null);
        }
    }

    /** Closes every rank concurrently (close is a collective when the disk level is on). */
    static void closeAll(List<TwoLevelCheckpointer> world) throws Exception {
        try (RankThreads<TwoLevelCheckpointer> ranks = ranks(world.size())) {
            ranks.closeAll(world);
        }
    }

    /** Runs task(rank) for every rank on its own thread; bounded; rethrows the first failure. */
    static <T> List<T> parallel(int n, RankThreads.RankTask<T> task) throws Exception {
        try (RankThreads<TwoLevelCheckpointer> ranks = ranks(n)) {
            return ranks.parallel(task);
        }
    }
}
