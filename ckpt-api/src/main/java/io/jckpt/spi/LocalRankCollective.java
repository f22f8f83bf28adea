package io.jckpt.spi;

import io.jckpt.CkptException;
import io.jckpt.CkptStateException;
import io.jckpt.CollectiveMismatchException;
import io.jckpt.ExchangeTimeoutException;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * A {@link RankCollective} for n ranks running as threads of one JVM, for tests. Create the endpoints of
 * one world with {@link #group(int)} and give endpoint r to the thread playing rank r.
 *
 * <p>Like a {@link java.util.concurrent.CyclicBarrier}, a group is broken by the first timeout or
 * interrupt: the waiting ranks and every later call fail at once with an
 * {@link ExchangeTimeoutException} naming the ranks that were missing, so ranks cannot drift into
 * different rounds. Model a recovery with a fresh group, as the runtime builds a fresh world, after
 * {@link #abandonWorld()} on the old one (the runtime's order to recover: the old world's exchanges and
 * {@link #onAbandoned} waits end at once).
 */
public final class LocalRankCollective implements RankCollective {
    private final Group group;
    private final int rank;
    private final java.util.concurrent.atomic.AtomicLong calls = new java.util.concurrent.atomic.AtomicLong();

    private LocalRankCollective(Group group, int rank) {
        this.group = group;
        this.rank = rank;
    }

    /**
     * @param worldSize number of ranks, >= 1
     * @return the endpoints, indexed by rank
     */
    public static List<LocalRankCollective> group(int worldSize) {
        if (worldSize < 1) {
            throw new IllegalArgumentException("worldSize=" + worldSize + " must be >= 1");
        }
        Group g = new Group(worldSize);
        List<LocalRankCollective> endpoints = new ArrayList<>(worldSize);
        for (int r = 0; r < worldSize; r++) {
            endpoints.add(new LocalRankCollective(g, r));
        }
        return List.copyOf(endpoints);
    }

    @Override
    public int rank() {
        return rank;
    }

    @Override
    public int worldSize() {
        return group.size;
    }

    /** @return how many exchanges this rank has entered (a counter readable while the world runs) */
    public long exchanges() {
        return calls.get();
    }

    @Override
    public byte[][] allgather(Collective call, byte[] mine, Duration timeout) {
        long sequence = calls.incrementAndGet();
        Objects.requireNonNull(call, "call");
        Objects.requireNonNull(mine, "mine");
        Objects.requireNonNull(timeout, "timeout");
        return group.exchange(rank, sequence, call, mine.clone(), timeout);
    }

    @Override
    public CkptException failure() {
        return group.failure(rank);
    }

    /** The group is one world: {@code epoch} is the caller's, which this group serves. */
    @Override
    public Registration onAbandoned(int epoch, Runnable action) {
        return group.onAbandoned(action);
    }

    /**
     * Abandons this endpoint's world, as the runtime does when a failure elsewhere starts a new one:
     * every rank's exchange waiting now or called later fails at once with a {@link CkptStateException},
     * and every {@link #onAbandoned} action runs (on this thread).
     */
    public void abandonWorld() {
        group.abandon();
    }

    /** The shared state of one world: one slot per rank and a generation count. */
    private static final class Group {
        private final int size;
        private final ReentrantLock lock = new ReentrantLock();
        private final Condition completed = lock.newCondition();
        private byte[][] slots;
        private final Map<Integer, Collective> calls = new HashMap<>();
        private int arrived;
        private long generation;
        private byte[][] lastResult;
        private List<Integer> brokenMissing;
        private String brokenMismatch;
        private long brokenSequence;
        private boolean abandoned;
        private final List<Runnable> onAbandoned = new ArrayList<>();

        Group(int size) {
            this.size = size;
            this.slots = new byte[size][];
        }

        byte[][] exchange(int rank, long sequence, Collective call, byte[] mine, Duration timeout) {
            lock.lock();
            try {
                if (brokenMismatch != null) {
                    throw new CollectiveMismatchException(rank, brokenSequence, brokenMismatch);
                }
                if (brokenMissing != null) {
                    throw new ExchangeTimeoutException(rank, null, brokenMissing);
                }
                if (abandoned) {
                    throw abandonedError(rank);
                }
                if (slots[rank] != null) {
                    throw new CkptStateException("rank " + rank + " called allgather twice in one exchange"
                            + " (two threads using the same endpoint?)");
                }
                slots[rank] = mine;
                calls.put(rank, call);
                arrived++;
                String mismatch = Collective.mismatch(calls);
                if (mismatch != null) {
                    // fail fast, on every rank: nobody waits for the timeout
                    brokenMismatch = mismatch;
                    brokenSequence = sequence;
                    completed.signalAll();
                    throw new CollectiveMismatchException(rank, sequence, mismatch);
                }
                long myGeneration = generation;
                if (arrived == size) {
                    lastResult = slots;
                    slots = new byte[size][];
                    calls.clear();
                    arrived = 0;
                    generation++;
                    completed.signalAll();
                    return copy(lastResult);
                }
                long nanos = timeout.toNanos();
                while (generation == myGeneration && brokenMissing == null && brokenMismatch == null && !abandoned) {
                    if (nanos <= 0) {
                        breakGroup();
                        throw new ExchangeTimeoutException(rank, timeout, brokenMissing);
                    }
                    try {
                        nanos = completed.awaitNanos(Math.min(nanos, TimeUnit.SECONDS.toNanos(3600)));
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        breakGroup();
                        throw new CkptException("rank " + rank + " was interrupted in a status exchange; ranks "
                                + brokenMissing + " had not arrived", e);
                    }
                }
                if (generation != myGeneration) {
                    return copy(lastResult);
                }
                if (brokenMismatch != null) {
                    throw new CollectiveMismatchException(rank, brokenSequence, brokenMismatch);
                }
                if (abandoned) {
                    throw abandonedError(rank);
                }
                throw new ExchangeTimeoutException(rank, null, brokenMissing);
            } finally {
                lock.unlock();
            }
        }

        Registration onAbandoned(Runnable action) {
            lock.lock();
            try {
                if (!abandoned) {
                    onAbandoned.add(action);
                    return () -> {
                        lock.lock();
                        try {
                            onAbandoned.remove(action);
                        } finally {
                            lock.unlock();
                        }
                    };
                }
            } finally {
                lock.unlock();
            }
            action.run(); // already abandoned
            return () -> { };
        }

        void abandon() {
            List<Runnable> actions;
            lock.lock();
            try {
                abandoned = true;
                completed.signalAll();
                actions = List.copyOf(onAbandoned);
                onAbandoned.clear();
            } finally {
                lock.unlock();
            }
            actions.forEach(Runnable::run);
        }

        private static CkptStateException abandonedError(int rank) {
            return new CkptStateException("rank " + rank + ": the status exchange's world was abandoned after a failure");
        }

        CkptException failure(int rank) {
            lock.lock();
            try {
                return brokenMismatch != null ? new CollectiveMismatchException(rank, brokenSequence, brokenMismatch)
                        : brokenMissing != null ? new ExchangeTimeoutException(rank, null, brokenMissing) : null;
            } finally {
                lock.unlock();
            }
        }

        private void breakGroup() {
            List<Integer> missing = new ArrayList<>();
            for (int r = 0; r < size; r++) {
                if (slots[r] == null) {
                    missing.add(r);
                }
            }
            brokenMissing = List.copyOf(missing);
            completed.signalAll();
        }

        private static byte[][] copy(byte[][] result) {
            byte[][] out = new byte[result.length][];
            for (int i = 0; i < result.length; i++) {
                out[i] = result[i].clone();
            }
            return out;
        }
    }
}
