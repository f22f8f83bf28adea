package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.TYPE_ACK;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.WritableByteChannel;
import java.util.ArrayDeque;

/**
 * The ACK frames waiting to go back to the previous rank, written into header buffers taken from a
 * pool and returned to it once sent: after the first few rounds an ACK allocates nothing. The queue
 * is unbounded as before (one ACK per copy stored at hop m, one per ACK passed back), so the pool
 * grows to the largest number of ACKs ever waiting at once, normally one or two. Agent thread only.
 */
final class AckQueue {
    private final ArrayDeque<ByteBuffer> queue = new ArrayDeque<>();
    private final ArrayDeque<ByteBuffer> free = new ArrayDeque<>();
    private final ReplicationFrameFlyweight frame = new ReplicationFrameFlyweight();

    /**
     * Queues an ACK of (owner, round) from this hop.
     *
     * @param owner the copy's owner
     * @param hop   the hop of the rank acknowledging
     * @param round the round
     */
    void add(int owner, int hop, long round) {
        ByteBuffer b = free.poll();
        if (b == null) {
            b = ReplicationFrameDescriptor.allocateHeader();
        }
        b.clear();
        frame.wrap(b, 0).frame(TYPE_ACK).owner(owner).hop(hop).round(round).length(0).crc(0).flags(0);
        queue.add(b);
    }

    /** @return whether no ACK waits */
    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** @return whether the first ACK waiting is partly written (a goodbye must not cut it) */
    boolean midFrame() {
        ByteBuffer b = queue.peek();
        return b != null && b.position() != 0;
    }

    /**
     * Writes what the channel takes, ACK by ACK.
     *
     * @param ch the connection from the previous rank
     * @throws IOException if the write fails
     */
    void writeTo(WritableByteChannel ch) throws IOException {
        while (!queue.isEmpty()) {
            ByteBuffer b = queue.peek();
            ch.write(b);
            if (b.hasRemaining()) {
                return;
            }
            free.add(queue.poll());
        }
    }
}
