package io.jckpt.runtime.launcher;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;

/**
 * The port exchange MPJ Express niodev expects from mpjrun, done by the launcher for one MPJ world:
 * every rank connects, sends {@code writeUTF("Sending Info"), writeInt(wport), writeInt(rport),
 * writeInt(rank)}; once all have arrived each gets
 * {@code writeUTF("#Peer Information;host@rport@wport@rank@0;...")} ordered by rank. Ephemeral port,
 * so several jobs (and several worlds of one job) never collide. One named thread; bounded by a
 * deadline; {@link #close()} stops it.
 */
final class PortExchange implements AutoCloseable {
    private static final String HELLO = "Sending Info";

    private final ServerSocket server;
    private final int worldSize;
    private final List<String> hosts;
    private final long deadlineNanos;
    private final Thread thread;
    private volatile String failure;
    private volatile long completedNanos;
    private final Runnable formed;

    /**
     * @param hosts the host each rank runs on, as the other ranks must reach it, indexed by rank
     * @param timeoutMillis how long all ranks may take to arrive
     */
    PortExchange(InetAddress bindAddress, List<String> hosts, long timeoutMillis, String name) throws IOException {
        this(bindAddress, hosts, timeoutMillis, name, () -> { });
    }

    /**
     * @param formed run on the exchange's thread once every rank has its answer (the world is formed)
     */
    PortExchange(InetAddress bindAddress, List<String> hosts, long timeoutMillis, String name, Runnable formed)
            throws IOException {
        this.formed = formed;
        this.server = new ServerSocket();
        this.server.bind(new InetSocketAddress(bindAddress, 0), hosts.size() + 8);
        this.worldSize = hosts.size();
        this.hosts = hosts;
        this.deadlineNanos = System.nanoTime() + timeoutMillis * 1_000_000L;
        this.thread = new Thread(this::run, name);
        this.thread.setDaemon(true);
        this.thread.start();
    }

    int port() {
        return server.getLocalPort();
    }

    /** When every rank had joined (System.nanoTime), or 0 while they have not. */
    long completedNanos() {
        return completedNanos;
    }

    /** The MPJ niodev conf argument that points ranks at this exchange. */
    String mpjConf(String serverHost) {
        return "#Number of Processes;" + worldSize + ";#Protocol Switch Limit;131072;#Server Name;" + serverHost
                + ";#Server Port;" + port();
    }

    /** Why the exchange failed, or {@code null}. */
    String failure() {
        return failure;
    }

    private void run() {
        Socket[] sockets = new Socket[worldSize];
        int[] rports = new int[worldSize];
        int[] wports = new int[worldSize];
        int arrived = 0;
        try {
            while (arrived < worldSize) {
                long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw new SocketTimeoutException(arrived + " of " + worldSize + " ranks joined the MPJ world in time");
                }
                server.setSoTimeout((int) Math.min(left, Integer.MAX_VALUE));
                Socket socket = server.accept();
                String hello;
                int wport;
                int rport;
                int rank;
                try {
                    socket.setSoTimeout((int) Math.max(1, Math.min(left, 10_000)));
                    DataInputStream in = new DataInputStream(socket.getInputStream());
                    hello = in.readUTF();
                    wport = in.readInt();
                    rport = in.readInt();
                    rank = in.readInt();
                } catch (IOException e) {
                    // a rank that died while it said hello (a second failure during a recovery): not a
                    // member; the launcher sees its death and starts the next world with a new exchange
                    socket.close();
                    continue;
                }
                if (!HELLO.equals(hello) || rank < 0 || rank >= worldSize || sockets[rank] != null) {
                    socket.close(); // not one of ours, or a duplicate: ignore it
                    continue;
                }
                sockets[rank] = socket;
                wports[rank] = wport;
                rports[rank] = rport;
                arrived++;
            }
            StringBuilder info = new StringBuilder("#Peer Information");
            for (int r = 0; r < worldSize; r++) {
                info.append(';').append(hosts.get(r)).append('@').append(rports[r]).append('@')
                        .append(wports[r]).append('@').append(r).append("@0");
            }
            String answer = info.toString();
            // every rank has joined: dated before the answers go out, so that a rank holding its answer
            // never sees the exchange still incomplete
            completedNanos = System.nanoTime();
            for (Socket socket : sockets) {
                try {
                    DataOutputStream out = new DataOutputStream(socket.getOutputStream());
                    out.writeUTF(answer);
                    out.flush();
                } catch (IOException e) {
                    // that rank died after its hello: its world is lost with it, and the launcher, seeing
                    // its death, starts the next one; the others must still get their answer
                }
            }
            formed.run();
        } catch (IOException e) {
            if (!server.isClosed()) {
                failure = "MPJ port exchange failed: " + (e.getMessage() != null ? e.getMessage() : e.toString());
            }
        } finally {
            for (Socket socket : sockets) {
                if (socket != null) {
                    try {
                        socket.close();
                    } catch (IOException ignored) {
                        // nothing to release
                    }
                }
            }
            try {
                server.close();
            } catch (IOException ignored) {
                // nothing to release
            }
        }
    }

    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException ignored) {
            // nothing to release
        }
        try {
            thread.join(1_000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
