package io.jckpt.imem;

import io.jckpt.image.ImageKey;
import io.jckpt.spi.RingOrder;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/** n ranks as threads in one JVM: separate stores, endpoints, sockets and agents. */
final class TestRing implements AutoCloseable {
    final int n;
    final int m;
    /** The replication ring (identity unless a test passes one). */
    final RingOrder ring;
    final Path root;
    final ReplicaStore[] stores;
    final DataEndpoint[] endpoints;
    final ReplicationAgent[] agents;
    final JobSecret secret = JobSecret.random();
    /** here() leaves the CRC32C to the agent thread. */
    boolean backgroundCrc;
    /** Each rank's image key (checkpoint images, sealed and verified), or null: opaque images. */
    final ImageKey[] keys;

    TestRing(Path root, int n, int m, long slotCapacity, boolean zeroCopy) throws Exception {
        this(root, n, m, slotCapacity, zeroCopy, RingOrder.identity(n));
    }

    TestRing(Path root, int n, int m, long slotCapacity, boolean zeroCopy, RingOrder ring) throws Exception {
        this(root, n, m, slotCapacity, zeroCopy, ring, new ImageKey[n]);
    }

    /** A ring whose ranks seal and verify checkpoint images, rank r with {@code keys[r]}. */
    TestRing(Path root, int n, int m, long slotCapacity, boolean zeroCopy, RingOrder ring, ImageKey[] keys)
            throws Exception {
        this.keys = keys.clone();
        this.n = n;
        this.m = m;
        this.ring = ring;
        this.root = root;
        stores = new ReplicaStore[n];
        endpoints = new DataEndpoint[n];
        agents = new ReplicationAgent[n];
        for (int r = 0; r < n; r++) {
            stores[r] = ReplicaStore.open(config(r, slotCapacity));
            endpoints[r] = DataEndpoint.bindLoopback(r, secret);
        }
        startAgents(zeroCopy, -1);
    }

    ReplicaStoreConfig config(int r, long slotCapacity) {
        return new ReplicaStoreConfig(root.resolve("rank-" + r), r, n, m, 2, slotCapacity, 1L << 30, ring, keys[r]);
    }

    void startAgents(boolean zeroCopy, long initialRound) throws Exception {
        List<RingLinks> links = join(endpoints, ring, Duration.ofSeconds(20));
        for (int r = 0; r < n; r++) {
            agents[r] = ReplicationAgent.start(stores[r], links.get(r), Duration.ofSeconds(10), zeroCopy, initialRound);
        }
    }

    static ExecutorService pool(String name, int threads) {
        AtomicInteger k = new AtomicInteger();
        return Executors.newFixedThreadPool(threads, run -> {
            Thread t = new Thread(run, name + "-" + k.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
    }

    /** Every rank joins the identity ring concurrently. */
    static List<RingLinks> join(DataEndpoint[] eps, int n, Duration timeout) throws Exception {
        return join(eps, RingOrder.identity(n), timeout);
    }

    /** Every rank joins {@code ring} concurrently. */
    static List<RingLinks> join(DataEndpoint[] eps, RingOrder ring, Duration timeout) throws Exception {
        int n = ring.size();
        ExecutorService pool = pool("jckpt-test-join", n);
        try {
            List<Future<RingLinks>> fs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                final int rank = r;
                InetSocketAddress next = eps[ring.next(r)].address();
                fs.add(pool.submit(() -> eps[rank].joinRing(ring, next, timeout)));
            }
            List<RingLinks> out = new ArrayList<>();
            for (Future<RingLinks> f : fs) {
                out.add(f.get(timeout.toSeconds() + 10, TimeUnit.SECONDS));
            }
            return out;
        } finally {
            pool.shutdownNow();
        }
    }

    /** here() of one rank: local copy and hand-off. */
    int here(int rank, long round, byte[] image, Duration timeout) throws Exception {
        ReplicaWrite w = agents[rank].beginRound(round, image.length, timeout);
        fill(w, image);
        if (backgroundCrc) {
            agents[rank].commitRoundInBackground(w);
            return 0;
        }
        return agents[rank].commitRound(w);
    }

    /** Writes {@code bytes} into a write in progress, window by window (any slot size). */
    static void fill(ReplicaWrite w, byte[] bytes) {
        for (long at = 0; at < bytes.length; ) {
            java.nio.ByteBuffer part = w.region(at, bytes.length - at);
            part.put(bytes, (int) at, part.remaining());
            at += part.limit();
        }
    }

    @Override
    public void close() throws IOException {
        for (ReplicationAgent a : agents) {
            if (a != null) {
                a.close();
            }
        }
        for (DataEndpoint e : endpoints) {
            if (e != null) {
                e.close();
            }
        }
        for (ReplicaStore s : stores) {
            if (s != null) {
                s.close();
            }
        }
    }

    static <T> T get(Future<T> f) throws Exception {
        try {
            return f.get(60, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof Exception ex) {
                throw ex;
            }
            throw e;
        }
    }
}
