package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;

import io.jckpt.image.ImageKey;
import io.jckpt.image.ImageMac;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.util.ArrayDeque;
import java.util.zip.CRC32C;

/**
 * The frames on their way to the next rank (DATA with its DATA_END, WATERMARK) and the one being
 * sent: small frames go out as one gathering write of header and payload, large images zero-copy
 * with {@code FileChannel.transferTo} (or from the mapping), own images above
 * {@link ReplicationAgent#CRC_FOLLOWS_MIN} with their MAC (with the job's key) and CRC32C computed one
 * chunk ahead of the send, the MAC trailer written into the slot before its own chunk goes. Agent
 * thread only.
 */
final class OutboundFrames {
    private final ReplicaStore store;
    private final SocketChannel ch;
    private final int rank;
    private final boolean zeroCopy;
    private final ReplicationCounters counters;
    private final ArrayDeque<Frame> queue = new ArrayDeque<>();
    private final ByteBuffer[] gather = new ByteBuffer[2];
    private final ReplicationFrameFlyweight header = new ReplicationFrameFlyweight();
    private Frame sending;
    private long lastProgress;

    OutboundFrames(ReplicaStore store, SocketChannel toNext, int rank, boolean zeroCopy, ReplicationCounters counters) {
        this.store = store;
        this.ch = toNext;
        this.rank = rank;
        this.zeroCopy = zeroCopy;
        this.counters = counters;
    }

    /** @return a new header buffer holding a DATA header (position 0, limit HEADER_LENGTH) */
    ByteBuffer dataHeader(int owner, int hop, long round, long length, int crc, int flags) {
        ByteBuffer b = allocateHeader();
        header.wrap(b, 0).frame(TYPE_DATA).owner(owner).hop(hop).round(round).length(length).crc(crc).flags(flags);
        return b;
    }

    /**
     * Queues a copy held complete in the store.
     *
     * @throws ReplicationException if the copy is no longer there
     */
    void enqueueData(int owner, long round, int hop) throws ReplicationException {
        ReplicaSlot slot = store.find(owner, round);
        if (slot == null) {
            throw new ReplicationException("rank " + rank + ": copy of rank " + owner + " round " + round
                    + " vanished before it was sent (overwritten too early)");
        }
        queue.add(new Frame(dataHeader(owner, hop, round, slot.length(), slot.crc32c(), 0), null, slot, slot.length(),
                slot.length()));
    }

    /** Queues an own copy sealed and CRC32C'd as it is sent, committed at the end. */
    void enqueueOwnWithCrcFollowing(long round, ReplicaWrite write) {
        ImageKey key = store.config().imageKey();
        queue.add(Frame.ownWithCrcFollowing(dataHeader(rank, 1, round, write.slot().length(), 0, FLAG_CRC_FOLLOWS), write,
                key == null ? null : key.newMac()));
    }

    /** Queues a forward of a copy being received; it goes on as its bytes arrive ({@link Frame#available}). */
    Frame enqueueForward(int owner, int hop, long round, long length, int crc, int flags, ReplicaSlot slot) {
        Frame f = new Frame(dataHeader(owner, hop, round, length, crc, flags), null, slot, length, 0);
        f.trails = (flags & FLAG_CRC_FOLLOWS) != 0;
        queue.add(f);
        return f;
    }

    /**
     * Queues a WATERMARK frame.
     *
     * @param payload the payload, position 0, limit its length
     */
    void enqueueWatermark(ByteBuffer payload) {
        ByteBuffer b = allocateHeader();
        header.wrap(b, 0).frame(TYPE_WATERMARK).owner(rank).hop(0).round(0).length(payload.remaining()).crc(0).flags(0);
        queue.add(new Frame(b, payload, null, 0, 0));
    }

    /** Ends the DATA frame of a forward: its DATA_END carries the owner's CRC32C. */
    void endForward(Frame forward, int crc) {
        ByteBuffer b = allocateHeader();
        ReplicationFrameFlyweight h = header.wrap(forward.header, 0);
        int owner = h.owner();
        int hop = h.hop();
        long round = h.round();
        header.wrap(b, 0).frame(TYPE_DATA_END).owner(owner).hop(hop).round(round).length(forward.length).crc(crc).flags(0);
        forward.trailer = b;
    }

