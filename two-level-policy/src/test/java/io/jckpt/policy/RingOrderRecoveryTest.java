package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptException;
import io.jckpt.NotRecoverableException;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.spi.RingOrder;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The replication ring as the launcher gives it ({@code RankContext.ring()}), ranks as threads with real
 * stores and sockets: on the ring 0,2,4,1,3,5 with m = 1, ranks 0 and 1 (adjacent in rank order, not
 * on the ring) lost with their node-local stores are restored from memory bit-identically; the same
 * loss on the rank-order ring takes rank 0's only copy with rank 1. The ring is recorded in the
 * stores' layout descriptors: a recovery on another ring fails naming both. {@code CkptStats.placement()}
 * says where each rank's copies are (ranks and the hosts their endpoints bind) and what the ring survives.
 */
class RingOrderRecoveryTest {
    private static final int N = 6;
    private static final int ROUNDS = 3;
    private static final RingOrder SPREAD = RingOrder.parse("0,2,4,1,3,5");

    @TempDir
    Path tmp;

    @Test
    void lossAdjacentInRankOrderRestoresFromMemoryOnASpreadRing() throws Exception {
        Path nodes = tmp.resolve("nodes");
        run(nodes, "spread", SPREAD);
        // rank 0's copy went to its ring successor, rank 2; rank 1 holds rank 4's
        assertTrue(slotFiles(nodes, 2).contains("o0-v0.slot"), slotFiles(nodes, 2).toString());
        assertFalse(slotFiles(nodes, 1).contains("o0-v0.slot"), slotFiles(nodes, 1).toString());
        assertTrue(slotFiles(nodes, 1).contains("o4-v0.slot"), slotFiles(nodes, 1).toString());
        ReplicaStore.wipe(nodes.resolve("node-0"));
        ReplicaStore.wipe(nodes.resolve("node-1"));
        List<TwoLevelCheckpointer> world1 = RankGroup.open(N, "spread", 1, r -> RankGroup.options(nodes, r, 1, null, 0),
                r -> r == 0 || r == 1, SPREAD);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            assertTrue(c.isRecovery(), "rank " + rank);
            assertEquals(SPREAD, c.context().ring());
            double[] g = new double[TwoLevelCheckpointerTest.grid(rank, 0).length];
            c.rollback("grid", g);
            assertArrayEquals(bits(TwoLevelCheckpointerTest.grid(rank, ROUNDS)), bits(g), "rank " + rank);
            assertEquals(ROUNDS, c.round());
            if (rank == 0 || rank == 1) {
                assertTrue(c.restoredFrom().contains("RECEIVE"), "rank " + rank + ": " + c.restoredFrom());
            } else {
                assertTrue(c.restoredFrom().contains("LOCAL"), "rank " + rank + ": " + c.restoredFrom());
            }
            c.here(); // the job goes on: the next round replicates on the same ring
            assertTrue(c.awaitReplicated(Duration.ofSeconds(30)));
            return null;
        });
        RankGroup.closeAll(world1);
    }

    @Test
    void theSameLossOnTheRankOrderRingCannotBeRestored() throws Exception {
        Path nodes = tmp.resolve("nodes");
        run(nodes, "rankorder", null);
        ReplicaStore.wipe(nodes.resolve("node-0"));
        ReplicaStore.wipe(nodes.resolve("node-1"));
        Exception e = assertThrows(Exception.class, () -> RankGroup.open(N, "rankorder", 1,
                r -> RankGroup.options(nodes, r, 1, null, 0), r -> r == 0 || r == 1, RingOrder.identity(N)));
        assertTrue(e instanceof NotRecoverableException, e.toString());
        assertTrue(e.getMessage().contains("cannot be restored") && e.getMessage().contains("rank 0"), e.getMessage());
    }

    @Test
    void aRecoveryOnAnotherRingFailsNamingBoth() throws Exception {
        Path nodes = tmp.resolve("nodes");
        run(nodes, "changed", SPREAD);
        // a restart of the whole job (every store survives, so every rank finds the other ring at once)
        Exception e = assertThrows(Exception.class, () -> RankGroup.open(N, "changed", 1,
                r -> RankGroup.options(nodes, r, 1, null, 0), r -> false, RingOrder.identity(N)));
        assertTrue(e instanceof CkptException, e.toString());
        assertTrue(e.getMessage().contains("0,2,4,1,3,5") && e.getMessage().contains("0,1,2,3,4,5")
                && e.getMessage().contains("ring"), e.getMessage());
        // the surviving stores are kept (not misread, not deleted): the job can recover on its own ring
        assertTrue(slotFiles(nodes, 2).contains("o0-v0.slot"), slotFiles(nodes, 2).toString());
    }

    @Test
    void statsSayWhereEachRanksCopiesAreAndHowManyHostLossesTheJobSurvives() throws Exception {
        Path nodes = tmp.resolve("nodes");
        // ranks 0,1,2 on "host" 127.0.1.1, ranks 3,4,5 on 127.0.1.2 (each rank's endpoint binds its host)
        java.util.function.IntFunction<String> host = r -> r < 3 ? "127.0.1.1" : "127.0.1.2";
        RingOrder alternating = RingOrder.parse("0,3,1,4,2,5");
        for (RingOrder ring : new RingOrder[] {alternating, RingOrder.identity(N)}) {
            String job = ring == alternating ? "placed" : "rankorder-placed";
            List<TwoLevelCheckpointer> world = RankGroup.open(N, job, 0, r -> RankGroup.options(nodes, r, 1, null, 0),
                    r -> false, ring, host);
            RankGroup.parallel(N, rank -> {
                TwoLevelCheckpointer c = world.get(rank);
                c.register("grid", TwoLevelCheckpointerTest.grid(rank, 1));
                c.here();
                assertTrue(c.awaitReplicated(Duration.ofSeconds(30)));
                io.jckpt.CkptStats.Placement p = c.stats().placement();
                int holder = ring.successor(rank, 1);
                assertEquals(List.of(holder), p.holders(), "rank " + rank);
                assertEquals(List.of(host.apply(holder)), p.holderHosts(), "rank " + rank);
                assertEquals(host.apply(rank), p.host(), "rank " + rank);
                // alternating: every copy on the other host (one host may go); rank order: 0's copy on 1, same host
                assertEquals(ring == alternating ? 1 : 0, p.hostLossesSurvived(), "rank " + rank + ": " + p.describe());
                assertTrue(c.stats().toString().contains("copies: on ranks " + holder + " (" + host.apply(holder) + ")"),
                        c.stats().toString());
                return null;
            });
            RankGroup.closeAll(world);
        }
    }

    @Test
    void theDescriptorRecordsTheRingAndAnOldOneMeansRankOrder() {
        StoreLayout l = new StoreLayout(4, 1, 2, 8192, 2);
        RingOrder ring = RingOrder.of(0, 2, 4, 1, 3, 5);
        StoreLayoutDescriptor.Decoded d = StoreLayoutDescriptor.decode(StoreLayoutDescriptor.encode(l, ring), 6);
        assertEquals(l, d.layout());
        assertEquals(ring, d.ring());
        // version 1, as written before the ring was recorded
        ByteBuffer b = ByteBuffer.allocate(40).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(0, StoreLayoutDescriptor.MAGIC).putInt(4, 1).putLong(8, 4).putInt(16, 1).putInt(20, 2)
                .putLong(24, 8192).putInt(32, 2);
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, 36);
        b.putInt(36, (int) crc.getValue());
        d = StoreLayoutDescriptor.decode(b.array(), 6);
        assertEquals(l, d.layout());
        assertEquals(RingOrder.identity(6), d.ring());
        byte[] bad = StoreLayoutDescriptor.encode(l, ring);
        bad[44] ^= 1; // a rank of the ring
        assertTrue(assertThrows(IllegalArgumentException.class, () -> StoreLayoutDescriptor.decode(bad, 6)).getMessage()
                .contains("CRC32C"));
    }

    /** N ranks, ROUNDS rounds of grid(rank, k) on {@code ring} (null: the identity), replicated, then closed. */
    private static void run(Path nodes, String job, RingOrder ring) throws Exception {
        List<TwoLevelCheckpointer> world = RankGroup.open(N, job, 0, r -> RankGroup.options(nodes, r, 1, null, 0),
                r -> false, ring);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            double[] g = TwoLevelCheckpointerTest.grid(rank, 0);
            c.register("grid", g);
            for (int k = 1; k <= ROUNDS; k++) {
                System.arraycopy(TwoLevelCheckpointerTest.grid(rank, k), 0, g, 0, g.length);
                c.here();
            }
            assertTrue(c.awaitReplicated(Duration.ofSeconds(30)));
            return null;
        });
        RankGroup.closeAll(world);
    }

    /** The slot file names in a node's layout directories. */
    private static Set<String> slotFiles(Path nodes, int rank) throws Exception {
        try (var walk = Files.walk(nodes.resolve("node-" + rank))) {
            return walk.map(p -> p.getFileName().toString()).filter(f -> f.endsWith(".slot"))
                    .collect(java.util.stream.Collectors.toSet());
        }
    }

    private static long[] bits(double[] values) {
        long[] b = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = Double.doubleToRawLongBits(values[i]);
        }
        return b;
    }
}
