package io.jckpt.runtime.control;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.Socket;

/**
 * A rank's (or standby's) end of its control connection: blocking, writes serialised, reads on one
 * thread (the owner's reader loop). The launcher's end is {@link ControlServer}'s event loop.
 */
public final class ControlConnection implements ControlChannel {
    private final Socket socket;
    private final DataInputStream in;
    private final DataOutputStream out;

    ControlConnection(Socket socket, DataInputStream in, DataOutputStream out) {
        this.socket = socket;
        this.in = in;
        this.out = out;
    }

    /** Sends one frame. */
    @Override
    public void send(byte type, byte[] payload) throws IOException {
        synchronized (out) {
            out.writeInt(1 + payload.length);
            out.writeByte(type);
            out.write(payload);
            out.flush();
        }
    }

    /** Blocks for the next frame; {@code null} at end of stream. The first payload byte is the type. */
    public byte[] receive() throws IOException {
        int length;
        try {
            length = in.readInt();
        } catch (EOFException e) {
            return null;
        }
        if (length < 1 || length > ControlProtocol.MAX_FRAME_LENGTH) {
            throw new IOException("control frame length " + length + " out of range");
        }
        byte[] frame = new byte[length];
        in.readFully(frame);
        return frame;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a socket that is already broken: nothing left to release
        }
    }
}
