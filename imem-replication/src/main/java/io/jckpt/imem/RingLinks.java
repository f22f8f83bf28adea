package io.jckpt.imem;

import io.jckpt.spi.RingOrder;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * The two authenticated connections of one rank on the ring: to its NEXT rank (data out, acks in)
 * and from its PREVIOUS rank (data in, acks out). Non-blocking channels, owned by whoever holds
 * this object (normally the {@link ReplicationAgent}).
 *
 * @param rank     this rank
 * @param ring     the ring's order of the ranks
 * @param toNext   connection to the next rank on the ring
 * @param fromPrev connection from the previous rank on the ring
 */
public record RingLinks(int rank, RingOrder ring, SocketChannel toNext, SocketChannel fromPrev) implements AutoCloseable {
    /** @return n */
    public int ranks() {
        return ring.size();
    }

    /** @return the next rank on the ring (where this rank's copies go) */
    public int next() {
        return ring.next(rank);
    }

    /** @return the previous rank on the ring (whose copies arrive here) */
    public int previous() {
        return ring.previous(rank);
    }

    /** Closes both connections. */
    @Override
    public void close() {
        for (SocketChannel ch : new SocketChannel[] {toNext, fromPrev}) {
            try {
                ch.close();
            } catch (IOException e) {
                // closing anyway
            }
        }
    }
}
