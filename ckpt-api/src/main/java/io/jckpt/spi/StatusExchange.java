package io.jckpt.spi;

import java.time.Duration;

/**
 * The collective the library uses to exchange status between ranks (fingerprints at open, rounds held
 * at recovery, ctrl changes). Implemented over the launcher's channel or MPJ Express in the runtime
 * module, and in one JVM by {@link LocalStatusExchange} for tests. Calls are collective: every rank
 * calls allgather the same number of times, in the same order.
 */
public interface StatusExchange {

    /** @return this endpoint's rank */
    int rank();

    /** @return number of ranks */
    int worldSize();

    /**
     * Gives this rank's bytes and receives every rank's.
     *
     * @param mine    this rank's contribution (not modified; may be empty, not null)
     * @param timeout bound of the wait
     * @return contributions indexed by rank ({@code result[rank()]} equals {@code mine})
     * @throws io.jckpt.ExchangeTimeoutException naming the ranks that did not arrive in time
     */
    byte[][] allgather(byte[] mine, Duration timeout);
}
