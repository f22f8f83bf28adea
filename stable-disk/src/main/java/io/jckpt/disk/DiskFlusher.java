package io.jckpt.disk;

import io.jckpt.spi.AgentThreads;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The background flush of one rank: an Agrona {@link Agent} run by an {@link AgentRunner} on its own
 * named daemon thread ({@code jckpt-disk-flusher-JOB-rRANK}, {@link AgentThreads}) that writes disk
 * rounds from the rank's local checkpoint copy through a {@link GenerationStore}, so the caller never
 * waits for the disk.
 * {@link #submit} only hands the image over and returns.
 *
 * <p>Duty cycle: take the pending round, write it durably, release the image, tell the
 * {@link FlushListener}; when no round is pending, delete this rank's retired files
 * ({@link GenerationStore#pruneOwnFiles}); when there is nothing to do, wait for work at most
 * {@value #IDLE_WAIT_MILLIS} ms at a time (no spinning: that wait is the agent's idle).
 *
 * <p>A round submitted while a flush runs is handled by the {@link OverlapPolicy}: coalesced into a
 * single pending slot (default) or skipped; both counted in {@link FlushCounters}. A failed write
 * (disk full, unwritable or vanished directory) is counted and reported to the listener (logged as
 * an error only when there is none);
 * the previous committed generation is untouched and the next submitted round tries again.
 *
 * <p>{@link #close()} drops a pending round, lets a running write finish (bounded by the close
 * timeout; then the thread is interrupted, which aborts the write and removes its temporary file,
 * and waited for once more as long) and stops the thread.
 */
public final class DiskFlusher implements AutoCloseable {
    /** Longest single idle wait of the flusher thread. */
    public static final long IDLE_WAIT_MILLIS = 100;
    /** Default bound on how long {@link #close()} waits for a running write. */
    public static final Duration DEFAULT_CLOSE_TIMEOUT = Duration.ofSeconds(30);
    private static final Logger LOG = LoggerFactory.getLogger(DiskFlusher.class);

    private final GenerationStore store;
    private final OverlapPolicy policy;
    private final FlushListener listener;
    private final Duration closeTimeout;
    private final FlushCounters counters = new FlushCounters();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition work = lock.newCondition();
    private final Condition idle = lock.newCondition();
    private final String name;
    /** Set by {@link #start} right after the constructor, before this flusher is returned (so before any submit). */
    private volatile AgentRunner runner;
    private Request pending;
    private Request inFlight;
    private boolean running = true;
    /** Round after whose flush this rank's retired files are to be deleted; -1 if none. Flusher thread only. */
    private long pruneAfterRound = -1;

    private record Request(long round, CheckpointImage image) {
    }

    private DiskFlusher(final GenerationStore store, final OverlapPolicy policy, final FlushListener listener,
                        final Duration closeTimeout) {
        this.store = store;
        this.policy = policy;
        this.listener = listener;
        this.closeTimeout = closeTimeout;
        final DiskStoreConfig config = store.config();
        this.name = "jckpt-disk-flusher-" + config.jobId() + "-r" + config.rank();
    }

    /**
     * Starts a flusher thread for a store.
     *
     * @param store    this rank's store
     * @param policy   what to do with a round submitted while a flush runs
     * @param listener told of each durable or failed round, on the flusher thread
     * @return the running flusher
     */
    public static DiskFlusher start(final GenerationStore store, final OverlapPolicy policy, final FlushListener listener) {
        return start(store, policy, listener, DEFAULT_CLOSE_TIMEOUT);
    }

    /**
     * Starts a flusher thread for a store.
     *
     * @param store        this rank's store
     * @param policy       what to do with a round submitted while a flush runs
     * @param listener     told of each durable or failed round, on the flusher thread
     * @param closeTimeout how long {@link #close()} waits for a running write
     * @return the running flusher
     */
    public static DiskFlusher start(final GenerationStore store, final OverlapPolicy policy, final FlushListener listener,
                                    final Duration closeTimeout) {
        final DiskFlusher flusher = new DiskFlusher(store, policy, listener, closeTimeout);
        // an error escaping a cycle (the listener's are caught) is logged with the rank's thread name;
        // no idle strategy: the cycle's own bounded wait for work is the idling
        flusher.runner = AgentThreads.start(flusher.new Flush(), NoOpIdleStrategy.INSTANCE);
        return flusher;
    }

    /**
     * Hands a disk round to the flusher and returns at once. The flusher calls
     * {@link CheckpointImage#release()} exactly once when it no longer reads the image (possibly
     * before this method returns, if the round is dropped).
     *
     * @param round the round
     * @param image this rank's image; must not change until released
     * @return what became of the round
     */
    public SubmitOutcome submit(final long round, final CheckpointImage image) {
        if (round < 0) {
            throw new IllegalArgumentException("round " + round + " is negative");
        }
        counters.onSubmitted();
        Request dropped = null;
        SubmitOutcome outcome;
        lock.lock();
        try {
            if (!running) {
                dropped = new Request(round, image);
                outcome = SubmitOutcome.REJECTED_CLOSED;
                counters.onSkipped();
            } else if (policy == OverlapPolicy.SKIP && (inFlight != null || pending != null)) {
                dropped = new Request(round, image);
                outcome = SubmitOutcome.SKIPPED_BUSY;
                counters.onSkipped();
            } else {
                dropped = pending;
                outcome = dropped == null ? SubmitOutcome.ACCEPTED : SubmitOutcome.ACCEPTED_COALESCED;
                if (dropped != null) {
                    counters.onCoalesced();
                }
                pending = new Request(round, image);
                work.signal();
            }
        } finally {
            lock.unlock();
        }
        if (dropped != null) {
            LOG.debug("disk round {} dropped ({}), round {} submitted", dropped.round(), outcome, round);
            release(dropped);
        }
        return outcome;
    }

    /**
     * Waits, bounded, until no round is pending or being written.
     *
     * @param timeout the longest wait
     * @return true if idle, false if the time ran out
     * @throws InterruptedException if interrupted
     */
    public boolean awaitIdle(final Duration timeout) throws InterruptedException {
        long nanos = timeout.toNanos();
        lock.lock();
        try {
            while (pending != null || inFlight != null) {
                if (nanos <= 0) {
                    return false;
                }
                nanos = idle.awaitNanos(nanos);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return whether a round is pending or being written
     */
    public boolean isBusy() {
        lock.lock();
        try {
            return pending != null || inFlight != null;
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return the CPU time this flusher's thread has used so far (ns; what it took from the program's cores,
     *         for the interval policy's cost), or -1 when the JVM does not measure thread CPU time
     */
    public long cpuTimeNanos() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        final Thread thread = runner.thread(); // null before its first cycle
        return thread != null && mx.isThreadCpuTimeSupported() && mx.isThreadCpuTimeEnabled()
            ? mx.getThreadCpuTime(thread.getId()) : -1;
    }

    /**
     * @return the counters, readable while the flusher runs
     */
    public FlushCounters counters() {
        return counters;
    }

    /**
     * @return the name of the flusher thread
     */
    public String threadName() {
        return name;
    }

    /**
     * @return whether the flusher thread is still alive
     */
    public boolean isAlive() {
        return !runner.isClosed();
    }

    /**
     * Stops the flusher: drops a pending round, lets a running write finish within the close
     * timeout (then interrupts it), and joins the thread. Idempotent.
     */
    @Override
    public void close() {
        Request dropped;
        lock.lock();
        try {
            running = false;
            dropped = pending;
            pending = null;
            work.signalAll();
            idle.signalAll();
        } finally {
            lock.unlock();
        }
        if (dropped != null) {
            counters.onSkipped();
            release(dropped);
        }
        if (Thread.currentThread() == runner.thread()) {
            return; // a listener on the flusher thread: its cycle ends and sees running false
        }
        // the first timeout interrupts the write (warned, with the thread's name: aborts the write and
        // removes its temporary file), the second ends the wait (bounded)
        AgentThreads.close(runner, closeTimeout.toMillis(), () -> { });
    }

    /** The flusher's agent: one duty cycle per {@link #doWork()}, the bounded idle wait inside it. */
    private final class Flush implements Agent {
        @Override
        public String roleName() {
            return name;
        }

        @Override
        public void onStart() {
            LOG.debug("{} started", name);
        }

        @Override
        public int doWork() {
            final int workCount = DiskFlusher.this.doWork();
            if (workCount < 0) {
                throw new AgentTerminationException();
            }
            if (workCount == 0) {
                idleWait();
            }
            return workCount;
        }

        @Override
        public void onClose() {
            lock.lock();
            try {
                inFlight = null;
                idle.signalAll();
            } finally {
                lock.unlock();
            }
            LOG.debug("{} stopped, {}", name, counters);
        }
    }

    /** One duty cycle: returns the work done, or -1 when stopped. */
    private int doWork() {
        final Request request;
        lock.lock();
        try {
            if (!running) {
                return -1;
            }
            request = pending;
            pending = null;
            inFlight = request;
        } finally {
            lock.unlock();
        }
        if (request == null) {
            return pruneIfDue();
        }
        try {
            flush(request);
        } finally {
            lock.lock();
            try {
                inFlight = null;
                if (pending == null) {
                    idle.signalAll();
                }
            } finally {
                lock.unlock();
            }
        }
        return 1;
    }

    private void idleWait() {
        lock.lock();
        try {
            if (running && pending == null) {
                work.awaitNanos(TimeUnit.MILLISECONDS.toNanos(IDLE_WAIT_MILLIS));
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        } finally {
            lock.unlock();
        }
    }

    private void flush(final Request request) {
        FlushedGeneration generation = null;
        StableDiskException failure = null;
        try {
            // nothing of an image is read before it is complete (a memory slot: its MAC written)
            if (request.image().awaitComplete()) {
                generation = store.write(request.round(), request.image());
            } else {
                failure = new StableDiskException(store.layout().jobDirectory(), "stable-disk write of round "
                    + request.round() + " by rank " + store.config().rank() + " not started: its image was never"
                    + " completed (sealed) in time; previous generations untouched", null);
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            failure = new StableDiskException(store.layout().jobDirectory(), "stable-disk write of round "
                + request.round() + " interrupted while its image was being completed", e);
        } catch (final StableDiskException e) {
            failure = e;
        } catch (final RuntimeException e) {
            failure = GenerationStore.classify(e, store.layout().jobDirectory(),
                "stable-disk write of round " + request.round() + " failed");
        } finally {
            release(request);
        }
        if (generation != null) {
            counters.onFlushed(generation);
            try {
                listener.onDurable(generation);
            } catch (final RuntimeException e) {
                LOG.error("flush listener failed on round {}", request.round(), e);
            }
            pruneAfterRound = request.round();
        } else {
            counters.onFailed(failure.getMessage());
            if (listener == FlushListener.NONE) {
                LOG.error("{}", failure.getMessage());
            } else {
                LOG.debug("{}", failure.getMessage()); // the listener reports it: one line, not two
            }
            try {
                listener.onFailed(request.round(), failure);
            } catch (final RuntimeException e) {
                LOG.error("flush listener failed on round {}", request.round(), e);
            }
        }
    }

    /** Deletes retired files once no flush is waiting, so deletion never delays a flush. */
    private int pruneIfDue() {
        if (pruneAfterRound < 0) {
            return 0;
        }
        final long round = pruneAfterRound;
        pruneAfterRound = -1;
        counters.onPruned(store.pruneOwnFiles(round));
        return 1;
    }

    private static void release(final Request request) {
        try {
            request.image().release();
        } catch (final RuntimeException e) {
            LOG.error("releasing the image of round {} failed", request.round(), e);
        }
    }
}
