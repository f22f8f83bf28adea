package io.jckpt.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;

/**
 * The physical baselines every figure of ours is divided by, measured in the same run: a plain
 * copy into pre-touched off-heap memory, CRC32C, a raw durable write, a raw file read, and raw
 * loopback TCP (between two threads of this JVM, and between this JVM and a second one). Used by
 * perf's baselines section and by the benchmarks that compare a jckpt path with its physical floor
 * (FlushBench, ReplicationBenchmark, TwoJvmReplicationBenchmark).
 */
public final class Baselines {
    private Baselines() {
    }

    /** A direct buffer of {@code size} bytes with every page touched. */
    public static ByteBuffer pretouched(int size) {
        ByteBuffer b = ByteBuffer.allocateDirect(Math.max(size, 1));
        for (int i = 0; i < b.capacity(); i += 4096) {
            b.put(i, (byte) 1);
        }
        return b;
    }

    /** memcpy: the bytes of {@code src} into the pre-touched {@code dst}; returns nanos. */
    public static long copy(byte[] src, ByteBuffer dst) {
        long t0 = System.nanoTime();
        dst.clear();
        dst.put(src, 0, src.length);
        return System.nanoTime() - t0;
    }

    /** CRC32C over a direct buffer; returns nanos (the value is folded into {@code sink}). */
    public static long crc32c(ByteBuffer data, long[] sink) {
        long t0 = System.nanoTime();
        CRC32C crc = new CRC32C();
        ByteBuffer d = data.duplicate();
        d.clear();
        crc.update(d);
        long t = System.nanoTime() - t0;
        sink[0] += crc.getValue();
        return t;
    }

