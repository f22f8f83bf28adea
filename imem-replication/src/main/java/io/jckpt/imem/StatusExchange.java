package io.jckpt.imem;

import java.io.IOException;
import java.time.Duration;

/**
 * The collective the in-memory level needs between the ranks: an allgather of one byte array per rank,
 * bounded in time. The policy adapts the job's typed collective to it (through the launcher's control
 * channel, never over MPJ Express, which has no timeouts), one collective kind per recovery step;
 * tests implement it in memory. This module stays a leaf: it does not depend on ckpt-api.
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
