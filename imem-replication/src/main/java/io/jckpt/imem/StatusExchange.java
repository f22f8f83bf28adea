package io.jckpt.imem;

import java.io.IOException;
import java.time.Duration;

/**
 * The collective the in-memory level needs from the message-passing layer: an allgather of one byte
 * array per rank, bounded in time. The runtime implements it over MPJ Express on a communicator of
 * its own (so it never mixes with the program's messages); tests implement it in memory.
 */
@FunctionalInterface
public interface StatusExchange {
    /**
     * Contributes this rank's bytes and returns every rank's, indexed by rank.
     *
     * @param mine    this rank's bytes
     * @param timeout bound on the exchange
     * @return every rank's bytes, indexed by rank
     * @throws IOException if the exchange fails or times out
     */
    byte[][] allgather(byte[] mine, Duration timeout) throws IOException;
}
