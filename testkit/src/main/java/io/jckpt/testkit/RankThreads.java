package io.jckpt.testkit;

import io.jckpt.CkptOptions;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankCollective;
import io.jckpt.spi.RankContext;
import io.jckpt.spi.RankEvent;
import io.jckpt.spi.RingOrder;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.IntPredicate;
import java.util.stream.Stream;

/**
 * N ranks as threads of this JVM: one world (epoch) of a job. Each rank has its own node-local
 * directory (its "node", {@link #node(Path, int)}), the checkpointers talk over real loopback
 * sockets, and the ranks' collectives go through an in-process {@link LocalRankCollective} instead
 * of the launcher's. Used by two-level-policy's tests and by perf's micro and scaling sections.
 *
 * <p>The kit depends on ckpt-api only (the modules' tests take it in test scope), so it does not
 * know the checkpointer it opens: the caller passes an {@link Opener}, e.g.
 * {@code TwoLevelCheckpointer::open}.
 *
 * <p>Every per-rank task runs on this group's own named daemon threads, and every wait for a rank is
 * bounded by {@link #bound()}: a rank that does not finish in time fails the call with an
 * {@link IllegalStateException} naming it, and the other ranks' tasks are cancelled.
 *
 * @param <C> the checkpointer type the {@link Opener} returns
 */
public final class RankThreads<C extends AutoCloseable> implements AutoCloseable {
    /** What the group opens on each rank: the signature of {@code TwoLevelCheckpointer.open}. */
    @FunctionalInterface
    public interface Opener<C> {
        /**
         * @param options the rank's options
         * @param context the rank's identity in this world
         * @param collective the rank's endpoint of the world's collectives
         * @param secret the job secret (the same on every rank)
         * @param jobKey the launcher's job key (the same on every rank and in every world of the job)
         * @param bindHost the host the rank's data endpoint binds
         * @param events the rank's event sink (the launcher's log), or null
         * @return the rank's checkpointer
         * @throws Exception when the rank cannot open
         */
        C open(CkptOptions options, RankContext context, RankCollective collective, byte[] secret, byte[] jobKey,
               String bindHost, Consumer<RankEvent> events) throws Exception;
    }

    /**
     * A per-rank task that may throw.
     *
     * @param <T> what the task returns
     */
    @FunctionalInterface
    public interface RankTask<T> {
        /**
         * @param rank the rank this runs as
         * @return the rank's result
         * @throws Exception the rank's failure
         */
        T run(int rank) throws Exception;
    }

    private final int n;
    private final Duration bound;
    private final Opener<C> opener;
    private final ExecutorService pool;
    private volatile RingOrder ring;
    private volatile java.util.function.IntFunction<String> bindHosts = r -> "127.0.0.1";
    /** The launcher's job key every rank gets (the same in every world), or null: the job's key files. */
    private volatile byte[] jobKey = defaultJobKey();

    /**
     * @param n number of ranks, &gt;= 1
     * @param bound how long {@link #parallel} waits for each rank
     * @param threadName prefix of the ranks' thread names
     * @param opener opens one rank's checkpointer
     */
    public RankThreads(int n, Duration bound, String threadName, Opener<C> opener) {
        if (n < 1) {
            throw new IllegalArgumentException("n=" + n + " ranks: must be >= 1");
        }
        this.n = n;
        this.bound = bound;
        this.opener = opener;
        AtomicInteger k = new AtomicInteger();
        this.pool = Executors.newFixedThreadPool(n, r -> {
            Thread t = new Thread(r, threadName + "-" + k.getAndIncrement());
            t.setDaemon(true);
            return t;
        });
    }

    /**
     * Sets the address each rank's data endpoint binds from the next {@link #open} on, as the launcher's
     * {@code JCKPT_HOST_ADDRESS} does (default 127.0.0.1 for every rank; other 127.0.0.N addresses stand
     * for other hosts).
     *
     * @param hostOfRank the address of rank r
     * @return this group
     */
    public RankThreads<C> bindHosts(java.util.function.IntFunction<String> hostOfRank) {
        this.bindHosts = java.util.Objects.requireNonNull(hostOfRank, "hostOfRank");
        return this;
    }

    /**
     * Sets the replication ring every rank's context carries from the next {@link #open} on, as the
     * launcher's {@code JCKPT_RING_ORDER} does (default, or {@code null}: the identity).
     *
     * @param ring a ring of {@link #size()} ranks, or null
     * @return this group
     */
    public RankThreads<C> ring(RingOrder ring) {
        if (ring != null && ring.size() != n) {
            throw new IllegalArgumentException("ring " + ring.text() + " of " + ring.size() + " ranks for " + n + " ranks");
        }
        this.ring = ring;
        return this;
    }

    /**
     * Sets the launcher's job key every rank gets from the next {@link #open} on (default: one fixed key, the
     * same in every world, as a launcher gives a job; {@code null}: none, the ranks use the job's key files).
     *
     * @param key the key, or null
     * @return this
     */
    public RankThreads<C> jobKey(byte[] key) {
        this.jobKey = key == null ? null : key.clone();
        return this;
    }

    private static byte[] defaultJobKey() {
        byte[] key = new byte[32];
        java.util.Arrays.fill(key, (byte) 7);
        return key;
    }

    /** @return number of ranks */
    public int size() {
        return n;
    }

    /** @return how long {@link #parallel} waits for each rank */
    public Duration bound() {
        return bound;
    }

