package io.jckpt;

/**
 * Nothing (or not enough) could be restored: the message says what was lost and why, e.g. "ranks 2 and
 * 3 failed together, replicas=1 covers one failure, and no disk generation is complete on all ranks".
 */
public final class NotRecoverableException extends CkptException {
    private static final long serialVersionUID = 1L;

    /** @param message what was lost and why */
    public NotRecoverableException(String message) {
        super(message);
    }

    /**
     * @param message what was lost and why
     * @param cause   the underlying failure
     */
    public NotRecoverableException(String message, Throwable cause) {
        super(message, cause);
    }
}
