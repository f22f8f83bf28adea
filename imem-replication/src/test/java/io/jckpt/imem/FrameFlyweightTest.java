package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.WritableByteChannel;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The frame flyweights write exactly the documented wire format (expected bytes built here from the
 * descriptor's offsets, byte by byte, little-endian), read back what they wrote at any offset, and the
 * ACK queue sends ACKs without allocating per ACK.
 */
class FrameFlyweightTest {

    /** One header as the descriptor documents it, built by hand. */
    private static byte[] expectedHeader(int type, int owner, int hop, long round, long length, int crc, int flags) {
        byte[] b = new byte[HEADER_LENGTH];
        putLe(b, MAGIC_OFFSET, MAGIC, 4);
        putLe(b, TYPE_OFFSET, type, 4);
        putLe(b, OWNER_OFFSET, owner, 4);
        putLe(b, HOP_OFFSET, hop, 4);
        putLe(b, ROUND_OFFSET, round, 8);
        putLe(b, LENGTH_OFFSET, length, 8);
        putLe(b, CRC_OFFSET, crc, 4);
        putLe(b, FLAGS_OFFSET, flags, 4);
        return b;
    }

    private static void putLe(byte[] b, int at, long v, int bytes) {
        for (int i = 0; i < bytes; i++) {
            b[at + i] = (byte) (v >>> (8 * i));
        }
    }

    private static byte[] bytes(ByteBuffer b, int from, int length) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = b.get(from + i);
        }
        return out;
    }

    private static final int[][] KINDS = {
        // type, owner, hop, flags
        {TYPE_DATA, 3, 1, 0},
        {TYPE_DATA, 0, 2, FLAG_CRC_FOLLOWS},
        {TYPE_DATA, 7, 0, 0}, // a rollback transfer
        {TYPE_DATA_END, 2, 1, 0},
        {TYPE_ACK, 5, 3, 0},
        {TYPE_WATERMARK, 1, 0, 0},
        {TYPE_GOODBYE, 4, 0, 0},
    };

    @Test
    void everyFrameKindEncodesTheDocumentedBytesAndDecodesBack() {
        long[] rounds = {0, 1, -1, 0x1234_5678_9ABCL, Long.MAX_VALUE};
        long[] lengths = {0, 40, (2L << 30) + 32 * 1024 * 1024, 9 << 20, Long.MAX_VALUE};
        int[] crcs = {0, 0xCAFEBABE, -1, 0x7FFF_FFFF, 1};
        for (int offset : new int[] {0, 13, 64}) {
            for (int[] k : KINDS) {
                for (int i = 0; i < rounds.length; i++) {
                    ByteBuffer b = ByteBuffer.allocateDirect(offset + HEADER_LENGTH + 7).order(ByteOrder.LITTLE_ENDIAN);
                    b.position(3);
                    ReplicationFrameFlyweight w = new ReplicationFrameFlyweight().wrap(b, offset);
                    w.frame(k[0]).owner(k[1]).hop(k[2]).round(rounds[i]).length(lengths[i]).crc(crcs[i]).flags(k[3]);
                    assertEquals(3, b.position(), "position untouched");
                    assertEquals(b.capacity(), b.limit(), "limit untouched");
                    assertArrayEquals(expectedHeader(k[0], k[1], k[2], rounds[i], lengths[i], crcs[i], k[3]),
                            bytes(b, offset, HEADER_LENGTH), "type " + k[0] + " at offset " + offset);
                    ReplicationFrameFlyweight r = new ReplicationFrameFlyweight().wrap(b, offset);
                    assertTrue(r.hasMagic());
                    assertEquals(MAGIC, r.magic());
                    assertEquals(k[0], r.type());
                    assertEquals(k[1], r.owner());
                    assertEquals(k[2], r.hop());
                    assertEquals(rounds[i], r.round());
                    assertEquals(lengths[i], r.length());
                    assertEquals(crcs[i], r.crc());
                    assertEquals(k[3], r.flags());
                    assertEquals(0, b.get(offset + HEADER_LENGTH), "nothing written past the header");
                }
            }
        }
    }

    @Test
    void readsHeadersWrittenByTheDescriptorAndSeesGarbage() {
        ByteBuffer b = encode(allocateHeader(), TYPE_ACK, 2, 1, 77, 0, 0);
        ReplicationFrameFlyweight r = new ReplicationFrameFlyweight().wrap(b, 0);
        assertTrue(r.hasMagic());
        assertEquals(TYPE_ACK, r.type());
        assertEquals(2, r.owner());
        assertEquals(77, r.round());
        b.putInt(MAGIC_OFFSET, 0x4A435247);
        assertFalse(r.hasMagic());
    }

    @Test
    void watermarkPayloadHasTheDocumentedLayout() {
        int n = 5;
        int offset = 40;
        ByteBuffer b = ByteBuffer.allocate(offset + WatermarkFlyweight.length(n)).order(ByteOrder.LITTLE_ENDIAN);
        assertEquals(n * WATERMARK_ENTRY_LENGTH + WATERMARK_DECISIONS_LENGTH, WatermarkFlyweight.length(n));
        WatermarkFlyweight w = new WatermarkFlyweight().wrap(b, offset, n);
        byte[] expected = new byte[WatermarkFlyweight.length(n)];
        for (int i = 0; i < n; i++) {
            long completed = 100L * i - 1;
            long skipped = i == 3 ? 42 : Long.MAX_VALUE;
            long need = i == 3 ? 3L << 30 : 0;
            long stepRound = i == 2 ? -1 : 7L * i;
            long step = i == 2 ? Long.MIN_VALUE : 1000L + i;
            long previous = i == 4 ? Long.MIN_VALUE : 999L + i;
            w.entry(i, completed, skipped, need, stepRound, step, previous);
            putLe(expected, i * WATERMARK_ENTRY_LENGTH, completed, 8);
            putLe(expected, i * WATERMARK_ENTRY_LENGTH + 8, skipped, 8);
            putLe(expected, i * WATERMARK_ENTRY_LENGTH + 16, need, 8);
            putLe(expected, i * WATERMARK_ENTRY_LENGTH + 24, stepRound, 8);
            putLe(expected, i * WATERMARK_ENTRY_LENGTH + 32, step, 8);
            putLe(expected, i * WATERMARK_ENTRY_LENGTH + 40, previous, 8);
        }
        w.decision(0, 9, -5).decision(1, -1, 0x0102_0304_0506_0708L);
        putLe(expected, n * WATERMARK_ENTRY_LENGTH, 9, 8);
        putLe(expected, n * WATERMARK_ENTRY_LENGTH + 8, -5, 8);
        putLe(expected, n * WATERMARK_ENTRY_LENGTH + 16, -1, 8);
        putLe(expected, n * WATERMARK_ENTRY_LENGTH + 24, 0x0102_0304_0506_0708L, 8);
        assertArrayEquals(expected, bytes(b, offset, expected.length));
        assertEquals(0, b.position());

        WatermarkFlyweight r = new WatermarkFlyweight().wrap(b, offset, n);
        for (int i = 0; i < n; i++) {
            assertEquals(100L * i - 1, r.completed(i));
            assertEquals(i == 3 ? 42 : Long.MAX_VALUE, r.skipped(i));
            assertEquals(i == 2 ? -1 : 7L * i, r.stepRound(i));
            assertEquals(i == 2 ? Long.MIN_VALUE : 1000L + i, r.step(i));
            assertEquals(i == 4 ? Long.MIN_VALUE : 999L + i, r.previousStep(i));
            assertEquals(i == 3 ? 3L << 30 : 0, r.need(i));
        }
        assertEquals(9, r.decisionRound(0));
        assertEquals(-5, r.decisionValue(0));
        assertEquals(-1, r.decisionRound(1));
        assertEquals(0x0102_0304_0506_0708L, r.decisionValue(1));
        assertThrows(IndexOutOfBoundsException.class, () -> r.completed(n));
        assertThrows(IndexOutOfBoundsException.class, () -> r.decisionRound(2));
    }

    @Test
    void wrapRefusesBigEndianAndShortBuffers() {
        ReplicationFrameFlyweight f = new ReplicationFrameFlyweight();
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> f.wrap(ByteBuffer.allocate(HEADER_LENGTH), 0));
        assertTrue(e.getMessage().contains("little-endian"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> f.wrap(ByteBuffer.allocate(HEADER_LENGTH + 3).order(ByteOrder.LITTLE_ENDIAN), 4));
        assertTrue(e.getMessage().contains("offset 4"), e.getMessage());
        WatermarkFlyweight w = new WatermarkFlyweight();
        assertThrows(IllegalArgumentException.class,
                () -> w.wrap(ByteBuffer.allocate(WatermarkFlyweight.length(3) - 1).order(ByteOrder.LITTLE_ENDIAN), 0, 3));
    }

    /** Takes at most {@code max} bytes per write and keeps everything written. */
    private static final class Sink implements WritableByteChannel {
        final ByteBuffer got = ByteBuffer.allocate(1 << 12).order(ByteOrder.LITTLE_ENDIAN);
        int max;

        Sink(int max) {
            this.max = max;
        }

        @Override
        public int write(ByteBuffer src) {
            int n = Math.min(max, src.remaining());
            if (got.remaining() < n) {
                got.clear(); // keep the newest bytes only: the allocation test writes many
            }
            for (int i = 0; i < n; i++) { // byte by byte: no view buffer, the sink allocates nothing either
                got.put(src.get(src.position() + i));
            }
            src.position(src.position() + n);
            return n;
        }

        @Override
        public boolean isOpen() {
            return true;
        }

        @Override
        public void close() {
        }
    }

    @Test
    void ackQueueSendsWholeAcksInOrderAcrossPartialWrites() throws Exception {
        AckQueue q = new AckQueue();
        q.add(1, 2, 10);
        q.add(3, 1, 11);
        q.add(0, 2, -1);
        Sink sink = new Sink(17);
        assertFalse(q.midFrame());
        q.writeTo(sink);
        assertFalse(q.isEmpty());
        sink.max = 0;
        q.writeTo(sink); // a full socket: nothing taken, nothing lost
        sink.max = 17;
        for (int i = 0; i < 10 && !q.isEmpty(); i++) {
            q.writeTo(sink);
        }
        assertTrue(q.isEmpty());
        byte[] expected = new byte[3 * HEADER_LENGTH];
        System.arraycopy(expectedHeader(TYPE_ACK, 1, 2, 10, 0, 0, 0), 0, expected, 0, HEADER_LENGTH);
        System.arraycopy(expectedHeader(TYPE_ACK, 3, 1, 11, 0, 0, 0), 0, expected, HEADER_LENGTH, HEADER_LENGTH);
        System.arraycopy(expectedHeader(TYPE_ACK, 0, 2, -1, 0, 0, 0), 0, expected, 2 * HEADER_LENGTH, HEADER_LENGTH);
        assertArrayEquals(expected, bytes(sink.got, 0, expected.length));

        q.add(4, 1, 12); // a reused buffer: the whole header is rewritten
        Sink one = new Sink(5);
        q.writeTo(one);
        assertTrue(q.midFrame(), "a partly written ACK is mid-frame (no goodbye may cut it)");
        one.max = HEADER_LENGTH;
        q.writeTo(one);
        assertArrayEquals(expectedHeader(TYPE_ACK, 4, 1, 12, 0, 0, 0), bytes(one.got, 0, HEADER_LENGTH));
    }

    @Test
    void sendingAcksAllocatesNothingPerAck() throws Exception {
        java.lang.management.ThreadMXBean mx = ManagementFactory.getThreadMXBean();
        Assumptions.assumeTrue(mx instanceof com.sun.management.ThreadMXBean, "no per-thread allocation counter");
        com.sun.management.ThreadMXBean sun = (com.sun.management.ThreadMXBean) mx;
        Assumptions.assumeTrue(sun.isThreadAllocatedMemorySupported() && sun.isThreadAllocatedMemoryEnabled(),
                "per-thread allocation not measured by this JVM");
        AckQueue q = new AckQueue();
        Sink sink = new Sink(Integer.MAX_VALUE);
        long tid = Thread.currentThread().getId();
        int acks = 200_000;
        sendAcks(q, sink, acks); // warm-up: the pool fills, the code is compiled
        long before = sun.getThreadAllocatedBytes(tid);
        sendAcks(q, sink, acks);
        long allocated = sun.getThreadAllocatedBytes(tid) - before;
        // one direct header buffer per ACK (the old encoding) is > 60 bytes each; allow a little for the
        // measurement itself, far below one byte per ACK
        assertTrue(allocated < acks / 10, allocated + " bytes allocated for " + acks + " ACKs");
        assertArrayEquals(expectedHeader(TYPE_ACK, (acks - 1) % 7, 1 + (acks - 1) % 3, acks - 1, 0, 0, 0),
                bytes(sink.got, sink.got.position() - HEADER_LENGTH, HEADER_LENGTH));
    }

    private static void sendAcks(AckQueue q, Sink sink, int acks) throws Exception {
        for (int i = 0; i < acks; i += 2) {
            q.add(i % 7, 1 + i % 3, i);
            q.add((i + 1) % 7, 1 + (i + 1) % 3, i + 1);
            q.writeTo(sink);
        }
    }
}
