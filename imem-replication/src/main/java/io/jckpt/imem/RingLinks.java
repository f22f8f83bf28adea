package io.jckpt.imem;

import java.io.IOException;
import java.nio.channels.SocketChannel;

/**
 * The two authenticated connections of one rank on the ring: to its NEXT rank (data out, acks in)
 * and from its PREVIOUS rank (data in, acks out). Non-blocking channels, owned by whoever holds
 * this object (normally the {@link ReplicationAgent}).
 *
 * @param rank     this rank
 * @param ranks    n
 * @param toNext   connection to (rank+1)%n
 * @param fromPrev connection from (rank-1+n)%n
 */
public record RingLinks(int rank, int ranks, SocketChannel toNext, SocketChannel fromPrev) implements AutoCloseable {
    /** @return (rank+1)%n */
    public int next() {
        return (rank + 1) % ranks;
    }

    /** @return (rank-1+n)%n */
    public int previous() {
        return Math.floorMod(rank - 1, ranks);
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
