package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.wire.CopyStatus;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.zip.CRC32C;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Cut-through forwarding with m = 2 on a ring of 3: rank 0 is scripted on raw (authenticated)
 * sockets, ranks 1 (the forwarder) and 2 (the last holder) run real agents and stores. Rank 0 can
 * so stop, or damage a byte, at an exact point of a copy.
 */
class CutThroughForwardingTest {
    private static final int SIZE = 4 << 20; // many READ_CHUNKs, larger than the socket buffers
    private Path root;
    private final JobSecret secret = JobSecret.random();
    private DataEndpoint[] eps;
    private ReplicaStore[] stores;
    private ReplicationAgent[] agents;
    private RingLinks fake;

    @BeforeEach
    void setUp() throws Exception {
        Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jckpt-cut-test");
        eps = new DataEndpoint[3];
        stores = new ReplicaStore[3];
        agents = new ReplicationAgent[3];
        for (int r = 0; r < 3; r++) {
            eps[r] = DataEndpoint.bindLoopback(r, secret);
        }
        for (int r = 1; r < 3; r++) {
            stores[r] = ReplicaStore.open(new ReplicaStoreConfig(root.resolve("rank-" + r), r, 3, 2, 2, SIZE + 4096,
                    1L << 30));
        }
        List<RingLinks> links = TestRing.join(eps, 3, Duration.ofSeconds(10));
        fake = links.get(0);
        for (int r = 1; r < 3; r++) {
            agents[r] = ReplicationAgent.start(stores[r], links.get(r), Duration.ofSeconds(5), r == 1, -1);
        }
    }

    @AfterEach
    void tearDown() throws IOException {
        fake.close();
        for (int r = 1; r < 3; r++) {
            agents[r].close();
            stores[r].close();
        }
        for (DataEndpoint e : eps) {
            e.close();
        }
        ReplicaStore.wipe(root);
    }

    private static long deadline() {
        return ChannelIo.deadline(Duration.ofSeconds(10));
    }

