package io.jckpt.imem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.spi.Collective;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankCollective;
import io.jckpt.wire.CopyStatus;
import io.jckpt.wire.RankStatus;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Replicate rounds, lose ranks (and their stores), exchange status, plan, transfer, compare. */
class RollbackEndToEndTest {
    /** The collective of the tests' recovery steps. */
    private static final Collective TEST = Collective.of(Collective.Kind.TEST);

    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jckpt-e2e-test");
    }

    @AfterEach
    void tearDown() throws IOException {
        ReplicaStore.wipe(root);
    }

    static void replicate(TestRing ring, long from, long to, int size) throws Exception {
        for (long round = from; round <= to; round++) {
            for (int r = 0; r < ring.n; r++) {
                ring.here(r, round, RingReplicationTest.image(r, round, size), Duration.ofSeconds(20));
            }
        }
        for (ReplicationAgent a : ring.agents) {
            assertTrue(a.awaitGloballyCompleted(to, Duration.ofSeconds(20)));
        }
    }

    /** Kills the agents, loses the given ranks (store wiped if asked), runs the rollback on every rank. */
    static long recover(TestRing ring, Set<Integer> failed, boolean wiped, int size, long expectRound) throws Exception {
        for (ReplicationAgent a : ring.agents) {
            a.close();
        }
        for (int r : failed) {
            ring.stores[r].close();
            ring.endpoints[r].close();
            if (wiped) {
                ReplicaStore.wipe(ring.root.resolve("rank-" + r));
            }
            ring.stores[r] = ReplicaStore.open(ring.config(r, size + 1024));
            ring.endpoints[r] = DataEndpoint.bindLoopback(r, ring.secret);
        }
        // status exchange, plan and transfers, every rank on its own thread, as in a real job
        List<LocalRankCollective> exchange = LocalRankCollective.group(ring.n);
        ExecutorService pool = TestRing.pool("jckpt-test-rollback", ring.n);
        List<Future<byte[]>> restored = new ArrayList<>();
        try {
            for (int r = 0; r < ring.n; r++) {
                final int rank = r;
                restored.add(pool.submit(() -> {
                    RankCollective ex = exchange.get(rank);
                    RollbackPlan plan = ImemRecovery.plan(ex, TEST, ring.stores[rank], failed.contains(rank),
                            Duration.ofSeconds(10));
                    assertTrue(plan.recoverable(), plan.toString());
                    InetSocketAddress[] addresses = ImemRecovery.addresses(ex, TEST, ring.endpoints[rank],
                            Duration.ofSeconds(10));
                    ReplicaSlot slot = ImemRecovery.restore(plan, ring.stores[rank], ring.endpoints[rank], addresses,
                            Duration.ofSeconds(20));
                    assertEquals(plan.round(), slot.round());
                    return RingReplicationTest.read(slot);
                }));
            }
            for (int r = 0; r < ring.n; r++) {
                assertArrayEquals(RingReplicationTest.image(r, expectRound, size), TestRing.get(restored.get(r)),
                        "rank " + r + " restored data differs");
            }
        } finally {
            pool.shutdownNow();
        }
        return expectRound;
    }

    @Test
    void wipeUpToMRanksPlanTransferAndCompare() throws Exception {
        int size = 50_000;
        int[][] cases = {{5, 2, 1, 2}, {5, 2, 4, 0}, {4, 3, 0, 1, 2}, {3, 1, 2}, {6, 3, 5, 0, 1}};
        for (int[] c : cases) {
            int n = c[0];
            int m = c[1];
            Set<Integer> failed = new java.util.HashSet<>();
            for (int i = 2; i < c.length; i++) {
                failed.add(c[i]);
            }
            try (TestRing ring = new TestRing(root.resolve("e2e-" + n + "-" + m + "-" + failed), n, m, size + 1024, false)) {
                replicate(ring, 1, 3, size);
                long r = recover(ring, failed, true, size, 3);
                // the job continues: a fresh ring from the restored round, one more round replicates everywhere
                ring.startAgents(false, r);
                replicate(ring, r + 1, r + 1, size);
                RingReplicationTest.assertReplicated(ring, new long[] {r + 1}, size);
            }
        }
    }

    /**
     * A failure at a random moment interrupts the replication in flight on every rank: here rank 2's
     * round 4 never reached its holder, rank 3, when rank 0's process died. The recovery restores round
     * 4 (every own copy survived) and must refill that copy; then rank 2's node is lost while the next
     * round is only copied locally: round 4 at rank 3 is all that can bring rank 2 back. Without the
     * refill no round is restorable (the CI failure of StandbyHostsLaunchTest on 2026-11-26).
     */
    @Test
    void aCopyTheFailureInterruptedIsRefilledSoTheNextNodeLossIsRecoverable() throws Exception {
        int size = 40_000;
        try (TestRing ring = new TestRing(root.resolve("refill"), 4, 1, size + 1024, false)) {
            replicate(ring, 1, 3, size);
            for (ReplicationAgent a : ring.agents) {
                a.close();
            }
            writeRound(ring, 4, size, Set.of(2));
            assertNull(ring.stores[3].find(2, 4));
            recover(ring, Set.of(0), false, size, 4); // rank 0's process died, its node-local store survived
            RingReplicationTest.assertReplicated(ring, new long[] {4}, size);

            writeRound(ring, 5, size, Set.of(0, 1, 2, 3)); // round 5 copied locally only, then rank 2's node is lost
            recover(ring, Set.of(2), true, size, 4);
            // rank 2 came back empty: it holds rank 1's copy again (refilled from rank 1), rank 3 still holds its own
            RingReplicationTest.assertReplicated(ring, new long[] {4}, size);
        }
    }

    /** Writes round {@code round} into the stores directly: every own copy, and the replicas of all owners but {@code unreplicated}. */
    private static void writeRound(TestRing ring, long round, int size, Set<Integer> unreplicated) {
        for (int o = 0; o < ring.n; o++) {
            for (int d = 0; d <= (unreplicated.contains(o) ? 0 : ring.m); d++) {
                byte[] image = RingReplicationTest.image(o, round, size);
                ReplicaWrite w = ring.stores[ring.ring.successor(o, d)].beginWrite(o, round, image.length);
                TestRing.fill(w, image);
                w.commit();
            }
        }
    }

    @Test
    void processDeathWithSurvivingStoreRestoresLocally() throws Exception {
        int size = 30_000;
        try (TestRing ring = new TestRing(root.resolve("keep"), 4, 1, size + 1024, true)) {
            replicate(ring, 1, 2, size);
            recover(ring, Set.of(1, 2), false, size, 2); // two adjacent failures > m, but the stores survived
        }
    }

    @Test
    void corruptReplicaFallsBackToThePreviousRound() throws Exception {
        int size = 20_000;
        try (TestRing ring = new TestRing(root.resolve("corrupt"), 3, 1, size + 1024, false)) {
            replicate(ring, 1, 2, size);
            // rank 2's copy of rank 1's round 2 gets a flipped byte; then rank 1 is lost with its store
            Path slot = ring.stores[2].find(1, 2).path();
            try (RandomAccessFile f = new RandomAccessFile(slot.toFile(), "rw")) {
                f.seek(ReplicaSlotDescriptor.HEADER_LENGTH + 99);
                int b = f.read();
                f.seek(ReplicaSlotDescriptor.HEADER_LENGTH + 99);
                f.write(b ^ 0x40);
            }
            recover(ring, Set.of(1), true, size, 1);
        }
    }

    @Test
    void receiverWithoutSenderFailsWithinTheBound() throws Exception {
        Path dir = root.resolve("lonely");
        ReplicaStoreConfig cfg = new ReplicaStoreConfig(dir, 0, 2, 1, 2, 1024, 1 << 20);
        JobSecret secret = JobSecret.random();
        try (ReplicaStore store = ReplicaStore.open(cfg); DataEndpoint ep = DataEndpoint.bindLoopback(0, secret)) {
            List<RankStatus> st = List.of(new RankStatus(0, true, List.of()),
                    new RankStatus(1, false, List.of(new CopyStatus(0, 5, 10, 1, true), new CopyStatus(1, 5, 10, 2, true))));
            RollbackPlan plan = RollbackPlanner.plan(st);
            assertEquals(List.of(0), plan.sendsTo(1));
            long t0 = System.nanoTime();
            ReplicationException e = assertThrows(ReplicationException.class, () -> RollbackTransfer.execute(plan, store, ep,
                    new InetSocketAddress[] {ep.address(), ep.address()}, Duration.ofSeconds(1)));
            assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
            assertTrue(e.getMessage().contains("rank 0"), e.getMessage());
            assertFalse(store.verifiedCopies().stream().anyMatch(c -> c.owner() == 0));
        }
    }
}
