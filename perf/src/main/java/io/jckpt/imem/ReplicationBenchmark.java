package io.jckpt.imem;

import io.jckpt.testkit.Baselines;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Benchmark (not a test): one rank's round replicated to its next rank (n = 2, m = 1, only rank 0
 * checkpoints) vs raw loopback TCP moving the same bytes between two threads with a 1-byte ack,
 * and vs the same between /dev/shm mappings with the source rewritten before each transfer (as here() does),
 * interleaved in the same run (rank 1 checkpoints 1 byte per round so that rounds complete globally). Prints medians and the ratio. Args: sizes in MiB (default 4 64),
 * iterations (default 15). The raw transfers are the test kit's {@link Baselines.ThreadPair}; in package
 * io.jckpt.imem for imem's test ring (its test-jar) and the agent's hand-off ({@code submit}).
 * Usage: {@code bin/bench --main io.jckpt.imem.ReplicationBenchmark 4 64 x 15}.
 */
public final class ReplicationBenchmark {
    private ReplicationBenchmark() {
    }

    /**
     * @param args sizes in MiB..., then iterations after "x" (e.g. {@code 4 64 x 15})
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int[] sizes = {4, 64};
        int iters = 15;
        if (args.length > 0) {
            int x = Arrays.asList(args).indexOf("x");
            sizes = Arrays.stream(args, 0, x < 0 ? args.length : x).mapToInt(Integer::parseInt).toArray();
            if (x >= 0) {
                iters = Integer.parseInt(args[x + 1]);
            }
        }
        Path root = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-bench");
        try {
            for (int mib : sizes) {
                int size = mib << 20;
                byte[] img = new byte[size];
                ThreadLocalRandom.current().nextBytes(img);
                double[] raw = new double[iters];
                double[] ring = new double[iters];
                double[] zc = new double[iters];
                double[] rawMapped = new double[iters];
                long[] cycles = new long[2];
                Files.createDirectories(root.resolve("raw" + mib));
                try (Baselines.ThreadPair pair = new Baselines.ThreadPair(size);
                     Baselines.ThreadPair mappedPair = new Baselines.ThreadPair(size, root.resolve("raw" + mib));
                     TestRing r1 = new TestRing(root.resolve("buf" + mib), 2, 1, size, false);
                     TestRing r2 = new TestRing(root.resolve("zc" + mib), 2, 1, size, true)) {
                    long c0 = r1.agents[0].counters().dutyCycles();
                    long c1 = r1.agents[1].counters().dutyCycles();
                    for (int i = -3; i < iters; i++) { // 3 warm-up rounds
                        // rotate the order each iteration so drift and neighbours' load hit every variant alike
                        double a = 0;
                        double b = 0;
                        double c = 0;
                        double d = 0;
                        for (int k = 0; k < 4; k++) {
                            switch ((i + 3 + k) % 4) {
                                case 0 -> a = size / (double) pair.transfer(size);
                                case 1 -> d = size / (double) mappedPair.transfer(img);
                                case 2 -> b = round(r1, i + 4, img);
                                default -> c = round(r2, i + 4, img);
                            }
                        }
                        if (i >= 0) {
                            raw[i] = a;
                            ring[i] = b;
                            zc[i] = c;
                            rawMapped[i] = d;
                        }
                    }
                    cycles[0] = r1.agents[0].counters().dutyCycles() - c0;
                    cycles[1] = r1.agents[1].counters().dutyCycles() - c1;
                }
                double rawMed = median(raw);
                double ringMed = median(ring);
                double zcMed = median(zc);
                double rmMed = median(rawMapped);
                System.out.printf("duty cycles per round: sender %d, receiver %d%n",
                        cycles[0] / (iters + 3), cycles[1] / (iters + 3));
                System.out.printf("%3d MiB: raw TCP %.2f GB/s | raw TCP between /dev/shm mappings, source refreshed %.2f GB/s | ring (write from mapping) %.2f GB/s = %.0f%% | "
                                + "ring (transferTo) %.2f GB/s = %.0f%%%n", mib, rawMed, rmMed, ringMed, 100 * ringMed / rawMed,
                        zcMed, 100 * zcMed / rawMed);
            }
        } finally {
            ReplicaStore.wipe(root);
        }
    }

    private static double median(double[] v) {
        double[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }

    /** @return GB/s from commit to the ack of the single holder */
    private static double round(TestRing ring, long round, byte[] img) throws Exception {
        ring.here(1, round, new byte[1], Duration.ofSeconds(30)); // rank 1 checkpoints a tiny image
        ReplicaWrite w = ring.agents[0].beginRound(round, img.length, Duration.ofSeconds(30));
        w.image().put(img);
        w.commit();
        // the local copy (here()) is not part of the replication time: start the clock at the hand-off
        long t0 = System.nanoTime();
        ring.agents[0].submit(round);
        if (!ring.agents[0].awaitCompleted(round, Duration.ofSeconds(60))) {
            throw new IllegalStateException("round " + round + " not replicated");
        }
        return img.length / (double) (System.nanoTime() - t0);
    }
}
