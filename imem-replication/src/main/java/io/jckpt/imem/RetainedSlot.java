package io.jckpt.imem;

/**
 * One retain of a {@link ReplicaSlot} by a reader outside the store (a disk flush of its round, the
 * restored image a rollback reads): made by {@link ReplicaStore#retain(ReplicaSlot)}, given back once
 * with {@link ReplicaStore#release(RetainedSlot)}. While any retain of a slot is held the store does not
 * write into it, and a close of the store leaves it mapped. The handle names the slot and the round it
 * held when retained, for the errors of a release that is unknown to the store or repeated.
 */
public final class RetainedSlot {
    private final ReplicaStore store;
    private final ReplicaSlot slot;
    private final long round;
    /** Set once by the store's release, under the store's retention lock. */
    private boolean released;

    RetainedSlot(ReplicaStore store, ReplicaSlot slot, long round) {
        this.store = store;
        this.slot = slot;
        this.round = round;
    }

    /** @return the store that made this retain */
    ReplicaStore store() {
        return store;
    }

    /** @return the retained slot */
    public ReplicaSlot slot() {
        return slot;
    }

    /** @return the round the slot held when it was retained */
    public long round() {
        return round;
    }

    /** @return whether it was released (read under the store's retention lock) */
    boolean released() {
        return released;
    }

    void markReleased() {
        released = true;
    }

    @Override
    public String toString() {
        return "retain of " + slot.path().getFileName() + " (round " + round + ")";
    }
}