    /** @return whether nothing is queued or being sent */
    boolean idle() {
        return sending == null && queue.isEmpty();
    }

    /** @return whether a frame is partly sent (a goodbye may go only between frames) */
    boolean midFrame() {
        return sending != null;
    }

    /** @return whether a write could make progress now */
    boolean canWrite() {
        return sending != null ? sending.canWrite() : !queue.isEmpty();
    }

    /** @return when bytes last left (or the side was last idle or waiting for a forward's bytes) */
    long lastProgress() {
        return lastProgress;
    }

    /** Restarts the stall clock: nothing can stall now. */
    void touch(long now) {
        lastProgress = now;
    }

    /**
     * Writes what the socket takes, bounded by {@link ReplicationAgent#WRITES_PER_CYCLE} so that a
     * long image does not keep the agent from its inbound side (ACKs, copies).
     */
    void write() throws IOException {
        for (int writes = 0; writes < ReplicationAgent.WRITES_PER_CYCLE; writes++) {
            if (sending == null) {
                sending = queue.poll();
                if (sending == null) {
                    return;
                }
            }
            long wrote = sending.writeTo(ch, zeroCopy, gather, header);
            if (wrote > 0) {
                lastProgress = System.nanoTime();
                if (sending.isData()) {
                    counters.bytesSent.addAndGet(wrote);
                }
            }
            if (!sending.done()) {
                if (wrote > 0 && sending.canWrite()) {
                    continue; // the socket took what was offered (one CRC32C step): offer the next
                }
                return; // socket buffer full (wait for OP_WRITE), or a forward waiting for its bytes
            }
            sending = null;
        }
    }

    /** The agent stops: own copies complete in memory but not yet committed are kept. */
    void commitOwnCopies() {
        if (sending != null) {
            sending.commitOwnCopy();
        }
        for (Frame f : queue) {
            f.commitOwnCopy();
        }
    }

    /**
     * One frame on its way to the next rank: its header, then a payload held in memory (a watermark)
     * or an image in a slot. A forwarded image may still be arriving: only its first
     * {@code available} bytes are stored, and the frame waits (without asking for OP_WRITE) until
     * more arrive.
     */
    static final class Frame {
        final ByteBuffer header;
        final ByteBuffer bytes;
        final ReplicaSlot slot;
        final long length;
        long sent;
        long available;
        /** A DATA_END frame follows the payload; {@link #trailer} is it once the CRC32C is known. */
        boolean trails;
        ByteBuffer trailer;
        /** An own copy whose CRC32C (and MAC) is computed as it is sent and which is committed at the end. */
        ReplicaWrite ownWrite;
        CRC32C crc;
        long crcUpTo;
        /** The own copy's MAC as it is sent (its own engine: the agent's other seals run meanwhile), or null. */
        ImageMac mac;

        static Frame ownWithCrcFollowing(ByteBuffer header, ReplicaWrite write, ImageMac mac) {
            long length = write.slot().length();
            Frame o = new Frame(header, null, write.slot(), length, length);
            o.trails = true;
            o.ownWrite = write;
            o.crc = new CRC32C();
            o.mac = mac == null ? null : mac.begin(length);
            return o;
        }

        /** The own copy is complete in memory: keep it even though it was not sent (agent stopping). */
        void commitOwnCopy() {
            if (ownWrite != null) {
                ownWrite.commit();
                ownWrite = null;
            }
        }

        Frame(ByteBuffer header, ByteBuffer bytes, ReplicaSlot slot, long length, long available) {
            this.header = header;
            this.bytes = bytes;
            this.slot = slot;
            this.length = bytes != null ? bytes.remaining() : length;
            this.available = bytes != null ? this.length : available;
        }

        boolean isData() {
            return slot != null;
        }

