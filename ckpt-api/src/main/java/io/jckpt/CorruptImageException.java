package io.jckpt;

/**
 * A checkpoint image failed verification: wrong magic, unknown version, inconsistent lengths, a tag
 * table pointing outside the image, a CRC32C mismatch, or not sealed yet. The message says which.
 */
public final class CorruptImageException extends CkptException {
    private static final long serialVersionUID = 1L;

    /** @param message what is wrong with the image, and where */
    public CorruptImageException(String message) {
        super(message);
    }
}
