package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;

import java.io.EOFException;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.SocketChannel;
import java.util.zip.CRC32C;

/**
 * The frames from the previous rank, one at a time: a header, then its payload. A DATA payload is
 * read straight into the slot (at most {@link ReplicationAgent#READ_CHUNK} per read) with its CRC32C
 * computed chunk by chunk while the bytes are in cache; below hop m it is forwarded cut-through
 * ({@link OutboundFrames#enqueueForward}); the copy is COMPLETE only when its CRC32C matches the
 * owner's (in the header, or in the DATA_END frame that follows a FLAG_CRC_FOLLOWS payload). The
 * holder at hop m queues the ACK. A WATERMARK payload is merged into the {@link RingWatermarks}.
 * Agent thread only.
 */
final class InboundCopy {
    private final ReplicaStore store;
    private final RingLinks links;
    private final int rank;
    private final int n;
    private final int m;
    private final ReplicationCounters counters;
    private final OutboundFrames outbound;
    private final AckQueue acks;
    private final RingWatermarks watermarks;

    private final ByteBuffer headerBuffer = allocateHeader();
    private final ReplicationFrameFlyweight header = new ReplicationFrameFlyweight().wrap(headerBuffer, 0);
    private final ByteBuffer watermarkBuffer;
    private final WatermarkFlyweight watermark = new WatermarkFlyweight();
    private final CRC32C crc = new CRC32C();
    private ReplicaWrite write;
    private ByteBuffer payload;
    /** Image bytes of the copy being received stored so far (its payload comes in mapping-window views). */
    private long received;
    /** The cut-through forward of the copy being received (hop &lt; m), or null. */
    private OutboundFrames.Frame forward;
    /** The copy being received had FLAG_CRC_FOLLOWS: its payload is in, its DATA_END frame is next. */
    private boolean awaitingEnd;
    private boolean trails;
    private long lastProgress;

    InboundCopy(ReplicaStore store, RingLinks links, int m, ReplicationCounters counters, OutboundFrames outbound,
                AckQueue acks, RingWatermarks watermarks) {
        this.store = store;
        this.links = links;
        this.rank = links.rank();
        this.n = links.ranks();
        this.m = m;
        this.counters = counters;
        this.outbound = outbound;
        this.acks = acks;
        this.watermarks = watermarks;
        this.watermarkBuffer = ByteBuffer.allocate(WatermarkFlyweight.length(n)).order(ByteOrder.LITTLE_ENDIAN);
    }

    /** @return whether no frame is partly received */
    boolean idle() {
        return write == null && payload == null && headerBuffer.position() == 0;
    }

    /** @return whether a copy is being received */
    boolean midCopy() {
        return write != null;
    }

    /** @return whether a copy or a header is partly received (the stall clock runs) */
    boolean midFrame() {
        return write != null || headerBuffer.position() > 0;
    }

    /** @return when bytes last arrived (or the side was last idle) */
    long lastProgress() {
        return lastProgress;
    }

    /** Restarts the stall clock: nothing can stall now. */
    void touch(long now) {
        lastProgress = now;
    }

    /** The agent stops: a half-received copy is discarded (its slot EMPTY). */
    void abort() {
        if (write != null) {
            write.abort();
            write = null;
        }
    }

    /** Reads what the connection has. */
    void read() throws IOException {
        SocketChannel ch = links.fromPrev();
        for (;;) {
            if (payload == null) {
                int r = ch.read(headerBuffer);
                if (r < 0) {
                    throw ReplicationException.connectionLost(rank, links.previous(), "was closed", new EOFException());
                }
                if (r > 0) {
                    lastProgress = System.nanoTime();
                }
                if (headerBuffer.hasRemaining()) {
                    return;
                }
                headerBuffer.flip();
                ReplicationAgent.checkMagic(header, rank, links.previous());
                startPayload();
                if (payload == null) {
                    continue;
                }
            }
            int end0 = payload.limit();
            payload.limit(Math.min(end0, payload.position() + ReplicationAgent.READ_CHUNK));
            int r = ch.read(payload);
            payload.limit(end0);
            if (r < 0) {
                throw ReplicationException.connectionLost(rank, links.previous(), "was closed in the middle of a copy",
                        new EOFException());
            }
            if (r > 0) {
                lastProgress = System.nanoTime();
                if (write != null) {
                    counters.bytesReceived.addAndGet(r);
                    int end = payload.position();
                    crc.update(payload.duplicate().position(end - r).limit(end)); // still in cache
                    received += r;
                    if (forward != null) {
                        forward.available = received; // stored: the next rank may have it now
                    }
                }
            }
            if (payload.hasRemaining()) {
                return;
            }
            if (write != null && received < write.length()) {
                payload = write.region(received, write.length() - received); // the next mapping window
                continue;
            }
            finishPayload();
        }
    }

