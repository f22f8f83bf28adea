package io.jckpt;

/** Data that cannot be checkpointed: null, a type no adapter handles, an unregistered Kryo class. */
public final class UnsupportedDataException extends CkptException {
    private static final long serialVersionUID = 1L;

    /**
     * @param tag    the tag, may be null
     * @param rank   the rank, or {@link #UNKNOWN_RANK}
     * @param reason why the data is not supported and what to do instead
     */
    public UnsupportedDataException(String tag, int rank, String reason) {
        super(where(tag, rank) + ": " + reason);
    }

    /**
     * @param tag    the tag, may be null
     * @param rank   the rank, or {@link #UNKNOWN_RANK}
     * @param reason why the data is not supported
     * @param cause  the underlying failure
     */
    public UnsupportedDataException(String tag, int rank, String reason, Throwable cause) {
        super(where(tag, rank) + ": " + reason, cause);
    }
}