    /** @return the directory of {@code rank}'s node under {@code nodes}: its memory directory */
    public static Path node(Path nodes, int rank) {
        return nodes.resolve("node-" + rank);
    }

    /**
     * Per-rank options: each rank's memory directory is its own node's.
     *
     * @param diskDir the shared disk directory, or null for no disk level
     * @return options with {@code replicas}, the node's memory directory, {@code diskRatio} and the budget
     */
    public static CkptOptions options(Path nodes, int rank, int replicas, Path diskDir, int diskRatio,
                                      long maxMemoryBytes) {
        CkptOptions.Builder b = CkptOptions.builder().replicas(replicas).memoryDirectory(node(nodes, rank))
                .diskRatio(diskRatio).maxMemoryBytes(maxMemoryBytes);
        if (diskDir != null) {
            b.diskDirectory(diskDir);
        }
        return b.build();
    }

    /** The node of {@code rank} is lost: its node-local directory is deleted. */
    public static void wipeNode(Path nodes, int rank) throws IOException {
        Path dir = node(nodes, rank);
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Opens every rank of one world concurrently (open is a collective), over a fresh collective group.
     *
     * @param epoch 0 for the first world; &gt; 0 is a recovery
     * @param newRank in a recovery, the ranks that are replacements
     * @param events each rank's event sink, or null for none
     * @param openNanos if not null, receives each rank's open() time (the ranks then start open() together)
     * @return the checkpointers, indexed by rank
     */
    public List<C> open(String jobId, int epoch, IntFunction<CkptOptions> options, IntPredicate newRank,
                        IntFunction<Consumer<RankEvent>> events, long[] openNanos) throws Exception {
        return open(LocalRankCollective.group(n), jobId, epoch, options, newRank, events, openNanos);
    }

    /**
     * As {@link #open(String, int, IntFunction, IntPredicate, IntFunction, long[])}, over the given
     * collective endpoints (one per rank), so that a test can read their counters.
     */
    public List<C> open(List<LocalRankCollective> collectives, String jobId, int epoch, IntFunction<CkptOptions> options,
                        IntPredicate newRank, IntFunction<Consumer<RankEvent>> events, long[] openNanos) throws Exception {
        if (collectives.size() != n) {
            throw new IllegalArgumentException(collectives.size() + " collective endpoints for " + n + " ranks");
        }
        byte[] secret = new byte[32];
        secret[0] = 42;
        byte[] jobKey = this.jobKey;
        // timed opens start together; untimed ones as the ranks come (a rank whose options fail then
        // fails alone, with its own exception first, as the tests expect)
        CyclicBarrier start = openNanos != null ? new CyclicBarrier(n) : null;
        return parallel(rank -> {
            RankContext context;
            CkptOptions rankOptions;
            try {
                context = RankContext.builder().rank(rank).size(n).jobId(jobId).epoch(epoch)
                        .recovery(epoch > 0).newRank(epoch > 0 && newRank.test(rank)).ring(ring).build();
                rankOptions = options.apply(rank);
            } catch (RuntimeException e) {
                if (start != null) {
                    start.reset(); // the others stop waiting for this rank
                }
                throw e;
            }
            if (start != null) {
                try {
                    start.await(bound.toMillis(), TimeUnit.MILLISECONDS);
                } catch (BrokenBarrierException | TimeoutException e) {
                    throw new IllegalStateException("rank " + rank + ": the other ranks did not start open()", e);
                }
            }
            long t0 = System.nanoTime();
            C c = opener.open(rankOptions, context, collectives.get(rank), secret, jobKey, bindHosts.apply(rank),
                    events == null ? null : events.apply(rank));
            if (openNanos != null) {
                openNanos[rank] = System.nanoTime() - t0;
            }
            return c;
        });
    }

    /** Closes every rank concurrently (close is a collective when the disk level is on). */
    public void closeAll(List<C> world) throws Exception {
        parallel(rank -> {
            world.get(rank).close();
            return null;
        });
    }

    /**
     * Runs task(rank) for every rank on its own thread, concurrently; each rank's wait bounded by {@link #bound()}.
     *
     * @return the ranks' results, indexed by rank
     * @throws Exception the first failing rank's exception as it was thrown (the others' suppressed in it)
     */
    public <T> List<T> parallel(RankTask<T> task) throws Exception {
        List<Future<T>> futures = new ArrayList<>();
        for (int rank = 0; rank < n; rank++) {
            int r = rank;
            futures.add(pool.submit((Callable<T>) () -> task.run(r)));
        }
        List<T> results = new ArrayList<>();
        Exception first = null;
        for (int rank = 0; rank < n; rank++) {
            try {
                results.add(futures.get(rank).get(bound.toNanos(), TimeUnit.NANOSECONDS));
            } catch (ExecutionException e) {
                Exception cause = e.getCause() instanceof Exception c ? c : e;
                if (first == null) {
                    first = cause;
                } else {
                    first.addSuppressed(new Exception("rank " + rank + ": " + cause, cause));
                }
            } catch (TimeoutException e) {
                futures.forEach(f -> f.cancel(true));
                IllegalStateException late = new IllegalStateException("rank " + rank + " did not finish within "
                        + bound.toSeconds() + " s");
                if (first != null) {
                    late.addSuppressed(first);
                }
                throw late;
            }
        }
        if (first != null) {
            throw first;
        }
        return results;
    }

    /** Stops the ranks' threads (interrupting any task still running). */
    @Override
    public void close() {
        pool.shutdownNow();
    }
}
