package io.jckpt.imem;

import io.jckpt.testkit.Baselines;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Benchmark (not a test): time here() blocks the caller (beginRound + copy + commit) vs a plain copy
 * of the same bytes into a pre-touched direct buffer, in the same run; with the CRC32C on the caller
 * ({@code commitRound}) and on the agent thread ({@code commitRoundInBackground}). Replication of the
 * previous round is awaited, untimed, between iterations. Args: iterations for the large sizes (default 21; 100x
 * that, after as many warm-up calls, for the small ones). In package io.jckpt.imem for imem's test ring
 * (its test-jar). Usage: {@code bin/bench --main io.jckpt.imem.HereBenchmark [iterations]}.
 */
public final class HereBenchmark {
    private HereBenchmark() {
    }

    /**
     * @param args iterations
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int iters = args.length > 0 ? Integer.parseInt(args[0]) : 21;
        int[] sizes = {400, 40_000, 4 << 20, 64 << 20};
        Path root = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-here-bench");
        try {
            System.out.println("    size | plain copy | here() CRC on caller | ratio | here() CRC in background | ratio");
            for (int size : sizes) {
                byte[] img = new byte[size];
                ThreadLocalRandom.current().nextBytes(img);
                ByteBuffer plain = Baselines.pretouched(size);
                int n = size <= 40_000 ? iters * 100 : iters; // small sizes: enough calls for the JIT
                int warmup = size <= 40_000 ? n : 3;
                long[] copy = new long[n];
                long[] caller = new long[n];
                long[] bg = new long[n];
                try (TestRing ring = new TestRing(root.resolve("s" + size), 2, 1, size, false)) {
                    long round = 0;
                    for (int i = -warmup; i < n; i++) {
                        long c = Baselines.copy(img, plain);
                        long[] here = new long[2];
                        for (int k = 0; k < 2; k++) {
                            round++;
                            ring.here(1, round, new byte[1], Duration.ofSeconds(30));
                            long t0 = System.nanoTime();
                            ReplicaWrite w = ring.agents[0].beginRound(round, size, Duration.ofSeconds(30));
                            w.image().put(img);
                            if (k == 0) {
                                ring.agents[0].commitRound(w);
                            } else {
                                ring.agents[0].commitRoundInBackground(w);
                            }
                            here[k] = System.nanoTime() - t0;
                            ring.agents[0].awaitGloballyCompleted(round, Duration.ofSeconds(30));
                        }
                        if (i >= 0) {
                            copy[i] = c;
                            caller[i] = here[0];
                            bg[i] = here[1];
                        }
                    }
                }
                long mc = median(copy);
                long ma = median(caller);
                long mb = median(bg);
                System.out.printf("%8d | %8.1f us | %17.1f us | %4.2fx | %21.1f us | %4.2fx%n", size, mc / 1e3, ma / 1e3,
                        ma / (double) mc, mb / 1e3, mb / (double) mc);
            }
        } finally {
            ReplicaStore.wipe(root);
        }
    }

    private static long median(long[] v) {
        long[] c = v.clone();
        Arrays.sort(c);
        return c[c.length / 2];
    }
}
