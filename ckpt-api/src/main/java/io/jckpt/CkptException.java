package io.jckpt;

/**
 * Root of every exception the checkpoint library throws. All of them are unchecked: a checkpoint
 * failure is not something a solver loop can handle locally, and the messages are written to be read
 * by a person (they name the tag, the rank, the option, the path, and what was expected).
 */
public class CkptException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Rank value used in messages when the rank is not known. */
    public static final int UNKNOWN_RANK = -1;

    /**
     * @param message what went wrong, for a person to read
     */
    public CkptException(String message) {
        super(message);
    }

    /**
     * @param message what went wrong, for a person to read
     * @param cause   the underlying failure
     */
    public CkptException(String message, Throwable cause) {
        super(message, cause);
    }

    /** Formats the common "tag 'x' on rank r" prefix. */
    static String where(String tag, int rank) {
        StringBuilder sb = new StringBuilder();
        if (tag != null) {
            sb.append("tag '").append(tag).append('\'');
        }
        if (rank >= 0) {
            sb.append(sb.length() == 0 ? "rank " : " on rank ").append(rank);
        }
        return sb.toString();
    }
}
