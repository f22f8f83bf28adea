package io.jckpt.imem;

import io.jckpt.spi.RingOrder;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.wire.CopyStatus;
import io.jckpt.wire.RankStatus;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Replication on a ring that is not the rank order (ranks as threads, real stores and sockets): the
 * copies go to the ring's successors, and a loss of ranks adjacent in rank order but not on the ring
 * is restored bit-identically. (On the rank order the same loss takes rank 0's only copy with rank 1:
 * two-level-policy's RingOrderRecoveryTest shows it.)
 */
class PermutedRingTest {
    private static final RingOrder SPREAD = RingOrder.of(0, 2, 4, 1, 3, 5);
    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jckpt-permuted-test");
    }

    @AfterEach
    void tearDown() throws IOException {
        ReplicaStore.wipe(root);
    }

    @Test
    void copiesFollowTheRingAndALossAdjacentInRankOrderRestores() throws Exception {
        int size = 40_000;
        try (TestRing ring = new TestRing(root.resolve("spread"), 6, 1, size + 1024, false, SPREAD)) {
            RollbackEndToEndTest.replicate(ring, 1, 3, size);
            // rank 0's copy is on rank 2 (its ring successor), not on rank 1
            assertTrue(ring.stores[2].holds(0));
            assertEquals(3, ring.stores[2].find(0, 3).round());
            assertFalse(ring.stores[1].holds(0));
            assertNull(ring.stores[1].find(0, 3));
            assertTrue(ring.stores[0].holds(5));
            RingReplicationTest.assertReplicated(ring, new long[] {2, 3}, size);

            // ranks 0 and 1 lost with their stores: each has its copy on its ring successor (2 and 3)
            List<RankStatus> statuses = new ArrayList<>();
            for (int r = 0; r < 6; r++) {
                statuses.add(Set.of(0, 1).contains(r) ? new RankStatus(r, true, List.of())
                        : ring.stores[r].rankStatus(false));
            }
            RollbackPlan onRing = RollbackPlanner.plan(statuses, SPREAD);
            assertTrue(onRing.recoverable(), onRing.toString());
            assertEquals(2, onRing.action(0).source());
            assertEquals(3, onRing.action(1).source());

            long r = RollbackEndToEndTest.recover(ring, Set.of(0, 1), true, size, 3);
            ring.startAgents(false, r);
            RollbackEndToEndTest.replicate(ring, r + 1, r + 1, size);
            RingReplicationTest.assertReplicated(ring, new long[] {r + 1}, size);
        }
    }

    @Test
    void sendersServeTheirTargetsNearestOnTheRingFirst() {
        // rank 1 holds the copies of ranks 4 (1 place before it on the ring) and 0 (3 places); both lost
        List<RankStatus> st = new ArrayList<>();
        for (int r = 0; r < 6; r++) {
            List<CopyStatus> copies = new ArrayList<>();
            if (r == 1) {
                copies.add(new CopyStatus(0, 7, 10, 1, true));
                copies.add(new CopyStatus(4, 7, 10, 1, true));
            }
            if (r != 0 && r != 4) {
                copies.add(new CopyStatus(r, 7, 10, 1, true));
            }
            st.add(new RankStatus(r, r == 0 || r == 4, copies));
        }
        assertEquals(List.of(0, 4), RollbackPlanner.plan(st).sendsTo(1)); // rank order: 0 is nearer
        RollbackPlan p = RollbackPlanner.plan(st, SPREAD);
        assertTrue(p.recoverable(), p.toString());
        assertEquals(List.of(4, 0), p.sendsTo(1));
        assertEquals(1, p.action(0).source());
        assertEquals(1, p.action(4).source());
    }
}
