package io.jckpt;

/** A tag registered twice without a remove in between. */
public final class DuplicateTagException extends CkptException {
    private static final long serialVersionUID = 1L;
    private final String tag;
    private final int rank;

    /**
     * @param tag          the tag
     * @param rank         the rank, or {@link #UNKNOWN_RANK}
     * @param existingType the type already registered under the tag
     */
    public DuplicateTagException(String tag, int rank, String existingType) {
        super("register of " + where(tag, rank) + ": the tag is already registered (" + existingType
                + "); call remove(tag) first, or use rollback(tag, data) to re-register after a failure");
        this.tag = tag;
        this.rank = rank;
    }

    /** @return the tag */
    public String tag() {
        return tag;
    }

    /** @return the rank, or {@link #UNKNOWN_RANK} */
    public int rank() {
        return rank;
    }
}
