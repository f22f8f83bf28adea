package io.jckpt;

/** A tag that is null, empty, or longer than the image format allows. */
public final class InvalidTagException extends CkptException {
    private static final long serialVersionUID = 1L;

    /**
     * @param tag    the rejected tag (may be null)
     * @param rank   the rank, or {@link #UNKNOWN_RANK}
     * @param reason what is required
     */
    public InvalidTagException(String tag, int rank, String reason) {
        super("invalid tag " + (tag == null ? "null" : "'" + abbreviate(tag) + "'")
                + (rank >= 0 ? " on rank " + rank : "") + ": " + reason);
    }

    private static String abbreviate(String tag) {
        return tag.length() <= 80 ? tag : tag.substring(0, 77) + "...";
    }
}
