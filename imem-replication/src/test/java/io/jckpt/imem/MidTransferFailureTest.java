package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.wire.CopyStatus;
import io.jckpt.wire.RankStatus;
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
 * Rank 0 runs a real agent; rank 1 is scripted on raw (authenticated) sockets, so the peer dies at an
 * exact point: in the middle of a copy, in both directions.
 */
class MidTransferFailureTest {
    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jckpt-mid-test");
    }

    @AfterEach
    void tearDown() throws IOException {
        ReplicaStore.wipe(root);
    }

    private static long deadline() {
        return ChannelIo.deadline(Duration.ofSeconds(10));
    }

    private static void sendData(SocketChannel ch, int owner, long round, byte[] img, int sendBytes) throws IOException {
        CRC32C crc = new CRC32C();
        crc.update(img);
        ChannelIo.writeFully(ch, encode(allocateHeader(), TYPE_DATA, owner, 1, round, img.length, (int) crc.getValue()), deadline(), "fake");
        ChannelIo.writeFully(ch, ByteBuffer.wrap(img, 0, sendBytes), deadline(), "fake");
    }

    private static ByteBuffer readHeader(SocketChannel ch) throws IOException {
        ByteBuffer h = allocateHeader();
        ChannelIo.readFully(ch, h, deadline(), "fake");
        return h;
    }

    @Test
    void peerDiesInTheMiddleOfACopy() throws Exception {
        int size = 2 << 20;
        JobSecret secret = JobSecret.random();
        ReplicaStore store = ReplicaStore.open(new ReplicaStoreConfig(root.resolve("rank-0"), 0, 2, 1, 2, size, 1L << 30));
        DataEndpoint ep0 = DataEndpoint.bindLoopback(0, secret);
        DataEndpoint ep1 = DataEndpoint.bindLoopback(1, secret);
        try {
            List<RingLinks> links = TestRing.join(new DataEndpoint[] {ep0, ep1}, 2, Duration.ofSeconds(10));
            RingLinks fake = links.get(1);
            ReplicationAgent agent = ReplicationAgent.start(store, links.get(0), Duration.ofSeconds(5), false, -1);
            try {
                // round 1 both ways, complete; rank 1 also announces its watermark so that G = 1
                byte[] own1 = RingReplicationTest.image(0, 1, size - 100);
                ReplicaWrite w = agent.beginRound(1, own1.length, Duration.ofSeconds(5));
                w.image().put(own1);
                agent.commitRound(w);
                ByteBuffer h = readHeader(fake.fromPrev());
                assertEquals(TYPE_DATA, h.getInt(TYPE_OFFSET));
                ByteBuffer payload = ByteBuffer.allocate((int) h.getLong(LENGTH_OFFSET));
                ChannelIo.readFully(fake.fromPrev(), payload, deadline(), "fake");
                assertArrayEquals(own1, payload.array());
                ChannelIo.writeFully(fake.fromPrev(), encode(allocateHeader(), TYPE_ACK, 0, 1, 1, 0, 0), deadline(), "fake");
                assertTrue(agent.awaitCompleted(1, Duration.ofSeconds(5)));

                byte[] peer1 = RingReplicationTest.image(1, 1, size - 200);
                sendData(fake.toNext(), 1, 1, peer1, peer1.length);
                ByteBuffer ack = readHeader(fake.toNext());
                assertEquals(TYPE_ACK, ack.getInt(TYPE_OFFSET));
                assertEquals(1, ack.getLong(ROUND_OFFSET));
                int wmLength = 2 * WATERMARK_ENTRY_LENGTH + WATERMARK_DECISIONS_LENGTH;
                ByteBuffer wm = ByteBuffer.allocate(wmLength).order(java.nio.ByteOrder.LITTLE_ENDIAN);
                new WatermarkFlyweight().wrap(wm, 0, 2)
                        .entry(0, 1, Long.MAX_VALUE, 0, -1, Long.MIN_VALUE, Long.MIN_VALUE)
                        .entry(1, 1, Long.MAX_VALUE, 0, -1, Long.MIN_VALUE, Long.MIN_VALUE)
                        .decision(0, -1, 0).decision(1, -1, 0);
                ChannelIo.writeFully(fake.toNext(), encode(allocateHeader(), TYPE_WATERMARK, 1, 0, 0,
                        wmLength, 0), deadline(), "fake");
                ChannelIo.writeFully(fake.toNext(), wm, deadline(), "fake");
                assertTrue(agent.awaitGloballyCompleted(1, Duration.ofSeconds(5)));

                // round 2: rank 1 sends half of its copy, reads half of rank 0's, and dies
                byte[] own2 = RingReplicationTest.image(0, 2, size - 100);
                w = agent.beginRound(2, own2.length, Duration.ofSeconds(5));
                w.image().put(own2);
                agent.commitRound(w);
                byte[] peer2 = RingReplicationTest.image(1, 2, size - 200);
                sendData(fake.toNext(), 1, 2, peer2, peer2.length / 2);
                readHeader(fake.fromPrev());
                ChannelIo.readFully(fake.fromPrev(), ByteBuffer.allocate(size / 4), deadline(), "fake");
                long t0 = System.nanoTime();
                fake.close();

                ReplicationException e = assertThrows(ReplicationException.class,
                        () -> agent.awaitCompleted(2, Duration.ofSeconds(10)));
                assertTrue(System.nanoTime() - t0 < 5_000_000_000L);
                assertTrue(e.getMessage().contains("rank 1"), e.getMessage());
                assertNotNull(agent.failure());
                assertEquals(1, agent.completedRound());
            } finally {
                agent.close();
            }
            // the half-received copy was discarded; round 1 of rank 1 and both own rounds are intact
            assertNull(store.find(1, 2));
            assertArrayEquals(RingReplicationTest.image(1, 1, size - 200), RingReplicationTest.read(store.find(1, 1)));
            assertArrayEquals(RingReplicationTest.image(0, 1, size - 100), RingReplicationTest.read(store.find(0, 1)));
            assertArrayEquals(RingReplicationTest.image(0, 2, size - 100), RingReplicationTest.read(store.find(0, 2)));
            assertTrue(store.verifiedCopies().stream().allMatch(CopyStatus::intact));
            // rank 1's node is gone: the plan rolls everyone back to round 1 and rank 0 sends rank 1 its copy
            RollbackPlan plan = RollbackPlanner.plan(List.of(store.rankStatus(false), new RankStatus(1, true, List.of())));
            assertEquals(1, plan.round());
            assertEquals(List.of(1), plan.sendsTo(0));
        } finally {
            ep0.close();
            ep1.close();
            store.close();
        }
    }

    @Test
    void stalledPeerIsDetectedWithinTheIoTimeout() throws Exception {
        int size = 8 << 20; // larger than the socket buffers: the send cannot finish without a reader
        JobSecret secret = JobSecret.random();
        try (ReplicaStore store = ReplicaStore.open(new ReplicaStoreConfig(root.resolve("stall"), 0, 2, 1, 2, size, 1L << 30));
             DataEndpoint ep0 = DataEndpoint.bindLoopback(0, secret);
             DataEndpoint ep1 = DataEndpoint.bindLoopback(1, secret)) {
            List<RingLinks> links = TestRing.join(new DataEndpoint[] {ep0, ep1}, 2, Duration.ofSeconds(10));
            try (ReplicationAgent agent = ReplicationAgent.start(store, links.get(0), Duration.ofMillis(700), false, -1)) {
                ReplicaWrite w = agent.beginRound(1, size, Duration.ofSeconds(5));
                agent.commitRound(w);
                long t0 = System.nanoTime();
                ReplicationException e = assertThrows(ReplicationException.class,
                        () -> agent.awaitCompleted(1, Duration.ofSeconds(20)));
                assertTrue(System.nanoTime() - t0 < 10_000_000_000L);
                assertTrue(e.getMessage().contains("no progress sending to rank 1"), e.getMessage());
            } finally {
                links.get(1).close();
            }
        }
    }
}
