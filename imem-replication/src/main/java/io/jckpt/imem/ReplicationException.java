package io.jckpt.imem;

import java.io.IOException;

/**
 * The in-memory level could not do what was asked within its bounds: a peer died or stalled, a
 * connection failed or was not authenticated, a copy failed its CRC32C, or a bounded wait expired.
 * The message names the ranks and rounds involved.
 */
public final class ReplicationException extends IOException {
    private static final long serialVersionUID = 1L;
    /** The words every lost connection's message starts with (after the reporting rank). */
    static final String PEER_LOST = "a peer failed or left the replication ring";
    private final boolean peerLost;

    /**
     * @param message what failed
     */
    public ReplicationException(String message) {
        super(message);
        this.peerLost = false;
    }

    /**
     * @param message what failed
     * @param cause   the underlying error
     */
    public ReplicationException(String message, Throwable cause) {
        this(message, cause, false);
    }

    private ReplicationException(String message, Throwable cause, boolean peerLost) {
        super(message, cause);
        this.peerLost = peerLost;
    }

    /**
     * A ring connection ended without a goodbye: a peer died, or a survivor of a peer's death closed
     * its end (the ring's connections fail one after another around it). The neighbour is only where
     * it was seen, not necessarily the rank that failed: the message says so, and never blames it.
     *
     * @param rank     the reporting rank
     * @param neighbor the rank at the other end of the connection
     * @param how      what happened to the connection, e.g. "was closed" or "failed (Broken pipe)"
     * @param cause    the underlying error
     * @return the failure, {@link #peerLost()}
     */
    public static ReplicationException connectionLost(int rank, int neighbor, String how, Throwable cause) {
        return new ReplicationException("rank " + rank + ": " + PEER_LOST + " (the connection with rank " + neighbor
                + " " + how + ")", cause, true);
    }

    /** @return this failure again, for a caller's stack (its message and its mark kept; this one the cause) */
    ReplicationException again() {
        return new ReplicationException(getMessage(), this, peerLost);
    }

    /**
     * @return whether a ring connection was lost ({@link #connectionLost}): what every survivor of a
     *         peer's death sees, so the launcher's recovery reports it and the agent logs it at DEBUG only
     */
    public boolean peerLost() {
        return peerLost;
    }
}
