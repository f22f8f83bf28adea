package io.jckpt.perf;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import io.jckpt.policy.TwoLevelCheckpointer;
import io.jckpt.testkit.Baselines;
import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import mpi.MPI;

/**
 * A launched program (2 ranks, {@code bin/ckpt-run}) for section 12: rank 0 checkpoints {@code size}
 * bytes, rank 1 eight bytes, m = 1, so each round moves rank 0's image to rank 1 (on another host when
 * the job runs across hosts). Interleaved per iteration, on rank 0: one raw TCP transfer of the same
 * bytes to a {@link io.jckpt.testkit.TcpPeerMain} at {@code --peer} (the test kit's two-JVM baseline,
 * listening on rank 1's host), before or after the round in turn; the round is here() then the wait until
 * it is replicated ({@code awaitReplicated}); then one CRC32C pass and one HMAC-SHA256 pass over the same bytes off-heap (the work
 * each end of a copy adds to a raw transfer). Rank 0 prints {@code sample tcp=NANOS replication=NANOS
 * crc=NANOS (x) mac=NANOS} per measured iteration, the replication time being the agent's own
 * ({@code CkptStats.lastReplicationNanos}, as section 3 reads it).
 *
 * <pre>
 * HostReplication --size BYTES --iterations N --warmup W --peer HOST:PORT
 * </pre>
 */
public final class HostReplication {
    private static final Duration BOUND = Duration.ofSeconds(120);

    private HostReplication() {
    }

    /**
     * @param args see the class comment
     * @throws Exception when MPI, the checkpoint or the raw transfer fails
     */
    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int size = 0;
        int iterations = 0;
        int warmup = 0;
        String peer = null;
        for (int i = 0; i + 1 < appArgs.length; i += 2) {
            String v = appArgs[i + 1];
            switch (appArgs[i]) {
                case "--size" -> size = Integer.parseInt(v);
                case "--iterations" -> iterations = Integer.parseInt(v);
                case "--warmup" -> warmup = Integer.parseInt(v);
                case "--peer" -> peer = v;
                default -> throw new IllegalArgumentException("unknown option " + appArgs[i]);
            }
        }
        if (size <= 0 || iterations <= 0 || peer == null || !peer.contains(":")) {
            throw new IllegalArgumentException("HostReplication needs --size BYTES --iterations N --peer HOST:PORT");
        }
        int rank = MPI.COMM_WORLD.Rank();
        TwoLevelCheckpointer c = (TwoLevelCheckpointer) Ckpt.open(CkptOptions.builder().replicas(1).build());
        byte[] data = new byte[rank == 0 ? size : 8];
        ThreadLocalRandom.current().nextBytes(data);
        Ckpt.register("data", data);
        int colon = peer.lastIndexOf(':');
        java.nio.ByteBuffer offHeap = java.nio.ByteBuffer.allocateDirect(data.length).put(data).flip();
        java.util.zip.CRC32C crc32c = new java.util.zip.CRC32C();
        javax.crypto.Mac hmac = javax.crypto.Mac.getInstance("HmacSHA256"); // the image MAC's algorithm (ImageMac)
        hmac.init(new javax.crypto.spec.SecretKeySpec(io.jckpt.image.ImageKey.newJobKey(), "HmacSHA256"));
        try (Baselines.TwoJvmPair raw = rank == 0 ? Baselines.TwoJvmPair.connect(
                new InetSocketAddress(peer.substring(0, colon), Integer.parseInt(peer.substring(colon + 1))), size) : null) {
            for (int i = -warmup; i < iterations; i++) {
                MPI.COMM_WORLD.Barrier();
                long tcp = raw != null && (i & 1) == 0 ? raw.transfer(size) : 0;
                data[i & 7] ^= 1; // the program changed its data since the last round
                c.here();
                if (!c.awaitReplicated(BOUND)) {
                    throw new IllegalStateException("rank " + rank + ": round " + c.round() + " not replicated within "
                            + BOUND.toSeconds() + " s");
                }
                if (raw != null && (i & 1) != 0) {
                    tcp = raw.transfer(size);
                }
                long crc = 0;
                if (raw != null) {
                    long start = System.nanoTime();
                    crc32c.reset();
                    crc32c.update(offHeap.duplicate());
                    crc = System.nanoTime() - start;
                }
                long mac = 0;
                if (raw != null) {
                    long start = System.nanoTime();
                    hmac.update(offHeap.duplicate());
                    byte[] tag = hmac.doFinal();
                    mac = System.nanoTime() - start + (tag[0] & 0); // keeps the tag
                }
                if (raw != null && i >= 0) {
                    System.out.printf(Locale.ROOT, "sample tcp=%d replication=%d crc=%d (%x) mac=%d%n", tcp,
                            c.stats().lastReplicationNanos(), crc, crc32c.getValue() & 0xF, mac);
                }
            }
        }
        Ckpt.close();
        MPI.Finalize();
    }
}