    private static int crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return (int) c.getValue();
    }

    /** Round 1 of rank 0, complete at both holders: the version every later failure must leave intact. */
    private byte[] replicateRoundOne() throws Exception {
        byte[] img = RingReplicationTest.image(0, 1, SIZE - 100);
        ChannelIo.writeFully(fake.toNext(), encode(allocateHeader(), TYPE_DATA, 0, 1, 1, img.length, crc(img)), deadline(), "fake");
        ChannelIo.writeFully(fake.toNext(), ByteBuffer.wrap(img), deadline(), "fake");
        ByteBuffer ack = allocateHeader();
        ChannelIo.readFully(fake.toNext(), ack, deadline(), "fake");
        assertEquals(TYPE_ACK, ack.getInt(TYPE_OFFSET));
        assertEquals(1, ack.getInt(HOP_OFFSET)); // the forwarder's ACK: rank 2 (hop 2) acknowledged to it first
        assertEquals(1, ack.getLong(ROUND_OFFSET));
        for (int r = 1; r < 3; r++) {
            assertArrayEquals(img, RingReplicationTest.read(stores[r].find(0, 1)), "rank " + r);
        }
        return img;
    }

    /** Waits (bounded) until rank 2 has received at least {@code bytes} of forwarded image bytes. */
    /** Waits (bounded) until both holders' agents have stopped with a failure. */
    private void awaitHoldersStopped() throws InterruptedException {
        for (int r = 1; r < 3; r++) {
            ReplicationAgent a = agents[r];
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (a.failure() == null) {
                assertTrue(System.nanoTime() < deadline, "rank " + r + " did not stop");
                Thread.sleep(5);
            }
        }
    }

    private void awaitReceivedAtLastHolder(long bytes) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (agents[2].counters().bytesReceived() < bytes) {
            assertTrue(System.nanoTime() < deadline, "rank 2 received only " + agents[2].counters().bytesReceived()
                    + " bytes of the forwarded copy");
            Thread.sleep(5);
        }
    }

    private void assertRoundOneIntactAndRoundTwoNowhere(byte[] round1) {
        for (int r = 1; r < 3; r++) {
            assertNull(stores[r].find(0, 2), "rank " + r + " kept a copy of a round that never completed");
            ReplicaSlot s = stores[r].find(0, 1);
            assertNotNull(s, "rank " + r + " lost round 1");
            assertTrue(s.verify());
            assertArrayEquals(round1, RingReplicationTest.read(s));
            // what a recovery's status exchange would report: round 1 of rank 0 intact, nothing of round 2
            List<CopyStatus> held = stores[r].rankStatus(false).copies();
            assertEquals(List.of(new CopyStatus(0, 1, round1.length, s.crc32c(), true)), held, "rank " + r);
        }
    }

    @Test
    void forwardStartsBeforeTheCopyHasArrivedAndAnOwnerDeathMidCopyKeepsTheOlderRound() throws Exception {
        byte[] round1 = replicateRoundOne();
        assertEquals(1, agents[1].counters().framesForwarded());
        byte[] img = RingReplicationTest.image(0, 2, SIZE - 100);
        int half = img.length / 2;
        SocketChannel out = fake.toNext();
        long before = agents[2].counters().bytesReceived();
        ChannelIo.writeFully(out, encode(allocateHeader(), TYPE_DATA, 0, 1, 2, img.length, crc(img)), deadline(), "fake");
        ChannelIo.writeFully(out, ByteBuffer.wrap(img, 0, half), deadline(), "fake");
        // cut-through: the last holder gets bytes of round 2 while the owner has sent only half of it
        awaitReceivedAtLastHolder(before + 1);
        fake.close(); // the owner dies in the middle of the copy
        long t0 = System.nanoTime();
        for (int r = 1; r < 3; r++) {
            ReplicationAgent a = agents[r];
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (a.failure() == null) {
                assertTrue(System.nanoTime() < deadline, "rank " + r + " did not notice the broken copy");
                Thread.sleep(5);
            }
        }
        assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
        // each sees one neighbour go away first (rank 2's NEXT is rank 0 too, so the order varies), as
        // a closed connection on a read or a broken pipe on a write
        for (int r = 1; r < 3; r++) {
            String why = agents[r].failure().getMessage();
            assertTrue(agents[r].failure().peerLost(), why);
            assertTrue(why.contains("a peer failed or left the replication ring (the connection with rank "), why);
        }
        assertTrue(agents[2].counters().bytesReceived() - before < img.length);
        assertRoundOneIntactAndRoundTwoNowhere(round1);
    }

    @Test
    void aDamagedChunkIsCaughtAndTheForwardedCopyIsNeverCompleted() throws Exception {
        byte[] round1 = replicateRoundOne();
        byte[] img = RingReplicationTest.image(0, 2, SIZE - 100);
        int crc = crc(img);
        img[img.length / 3] ^= 0x10; // damaged on the way: the owner's CRC no longer matches the bytes
        long before = agents[2].counters().bytesReceived();
        ChannelIo.writeFully(fake.toNext(), encode(allocateHeader(), TYPE_DATA, 0, 1, 2, img.length, crc), deadline(), "fake");
        ChannelIo.writeFully(fake.toNext(), ByteBuffer.wrap(img), deadline(), "fake");
        awaitHoldersStopped();
        assertTrue(agents[1].failure().getMessage().contains("CRC32C"), agents[1].failure().getMessage());
        // the forwarder verified before sending the last chunk: the last holder never had the whole copy
        assertTrue(agents[2].counters().bytesReceived() - before < img.length);
        // no ACK for round 2 ever reached the owner
        ReplicationException closed = org.junit.jupiter.api.Assertions.assertThrows(ReplicationException.class,
                () -> ChannelIo.readFully(fake.toNext(), allocateHeader(), deadline(), "awaiting an ACK"));
        assertTrue(closed.getMessage().contains("closed by the peer"), closed.getMessage());
        assertRoundOneIntactAndRoundTwoNowhere(round1);
    }

    @Test
    void aCopyWhoseCrcFollowsIsCompletedOnlyByAMatchingEndFrameAndTheForwardWaitsForIt() throws Exception {
        byte[] round1 = replicateRoundOne();
        byte[] img = RingReplicationTest.image(0, 2, SIZE - 100);
        long before = agents[2].counters().bytesReceived();
        ChannelIo.writeFully(fake.toNext(), encode(allocateHeader(), TYPE_DATA, 0, 1, 2, img.length, 0, FLAG_CRC_FOLLOWS),
                deadline(), "fake");
        ChannelIo.writeFully(fake.toNext(), ByteBuffer.wrap(img), deadline(), "fake");
        // every byte reaches the last holder, but without its DATA_END neither holder completes the copy
        awaitReceivedAtLastHolder(before + img.length);
        Thread.sleep(200);
        for (int r = 1; r < 3; r++) {
            assertNull(stores[r].find(0, 2), "rank " + r + " completed a copy before its CRC32C arrived");
            assertNull(agents[r].failure());
        }
        // the DATA_END brings a CRC32C the bytes do not have: the forwarder rejects it and never passes it on
        ChannelIo.writeFully(fake.toNext(), encode(allocateHeader(), TYPE_DATA_END, 0, 1, 2, img.length, crc(img) ^ 1),
                deadline(), "fake");
        awaitHoldersStopped();
        assertTrue(agents[1].failure().getMessage().contains("CRC32C"), agents[1].failure().getMessage());
        assertTrue(agents[2].failure().getMessage().contains("rank 1"), agents[2].failure().getMessage());
        assertRoundOneIntactAndRoundTwoNowhere(round1);
    }
}
