package io.jckpt.imem;

import io.jckpt.testkit.Baselines;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * Benchmark (not a test): the same comparison as {@link ReplicationBenchmark}, with the receiving
 * side in a second JVM: raw loopback TCP (direct buffers, 1-byte ack) vs one ring round (n = 2,
 * m = 1, zero-copy send, rank 1 a child process checkpointing tiny images), interleaved in the same
 * run. The raw side is the test kit's {@link Baselines.TwoJvmPair} (a 4-byte length before each
 * message). In package io.jckpt.imem for imem's test-jar (RingRankMain) and the agent's hand-off
 * ({@code submit}). Args: size in MiB (default 64), iterations (default 21).
 * Usage: {@code bin/bench --main io.jckpt.imem.TwoJvmReplicationBenchmark 64 21}.
 */
public final class TwoJvmReplicationBenchmark {
    private TwoJvmReplicationBenchmark() {
    }

    private static Process child(String main, String... args) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String[] cmd = new String[4 + args.length];
        cmd[0] = java;
        cmd[1] = "-cp";
        cmd[2] = System.getProperty("java.class.path");
        cmd[3] = main;
        System.arraycopy(args, 0, cmd, 4, args.length);
        return new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    private static String line(BlockingQueue<String> q, String prefix) throws InterruptedException {
        for (;;) {
            String l = q.poll(30, TimeUnit.SECONDS);
            if (l == null) {
                throw new IllegalStateException("child did not print " + prefix);
            }
            if (l.startsWith(prefix)) {
                return l.substring(prefix.length());
            }
        }
    }

    /**
     * @param args size in MiB, iterations
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int size = (args.length > 0 ? Integer.parseInt(args[0]) : 64) << 20;
        int iters = args.length > 1 ? Integer.parseInt(args[1]) : 21;
        byte[] img = new byte[size];
        ThreadLocalRandom.current().nextBytes(img);
        Path root = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-bench2");
        JobSecret secret = JobSecret.random();
        Process rank1 = child(RingRankMain.class.getName(), root.resolve("rank-1").toString(), "1", "2", "1",
                secret.toHex(), "1", Integer.toString(size));
        try (ReplicaStore store = ReplicaStore.open(new ReplicaStoreConfig(root.resolve("rank-0"), 0, 2, 1, 2, size, 1L << 31));
             DataEndpoint ep = DataEndpoint.bindLoopback(0, secret);
             Baselines.TwoJvmPair raw = new Baselines.TwoJvmPair(size)) {
            int rank1Port = Integer.parseInt(line(ReplicaStoreTest.lines(rank1), "ADDR "));
            try (Writer w = new OutputStreamWriter(rank1.getOutputStream(), StandardCharsets.UTF_8)) {
                w.write("NEXT " + ep.address().getPort() + "\n");
            }
            RingLinks links = ep.joinRing(2, new InetSocketAddress(InetAddress.getLoopbackAddress(), rank1Port),
                    Duration.ofSeconds(30));
            double[] rawGbs = new double[iters];
            double[] ringGbs = new double[iters];
            try (ReplicationAgent agent = ReplicationAgent.start(store, links, Duration.ofSeconds(30), -1)) {
                for (int i = -3; i < iters; i++) {
                    long round = i + 4;
                    ReplicaWrite wr = agent.beginRound(round, size, Duration.ofSeconds(60));
                    wr.image().put(img);
                    wr.commit();
                    double a = 0;
                    double b = 0;
                    for (int k = 0; k < 2; k++) {
                        if ((i + k) % 2 == 0) {
                            a = size / (double) raw.transfer(size);
                        } else {
                            long t0 = System.nanoTime();
                            agent.submit(round);
                            if (!agent.awaitCompleted(round, Duration.ofSeconds(60))) {
                                throw new IllegalStateException("round " + round + " not replicated");
                            }
                            b = size / (double) (System.nanoTime() - t0);
                        }
                    }
                    if (i >= 0) {
                        rawGbs[i] = a;
                        ringGbs[i] = b;
                    }
                }
            }
            Arrays.sort(rawGbs);
            Arrays.sort(ringGbs);
            double r = rawGbs[iters / 2];
            double g = ringGbs[iters / 2];
            System.out.printf("%d MiB, two JVMs: raw TCP %.2f GB/s | ring round (transferTo) %.2f GB/s = %.0f%% of raw%n",
                    size >> 20, r, g, 100 * g / r);
        } finally {
            rank1.destroyForcibly();
            rank1.waitFor(10, TimeUnit.SECONDS);
            ReplicaStore.wipe(root);
        }
    }
}
