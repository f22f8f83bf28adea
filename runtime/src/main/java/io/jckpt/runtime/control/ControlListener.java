package io.jckpt.runtime.control;

/**
 * What the launcher hears on its control channel. Called from the channel's reader threads. A
 * negative rank is a warm standby ({@link ControlProtocol#STANDBY_CLAIM_BASE}).
 */
public interface ControlListener {
    /** An authenticated rank connected. */
    void connected(int rank, ControlConnection connection);

    /** A frame arrived from a rank. */
    void frame(int rank, byte type, byte[] payload);

    /** The rank's connection ended (orderly or not). */
    void disconnected(int rank, ControlConnection connection);
}
