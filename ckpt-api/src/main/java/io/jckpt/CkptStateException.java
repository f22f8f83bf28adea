package io.jckpt;

/** An operation called in the wrong state: before open, after close, open twice. */
public final class CkptStateException extends CkptException {
    private static final long serialVersionUID = 1L;

    /** @param message which operation, in which state, and what to do */
    public CkptStateException(String message) {
        super(message);
    }
}
