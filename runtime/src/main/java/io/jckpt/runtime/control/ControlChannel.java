package io.jckpt.runtime.control;

import java.io.IOException;

/**
 * One authenticated control connection as its owner writes to it: frames out, and a close. The
 * launcher's connections ({@link ControlServer}) queue a frame and never block the sender; a rank's
 * ({@link ControlConnection}) writes it through.
 */
public interface ControlChannel extends AutoCloseable {
    /**
     * Sends one frame.
     *
     * @param type    its type ({@link ControlProtocol})
     * @param payload its payload; not copied, so it must not change afterwards
     * @throws IOException when the connection is closed or broken
     */
    void send(byte type, byte[] payload) throws IOException;

    /** Closes the connection; the peer sees its end. */
    @Override
    void close();
}