    /** Raw durable write: write loop + force + atomic rename onto a new name + directory fsync; nanos. */
    public static long durableWrite(Path dir, ByteBuffer image, int size, int i) throws IOException {
        Path temp = dir.resolve("raw-" + i + ".tmp");
        Path target = dir.resolve("raw-" + i + ".bin");
        long start = System.nanoTime();
        try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
            ByteBuffer src = image.duplicate();
            src.clear().limit(size);
            while (src.hasRemaining()) {
                channel.write(src);
            }
            channel.force(true);
        }
        Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE);
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
        long nanos = System.nanoTime() - start;
        Files.delete(target);
        return nanos;
    }

    /**
     * {@code writers} raw durable writes at once (as the flush of 4 ranks is: every rank writes its
     * image to the same disk at the same time), each on a thread of {@code pool}, released together;
     * returns each writer's nanos.
     */
    public static long[] concurrentDurableWrites(java.util.concurrent.ExecutorService pool, Path dir, ByteBuffer[] images,
                                          int size, int seq) throws Exception {
        int writers = images.length;
        java.util.concurrent.CyclicBarrier go = new java.util.concurrent.CyclicBarrier(writers);
        List<java.util.concurrent.Future<Long>> futures = new ArrayList<>();
        for (int w = 0; w < writers; w++) {
            int k = w;
            futures.add(pool.submit(() -> {
                go.await(60, TimeUnit.SECONDS);
                return durableWrite(dir, images[k], size, seq * writers + k + 1_000_000);
            }));
        }
        long[] nanos = new long[writers];
        for (int w = 0; w < writers; w++) {
            nanos[w] = futures.get(w).get(120, TimeUnit.SECONDS);
        }
        return nanos;
    }

    /** Raw read of a whole file (from the page cache once written) into a pre-touched buffer; nanos. */
    public static long readFile(Path file, ByteBuffer into) throws IOException {
        long start = System.nanoTime();
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ)) {
            into.clear();
            into.limit((int) Math.min(into.capacity(), channel.size()));
            while (into.hasRemaining() && channel.read(into) >= 0) {
                // read on
            }
        }
        return System.nanoTime() - start;
    }

    /**
     * A thread asleep in {@code Selector.select()}, as a replication agent waits between rounds; {@link
     * #wake()} times the wake-up call the waker pays (the eventfd write, and on a VM the interrupt to
     * the sleeper's idle CPU). memcpy + this is the floor of any here() that hands its copy to a
     * background thread instead of sending it itself. {@link #lastWakeLatency()} is the other side of
     * the hand-off: from the wake-up call until the sleeper runs, which a background sender adds to
     * every transfer it is handed.
     */
    public static final class Sleeper implements AutoCloseable {
        private final java.nio.channels.Selector selector;
        private final Thread thread;
        private volatile boolean running = true;
        private volatile long wokeAt;
        private long wakeCalledAt;

        public Sleeper() throws IOException {
            selector = java.nio.channels.Selector.open();
            thread = new Thread(() -> {
                try {
                    while (running) {
                        selector.select(1000);
                        wokeAt = System.nanoTime();
                    }
                } catch (IOException e) {
                    // closed: stop
                }
            }, "jckpt-baseline-sleeper");
            thread.setDaemon(true);
            thread.start();
        }

        /** @return nanos spent in the wake-up call */
        public long wake() {
            long t0 = System.nanoTime();
            wakeCalledAt = t0;
            selector.wakeup();
            return System.nanoTime() - t0;
        }

        /**
         * @return nanos from the last {@link #wake()} call until the sleeper ran, waiting (in 50 us
         *         sleeps, at most 1 s) for it to run
         */
        public long lastWakeLatency() {
            long deadline = System.nanoTime() + 1_000_000_000L;
            long woke = wokeAt;
            while (woke - wakeCalledAt < 0 && System.nanoTime() < deadline) {
                java.util.concurrent.locks.LockSupport.parkNanos(50_000);
                woke = wokeAt;
            }
            if (woke - wakeCalledAt < 0) {
                throw new IllegalStateException("the sleeper did not wake up within 1 s");
            }
            return woke - wakeCalledAt;
        }

        @Override
        public void close() throws IOException {
            running = false;
            selector.wakeup();
            try {
                thread.join(5000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            selector.close();
        }
    }

    /** Writes all of {@code src} to {@code out}, then reads the receiver's 1-byte ack. */
    private static void sendAndAwaitAck(SocketChannel out, ByteBuffer src, String receiver) throws IOException {
        while (src.hasRemaining()) {
            out.write(src);
        }
        ByteBuffer ack = ByteBuffer.allocate(1);
        while (ack.hasRemaining()) {
            if (out.read(ack) < 0) {
                throw new IOException(receiver + " closed the connection");
            }
        }
    }

    /**
     * Raw loopback TCP between two threads of this JVM: direct buffers, TCP_NODELAY, the receiver
     * acks each message with one byte; a transfer is timed from the first write to the ack.
     */
    public static final class ThreadPair implements AutoCloseable {
        private final SocketChannel out;
        private final SocketChannel in;
        private final ByteBuffer src;
        private final ByteBuffer dst;
        private final ExecutorService reader = Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "jckpt-baseline-tcp-reader");
            t.setDaemon(true);
            return t;
        });

        /** @param capacity the largest transfer, in bytes (direct buffers) */
        public ThreadPair(int capacity) throws IOException {
            this(capacity, null);
        }

        /**
         * @param capacity the largest transfer, in bytes
         * @param mapped if not null, send from and receive into pre-touched memory-mapped files
         *        {@code src} and {@code dst} in this directory (as a replica store's slots are)
         */
        public ThreadPair(int capacity, Path mapped) throws IOException {
            try (ServerSocketChannel s = ServerSocketChannel.open()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
                out = SocketChannel.open(s.getLocalAddress());
                in = s.accept();
            }
            out.setOption(StandardSocketOptions.TCP_NODELAY, true);
            in.setOption(StandardSocketOptions.TCP_NODELAY, true);
            src = mapped == null ? pretouched(capacity) : mapped(mapped.resolve("src"), capacity);
            dst = mapped == null ? pretouched(capacity) : mapped(mapped.resolve("dst"), capacity);
        }

        private static ByteBuffer mapped(Path file, int size) throws IOException {
            try (FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                    StandardOpenOption.WRITE)) {
                ch.truncate(0);
                ch.write(ByteBuffer.allocate(1), size - 1);
                ByteBuffer b = ch.map(FileChannel.MapMode.READ_WRITE, 0, size);
                for (int i = 0; i < size; i += 4096) {
                    b.put(i, (byte) 0);
                }
                return b;
            }
        }

        /**
         * The source rewritten first (untimed), as here() writes its slot before replication.
         *
         * @return nanos to move {@code refill.length} bytes and get the ack
         */
        public long transfer(byte[] refill) throws Exception {
            src.clear();
            src.put(refill);
            return transfer(refill.length);
        }

        /** @return nanos to move {@code size} bytes and get the ack */
        public long transfer(int size) throws Exception {
            Future<Void> f = reader.submit(() -> {
                dst.clear().limit(size);
                while (dst.hasRemaining()) {
                    if (in.read(dst) < 0) {
                        throw new IOException("eof");
                    }
                }
                in.write(ByteBuffer.wrap(new byte[] {1}));
                return null;
            });
            long t0 = System.nanoTime();
            src.clear().limit(size);
            sendAndAwaitAck(out, src, "the receiving thread");
            long t = System.nanoTime() - t0;
            f.get(60, TimeUnit.SECONDS);
            return t;
        }

        @Override
        public void close() throws IOException {
            reader.shutdownNow();
            out.close();
            in.close();
        }
    }

    /**
     * Raw loopback TCP between this JVM and a second one ({@link TcpPeerMain}; or, with {@link
     * #connect}, one already started elsewhere): a 4-byte length, then the payload from a direct
     * buffer; the peer reads it into its own direct buffer and acks with one byte. Timed from the
     * first write to the ack.
     */
    public static final class TwoJvmPair implements AutoCloseable {
        private final Process peer;
        private final SocketChannel out;
        private final ByteBuffer src;

        public TwoJvmPair(int capacity) throws IOException, InterruptedException {
            this(startLocalPeer(capacity), capacity);
        }

        private TwoJvmPair(Process peer, int capacity) throws IOException, InterruptedException {
            this(peer, new InetSocketAddress(InetAddress.getLoopbackAddress(), awaitPort(peer, 30_000)), capacity);
        }

        private TwoJvmPair(Process peer, InetSocketAddress address, int capacity) throws IOException {
            this.peer = peer;
            try {
                out = SocketChannel.open(address);
                out.setOption(StandardSocketOptions.TCP_NODELAY, true);
            } catch (IOException e) {
                if (peer != null) {
                    peer.destroyForcibly();
                }
                throw new IOException("cannot connect to the TCP peer JVM at " + address + ": " + e.getMessage(), e);
            }
            src = pretouched(capacity);
        }

        private static Process startLocalPeer(int capacity) throws IOException {
            return new ProcessBuilder(peerCommand(capacity, null)).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        }

        /**
         * The sending side only, connected to a {@link TcpPeerMain} that listens at {@code address} (started
         * elsewhere: e.g. in another test host, with {@link #peerCommand}); {@link #close()} closes the
         * connection, which ends the peer.
         */
        public static TwoJvmPair connect(InetSocketAddress address, int capacity) throws IOException {
            return new TwoJvmPair(null, address, capacity);
        }

        /**
         * The command line of a peer JVM ({@link TcpPeerMain}, this JVM's Java and class path) that receives
         * up to {@code capacity} bytes a message, listening on {@code bind} (null: the loopback address).
         */
        public static List<String> peerCommand(int capacity, String bind) {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            List<String> command = new ArrayList<>(List.of(java, "-Xmx256m", "-cp", System.getProperty("java.class.path"),
                    TcpPeerMain.class.getName(), Integer.toString(capacity)));
            if (bind != null) {
                command.add(bind);
            }
            return command;
        }

        /**
         * Waits (bounded) for a started peer's {@code PORT p} line; destroys the peer and throws when it does
         * not come.
         *
         * @return the port it listens on
         */
        public static int awaitPort(Process peer, long millis) throws IOException, InterruptedException {
            BufferedReader lines = new BufferedReader(new InputStreamReader(peer.getInputStream(), StandardCharsets.UTF_8));
            String line = readLineWithin(lines, millis);
            if (line == null || !line.startsWith("PORT ")) {
                peer.destroyForcibly();
                throw new IOException("TCP peer JVM did not report its port within " + millis + " ms (got " + line + ")");
            }
            return Integer.parseInt(line.substring(5).trim());
        }

        private static String readLineWithin(BufferedReader reader, long millis) throws IOException, InterruptedException {
            long deadline = System.currentTimeMillis() + millis;
            StringBuilder sb = new StringBuilder();
            while (System.currentTimeMillis() < deadline) {
                if (reader.ready()) {
                    int c = reader.read();
                    if (c < 0 || c == '\n') {
                        return sb.toString();
                    }
                    sb.append((char) c);
                } else {
                    Thread.sleep(10);
                }
            }
            return null;
        }

        /** @return nanos to move {@code size} bytes to the other JVM and get its ack */
        public long transfer(int size) throws IOException {
            long t0 = System.nanoTime();
            ByteBuffer header = ByteBuffer.allocate(4).putInt(0, size);
            while (header.hasRemaining()) {
                out.write(header);
            }
            src.clear().limit(size);
            sendAndAwaitAck(out, src, "the TCP peer JVM");
            return System.nanoTime() - t0;
        }

        @Override
        public void close() throws IOException {
            try {
                out.close();
            } finally {
                if (peer != null) {
                    peer.destroy();
                    try {
                        if (!peer.waitFor(5, TimeUnit.SECONDS)) {
                            peer.destroyForcibly();
                        }
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        peer.destroyForcibly();
                    }
                }
            }
        }
    }
}
