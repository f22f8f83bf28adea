package io.jckpt.imem;

import java.io.EOFException;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.util.concurrent.TimeUnit;

/**
 * Blocking-style socket operations with a deadline, on non-blocking channels (a plain
 * {@link SocketChannel} read in blocking mode ignores socket timeouts). Every call returns or throws
 * a {@link ReplicationException} by its deadline, or at once when its {@link WaitFence} is raised.
 */
final class ChannelIo {
    private ChannelIo() {
    }

    static long deadline(java.time.Duration timeout) {
        return System.nanoTime() + timeout.toNanos();
    }

    private static long remainingMillis(long deadline, String what) throws ReplicationException {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
            throw new ReplicationException("timed out: " + what);
        }
        return left;
    }

    private static void await(SelectableWait w, int ops, long deadline, WaitFence fence, String what) throws IOException {
        try (Selector sel = Selector.open()) {
            w.channel().register(sel, ops);
            fence.enter(sel); // a raise from here on wakes the select below, or makes it return at once
            try {
                fence.check(what);
                sel.select(remainingMillis(deadline, what));
            } finally {
                fence.exit(sel);
            }
            fence.check(what);
        }
    }

    private interface SelectableWait {
        java.nio.channels.SelectableChannel channel();
    }

    static void configure(SocketChannel ch) throws IOException {
        ch.configureBlocking(false);
        ch.setOption(StandardSocketOptions.TCP_NODELAY, true);
    }

    static SocketChannel connect(InetSocketAddress to, long deadline, String what) throws IOException {
        return connect(to, deadline, WaitFence.NEVER, what);
    }

    static SocketChannel connect(InetSocketAddress to, long deadline, WaitFence fence, String what) throws IOException {
        fence.check(what); // raised: not even a connection that would succeed at once
        SocketChannel ch = SocketChannel.open();
        try {
            configure(ch);
            if (!ch.connect(to)) {
                while (!ch.finishConnect()) {
                    await(() -> ch, SelectionKey.OP_CONNECT, deadline, fence, what);
                }
            }
            return ch;
        } catch (IOException e) {
            ch.close();
            throw e instanceof ReplicationException ? e : new ReplicationException(what + ": " + e.getMessage(), e);
        }
    }

    static SocketChannel accept(ServerSocketChannel server, long deadline, String what) throws IOException {
        return accept(server, deadline, WaitFence.NEVER, what);
    }

    static SocketChannel accept(ServerSocketChannel server, long deadline, WaitFence fence, String what)
            throws IOException {
        server.configureBlocking(false);
        for (;;) {
            fence.check(what);
            SocketChannel ch = server.accept();
            if (ch != null) {
                configure(ch);
                return ch;
            }
            await(() -> server, SelectionKey.OP_ACCEPT, deadline, fence, what);
        }
    }

    static void readFully(SocketChannel ch, ByteBuffer b, long deadline, String what) throws IOException {
        readFully(ch, b, deadline, WaitFence.NEVER, what);
    }

    static void readFully(SocketChannel ch, ByteBuffer b, long deadline, WaitFence fence, String what)
            throws IOException {
        while (b.hasRemaining()) {
            fence.check(what); // raised: its reason, not what a peer going away meanwhile did to the channel
            int n = ch.read(b);
            if (n < 0) {
                throw new ReplicationException(what + ": connection closed by the peer", new EOFException());
            }
            if (n == 0) {
                await(() -> ch, SelectionKey.OP_READ, deadline, fence, what);
            }
        }
    }

    static void writeFully(SocketChannel ch, ByteBuffer b, long deadline, String what) throws IOException {
        writeFully(ch, b, deadline, WaitFence.NEVER, what);
    }

    static void writeFully(SocketChannel ch, ByteBuffer b, long deadline, WaitFence fence, String what)
            throws IOException {
        while (b.hasRemaining()) {
            fence.check(what);
            if (ch.write(b) == 0) {
                await(() -> ch, SelectionKey.OP_WRITE, deadline, fence, what);
            }
        }
    }
}
