package io.jckpt.runtime.control;

import io.jckpt.imem.JobSecret;
import io.jckpt.spi.AgentThreads;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launcher's end of the control channel: a listening socket on the given address (loopback by
 * default) that admits only connections proving knowledge of the job secret, one per rank (and one
 * per warm standby, which claims a negative rank: see {@link ControlProtocol}).
 * Owns an acceptor and one reader per connection, each an agent ({@link AgentThreads}): the acceptor
 * ({@code jckpt-control-acceptor}) waits in {@code accept} at most {@value #ACCEPT_POLL_MS} ms per
 * cycle; a reader ({@code jckpt-control-reader-PORT}) authenticates its peer, then reads one frame
 * per cycle, blocked in its socket's read until a frame comes or the peer or {@link #close()}
 * closes the socket. {@link #close()} stops them all, bounded.
 */
public final class ControlServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);
    /** Longest wait of one acceptor cycle in {@code accept}. */
    static final int ACCEPT_POLL_MS = 500;
    private static final long CLOSE_WAIT_MS = 1_000;

    private final ServerSocket server;
    private final String jobId;
    private final JobSecret secret;
    private final int worldSize;
    private final ControlListener listener;
    private final AgentRunner acceptor;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Map<Reader, AgentRunner> readers = new ConcurrentHashMap<>();
    private volatile boolean closed;

    /** Binds to an ephemeral port on {@code bindAddress} and starts accepting. */
    public ControlServer(InetAddress bindAddress, String jobId, JobSecret secret, int worldSize,
                         ControlListener listener) throws IOException {
        this.server = new ServerSocket();
        this.server.bind(new InetSocketAddress(bindAddress, 0), 64);
        this.jobId = jobId;
        this.secret = secret;
        this.worldSize = worldSize;
        this.listener = listener;
        this.server.setSoTimeout(ACCEPT_POLL_MS);
        this.acceptor = AgentThreads.start(new Acceptor());
    }

    /** The port ranks connect to. */
    public int port() {
        return server.getLocalPort();
    }

    /** Accepts connections, each served by a reader thread of its own; ends when the server socket closes. */
    private final class Acceptor implements Agent {
        @Override
        public String roleName() {
            return "jckpt-control-acceptor";
        }

        @Override
        public int doWork() {
            if (closed) {
                throw new AgentTerminationException();
            }
            Socket socket;
            try {
                socket = server.accept();
            } catch (SocketTimeoutException e) {
                return 0; // nobody connected in this cycle
            } catch (IOException e) {
                if (!closed) {
                    LOG.warn("control acceptor stopped: {}", e.toString());
                }
                throw new AgentTerminationException();
            }
            sockets.add(socket);
            Reader reader = new Reader(socket);
            AgentRunner running = AgentThreads.start(reader);
            if (!running.isClosed()) {
                readers.put(reader, running); // an already closed one has removed itself (or has nothing left)
            }
            return 1;
        }
    }

    /** One connection: the handshake at its start, then one frame per cycle until the socket ends. */
    private final class Reader implements Agent {
        private final Socket socket;
        private int rank = -1;
        private ControlConnection connection;

        Reader(Socket socket) {
            this.socket = socket;
        }

        @Override
        public String roleName() {
            return "jckpt-control-reader-" + socket.getPort();
        }

        /** Authenticates the peer; a refused or failed handshake leaves no connection (the first cycle ends it). */
        @Override
        public void onStart() {
            try {
                socket.setTcpNoDelay(true);
                socket.setSoTimeout(ControlProtocol.HANDSHAKE_MILLIS); // a starting JVM may be slow to answer
                DataInputStream in = new DataInputStream(new BufferedInputStream(socket.getInputStream()));
                DataOutputStream out = new DataOutputStream(new BufferedOutputStream(socket.getOutputStream()));
                byte[] nonce = JobSecret.nonce(ControlProtocol.NONCE_LENGTH);
                out.writeInt(ControlProtocol.MAGIC);
                out.writeShort(ControlProtocol.VERSION);
                out.write(nonce);
                out.flush();
                int claimed = in.readInt();
                String claimedJob = in.readUTF();
                byte[] answer = new byte[ControlProtocol.MAC_LENGTH];
                in.readFully(answer);
                String refusal = null;
                if (!jobId.equals(claimedJob)) {
                    refusal = "wrong job id";
                } else if (claimed < ControlProtocol.STANDBY_CLAIM_MIN || claimed >= worldSize) {
                    refusal = "rank " + claimed + " out of range";
                } else if (!java.security.MessageDigest.isEqual(ControlProtocol.answer(secret, nonce, claimed), answer)) {
                    refusal = "bad credentials";
                }
                if (refusal != null) {
                    LOG.warn("control connection from port {} refused: {}", socket.getPort(), refusal);
                    out.writeByte(ControlProtocol.REJECTED);
                    out.writeUTF(refusal);
                    out.flush();
                    return;
                }
                out.writeByte(ControlProtocol.ACCEPTED);
                out.flush();
                socket.setSoTimeout(0); // a rank may stay silent for as long as it computes
                rank = claimed;
                connection = new ControlConnection(socket, in, out);
                listener.connected(rank, connection);
            } catch (IOException e) {
                failed(e);
            }
        }

        @Override
        public int doWork() {
            if (connection == null) {
                throw new AgentTerminationException();
            }
            try {
                byte[] frame = connection.receive();
                if (frame == null) {
                    throw new AgentTerminationException();
                }
                listener.frame(rank, frame[0], Arrays.copyOfRange(frame, 1, frame.length));
                return 1;
            } catch (IOException e) {
                failed(e);
                throw new AgentTerminationException();
            }
        }

        private void failed(IOException e) {
            // a SocketException: the peer died or we are closing, reported as a disconnect
            if (!(e instanceof SocketException) && !closed) {
                LOG.debug("control connection of rank {} failed: {}", rank, e.toString());
            }
        }

        @Override
        public void onClose() {
            sockets.remove(socket);
            readers.remove(this);
            try {
                socket.close();
            } catch (IOException ignored) {
                // already closed
            }
            if (connection != null) {
                listener.disconnected(rank, connection);
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing to release
        }
        for (Socket socket : sockets) {
            try {
                socket.close();
            } catch (IOException ignored) {
                // nothing to release
            }
        }
        AgentThreads.close(acceptor, CLOSE_WAIT_MS);
        for (AgentRunner reader : readers.values()) {
            AgentThreads.close(reader, CLOSE_WAIT_MS);
        }
    }
}