    private void startPayload() throws IOException {
        int type = header.type();
        long length = header.length();
        if (awaitingEnd) {
            finishCopyAtEnd(type, length);
            return;
        }
        if (type == TYPE_DATA) {
            int owner = header.owner();
            int hop = header.hop();
            if (hop < 1 || hop > m || owner < 0 || owner >= n || links.ring().distance(owner, rank) != hop) {
                throw new ReplicationException("rank " + rank + ": copy of rank " + owner + " with hop " + hop
                        + " does not belong here (m=" + m + ")");
            }
            write = store.beginWrite(owner, header.round(), length);
            received = 0;
            payload = write.region(0, length);
            crc.reset();
            int flags = header.flags();
            trails = (flags & FLAG_CRC_FOLLOWS) != 0;
            if (hop < m) {
                // cut-through: the copy goes on to the next holder as it arrives, under the owner's CRC32C
                forward = outbound.enqueueForward(owner, hop + 1, write.round(), length, header.crc(),
                        flags & FLAG_CRC_FOLLOWS, write.slot());
                counters.framesForwarded.incrementAndGet();
            }
        } else if (type == TYPE_WATERMARK) {
            if (length != WatermarkFlyweight.length(n)) {
                throw new ReplicationException("rank " + rank + ": watermark of " + length + " bytes for " + n + " ranks");
            }
            payload = watermarkBuffer.clear();
        } else if (type == TYPE_GOODBYE) {
            throw ReplicationAgent.goodbye(rank, links.previous());
        } else {
            throw new ReplicationException("rank " + rank + ": unexpected frame type " + type + " from rank " + links.previous());
        }
        if (!payload.hasRemaining()) {
            finishPayload();
        }
    }

    private void finishPayload() throws IOException {
        int type = header.type();
        if (type == TYPE_DATA && trails) {
            // the payload is in; the copy completes when its DATA_END frame brings the owner's CRC32C
            awaitingEnd = true;
            payload = null;
            headerBuffer.clear();
            return;
        }
        if (type == TYPE_DATA) {
            int owner = write.owner();
            long round = write.round();
            int hop = header.hop();
            ReplicaWrite w = write;
            write = null;
            forward = null;
            // verified before COMPLETE; on a mismatch the slot is left EMPTY and the agent fails, which
            // closes its connections: the next rank drops its half of the forwarded copy. The forward's
            // last bytes are written only after this (the outbound side writes later in the duty cycle),
            // so no ACK for this copy can arrive before it is verified here.
            w.commitComputed((int) crc.getValue(), header.crc());
            if (hop == m) {
                acks.add(owner, hop, round);
            }
        } else {
            watermarks.merge(watermark.wrap(watermarkBuffer, 0, n), links.next());
        }
        payload = null;
        headerBuffer.clear();
    }

    /** The frame after a FLAG_CRC_FOLLOWS payload: must be its DATA_END; verifies and completes the copy. */
    private void finishCopyAtEnd(int type, long length) throws IOException {
        ReplicaWrite w = write;
        int owner = w.owner();
        long round = w.round();
        int hop = links.ring().distance(owner, rank);
        if (type != TYPE_DATA_END || header.owner() != owner || header.round() != round
                || header.hop() != hop || length != w.slot().length()) {
            throw new ReplicationException("rank " + rank + ": expected the end of rank " + owner + "'s round " + round
                    + " from rank " + links.previous() + ", got frame type " + type);
        }
        int ownersCrc = header.crc();
        OutboundFrames.Frame f = forward;
        write = null;
        forward = null;
        awaitingEnd = false;
        trails = false;
        headerBuffer.clear();
        // verified before COMPLETE (a mismatch leaves the slot EMPTY and fails the agent); only then
        // does the forward get its DATA_END, so the next rank cannot complete a copy this rank rejected
        w.commitComputed((int) crc.getValue(), ownersCrc);
        if (f != null) {
            outbound.endForward(f, ownersCrc);
        }
        if (hop == m) {
            acks.add(owner, hop, round);
        }
    }
}
