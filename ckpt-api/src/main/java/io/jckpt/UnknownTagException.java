package io.jckpt;

import java.util.Collection;

/** Rollback or remove of a tag that was never registered or saved. */
public final class UnknownTagException extends CkptException {
    private static final long serialVersionUID = 1L;
    private final String tag;
    private final int rank;

    /**
     * @param tag       the tag asked for
     * @param rank      the rank, or {@link #UNKNOWN_RANK}
     * @param operation what was attempted ("rollback", "remove")
     * @param known     the tags that are known there (listed in the message, may be empty)
     */
    public UnknownTagException(String tag, int rank, String operation, Collection<String> known) {
        super(operation + " of unknown " + where(tag, rank) + ": known tags are " + known);
        this.tag = tag;
        this.rank = rank;
    }

    /** @return the tag asked for */
    public String tag() {
        return tag;
    }

    /** @return the rank, or {@link #UNKNOWN_RANK} */
    public int rank() {
        return rank;
    }
}
