package io.jckpt;

/**
 * The object given to rollback does not match what was saved under the tag: another type, or another
 * size. The message says what was saved and what was given.
 */
public final class DataMismatchException extends CkptException {
    private static final long serialVersionUID = 1L;
    private final String tag;
    private final int rank;
    private final String expected;
    private final String actual;

    /**
     * @param tag      the tag
     * @param rank     the rank, or {@link #UNKNOWN_RANK}
     * @param expected what was saved, e.g. {@code "double[1000] (8000 bytes)"}
     * @param actual   what was given, e.g. {@code "double[999]"}
     */
    public DataMismatchException(String tag, int rank, String expected, String actual) {
        super("rollback of " + where(tag, rank) + ": saved " + expected + " but the target is " + actual);
        this.tag = tag;
        this.rank = rank;
        this.expected = expected;
        this.actual = actual;
    }

    /** @return the tag */
    public String tag() {
        return tag;
    }

    /** @return the rank, or {@link #UNKNOWN_RANK} */
    public int rank() {
        return rank;
    }

    /** @return a description of what was saved */
    public String expected() {
        return expected;
    }

    /** @return a description of the target that was given */
    public String actual() {
        return actual;
    }
}
