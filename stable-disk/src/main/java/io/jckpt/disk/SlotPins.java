package io.jckpt.disk;

import java.time.Duration;
import java.util.IdentityHashMap;
import java.util.concurrent.TimeUnit;

/**
 * The memory slots a disk flush still reads, and how many per owner (the store holding the slot):
 * a pinned slot must not be overwritten, an owner with pins must not be unmapped. Several rounds can
 * be in the flusher at once (one writing, one pending), so a slot or owner may hold several pins.
 *
 * <p>Slots and owners are compared by identity; this module does not know their types. Pins are
 * added by the checkpointing thread ({@link DiskCommitCoordinator#submit}) and removed by the
 * flusher thread when it releases an image. {@link #none()} reads a volatile count without the lock:
 * since only one thread adds pins, a zero it reads there cannot be stale.
 */
public final class SlotPins {
    private final Object lock = new Object();
    private final IdentityHashMap<Object, Integer> slots = new IdentityHashMap<>();
    private final IdentityHashMap<Object, Integer> owners = new IdentityHashMap<>();
    /** Pins outstanding, written under the lock. */
    private volatile int count;

    /**
     * @param slot  the slot a flush will read
     * @param owner the store holding it
     */
    public void pin(final Object slot, final Object owner) {
        synchronized (lock) {
            slots.merge(slot, 1, Integer::sum);
            owners.merge(owner, 1, Integer::sum);
            count++;
        }
    }

    /**
     * Removes one pin of {@code slot} and {@code owner} and wakes {@link #awaitUnpinned} waiters.
     *
     * @param slot  the slot the flush no longer reads
     * @param owner the store holding it
     */
    public void unpin(final Object slot, final Object owner) {
        synchronized (lock) {
            slots.computeIfPresent(slot, (k, v) -> v == 1 ? null : v - 1);
            owners.computeIfPresent(owner, (k, v) -> v == 1 ? null : v - 1);
            count--;
            lock.notifyAll();
        }
    }

    /**
     * @return whether no pin is outstanding (no lock taken)
     */
    public boolean none() {
        return count == 0;
    }

    /**
     * @param owner a store
     * @return whether a flush still reads one of its slots
     */
    public boolean holds(final Object owner) {
        synchronized (lock) {
            return owners.containsKey(owner);
        }
    }

    /**
     * Waits until no flush reads {@code slot} any more.
     *
     * @param slot    the slot about to be overwritten; null returns at once
     * @param timeout the bound
     * @return whether the slot is free; false if still pinned after {@code timeout}
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitUnpinned(final Object slot, final Duration timeout) throws InterruptedException {
        synchronized (lock) {
            final long deadline = System.nanoTime() + timeout.toNanos();
            while (slot != null && slots.containsKey(slot)) {
                final long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                TimeUnit.NANOSECONDS.timedWait(lock, left);
            }
            return true;
        }
    }
}
