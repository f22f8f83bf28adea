package io.jckpt.testkit;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * The receiving JVM of the raw two-JVM TCP baseline: prints {@code PORT p}, accepts one connection
 * (on the loopback address, or on the address given: a test host's own), then repeatedly reads a 4-byte length and that many bytes into a direct buffer and
 * acks with one byte, until the connection closes. Exits when its parent's stdin closes too.
 */
public final class TcpPeerMain {
    private TcpPeerMain() {
    }

    /**
     * @param args the largest message in bytes, optionally the address to listen on (default loopback)
     * @throws IOException on I/O failure
     */
    public static void main(String[] args) throws IOException {
        int capacity = Integer.parseInt(args[0]);
        Thread watchdog = new Thread(() -> { // no orphan: stop when the parent goes away
            try {
                while (System.in.read() >= 0) {
                    // nothing is sent; EOF means the parent is gone
                }
            } catch (IOException ignored) {
                // parent gone
            }
            System.exit(0);
        }, "jckpt-tcp-peer-watchdog");
        watchdog.setDaemon(true);
        watchdog.start();
        ByteBuffer dst = Baselines.pretouched(capacity);
        try (ServerSocketChannel server = ServerSocketChannel.open()) {
            server.bind(new InetSocketAddress(args.length > 1 ? InetAddress.getByName(args[1])
                    : InetAddress.getLoopbackAddress(), 0));
            System.out.println("PORT " + ((InetSocketAddress) server.getLocalAddress()).getPort());
            System.out.flush();
            try (SocketChannel in = server.accept()) {
                in.setOption(StandardSocketOptions.TCP_NODELAY, true);
                ByteBuffer header = ByteBuffer.allocate(4);
                ByteBuffer ack = ByteBuffer.allocate(1);
                for (;;) {
                    header.clear();
                    while (header.hasRemaining()) {
                        if (in.read(header) < 0) {
                            return;
                        }
                    }
                    int size = header.getInt(0);
                    dst.clear().limit(size);
                    while (dst.hasRemaining()) {
                        if (in.read(dst) < 0) {
                            return;
                        }
                    }
                    ack.clear();
                    in.write(ack);
                }
            }
        }
    }
}
