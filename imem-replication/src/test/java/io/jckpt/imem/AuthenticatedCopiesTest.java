package io.jckpt.imem;

import static io.jckpt.imem.CheckpointImages.KEY;
import static io.jckpt.imem.CheckpointImages.OTHER;
import static io.jckpt.imem.ReplicationFrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.image.CheckpointImageDescriptor;
import io.jckpt.image.ImageKey;
import io.jckpt.spi.Collective;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RingOrder;
import io.jckpt.wire.CopyStatus;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Copies are authenticated with the job's key before they are trusted, at each place a copy lives:
 * a rank's own copy in its node-local slot (sealed in the background, re-verified at reopen), a replica
 * received in a DATA frame, a rollback transfer to a replacement rank. One byte altered (its CRC32C
 * kept, as an attacker keeps it), an image of another job's key, or another round's image in a slot
 * is refused by name and never handed out; the plan falls back to the previous round, as for a damaged
 * copy.
 */
class AuthenticatedCopiesTest {
    private static final Collective TEST = Collective.of(Collective.Kind.TEST);
    private static final int PAYLOAD = 50_000;
    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jckpt-auth-test");
    }

    @AfterEach
    void tearDown() throws IOException {
        ReplicaStore.wipe(root);
    }

    private ReplicaStoreConfig alone(ImageKey key) {
        return new ReplicaStoreConfig(root.resolve("rank-0"), 0, 1, 0, 2, 1 << 17, 1L << 30).withImageKey(key);
    }

    private static void writeOwn(ReplicaStore store, long round, ImageKey key) throws InterruptedException {
        byte[] image = CheckpointImages.image(0, round, PAYLOAD, key, false);
        ReplicaWrite w = store.beginWrite(0, round, image.length);
        TestRing.fill(w, image);
        store.commitInBackground(w); // the m = 0 path: sealed off the caller's thread
        assertTrue(w.awaitCommitted(Duration.ofSeconds(10)));
        assertTrue(store.awaitCommitted(Duration.ofSeconds(10)));
    }

    private Path slotFileOf(ReplicaStore store, long round) {
        return store.find(0, round).path();
    }

    /** Reopens the store; returns what it now trusts of rank 0's round 2, after checking round 1 stays. */
    private String refusedAtReopen() throws IOException {
        try (ReplicaStore store = ReplicaStore.open(alone(KEY), ReplicaStore.Verification.NEWEST_PER_OWNER)) {
            ReplicaSlot newest = store.newestComplete(0);
            assertNotNull(newest);
            assertEquals(1, newest.round(), "the newest copy it trusts is the previous round's");
            assertNull(store.find(0, 2), "an untrusted copy was handed out");
            List<CopyStatus> copies = store.copiesVerifiedSoFar();
            assertTrue(copies.stream().anyMatch(c -> c.round() == 2 && !c.intact()), copies.toString());
            assertTrue(copies.stream().anyMatch(c -> c.round() == 1 && c.intact()), copies.toString());
            return store.rankStatus(false, false).copies().toString() + " / " + problemOfRound(store, 2);
        }
    }

    private static String problemOfRound(ReplicaStore store, long round) {
        for (CopyStatus c : store.copiesVerifiedSoFar()) {
            if (c.round() == round && !c.intact()) {
                return store.slotOf(c.owner(), c.round()).problem();
            }
        }
        return null;
    }

    @Test
    void anOwnCopyAlteredOrNotThisJobsIsNeverTrustedAtReopen() throws Exception {
        Path round2;
        byte[] good;
        try (ReplicaStore store = ReplicaStore.open(alone(KEY))) {
            writeOwn(store, 1, KEY);
            writeOwn(store, 2, KEY);
            ReplicaSlot s = store.newestComplete(0);
            assertEquals(2, s.round());
            assertTrue(s.verified(), "sealed here: trusted without a second read");
            assertTrue(s.verify(), s.problem());
            round2 = slotFileOf(store, 2);
        }
        good = CheckpointImages.readSlotImage(round2);
        int payload = good.length - CheckpointImageDescriptor.MAC_LENGTH - 8 - PAYLOAD / 2;
        // one byte of the header, the payload, the MAC altered, the slot's CRCs made to fit (as any process of
        // the same user could): only the MAC tells
        for (int at : new int[] {CheckpointImageDescriptor.TIMESTAMP_OFFSET, payload, good.length - 1}) {
            byte[] altered = good.clone();
            altered[at] ^= 0x10;
            CheckpointImages.writeSlot(round2, 0, 2, altered);
            String why = refusedAtReopen();
            assertTrue(why.contains("refused before it is read: its MAC does not match its bytes: it was altered after it"
                    + " was written (key id " + KEY.idHex() + ")"), "byte " + at + ": " + why);
        }
        // a sound image of another job (its key) in the slot
        CheckpointImages.writeSlot(round2, 0, 2, CheckpointImages.image(0, 2, PAYLOAD, OTHER, true));
        String why = refusedAtReopen();
        assertTrue(why.contains("it was written with another key (key id " + OTHER.idHex() + "; this job's key is "
                + KEY.idHex() + "): not this job's checkpoint"), why);
        // this job's own, authentic, image of round 1 put where round 2 is said to be
        CheckpointImages.writeSlot(round2, 0, 2, CheckpointImages.image(0, 1, PAYLOAD, KEY, true));
        why = refusedAtReopen();
        assertTrue(why.contains("it is rank 0's image of round 1") && why.contains("not rank 0's image of round 2"), why);
        // the format before images carried a MAC
        byte[] v1 = good.clone();
        v1[CheckpointImageDescriptor.VERSION_OFFSET] = 1;
        v1[CheckpointImageDescriptor.VERSION_OFFSET + 1] = 0;
        CheckpointImages.writeSlot(round2, 0, 2, v1);
        why = refusedAtReopen();
        assertTrue(why.contains("format version 1 was written by an earlier jckpt, before checkpoints carried a MAC"), why);
        // and the sound copy again: trusted
        CheckpointImages.writeSlot(round2, 0, 2, good);
        try (ReplicaStore store = ReplicaStore.open(alone(KEY))) {
            assertEquals(2, store.newestComplete(0).round());
            assertArrayEquals(good, RingReplicationTest.read(store.find(0, 2)));
        }
    }

    @Test
    void aStoreWithoutKeyKeepsOpaqueImagesAndCommitsAtClose() throws Exception {
        try (ReplicaStore store = ReplicaStore.open(alone(null))) {
            byte[] bytes = RingReplicationTest.image(0, 1, 1000);
            ReplicaWrite w = store.beginWrite(0, 1, bytes.length);
            TestRing.fill(w, bytes);
            store.commitInBackground(w);
            store.close(); // what was handed over is complete in memory: committed before the store closes
            assertTrue(w.committed());
        }
        try (ReplicaStore store = ReplicaStore.open(alone(null))) {
            assertArrayEquals(RingReplicationTest.image(0, 1, 1000), RingReplicationTest.read(store.find(0, 1)));
        }
    }

    /** Rank 0 scripted on an authenticated socket, rank 1 a real agent and store with the job's key. */
    @Test
    void aReplicaReceivedAlteredOrOfAnotherKeyIsStoredButNeverTrusted() throws Exception {
        JobSecret secret = JobSecret.random();
        DataEndpoint[] eps = {DataEndpoint.bindLoopback(0, secret), DataEndpoint.bindLoopback(1, secret)};
        ReplicaStore holder = ReplicaStore.open(new ReplicaStoreConfig(root.resolve("rank-1"), 1, 2, 1, 3, 1 << 17,
                1L << 30, RingOrder.identity(2), KEY));
        List<RingLinks> links = TestRing.join(eps, 2, Duration.ofSeconds(10));
        RingLinks fake = links.get(0);
        ReplicationAgent agent = ReplicationAgent.start(holder, links.get(1), Duration.ofSeconds(5), true, -1);
        try {
            byte[] round1 = CheckpointImages.image(0, 1, PAYLOAD, KEY, true);
            byte[] round2 = CheckpointImages.image(0, 2, PAYLOAD, KEY, true);
            round2[round2.length / 2] ^= 1; // altered on the way; the frame's CRC32C is that of the altered bytes
            byte[] round3 = CheckpointImages.image(0, 3, PAYLOAD, OTHER, true);
            long r = 1;
            for (byte[] image : List.of(round1, round2, round3)) {
                long deadline = ChannelIo.deadline(Duration.ofSeconds(10));
                ChannelIo.writeFully(fake.toNext(), encode(allocateHeader(), TYPE_DATA, 0, 1, r, image.length,
                        CheckpointImages.crc(image)), deadline, "fake");
                ChannelIo.writeFully(fake.toNext(), ByteBuffer.wrap(image), deadline, "fake");
                ByteBuffer ack = allocateHeader();
                ChannelIo.readFully(fake.toNext(), ack, deadline, "fake");
                assertEquals(TYPE_ACK, ack.getInt(TYPE_OFFSET)); // stored: its CRC32C fits the bytes received
                r++;
            }
            assertArrayEquals(round1, RingReplicationTest.read(holder.find(0, 1)));
            assertNull(holder.find(0, 2), "a copy altered on the way was handed out");
            assertNull(holder.find(0, 3), "a copy of another job's key was handed out");
            List<CopyStatus> reported = holder.copiesAsVerified();
            assertTrue(reported.stream().anyMatch(c -> c.owner() == 0 && c.round() == 1 && c.intact()), reported.toString());
            assertTrue(reported.stream().anyMatch(c -> c.owner() == 0 && c.round() == 2 && !c.intact()), reported.toString());
            assertTrue(reported.stream().anyMatch(c -> c.owner() == 0 && c.round() == 3 && !c.intact()), reported.toString());
            assertTrue(holder.slotOf(0, 2).problem().contains("its MAC does not match"), holder.slotOf(0, 2).problem());
            assertTrue(holder.slotOf(0, 3).problem().contains("written with another key"), holder.slotOf(0, 3).problem());
            assertEquals(1, holder.newestComplete(0).round(), "the newest copy of rank 0 it trusts");
        } finally {
            fake.close();
            agent.close();
            holder.close();
            for (DataEndpoint e : eps) {
                e.close();
            }
        }
    }

    @Test
    void largeImagesAreSealedWhileTheyAreSentAndVerifyAtEveryHolder() throws Exception {
        int payload = (int) ReplicationAgent.CRC_FOLLOWS_MIN + (1 << 20); // the chunked path: MAC and CRC ahead of the send
        ImageKey[] keys = {KEY, KEY};
        try (TestRing ring = new TestRing(root.resolve("large"), 2, 1, payload + 4096, true, RingOrder.identity(2), keys)) {
            ring.backgroundCrc = true;
            byte[] large = CheckpointImages.image(0, 1, payload, KEY, false);
            ring.here(0, 1, large, Duration.ofSeconds(20));
            ring.here(1, 1, CheckpointImages.image(1, 1, 1000, KEY, false), Duration.ofSeconds(20));
            for (ReplicationAgent a : ring.agents) {
                assertTrue(a.awaitGloballyCompleted(1, Duration.ofSeconds(30)));
            }
            byte[] sealed = CheckpointImages.sealed(large, KEY);
            for (int holder = 0; holder < 2; holder++) {
                ReplicaSlot s = ring.stores[holder].find(0, 1);
                assertNotNull(s, "rank " + holder);
                assertTrue(s.verify(), s.problem());
                assertArrayEquals(sealed, RingReplicationTest.read(s), "rank " + holder + "'s copy of rank 0");
            }
        }
    }

    /**
     * A replacement rank receives its copy from its holder; the copy is altered between the plan and the
     * send with its CRC32C kept: the receiver refuses it (MAC) before anything reads it, and the transfer
     * fails. The next recovery (the holder's store read again) refuses that copy at open and rolls every
     * rank back to the round before, bit-identical.
     */
    @Test
    void aRollbackTransferAlteredOnTheWayIsRefusedAndTheNextRecoveryFallsBack() throws Exception {
        ImageKey[] keys = {KEY, KEY, KEY};
        try (TestRing ring = new TestRing(root.resolve("transfer"), 3, 1, PAYLOAD + 4096, false, RingOrder.identity(3),
                keys)) {
            byte[][] roundOne = new byte[3][];
            for (long round = 1; round <= 2; round++) {
                for (int r = 0; r < 3; r++) {
                    byte[] image = CheckpointImages.image(r, round, PAYLOAD, KEY, false);
                    if (round == 1) {
                        roundOne[r] = CheckpointImages.sealed(image, KEY);
                    }
                    ring.here(r, round, image, Duration.ofSeconds(20));
                }
            }
            for (ReplicationAgent a : ring.agents) {
                assertTrue(a.awaitGloballyCompleted(2, Duration.ofSeconds(20)));
            }
            for (ReplicationAgent a : ring.agents) {
                a.close();
            }
            // rank 1's node is lost: its copy of round 2 is at rank 2 only
            ring.stores[1].close();
            ring.endpoints[1].close();
            ReplicaStore.wipe(ring.root.resolve("rank-1"));
            ring.stores[1] = ReplicaStore.open(ring.config(1, PAYLOAD + 4096));
            ring.endpoints[1] = DataEndpoint.bindLoopback(1, ring.secret);
            List<LocalRankCollective> exchange = LocalRankCollective.group(3);
            ExecutorService pool = TestRing.pool("jckpt-test-auth-rollback", 3);
            try {
                List<Future<RollbackPlan>> plans = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    final int rank = r;
                    plans.add(pool.submit(() -> ImemRecovery.plan(exchange.get(rank), TEST, ring.stores[rank], rank == 1,
                            Duration.ofSeconds(10))));
                }
                List<RollbackPlan> planned = new ArrayList<>();
                for (Future<RollbackPlan> f : plans) {
                    planned.add(TestRing.get(f));
                }
                assertEquals(2, planned.get(1).round());
                assertEquals(RestoreAction.Kind.RECEIVE, planned.get(1).action(1).kind());
                // between the plan and the send: rank 2's copy of rank 1's round 2 altered, its CRC32C kept
                ReplicaSlot held = ring.stores[2].find(1, 2);
                byte[] bytes = RingReplicationTest.read(held);
                CheckpointImages.alterKeepingCrc(bytes, bytes.length / 2, bytes.length / 2 + 64);
                ByteBuffer view = held.region(0, bytes.length);
                view.put(bytes);
                List<Future<ReplicaSlot>> restores = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    final int rank = r;
                    restores.add(pool.submit(() -> {
                        InetSocketAddress[] addresses = ImemRecovery.addresses(exchange.get(rank), TEST,
                                ring.endpoints[rank], Duration.ofSeconds(10));
                        // as the policy's recovery: a copy verified at its plan is sent without a second read
                        return ImemRecovery.restore(planned.get(rank), ring.stores[rank], ring.endpoints[rank],
                                addresses, Duration.ofSeconds(10), new RecoverySteps(true));
                    }));
                }
                Exception refused = assertThrows(ReplicationException.class, () -> TestRing.get(restores.get(1)));
                assertTrue(refused.getMessage().contains("rank 1 receiving rank 1's data from rank 2 at round 2: the copy"
                        + " received") && refused.getMessage().contains("refused before it is read: its MAC does not"
                        + " match its bytes"), refused.getMessage());
                assertNull(ring.stores[1].find(1, 2), "the refused copy stays in the new rank's store");
                for (int r : new int[] {0, 2}) { // their sends to rank 1 may have failed with it: either way, done
                    try {
                        TestRing.get(restores.get(r));
                    } catch (Exception e) {
                        assertTrue(e instanceof ReplicationException, e.toString());
                    }
                }
            } finally {
                pool.shutdownNow();
            }
            // the launcher's next recovery: every store read again; rank 2's copy is refused at open
            for (int r = 0; r < 3; r++) {
                ring.stores[r].close();
                ring.endpoints[r].close();
                ring.stores[r] = ReplicaStore.open(ring.config(r, PAYLOAD + 4096));
                ring.endpoints[r] = DataEndpoint.bindLoopback(r, ring.secret);
            }
            assertFalse(ring.stores[2].copiesAsVerified().stream().filter(c -> c.owner() == 1 && c.round() == 2)
                    .allMatch(CopyStatus::intact));
            List<LocalRankCollective> again = LocalRankCollective.group(3);
            ExecutorService pool2 = TestRing.pool("jckpt-test-auth-rollback2", 3);
            try {
                List<Future<byte[]>> restored = new ArrayList<>();
                for (int r = 0; r < 3; r++) {
                    final int rank = r;
                    restored.add(pool2.submit(() -> {
                        RollbackPlan plan = ImemRecovery.plan(again.get(rank), TEST, ring.stores[rank], false,
                                Duration.ofSeconds(10));
                        assertEquals(1, plan.round(), plan.toString());
                        InetSocketAddress[] addresses = ImemRecovery.addresses(again.get(rank), TEST, ring.endpoints[rank],
                                Duration.ofSeconds(10));
                        ReplicaSlot slot = ImemRecovery.restore(plan, ring.stores[rank], ring.endpoints[rank], addresses,
                                Duration.ofSeconds(10));
                        return RingReplicationTest.read(slot);
                    }));
                }
                for (int r = 0; r < 3; r++) {
                    assertArrayEquals(roundOne[r], TestRing.get(restored.get(r)), "rank " + r);
                }
            } finally {
                pool2.shutdownNow();
            }
        }
    }
}
