package io.jckpt;

import java.time.Duration;
import java.util.List;

/** A collective status exchange did not complete in time; the message names the missing ranks. */
public final class ExchangeTimeoutException extends CkptException {
    private static final long serialVersionUID = 1L;
    private final transient List<Integer> missingRanks;

    /**
     * @param rank         the rank that waited
     * @param timeout      how long it waited (null when the exchange was already broken)
     * @param missingRanks the ranks that had not arrived
     */
    public ExchangeTimeoutException(int rank, Duration timeout, List<Integer> missingRanks) {
        super("status exchange on rank " + rank
                + (timeout == null ? " is broken by an earlier timeout" : " timed out after " + timeout.toMillis() + " ms")
                + ": ranks " + missingRanks + " did not arrive");
        this.missingRanks = List.copyOf(missingRanks);
    }

    /**
     * @param rank         the rank that waited
     * @param timeout      how long it waited
     * @param missingRanks the ranks that had not arrived (empty when not known)
     * @param what         what the coordinator of the exchange said: the calls and the ranks
     */
    public ExchangeTimeoutException(int rank, Duration timeout, List<Integer> missingRanks, String what) {
        super("status exchange on rank " + rank + " timed out after " + timeout.toMillis() + " ms: " + what);
        this.missingRanks = List.copyOf(missingRanks);
    }

    /** @return the ranks that had not arrived */
    public List<Integer> missingRanks() {
        return missingRanks;
    }
}
