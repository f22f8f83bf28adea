package io.jckpt.imem;

import java.time.Duration;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The retains of one {@link ReplicaStore}'s slots (package-private: callers go through the store): how
 * many per slot, compared by identity. Several rounds can be in a disk flusher at once (one writing,
 * one pending), so a slot may hold several retains. Retains are made by the checkpointing thread and
 * released by the flusher's; {@link #any()} reads a volatile count without the lock: since one thread
 * makes the retains and it is the one asking, a zero read there cannot be stale. Once the store is
 * closed ({@link #close}), a retained slot is unmapped by its last release, not by the close: each slot
 * is unmapped exactly once, never under a reader.
 */
final class SlotRetention {
    /** What a {@link #release} did. */
    enum Released {
        /** It had been released before: nothing changed. */
        ALREADY,
        /** One retain given back. */
        RELEASED,
        /** The last retain of a slot of a closed store: the caller unmaps the slot now. */
        LAST_AFTER_CLOSE
    }

    private final Object lock = new Object();
    private final IdentityHashMap<ReplicaSlot, Integer> counts = new IdentityHashMap<>();
    /** Retains outstanding, written under the lock. */
    private volatile int count;
    /** The store was closed (under the lock). */
    private boolean closed;

    void retain(ReplicaSlot slot) {
        synchronized (lock) {
            counts.merge(slot, 1, Integer::sum);
            count++;
        }
    }

    /**
     * @return what the release did
     */
    Released release(RetainedSlot retained) {
        synchronized (lock) {
            if (retained.released()) {
                return Released.ALREADY;
            }
            retained.markReleased();
            Integer left = counts.computeIfPresent(retained.slot(), (k, v) -> v == 1 ? null : v - 1);
            count--;
            lock.notifyAll();
            return closed && left == null ? Released.LAST_AFTER_CLOSE : Released.RELEASED;
        }
    }

    /**
     * Marks the store closed: from now on the last release of a retained slot says so.
     *
     * @param slots every slot of the store
     * @return those retained by nobody, which the closing store unmaps now
     */
    List<ReplicaSlot> close(List<ReplicaSlot> slots) {
        synchronized (lock) {
            closed = true;
            List<ReplicaSlot> free = new ArrayList<>();
            for (ReplicaSlot s : slots) {
                if (!counts.containsKey(s)) {
                    free.add(s);
                }
            }
            return free;
        }
    }

    /** @return whether any slot is retained (no lock taken) */
    boolean any() {
        return count != 0;
    }

    /** @return how many retains {@code slot} holds */
    int of(ReplicaSlot slot) {
        synchronized (lock) {
            return counts.getOrDefault(slot, 0);
        }
    }

    /** @return whether {@code slot} was released (or never retained) within {@code timeout} */
    boolean awaitReleased(ReplicaSlot slot, Duration timeout) throws InterruptedException {
        synchronized (lock) {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (counts.containsKey(slot)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }
}
