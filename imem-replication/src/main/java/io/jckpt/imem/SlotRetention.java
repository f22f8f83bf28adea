package io.jckpt.imem;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The retains of one {@link ReplicaStore}'s slots (package-private: callers go through the store): how
 * many per slot, compared by identity. Several rounds can be in a disk flusher at once (one writing,
 * one pending), so a slot may hold several retains. Retains are made by the checkpointing thread and
 * released by the flusher's; {@link #any()} reads a volatile count without the lock: since one thread
 * makes the retains and it is the one asking, a zero read there cannot be stale.
 */
final class SlotRetention {
    private final Object lock = new Object();
    private final IdentityHashMap<ReplicaSlot, Integer> counts = new IdentityHashMap<>();
    /** Retains outstanding, written under the lock. */
    private volatile int count;

    void retain(ReplicaSlot slot) {
        synchronized (lock) {
            counts.merge(slot, 1, Integer::sum);
            count++;
        }
    }

    /**
     * @return false if {@code retained} was already released (nothing changed)
     */
    boolean release(RetainedSlot retained) {
        synchronized (lock) {
            if (retained.released()) {
                return false;
            }
            retained.markReleased();
            counts.computeIfPresent(retained.slot(), (k, v) -> v == 1 ? null : v - 1);
            count--;
            lock.notifyAll();
            return true;
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
