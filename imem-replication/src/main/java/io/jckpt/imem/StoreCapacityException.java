package io.jckpt.imem;

/**
 * Thrown when the replica store cannot hold what is asked: the configured memory cap or the free
 * space of the store's file system is too small for (m+1) x versions x slot size, or an image is
 * larger than a slot.
 */
public final class StoreCapacityException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what does not fit, with the numbers
     */
    public StoreCapacityException(String message) {
        super(message);
    }
}
