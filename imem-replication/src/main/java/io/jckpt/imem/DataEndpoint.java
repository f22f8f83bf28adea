package io.jckpt.imem;

import io.jckpt.spi.RingOrder;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.time.Duration;

/**
 * A rank's listening endpoint for the data channel (bound to loopback unless a host is given, on an
 * ephemeral port). Its address is exchanged among the ranks; the ring is then built with
 * {@link #joinRing}, and rollback transfers are accepted here too.
 */
public final class DataEndpoint implements AutoCloseable {
    private final ServerSocketChannel server;
    private final int rank;
    private final JobSecret secret;
    private final WaitFence fence;

    private DataEndpoint(ServerSocketChannel server, int rank, JobSecret secret, WaitFence fence) {
        this.server = server;
        this.rank = rank;
        this.secret = secret;
        this.fence = fence;
    }

    /**
     * @param host   the local address to bind (loopback by default)
     * @param rank   this rank
     * @param secret the job secret
     * @return a bound endpoint
     * @throws IOException if binding fails
     */
    public static DataEndpoint bind(InetAddress host, int rank, JobSecret secret) throws IOException {
        return bind(host, rank, secret, WaitFence.NEVER);
    }

    /**
     * As {@link #bind(InetAddress, int, JobSecret)}, every wait of this endpoint's ring join and rollback
     * transfers (both sides, their handshakes) ended at once when {@code fence} is raised (the world it
     * serves abandoned after a failure).
     *
     * @param host   the local address to bind
     * @param rank   this rank
     * @param secret the job secret
     * @param fence  ends this endpoint's waits
     * @return a bound endpoint
     * @throws IOException if binding fails
     */
    public static DataEndpoint bind(InetAddress host, int rank, JobSecret secret, WaitFence fence) throws IOException {
        java.util.Objects.requireNonNull(fence, "fence");
        ServerSocketChannel s = ServerSocketChannel.open();
        try {
            s.bind(new InetSocketAddress(host, 0), 64);
            s.configureBlocking(false);
            return new DataEndpoint(s, rank, secret, fence);
        } catch (IOException e) {
            s.close();
            throw e;
        }
    }

    /**
     * @param rank   this rank
     * @param secret the job secret
     * @return an endpoint bound to the loopback address
     * @throws IOException if binding fails
     */
    public static DataEndpoint bindLoopback(int rank, JobSecret secret) throws IOException {
        return bind(InetAddress.getLoopbackAddress(), rank, secret);
    }

    /** @return the address the other ranks connect to */
    public InetSocketAddress address() {
        try {
            return (InetSocketAddress) server.getLocalAddress();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /** @return this rank */
    public int rank() {
        return rank;
    }

    JobSecret secret() {
        return secret;
    }

    /** @return what ends this endpoint's waits at once */
    WaitFence fence() {
        return fence;
    }

    /**
     * Joins the identity ring (rank order): {@link #joinRing(RingOrder, InetSocketAddress, Duration)}.
     *
     * @param ranks   n (>= 2)
     * @param next    the address of (rank+1)%n
     * @param timeout bound on the whole setup
     * @return the links
     * @throws ReplicationException if a peer is unreachable, not authenticated, or too slow
     */
    public RingLinks joinRing(int ranks, InetSocketAddress next, Duration timeout) throws IOException {
        if (ranks < 2) {
            throw new IllegalArgumentException("a ring needs at least 2 ranks");
        }
        return joinRing(RingOrder.identity(ranks), next, timeout);
    }

    /**
     * Connects to the NEXT rank on the ring and accepts the PREVIOUS one, both authenticated. All ranks
     * call this concurrently with the same ring; the steps are ordered so that the ring never waits in
     * a cycle.
     *
     * @param ring    the ring (n >= 2)
     * @param next    the address of {@code ring.next(rank)}
     * @param timeout bound on the whole setup
     * @return the links
     * @throws ReplicationException if a peer is unreachable, not authenticated, or too slow
     */
    public RingLinks joinRing(RingOrder ring, InetSocketAddress next, Duration timeout) throws IOException {
        if (ring.size() < 2) {
            throw new IllegalArgumentException("a ring needs at least 2 ranks");
        }
        if (rank >= ring.size()) {
            throw new IllegalArgumentException("rank " + rank + " is not on the ring " + ring.text());
        }
        long deadline = ChannelIo.deadline(timeout);
        int nextRank = ring.next(rank);
        int prevRank = ring.previous(rank);
        SocketChannel out = ChannelIo.connect(next, deadline, fence, "rank " + rank + " connecting to rank " + nextRank + " at " + next);
        SocketChannel in = null;
        try {
            ChannelHandshake.Client client = new ChannelHandshake.Client(out, secret, ChannelHandshake.PURPOSE_RING, rank, nextRank,
                    fence);
            client.sendHello(deadline);
            ChannelHandshake.Server srv = null;
            while (srv == null) {
                in = ChannelIo.accept(server, deadline, fence, "rank " + rank + " awaiting rank " + prevRank);
                ChannelHandshake.Server s = new ChannelHandshake.Server(in, secret, ChannelHandshake.PURPOSE_RING, rank,
                        fence);
                try {
                    s.answerHello(deadline, prevRank);
                    srv = s;
                } catch (ReplicationException e) {
                    if (e.getMessage().startsWith("timed out") || fence.raised()) {
                        throw e;
                    }
                    in.close(); // a stranger or a stale connection: keep waiting for the real one
                    in = null;
                }
            }
            client.verifyServerAndProve(deadline);
            srv.verifyClient(deadline);
            client.awaitOk(deadline);
            return new RingLinks(rank, ring, out, in);
        } catch (IOException | RuntimeException e) {
            out.close();
            if (in != null) {
                in.close();
            }
            throw e;
        }
    }

    /**
     * Accepts one authenticated transfer connection from any rank of the job.
     *
     * @param deadline System.nanoTime() deadline
     * @return the connection and the authenticated peer rank
     */
    Accepted acceptTransfer(long deadline) throws IOException {
        for (;;) {
            SocketChannel ch = ChannelIo.accept(server, deadline, fence, "rank " + rank + " awaiting a rollback transfer");
            ChannelHandshake.Server s = new ChannelHandshake.Server(ch, secret, ChannelHandshake.PURPOSE_TRANSFER, rank,
                    fence);
            try {
                s.answerHello(deadline, -1);
                s.verifyClient(deadline);
                return new Accepted(ch, s.peer());
            } catch (ReplicationException e) {
                ch.close();
                if (e.getMessage().startsWith("timed out") || fence.raised()) {
                    throw e;
                }
            }
        }
    }

    /**
     * Connects to a rank for a rollback transfer, authenticated.
     */
    SocketChannel connectTransfer(int peer, InetSocketAddress to, long deadline) throws IOException {
        SocketChannel ch = ChannelIo.connect(to, deadline, fence, "rank " + rank + " connecting to rank " + peer + " at "
                + to);
        try {
            ChannelHandshake.Client c = new ChannelHandshake.Client(ch, secret, ChannelHandshake.PURPOSE_TRANSFER, rank, peer,
                    fence);
            c.sendHello(deadline);
            c.verifyServerAndProve(deadline);
            c.awaitOk(deadline);
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** An accepted, authenticated connection. */
    record Accepted(SocketChannel channel, int peer) {
    }

    /** Stops listening. */
    @Override
    public void close() throws IOException {
        server.close();
    }
}
