package io.jckpt;

/**
 * Ranks made different collective calls at the same point of their sequence of exchanges (one rank
 * skipped a here(), called close() while the others called here(), called ctrl() alone, ...). Thrown
 * on every rank of the exchange; the message names the ranks and each one's call. Nothing already
 * checkpointed is touched: the exchange never completed.
 */
public final class CollectiveMismatchException extends CkptException {
    private static final long serialVersionUID = 1L;

    /**
     * @param rank     the rank that throws
     * @param sequence the exchange's position in this world's sequence of exchanges (from 1)
     * @param mismatch what each rank called (see {@link io.jckpt.spi.Collective#mismatch})
     */
    public CollectiveMismatchException(int rank, long sequence, String mismatch) {
        super("rank " + rank + ", collective exchange #" + sequence + ": " + mismatch);
    }
}
