package io.jckpt.imem;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;

/**
 * Child process for {@link TwoJvmReplicationBenchmark}: accepts one loopback connection (prints
 * "PORT p"), then repeatedly reads a message of the given size into a direct buffer and acks it
 * with one byte, until the connection closes. Args: message size.
 */
public final class RawTcpPeerMain {
    private RawTcpPeerMain() {
    }

    /**
     * @param args message size in bytes
     * @throws Exception on failure
     */
    public static void main(String[] args) throws Exception {
        int size = Integer.parseInt(args[0]);
        ByteBuffer dst = ByteBuffer.allocateDirect(size);
        try (ServerSocketChannel s = ServerSocketChannel.open()) {
            s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
            System.out.println("PORT " + ((InetSocketAddress) s.getLocalAddress()).getPort());
            System.out.flush();
            try (SocketChannel in = s.accept()) {
                in.setOption(java.net.StandardSocketOptions.TCP_NODELAY, true);
                for (;;) {
                    dst.clear();
                    while (dst.hasRemaining()) {
                        if (in.read(dst) < 0) {
                            return;
                        }
                    }
                    ByteBuffer ack = ByteBuffer.wrap(new byte[] {1});
                    while (ack.hasRemaining()) {
                        in.write(ack);
                    }
                }
            }
        }
    }
}
