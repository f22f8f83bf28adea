package io.jckpt.disk;

import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank's disk level while a job runs: its background {@link DiskFlusher}, the {@link SlotPins} of
 * the memory slots that flusher still reads, and, on the coordinator (rank 0), the commit of every
 * round whose rank files are all durable.
 *
 * <p>The coordinator sees completeness on the shared disk itself: a rank file gets its final name only
 * after write, force and rename. Each round this rank made durable is handed to one daemon thread
 * ({@code jckpt-disk-commit-r<rank>}) that polls {@link GenerationStore#commit} every
 * {@value #COMMIT_POLL_MILLIS} ms (sleeping between polls, never spinning) until it succeeds, a newer
 * round was committed, the commit timeout passes (a warning, counted as a failure), or every rank's
 * flushes are known to be over ({@link #flushesSettled(boolean)}: the round will never be complete, counted as
 * incomplete).
 *
 * <p>What happens is reported to a {@link Listener} (the checkpointer's stats) and, as one line each,
 * to the {@code events} and {@code warnings} consumers given at start. A failed flush's reason is
 * warned once; the same reason again is counted and logged at debug level.
 */
public final class DiskCommitCoordinator implements AutoCloseable {
    /** Pause between two commit attempts of the same round. */
    public static final long COMMIT_POLL_MILLIS = 20;
    private static final Logger LOG = LoggerFactory.getLogger(DiskCommitCoordinator.class);

    /** Told what became of the disk rounds; called on the flusher and commit threads: short, never blocking. */
    public interface Listener {
        /** A disk round of this rank is durable. */
        void onFlushed();

        /** A disk round of this rank failed, or (coordinator) a round was not committed within the timeout. */
        void onFailed();

        /**
         * @param round the round whose generation the coordinator committed
         */
        void onCommitted(long round);

        /**
         * @param round a round the coordinator found incomplete once every flush was over
         */
        void onIncomplete(long round);
    }

    private final GenerationStore disk;
    private final int rank;
    private final int size;
    private final Duration commitTimeout;
    private final SlotPins pins;
    private final Listener listener;
    private final Consumer<String> events;
    private final Consumer<String> warnings;
    private final ExecutorService committer;
    private final DiskFlusher flusher;
    private volatile long lastCommitted;
    /** Set at close once every rank's flushes are done: a rank file not durable by then never will be. */
    private volatile boolean flushesSettled;
    /** The reason of this rank's previous disk failure: a repeated reason is not reported again. */
    private volatile String lastFailure;

    private DiskCommitCoordinator(final GenerationStore disk, final int rank, final int size,
                                  final Duration commitTimeout, final SlotPins pins, final Listener listener,
                                  final Consumer<String> events, final Consumer<String> warnings) {
        this.disk = disk;
        this.rank = rank;
        this.size = size;
        this.commitTimeout = commitTimeout;
        this.pins = pins;
        this.listener = listener;
        this.events = events;
        this.warnings = warnings;
        this.lastCommitted = disk.committedRounds().stream().mapToLong(Long::longValue).max().orElse(0);
        this.committer = Executors.newSingleThreadExecutor(r -> {
            final Thread t = new Thread(r, "jckpt-disk-commit-r" + rank);
            t.setDaemon(true);
            return t;
        });
        this.flusher = DiskFlusher.start(disk, OverlapPolicy.COALESCE, new FlushListener() {
            @Override
            public void onDurable(final FlushedGeneration generation) {
                listener.onFlushed();
                if (rank == 0) { // the coordinator: the lowest rank
                    committer.execute(() -> commitWhenComplete(generation.round()));
                }
            }

            @Override
            public void onFailed(final long failedRound, final StableDiskException error) {
                listener.onFailed();
                // one line per reason: the same failure every disk round is counted, not repeated
                final String reason = error.getMessage();
                if (reason.equals(lastFailure)) {
                    LOG.debug("rank {}: disk round {} failed again: {}", rank, failedRound, reason);
                } else {
                    lastFailure = reason;
                    warnings.accept("disk round " + failedRound + " failed: " + reason
                            + " (later failures for this reason are counted, not repeated)");
                }
            }
        });
    }

    /**
     * Starts the disk level of one rank: its commit thread and its flusher.
     *
     * @param disk          this rank's generation store
     * @param rank          this rank (rank 0 commits)
     * @param size          the number of ranks: a generation needs every rank's file
     * @param commitTimeout how long the coordinator tries to commit one round
     * @param pins          where the slots read by flushes are pinned
     * @param listener      told what became of the disk rounds
     * @param events        one line per committed generation
     * @param warnings      one line per new failure reason or commit timeout
     * @return the running disk level
     */
    public static DiskCommitCoordinator start(final GenerationStore disk, final int rank, final int size,
                                              final Duration commitTimeout, final SlotPins pins,
                                              final Listener listener, final Consumer<String> events,
                                              final Consumer<String> warnings) {
        return new DiskCommitCoordinator(disk, rank, size, commitTimeout, pins, listener, events, warnings);
    }

    /**
     * Flushes a round in the background from a memory slot, pinned until the flusher releases it.
     *
     * @param round the round
     * @param image a view of the slot's image
     * @param slot  the slot (pinned)
     * @param owner the store holding it (pinned)
     */
    public void submit(final long round, final CheckpointImage image, final Object slot, final Object owner) {
        pins.pin(slot, owner);
        flusher.submit(round, new CheckpointImage() {
            @Override
            public long length() {
                return image.length();
            }

            @Override
            public ByteBuffer region(final long offset, final int regionLength) {
                return image.region(offset, regionLength);
            }

            @Override
            public void release() {
                pins.unpin(slot, owner);
            }
        });
    }

    /**
     * @param timeout the bound
     * @return whether the flusher became idle (nothing writing, nothing pending) in time
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitIdle(final Duration timeout) throws InterruptedException {
        return flusher.awaitIdle(timeout);
    }

    /**
     * Says that every rank's flushes are over (the close's exchange): a round not complete now never
     * will be, and the coordinator stops polling for it.
     *
     * @param settled whether every rank reported its flusher idle
     */
    public void flushesSettled(final boolean settled) {
        flushesSettled = settled;
    }

    /**
     * @return the flusher (its counters and CPU time)
     */
    public DiskFlusher flusher() {
        return flusher;
    }

    /**
     * Stops the flusher (after waiting, bounded, for its work when {@code flushFirst}), then lets the
     * commit thread finish its polls (at most 10 s) and stops it.
     *
     * @param flushFirst whether to wait for the flusher's pending work first
     * @param bound      how long to wait for it
     */
    public void close(final boolean flushFirst, final Duration bound) {
        if (flushFirst) {
            try {
                flusher.awaitIdle(bound);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        flusher.close();
        committer.shutdown();
        try {
            committer.awaitTermination(10, TimeUnit.SECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the flusher and the commit thread without waiting for pending flushes. */
    @Override
    public void close() {
        close(false, Duration.ZERO);
    }

    /**
     * The coordinator (rank 0) commits a round once every rank's file of it is durable. Polls
     * (bounded, no spinning) on the commit thread; a newer round supersedes.
     */
    private void commitWhenComplete(final long toCommit) {
        final long deadline = System.nanoTime() + commitTimeout.toNanos();
        for (;;) {
            if (toCommit <= lastCommitted) {
                return;
            }
            try {
                disk.commit(toCommit, size);
                lastCommitted = toCommit;
                listener.onCommitted(toCommit);
                events.accept("disk generation of round " + toCommit + " committed");
                return;
            } catch (final StableDiskException e) {
                if (flushesSettled) {
                    // a rank coalesced this round into a newer one (its flusher skips rounds that
                    // queue up), or its flush failed, and every flush is over: it will never be complete
                    listener.onIncomplete(toCommit);
                    LOG.debug("rank {}: disk round {} not committed at close: {}", rank, toCommit, e.getMessage());
                    return;
                }
                if (System.nanoTime() > deadline) {
                    listener.onFailed();
                    warnings.accept("disk generation of round " + toCommit + " not committed within "
                            + commitTimeout.toMillis() + " ms: " + e.getMessage());
                    return;
                }
            }
            try {
                Thread.sleep(COMMIT_POLL_MILLIS);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
