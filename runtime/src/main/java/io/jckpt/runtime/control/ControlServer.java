package io.jckpt.runtime.control;

import io.jckpt.imem.JobSecret;
import io.jckpt.spi.AgentThreads;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launcher's end of the control channel: a listening socket on the given address (loopback by
 * default) that admits only connections proving knowledge of the job secret, one per rank (and one
 * per warm standby, which claims a negative rank: see {@link ControlProtocol}).
 * One event loop serves them all, whatever their number: an agent ({@code jckpt-control-loop},
 * {@link AgentThreads}) that waits in {@code select} at most {@value #SELECT_MS} ms per cycle, accepts,
 * runs each handshake as a state machine (bounded by {@link ControlProtocol#HANDSHAKE_MILLIS}), reads
 * frames and hands them to the {@link ControlListener} on its own thread. A frame sent to a connection
 * ({@link ControlChannel#send}, from any thread) is written at once as far as the socket takes it and
 * queued for the loop otherwise, so a sender never blocks on a slow rank; a rank that lets more than
 * {@value #MAX_QUEUED_BYTES} bytes pile up is cut off as a broken connection. {@link #close()} stops
 * the loop, bounded, and ends every connection.
 */
public final class ControlServer implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ControlServer.class);
    /** Longest wait of one loop cycle in {@code select} (handshake deadlines are checked at this pace). */
    static final int SELECT_MS = 100;
    /** Unsent bytes one connection may hold before it counts as broken (a rank that stopped reading). */
    static final long MAX_QUEUED_BYTES = 2L * ControlProtocol.MAX_FRAME_LENGTH;
    private static final long CLOSE_WAIT_MS = 1_000;
    /** Connections the kernel holds for the loop between two accepts: ranks start all at once. */
    private static final int BACKLOG_MAX = 4096;
    /** Buffers one gathering write takes at most. */
    private static final int GATHER = 64;
    /** Frames up to this payload are copied behind their header, to go out in one write. */
    private static final int SMALL_FRAME_BYTES = 4096;
    /** The longest job id a handshake may claim. */
    private static final int MAX_JOB_ID_BYTES = 1024;

    private final ServerSocketChannel server;
    private final Selector selector;
    private final String jobId;
    private final JobSecret secret;
    private final int worldSize;
    private final ControlListener listener;
    private final AgentRunner loop;
    /** Connections whose queued frames wait for the loop to ask for OP_WRITE, or that were closed. */
    private final Queue<Peer> changed = new ConcurrentLinkedQueue<>();
    private final List<Peer> handshaking = new ArrayList<>();
    private final ByteBuffer readBuffer = ByteBuffer.allocateDirect(64 * 1024);
    private volatile boolean closed;

    /** Binds to an ephemeral port on {@code bindAddress} and starts accepting. */
    public ControlServer(InetAddress bindAddress, String jobId, JobSecret secret, int worldSize,
                         ControlListener listener) throws IOException {
        this.jobId = jobId;
        this.secret = secret;
        this.worldSize = worldSize;
        this.listener = listener;
        this.selector = Selector.open();
        this.server = ServerSocketChannel.open();
        try {
            server.bind(new InetSocketAddress(bindAddress, 0), Math.max(64, Math.min(BACKLOG_MAX, worldSize + 64)));
            server.configureBlocking(false);
            server.register(selector, SelectionKey.OP_ACCEPT);
        } catch (IOException e) {
            server.close();
            selector.close();
            throw e;
        }
        // the loop's own bounded select is all its idling
        this.loop = AgentThreads.start(new Loop(), new NoOpIdleStrategy());
    }

    /** The port ranks connect to. */
    public int port() {
        return server.socket().getLocalPort();
    }

    /** Where one connection is: authenticating, serving frames, or ended. */
    private enum State { HANDSHAKE, OPEN, CLOSING, CLOSED }

    /**
     * One connection: its handshake, its frames in, its queue of frames out. Written from any thread
     * under its own lock; read only by the loop.
     */
    private final class Peer implements ControlChannel {
        final SocketChannel channel;
        final byte[] nonce = JobSecret.nonce(ControlProtocol.NONCE_LENGTH);
        final long handshakeDeadlineNanos = System.nanoTime() + ControlProtocol.HANDSHAKE_MILLIS * 1_000_000L;
        final int port;
        SelectionKey key;
        /** Loop only: the handshake's answer or the current frame being read. */
        ByteBuffer in = ByteBuffer.allocate(4 + 2);
        boolean frameHeader = true;
        int rank = Integer.MIN_VALUE;
        /** Guarded by this. */
        final ArrayDeque<ByteBuffer> outbox = new ArrayDeque<>();
        long queuedBytes;
        volatile State state = State.HANDSHAKE;
        boolean wantsWrite;

        Peer(SocketChannel channel) {
            this.channel = channel;
            this.port = channel.socket().getPort();
        }

        String who() {
            return rank == Integer.MIN_VALUE ? "port " + port
                    : rank < 0 ? "standby " + (ControlProtocol.STANDBY_CLAIM_BASE - rank) : "rank " + rank;
        }

        @Override
        public void send(byte type, byte[] payload) throws IOException {
            if (payload.length <= SMALL_FRAME_BYTES) { // one buffer: one write
                enqueue(ByteBuffer.allocate(5 + payload.length).putInt(1 + payload.length).put(type).put(payload).flip());
            } else { // the payload itself, shared by every rank it goes to (an exchange's result)
                enqueue(ByteBuffer.allocate(5).putInt(1 + payload.length).put(type).flip(), ByteBuffer.wrap(payload));
            }
        }

        /** Queues bytes and writes what the socket takes now; the loop writes the rest. */
        void enqueue(ByteBuffer... buffers) throws IOException {
            boolean ask;
            synchronized (this) {
                if (state == State.CLOSED) {
                    throw new IOException("the control connection of " + who() + " is closed");
                }
                long bytes = 0;
                for (ByteBuffer b : buffers) {
                    bytes += b.remaining();
                }
                if (queuedBytes + bytes > MAX_QUEUED_BYTES) {
                    long unread = queuedBytes;
                    LOG.warn("control connection of {} closed: {} bytes sent to it wait unread", who(), unread);
                    closeNow();
                    throw new IOException("the control connection of " + who() + " stopped reading (" + unread
                            + " bytes queued, at most " + MAX_QUEUED_BYTES + ")");
                }
                boolean idle = outbox.isEmpty();
                for (ByteBuffer b : buffers) {
                    outbox.add(b);
                }
                queuedBytes += bytes;
                if (idle) {
                    writeQueued();
                }
                ask = !outbox.isEmpty() && !wantsWrite;
                if (ask) {
                    wantsWrite = true;
                }
            }
            if (ask) {
                changed.add(this);
                selector.wakeup();
            }
        }

        /** Writes queued bytes until the socket takes no more (one gathering write per call); under this's lock. */
        void writeQueued() throws IOException {
            try {
                while (!outbox.isEmpty()) {
                    long written = outbox.size() == 1 ? channel.write(outbox.peek()) : channel.write(batch());
                    queuedBytes -= written;
                    while (!outbox.isEmpty() && !outbox.peek().hasRemaining()) {
                        outbox.poll();
                    }
                    if (!outbox.isEmpty()) {
                        return; // the socket is full: the loop goes on when it can take more
                    }
                }
            } catch (IOException e) {
                closeNow();
                throw e;
            }
        }

        /** The first queued buffers, at most {@value #GATHER} (a write takes a few hundred KiB at most anyway). */
        private ByteBuffer[] batch() {
            ByteBuffer[] batch = new ByteBuffer[Math.min(GATHER, outbox.size())];
            Iterator<ByteBuffer> it = outbox.iterator();
            for (int i = 0; i < batch.length; i++) {
                batch[i] = it.next();
            }
            return batch;
        }

        @Override
        public void close() {
            synchronized (this) {
                if (state == State.CLOSED) {
                    return;
                }
                closeNow();
            }
        }

        /** Under this's lock: closes the socket; the loop tells the listener. */
        private void closeNow() {
            state = State.CLOSED;
            outbox.clear();
            queuedBytes = 0;
            try {
                channel.close();
            } catch (IOException ignored) {
                // already broken
            }
            changed.add(this);
            selector.wakeup();
        }
    }

    /** The loop: accepts, handshakes, reads frames, writes what senders could not, ends connections. */
    private final class Loop implements Agent {
        private long nextSweepNanos = System.nanoTime();

        @Override
        public String roleName() {
            return "jckpt-control-loop";
        }

        @Override
        public int doWork() throws IOException {
            if (closed) {
                throw new AgentTerminationException();
            }
            int work = selector.select(SELECT_MS);
            for (Iterator<SelectionKey> it = selector.selectedKeys().iterator(); it.hasNext(); ) {
                SelectionKey key = it.next();
                it.remove();
                if (!key.isValid()) {
                    continue;
                }
                if (key.isAcceptable()) {
                    accept();
                    continue;
                }
                Peer peer = (Peer) key.attachment();
                try {
                    if (key.isWritable()) {
                        synchronized (peer) {
                            peer.writeQueued();
                            if (peer.outbox.isEmpty()) {
                                peer.wantsWrite = false;
                                key.interestOps(SelectionKey.OP_READ);
                                if (peer.state == State.CLOSING) {
                                    peer.closeNow(); // a refusal, sent
                                }
                            }
                        }
                    }
                    if (key.isValid() && key.isReadable()) {
                        read(peer);
                    }
                } catch (IOException e) {
                    if (!closed) {
                        LOG.debug("control connection of {} failed: {}", peer.who(), e.toString());
                    }
                    peer.close();
                }
            }
            for (Peer peer = changed.poll(); peer != null; peer = changed.poll()) {
                work++;
                changed(peer);
            }
            long now = System.nanoTime();
            if (now - nextSweepNanos >= 0) {
                nextSweepNanos = now + SELECT_MS * 1_000_000L;
                for (Iterator<Peer> it = handshaking.iterator(); it.hasNext(); ) {
                    Peer peer = it.next();
                    if (peer.state != State.HANDSHAKE) {
                        it.remove();
                    } else if (now - peer.handshakeDeadlineNanos >= 0) {
                        it.remove();
                        LOG.warn("control connection from port {} closed: no handshake answer in {} ms", peer.port,
                                ControlProtocol.HANDSHAKE_MILLIS);
                        peer.close();
                    }
                }
            }
            return work;
        }

        /** A connection asked for OP_WRITE, or was closed: the loop's part of it. */
        private void changed(Peer peer) {
            if (peer.state == State.CLOSED) {
                if (peer.key != null && peer.key.attachment() != null) {
                    peer.key.attach(null);
                    peer.key.cancel();
                    if (peer.rank != Integer.MIN_VALUE) {
                        listener.disconnected(peer.rank, peer);
                    }
                }
                return;
            }
            synchronized (peer) {
                if (peer.wantsWrite && peer.key != null && peer.key.isValid()) {
                    peer.key.interestOps(SelectionKey.OP_READ | SelectionKey.OP_WRITE);
                }
            }
        }

        private void accept() throws IOException {
            for (SocketChannel channel = server.accept(); channel != null; channel = server.accept()) {
                Peer peer = new Peer(channel);
                try {
                    channel.configureBlocking(false);
                    channel.setOption(StandardSocketOptions.TCP_NODELAY, true);
                    peer.key = channel.register(selector, SelectionKey.OP_READ, peer);
                    handshaking.add(peer);
                    peer.enqueue(ByteBuffer.allocate(4 + 2 + ControlProtocol.NONCE_LENGTH).putInt(ControlProtocol.MAGIC)
                            .putShort(ControlProtocol.VERSION).put(peer.nonce).flip());
                } catch (IOException e) {
                    LOG.debug("control connection from port {} failed at its start: {}", peer.port, e.toString());
                    peer.close();
                }
            }
        }

        /** Reads what arrived: the handshake's answer, then frames, each handed to the listener. */
        private void read(Peer peer) throws IOException {
            readBuffer.clear();
            int n = peer.channel.read(readBuffer);
            if (n < 0) {
                peer.close();
                changed(peer);
                return;
            }
            readBuffer.flip();
            while (readBuffer.hasRemaining() && (peer.state == State.HANDSHAKE || peer.state == State.OPEN)) {
                int take = Math.min(readBuffer.remaining(), peer.in.remaining());
                peer.in.put(readBuffer.slice(readBuffer.position(), take));
                readBuffer.position(readBuffer.position() + take);
                if (peer.in.hasRemaining()) {
                    return;
                }
                if (peer.state == State.HANDSHAKE) {
                    handshake(peer);
                } else if (peer.frameHeader) {
                    int length = peer.in.flip().getInt();
                    if (length < 1 || length > ControlProtocol.MAX_FRAME_LENGTH) {
                        throw new IOException("control frame length " + length + " out of range");
                    }
                    peer.in = ByteBuffer.allocate(length);
                    peer.frameHeader = false;
                } else {
                    byte[] frame = peer.in.array();
                    peer.in = ByteBuffer.allocate(4);
                    peer.frameHeader = true;
                    byte[] payload = new byte[frame.length - 1];
                    System.arraycopy(frame, 1, payload, 0, payload.length);
                    listener.frame(peer.rank, frame[0], payload);
                }
            }
        }

        /**
         * The client's answer: {@code int rank, UTF jobId, byte[MAC_LENGTH] answer}, read in two steps
         * (the rank and the job id's length, then the rest).
         */
        private void handshake(Peer peer) throws IOException {
            ByteBuffer answer = peer.in.flip();
            if (answer.capacity() == 4 + 2) {
                int rank = answer.getInt();
                int idLength = Short.toUnsignedInt(answer.getShort());
                if (idLength > MAX_JOB_ID_BYTES) {
                    throw new IOException("a handshake claims a job id of " + idLength + " bytes");
                }
                peer.in = ByteBuffer.allocate(4 + 2 + idLength + ControlProtocol.MAC_LENGTH).putInt(rank)
                        .putShort((short) idLength);
                return;
            }
            int claimed = answer.getInt();
            byte[] id = new byte[Short.toUnsignedInt(answer.getShort())];
            answer.get(id);
            byte[] mac = new byte[ControlProtocol.MAC_LENGTH];
            answer.get(mac);
            String claimedJob = new java.io.DataInputStream(new java.io.ByteArrayInputStream(
                    ByteBuffer.allocate(2 + id.length).putShort((short) id.length).put(id).array())).readUTF();
            String refusal = null;
            if (!jobId.equals(claimedJob)) {
                refusal = "wrong job id";
            } else if (claimed < ControlProtocol.STANDBY_CLAIM_MIN || claimed >= worldSize) {
                refusal = "rank " + claimed + " out of range";
            } else if (!java.security.MessageDigest.isEqual(ControlProtocol.answer(secret, peer.nonce, claimed), mac)) {
                refusal = "bad credentials";
            }
            if (refusal != null) {
                LOG.warn("control connection from port {} refused: {}", peer.port, refusal);
                byte[] reason = refusal.getBytes(StandardCharsets.UTF_8); // ASCII: modified UTF-8 alike
                synchronized (peer) {
                    peer.state = State.CLOSING;
                    peer.enqueue(ByteBuffer.allocate(1 + 2 + reason.length).put(ControlProtocol.REJECTED)
                            .putShort((short) reason.length).put(reason).flip());
                    if (peer.outbox.isEmpty()) {
                        peer.closeNow();
                    }
                }
                return;
            }
            peer.enqueue(ByteBuffer.wrap(new byte[] {ControlProtocol.ACCEPTED}));
            // a connection the listener heard of (and only such) ends with a disconnected()
            peer.rank = claimed;
            peer.in = ByteBuffer.allocate(4);
            peer.frameHeader = true;
            peer.state = State.OPEN;
            listener.connected(claimed, peer);
        }

        @Override
        public void onClose() {
            // every connection ends with the loop; the listener hears each connected one end
            for (Peer peer = changed.poll(); peer != null; peer = changed.poll()) {
                changed(peer);
            }
            for (SelectionKey key : selector.keys()) {
                if (key.attachment() instanceof Peer peer) {
                    peer.close();
                    changed(peer);
                }
            }
            for (Peer peer = changed.poll(); peer != null; peer = changed.poll()) {
                changed(peer);
            }
            try {
                server.close();
                selector.close();
            } catch (IOException ignored) {
                // nothing left to release
            }
        }
    }

    @Override
    public void close() {
        closed = true;
        selector.wakeup();
        AgentThreads.close(loop, CLOSE_WAIT_MS);
    }
}
