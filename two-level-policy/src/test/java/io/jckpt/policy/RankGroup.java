package io.jckpt.policy;

import io.jckpt.CkptOptions;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;

/**
 * N ranks as threads of this JVM, each with its own node-local directory (its "node"), real
 * sockets between them, and an in-process status exchange: one world (epoch) of a job.
 */
final class RankGroup {
    private RankGroup() {
    }

    /** Per-rank options: each rank's memory directory is its own node's. */
    static CkptOptions options(Path nodes, int rank, int replicas, Path diskDir, int diskRatio) {
        CkptOptions.Builder b = CkptOptions.builder().replicas(replicas).memoryDirectory(nodes.resolve("node-" + rank))
                .diskRatio(diskRatio).maxMemoryBytes(1L << 30);
        if (diskDir != null) {
            b.diskDirectory(diskDir);
        }
        return b.build();
    }

    /** Opens every rank of one world concurrently (open is a collective). */
    static List<TwoLevelCheckpointer> open(int n, String jobId, int epoch, IntFunction<CkptOptions> options,
                                           IntFunction<Boolean> newRank) throws Exception {
        return open(n, jobId, epoch, options, newRank, r -> null);
    }

    /** As {@link #open(int, String, int, IntFunction, IntFunction)}, with each rank's event sink (the launcher's log). */
    static List<TwoLevelCheckpointer> open(int n, String jobId, int epoch, IntFunction<CkptOptions> options,
                                           IntFunction<Boolean> newRank,
                                           IntFunction<java.util.function.Consumer<String>> events) throws Exception {
        return open(LocalRankCollective.group(n), jobId, epoch, options, newRank, events);
    }

    /** As above, over the given exchange endpoints (one per rank), so that a test can read their counters. */
    static List<TwoLevelCheckpointer> open(List<LocalRankCollective> exchanges, String jobId, int epoch,
                                           IntFunction<CkptOptions> options, IntFunction<Boolean> newRank,
                                           IntFunction<java.util.function.Consumer<String>> events) throws Exception {
        int n = exchanges.size();
        byte[] secret = new byte[32];
        secret[0] = 42;
        return parallel(n, rank -> {
            RankContext context = RankContext.builder().rank(rank).size(n).jobId(jobId).epoch(epoch)
                    .recovery(epoch > 0).newRank(epoch > 0 && newRank.apply(rank)).build();
            return TwoLevelCheckpointer.open(options.apply(rank), context, exchanges.get(rank), secret, "127.0.0.1",
                    events.apply(rank));
        });
    }

    /** Closes every rank concurrently (close is a collective when the disk level is on). */
    static void closeAll(List<TwoLevelCheckpointer> world) throws Exception {
        parallel(world.size(), rank -> {
            world.get(rank).close();
            return null;
        });
    }

    /** A per-rank task that may throw. */
    interface RankTask<T> {
        T run(int rank) throws Exception;
    }

    /** Runs task(rank) for every rank on its own thread; bounded; rethrows the first failure. */
    static <T> List<T> parallel(int n, RankTask<T> task) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, "test-rank");
            t.setDaemon(true);
            return t;
        });
        try {
            List<Future<T>> futures = new ArrayList<>();
            for (int rank = 0; rank < n; rank++) {
                int r = rank;
                futures.add(pool.submit((Callable<T>) () -> task.run(r)));
            }
            List<T> results = new ArrayList<>();
            Exception first = null;
            for (int rank = 0; rank < n; rank++) {
                try {
                    results.add(futures.get(rank).get(90, TimeUnit.SECONDS));
                } catch (java.util.concurrent.ExecutionException e) {
                    Exception cause = e.getCause() instanceof Exception c ? c : e;
                    if (first == null) {
                        first = cause;
                    } else {
                        first.addSuppressed(new Exception("rank " + rank + ": " + cause, cause));
                    }
                }
            }
            if (first != null) {
                throw first;
            }
            return results;
        } finally {
            pool.shutdownNow();
        }
    }
}
