package io.jckpt.disk;

import io.jckpt.spi.AgentThreads;
import io.jckpt.spi.RankEvent;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Consumer;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One rank's disk level while a job runs: its background {@link DiskFlusher} and, on the coordinator
 * (rank 0), the commit of every round whose rank files are all durable. The images it flushes are the
 * caller's: each is released ({@link CheckpointImage#release()}) once the flusher no longer reads it,
 * which is how the caller's store learns that the memory slot under it may be written again (the
 * store owns the retain of its slot, see {@link CheckpointImage#withRelease}).
 *
 * <p>The coordinator sees completeness on the shared disk itself: a rank file gets its final name only
 * after write, force and rename. Each round this rank made durable is handed, in order, to the commit
 * agent ({@link AgentThreads}, thread {@code jckpt-disk-commit-r<rank>}, on the coordinator only): one
 * {@link GenerationStore#commit} attempt per duty cycle, {@value #COMMIT_POLL_MILLIS} ms apart (its idle
 * strategy sleeps between attempts, never spinning), until it succeeds, a newer round was committed,
 * the commit timeout passes (a warning, counted as a failure), or every rank's flushes are known to be
 * over ({@link #flushesSettled(boolean)}: the round will never be complete, counted as incomplete).
 * With no round to commit the agent waits for one, at most {@value #IDLE_WAIT_MILLIS} ms at a time.
 *
 * <p>What happens is reported to a {@link Listener} (the checkpointer's stats) and, as one line each,
 * to the {@code events} and {@code warnings} consumers given at start. A failed flush's reason is
 * warned once; the same reason again is counted and logged at debug level.
 */
public final class DiskCommitCoordinator implements AutoCloseable {
    /** Pause between two commit attempts of the same round. */
    public static final long COMMIT_POLL_MILLIS = 20;
    /** Longest single wait of the commit agent for a round to commit. */
    public static final long IDLE_WAIT_MILLIS = 100;
    /** How long {@link #close(boolean, Duration)} lets the commit agent finish the rounds handed to it. */
    private static final long COMMIT_CLOSE_MILLIS = TimeUnit.SECONDS.toMillis(10);
    /** How long close then waits for the agent's current cycle (one attempt and a pause) to end. */
    private static final long COMMIT_STOP_MILLIS = TimeUnit.SECONDS.toMillis(1);
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
    private final Listener listener;
    private final Consumer<RankEvent> events;
    private final Consumer<String> warnings;
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition durable = lock.newCondition();
    /** The durable rounds not yet taken by the commit agent, oldest first; guarded by {@link #lock}. */
    private final ArrayDeque<Long> durableRounds = new ArrayDeque<>();
    /** Set by close: the commit agent ends once it has no round left; guarded by {@link #lock}. */
    private boolean closing;
    /** Counted down when the commit agent has ended. */
    private final CountDownLatch committerEnded = new CountDownLatch(1);
    /** The commit agent; null on the ranks other than the coordinator. */
    private final AgentRunner committer;
    private final DiskFlusher flusher;
    private volatile long lastCommitted;
    /** Set at close once every rank's flushes are done: a rank file not durable by then never will be. */
    private volatile boolean flushesSettled;
    /** The reason of this rank's previous disk failure: a repeated reason is not reported again. */
    private volatile String lastFailure;

    private DiskCommitCoordinator(final GenerationStore disk, final int rank, final int size,
                                  final Duration commitTimeout, final Listener listener,
                                  final Consumer<RankEvent> events, final Consumer<String> warnings) {
        this.disk = disk;
        this.rank = rank;
        this.size = size;
        this.commitTimeout = commitTimeout;
        this.listener = listener;
        this.events = events;
        this.warnings = warnings;
        this.lastCommitted = disk.committedRounds().stream().mapToLong(Long::longValue).max().orElse(0);
        // the coordinator: the lowest rank
        this.committer = rank == 0
                ? AgentThreads.start(new Committer(), new SleepingMillisIdleStrategy(COMMIT_POLL_MILLIS)) : null;
        this.flusher = DiskFlusher.start(disk, OverlapPolicy.COALESCE, new FlushListener() {
            @Override
            public void onDurable(final FlushedGeneration generation) {
                listener.onFlushed();
                if (committer != null) {
                    handToCommitter(generation.round());
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
     * Starts the disk level of one rank: its commit agent (rank 0) and its flusher.
     *
     * @param disk          this rank's generation store
     * @param rank          this rank (rank 0 commits)
     * @param size          the number of ranks: a generation needs every rank's file
     * @param commitTimeout how long the coordinator tries to commit one round
     * @param listener      told what became of the disk rounds
     * @param events        one {@link RankEvent.DiskCommitted} per committed generation
     * @param warnings      one line per new failure reason or commit timeout
     * @return the running disk level
     */
    public static DiskCommitCoordinator start(final GenerationStore disk, final int rank, final int size,
                                              final Duration commitTimeout, final Listener listener,
                                              final Consumer<RankEvent> events, final Consumer<String> warnings) {
        return new DiskCommitCoordinator(disk, rank, size, commitTimeout, listener, events, warnings);
    }

    /**
     * Flushes a round in the background; the image must not change until the flusher releases it
     * (flushed, failed, or coalesced away by a newer round).
     *
     * @param round the round
     * @param image the round's image (a view of a memory slot the caller's store keeps retained until
     *              the image is released)
     */
    public void submit(final long round, final CheckpointImage image) {
        flusher.submit(round, image);
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
     * commit agent finish the rounds handed to it (at most 10 s) and stops it (waiting at most 1 s
     * more for its current attempt).
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
        if (committer != null) {
            closeCommitter();
        }
    }

    /** Stops the flusher and the commit agent without waiting for pending flushes. */
    @Override
    public void close() {
        close(false, Duration.ZERO);
    }

    private void handToCommitter(final long round) {
        lock.lock();
        try {
            durableRounds.addLast(round);
            durable.signal();
        } finally {
            lock.unlock();
        }
    }

    private void closeCommitter() {
        lock.lock();
        try {
            closing = true;
            durable.signal();
        } finally {
            lock.unlock();
        }
        if (Thread.currentThread() == committer.thread()) {
            return; // a listener on the commit thread: the agent ends itself once its rounds are done
        }
        try {
            committerEnded.await(COMMIT_CLOSE_MILLIS, TimeUnit.MILLISECONDS);
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        AgentThreads.close(committer, COMMIT_STOP_MILLIS); // at once if it has ended
    }

    /**
     * The coordinator's (rank 0's) commit agent: takes the durable rounds in order and commits each
     * once every rank's file of it is durable, one attempt per duty cycle; a cycle whose attempt found
     * the round incomplete does no work, so the idle strategy pauses {@value #COMMIT_POLL_MILLIS} ms
     * before the next. At close it ends once no round is left.
     */
    private final class Committer implements Agent {
        /** The round being committed, or -1. */
        private long round = -1;
        /** When its commit timeout passes ({@link System#nanoTime()}). */
        private long deadline;

        @Override
        public String roleName() {
            return "jckpt-disk-commit-r" + rank;
        }

        @Override
        public int doWork() throws InterruptedException {
            if (round < 0) {
                round = nextRound();
                if (round < 0) {
                    return 0;
                }
                deadline = System.nanoTime() + commitTimeout.toNanos();
            }
            final long current = round;
            round = -1; // an error out of the attempt gives the round up (logged once by the runner)
            if (attempt(current, deadline)) {
                return 1;
            }
            round = current;
            return 0;
        }

        @Override
        public void onClose() {
            committerEnded.countDown();
        }

        /** @return the oldest durable round not yet taken; -1 when none came within the idle wait */
        private long nextRound() throws InterruptedException {
            lock.lock();
            try {
                if (durableRounds.isEmpty() && !closing) {
                    durable.await(IDLE_WAIT_MILLIS, TimeUnit.MILLISECONDS);
                }
                if (!durableRounds.isEmpty()) {
                    return durableRounds.removeFirst();
                }
                if (closing) {
                    throw new AgentTerminationException(); // every round handed over is done
                }
                return -1;
            } finally {
                lock.unlock();
            }
        }
    }

    /**
     * One commit attempt of the coordinator (rank 0): commits {@code toCommit} if every rank's file of
     * it is durable; a newer round committed supersedes it.
     *
     * @return whether the round is done with (committed, superseded, incomplete for good, or past its
     *         deadline); false when it is to be tried again after the pause
     */
    private boolean attempt(final long toCommit, final long deadline) {
        if (toCommit <= lastCommitted) {
            return true;
        }
        try {
            disk.commit(toCommit, size);
            lastCommitted = toCommit;
            listener.onCommitted(toCommit);
            events.accept(new RankEvent.DiskCommitted(toCommit));
            return true;
        } catch (final StableDiskException e) {
            if (flushesSettled) {
                // a rank coalesced this round into a newer one (its flusher skips rounds that
                // queue up), or its flush failed, and every flush is over: it will never be complete
                listener.onIncomplete(toCommit);
                LOG.debug("rank {}: disk round {} not committed at close: {}", rank, toCommit, e.getMessage());
                return true;
            }
            if (System.nanoTime() > deadline) {
                listener.onFailed();
                warnings.accept("disk generation of round " + toCommit + " not committed within "
                        + commitTimeout.toMillis() + " ms: " + e.getMessage());
                return true;
            }
            return false;
        }
    }
}
