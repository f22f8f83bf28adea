package io.jckpt.imem;

import io.jckpt.spi.AgentThreads;
import java.time.Duration;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.NoOpIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Completes a rank's own writes off the caller's thread when it has no replication agent (m = 0):
 * seals each image (its MAC, with the job's key), computes its CRC32C and marks it COMPLETE
 * ({@link ReplicaWrite#commit()}), in the order handed over, on a named agent
 * ({@code jckpt-store-seal-r<rank>}, started at the first write; its bounded wait for work is its idle).
 * Closing it commits what was handed over, then ends it: those copies are complete in memory.
 * Owned by its {@link ReplicaStore}, which closes it before it unmaps anything.
 */
final class OwnCopySealer {
    private static final Logger LOG = LoggerFactory.getLogger(OwnCopySealer.class);
    private final int rank;
    private final LinkedBlockingQueue<ReplicaWrite> queue = new LinkedBlockingQueue<>();
    private final ReentrantLock lock = new ReentrantLock();
    private final Condition done = lock.newCondition();
    /** Writes handed over and not committed yet; guarded by {@link #lock}. */
    private int pending;
    /** Guarded by {@link #lock}. */
    private AgentRunner runner;
    private boolean closed;

    OwnCopySealer(int rank) {
        this.rank = rank;
    }

    /**
     * Hands a filled own write over.
     *
     * @throws IllegalStateException after {@link #close}
     */
    void submit(ReplicaWrite write) {
        lock.lock();
        try {
            if (closed) {
                throw new IllegalStateException("the store of rank " + rank + " is closed: round " + write.round()
                        + " cannot be completed");
            }
            if (runner == null) {
                runner = AgentThreads.start(new Agent(), NoOpIdleStrategy.INSTANCE);
            }
            pending++;
            queue.add(write);
        } finally {
            lock.unlock();
        }
    }

    /**
     * @return whether every write handed over is committed within {@code timeout}
     * @throws InterruptedException if interrupted while waiting
     */
    boolean awaitIdle(Duration timeout) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        lock.lock();
        try {
            while (pending > 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                done.awaitNanos(left);
            }
            return true;
        } finally {
            lock.unlock();
        }
    }

    /** @return whether the agent is gone (or never started) within {@code waitMillis}, what was handed over committed */
    boolean close(long waitMillis) {
        AgentRunner r;
        lock.lock();
        try {
            closed = true;
            r = runner;
        } finally {
            lock.unlock();
        }
        return r == null || AgentThreads.close(r, waitMillis);
    }

    private void seal(ReplicaWrite w) {
        try {
            w.commit();
        } catch (RuntimeException e) {
            w.abort();
            LOG.error("rank {}: the copy of round {} could not be completed: {}", rank, w.round(), e.toString(), e);
        } finally {
            lock.lock();
            try {
                pending--;
                done.signalAll();
            } finally {
                lock.unlock();
            }
        }
    }

    /** The agent: the writes handed over, in order; at close what is left, then it ends. */
    private final class Agent implements org.agrona.concurrent.Agent {
        @Override
        public String roleName() {
            return "jckpt-store-seal-r" + rank;
        }

        @Override
        public int doWork() throws InterruptedException {
            ReplicaWrite w = queue.poll(100, TimeUnit.MILLISECONDS); // the bounded wait for work is the idle
            if (w == null) {
                return 0;
            }
            seal(w);
            return 1;
        }

        @Override
        public void onClose() {
            for (ReplicaWrite w; (w = queue.poll()) != null; ) {
                seal(w); // complete in memory: kept
            }
        }
    }
}
