package io.jckpt.imem;

import java.io.IOException;

/**
 * The in-memory level could not do what was asked within its bounds: a peer died or stalled, a
 * connection failed or was not authenticated, a copy failed its CRC32C, or a bounded wait expired.
 * The message names the ranks and rounds involved.
 */
public final class ReplicationException extends IOException {
    private static final long serialVersionUID = 1L;

    /**
     * @param message what failed
     */
    public ReplicationException(String message) {
        super(message);
    }

    /**
     * @param message what failed
     * @param cause   the underlying error
     */
    public ReplicationException(String message, Throwable cause) {
        super(message, cause);
    }
}
