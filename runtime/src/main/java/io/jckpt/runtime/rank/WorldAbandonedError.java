package io.jckpt.runtime.rank;

/**
 * Thrown into a thread of an abandoned MPJ world when it calls the library after a recovery
 * started a newer world: its data is stale and must not be checkpointed. An {@link Error}, so that
 * the program's {@code catch (Exception e)} does not swallow it.
 */
public final class WorldAbandonedError extends Error {
    private static final long serialVersionUID = 1L;

    public WorldAbandonedError(String message) {
        super(message);
    }
}
