package io.jckpt.disk;

/**
 * Told by the flusher thread when a round became durable on this rank (the caller then confirms it
 * to the coordinator) or failed. Called on the flusher thread: keep it short, never block.
 */
public interface FlushListener {
    /** A listener that does nothing. */
    FlushListener NONE = new FlushListener() {
    };

    /**
     * @param generation the round now durable on this rank
     */
    default void onDurable(final FlushedGeneration generation) {
    }

    /**
     * @param round the round that was not written
     * @param error why; names the path
     */
    default void onFailed(final long round, final StableDiskException error) {
    }
}