        /** @return whether a write could make progress now */
        boolean canWrite() {
            if (header.hasRemaining() || (bytes != null ? bytes.hasRemaining() : sent < available)) {
                return true;
            }
            return trails && sent == length && (trailer != null ? trailer.hasRemaining() : ownWrite != null);
        }

        /** The image bytes from {@code from} towards {@code to}: all of them, or up to the end of a mapping window. */
        private ByteBuffer slotView(long from, long to) {
            return slot.region(from, to - from);
        }

        long writeTo(SocketChannel ch, boolean zeroCopy, ByteBuffer[] gather, ReplicationFrameFlyweight fw)
                throws IOException {
            if (header.hasRemaining()) {
                ByteBuffer payload = bytes != null ? bytes
                        : length <= ReplicationAgent.GATHER_MAX && available > sent ? slotView(sent, available) : null;
                if (payload == null) {
                    return ch.write(header);
                }
                // a small frame: header and payload in one write, one segment, one wake-up of the reader
                int before = payload.position();
                gather[0] = header;
                gather[1] = payload;
                long wrote = ch.write(gather);
                gather[0] = gather[1] = null;
                if (bytes == null) {
                    sent += payload.position() - before;
                }
                return wrote;
            }
            if (bytes != null) {
                return ch.write(bytes);
            }
            if (sent >= available) {
                return trails && sent == length ? writeTrailer(ch, fw) : 0;
            }
            long upTo = available;
            if (crc != null) {
                // CRC32C one step ahead of the send: the bytes are in cache for the kernel's copy, and the
                // receiver works on the previous chunk meanwhile
                if (crcUpTo <= sent) {
                    long limit = length;
                    if (mac != null) {
                        long macEnd = mac.macEnd();
                        if (crcUpTo == macEnd && mac.position() == macEnd) {
                            writeMac(mac.tag()); // sealed before the trailer's chunk is checksummed and sent
                        }
                        limit = crcUpTo < macEnd ? macEnd : length;
                    }
                    ByteBuffer part = slotView(crcUpTo, crcUpTo + Math.min(ReplicationAgent.READ_CHUNK, limit - crcUpTo));
                    if (mac != null && crcUpTo < mac.macEnd()) {
                        mac.update(part);
                    }
                    crcUpTo += part.remaining();
                    crc.update(part);
                }
                upTo = crcUpTo;
            }
            long wrote;
            if (zeroCopy && length > ReplicationAgent.GATHER_MAX) {
                wrote = slot.channel().transferTo(ReplicaSlotDescriptor.HEADER_LENGTH + sent, upTo - sent, ch);
            } else {
                wrote = ch.write(slotView(sent, upTo));
            }
            sent += wrote;
            return wrote;
        }

        /** Writes the own copy's MAC into its trailer, through the slot's windows. */
        private void writeMac(byte[] tag) {
            for (int done = 0; done < tag.length; ) {
                ByteBuffer part = slotView(mac.macEnd() + done, length);
                int k = Math.min(part.remaining(), tag.length - done);
                part.put(tag, done, k);
                done += k;
            }
        }

        private long writeTrailer(SocketChannel ch, ReplicationFrameFlyweight fw) throws IOException {
            if (trailer == null && ownWrite != null) {
                int value = (int) crc.getValue();
                ownWrite.commitSealed(value); // the local copy is sealed and COMPLETE before its DATA_END leaves
                ownWrite = null;
                fw.wrap(header, 0);
                int owner = fw.owner();
                int hop = fw.hop();
                long round = fw.round();
                ByteBuffer b = allocateHeader();
                fw.wrap(b, 0).frame(TYPE_DATA_END).owner(owner).hop(hop).round(round).length(length).crc(value).flags(0);
                trailer = b;
            }
            return trailer == null ? 0 : ch.write(trailer);
        }

        boolean done() {
            return !header.hasRemaining() && (bytes != null ? !bytes.hasRemaining() : sent == length)
                    && (!trails || (trailer != null && !trailer.hasRemaining()));
        }
    }
}
