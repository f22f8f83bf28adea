package io.jckpt.perf;

import io.jckpt.CkptStats;
import io.jckpt.policy.TwoLevelCheckpointer;
import io.jckpt.testkit.RankThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark harness (not a test): where here() spends its time at small sizes, from
 * {@link CkptStats#lastHere()}, n = 2 ranks as threads, m = 1. Args: size, iterations, and the
 * idle gap in microseconds rank 0 sleeps before each round (default 0: back to back; a gap lets the
 * caches and the CPU cool down, as between a real program's checkpoints).
 * Usage: {@code bin/bench --main io.jckpt.perf.HereProfile [size [iterations [gap-us]]]}.
 */
public final class HereProfile {
    private HereProfile() {
    }

    /**
     * @param args size iterations
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int size = args.length > 0 ? Integer.parseInt(args[0]) : 400;
        int iters = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        long gapNanos = args.length > 2 ? Long.parseLong(args[2]) * 1000 : 0;
        Path nodes = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-perf-hereprof");
        try (RankThreads<TwoLevelCheckpointer> ranks = new RankThreads<>(2, Duration.ofSeconds(90), "perf-rank",
                TwoLevelCheckpointer::open)) {
            List<TwoLevelCheckpointer> world = ranks.open("prof", 0,
                    r -> RankThreads.options(nodes, r, 1, null, 0, 1L << 30), r -> false, null, null);
            CyclicBarrier barrier = new CyclicBarrier(2);
            long[][] parts = new long[4][iters];
            ranks.parallel(rank -> {
                TwoLevelCheckpointer c = world.get(rank);
                byte[] data = new byte[rank == 0 ? size : 8];
                c.register("data", data);
                for (int i = -iters; i < iters; i++) {
                    if (rank == 0 && gapNanos > 0) {
                        java.util.concurrent.locks.LockSupport.parkNanos(gapNanos);
                    }
                    barrier.await(60, TimeUnit.SECONDS);
                    data[0]++;
                    c.here();
                    CkptStats.HereTimings t = c.stats().lastHere();
                    if (!c.awaitReplicated(Duration.ofSeconds(60))) {
                        throw new IllegalStateException("not replicated");
                    }
                    if (rank == 0 && i >= 0) {
                        parts[0][i] = t.waitNanos();
                        parts[1][i] = t.writeNanos();
                        parts[2][i] = t.handOffNanos();
                        parts[3][i] = t.totalNanos();
                    }
                }
                return null;
            });
            ranks.closeAll(world);
            String[] names = {"wait", "write", "hand-off", "total"};
            for (int k = 0; k < 4; k++) {
                long[] v = parts[k].clone();
                Arrays.sort(v);
                System.out.printf("%-9s p10 %7.2f us  median %7.2f us  p90 %7.2f us%n", names[k], v[iters / 10] / 1e3,
                        v[iters / 2] / 1e3, v[iters * 9 / 10] / 1e3);
            }
        } finally {
            io.jckpt.imem.ReplicaStore.wipe(nodes);
        }
    }
}
