package io.jckpt.runtime.control;

/**
 * What the launcher hears on its control channel. Called from the control server's one event loop
 * thread, one call at a time: a call must not block (sending is fine: it queues). A negative rank is
 * a warm standby ({@link ControlProtocol#STANDBY_CLAIM_BASE}).
 */
public interface ControlListener {
    /** An authenticated rank connected. */
    void connected(int rank, ControlChannel connection);

    /** A frame arrived from a rank. */
    void frame(int rank, byte type, byte[] payload);

    /** The rank's connection ended (orderly or not). */
    void disconnected(int rank, ControlChannel connection);
}
