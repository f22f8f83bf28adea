package io.jckpt.runtime.control;

import io.jckpt.imem.JobSecret;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;

/** The rank's end of the control channel: connects and authenticates with the job secret. */
public final class ControlClient {
    /** The TCP connection only (the kernel completes it from the listen backlog); the handshake has its own bound. */
    private static final int CONNECT_TIMEOUT_MS = 5_000;

    private ControlClient() {
    }

    /** Connects to the launcher at host:port as {@code rank} of job {@code jobId}; bounded. */
    public static ControlConnection connect(String host, int port, String jobId, JobSecret secret, int rank)
            throws IOException {
        Socket socket = new Socket();
        try {
            socket.setTcpNoDelay(true);
            socket.connect(new InetSocketAddress(host, port), CONNECT_TIMEOUT_MS);
            socket.setSoTimeout(ControlProtocol.HANDSHAKE_MILLIS);
            DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
            DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
            if (in.readInt() != ControlProtocol.MAGIC) {
                throw new IOException("not a jckpt launcher at " + host + ":" + port);
            }
            short version = in.readShort();
            if (version != ControlProtocol.VERSION) {
                throw new IOException("launcher speaks control protocol " + version + ", rank speaks "
                        + ControlProtocol.VERSION);
            }
            byte[] nonce = new byte[ControlProtocol.NONCE_LENGTH];
            in.readFully(nonce);
            out.writeInt(rank);
            out.writeUTF(jobId);
            out.write(ControlProtocol.answer(secret, nonce, rank));
            out.flush();
            if (in.readByte() != ControlProtocol.ACCEPTED) {
                throw new IOException("launcher refused rank " + rank + ": " + in.readUTF());
            }
            socket.setSoTimeout(0);
            return new ControlConnection(socket, in, out);
        } catch (java.io.EOFException e) {
            socket.close();
            throw new IOException("the launcher at " + host + ":" + port + " closed the connection during the handshake"
                    + " (it waits " + ControlProtocol.HANDSHAKE_MILLIS + " ms for an answer)", e);
        } catch (IOException e) {
            socket.close();
            throw e;
        }
    }
}
