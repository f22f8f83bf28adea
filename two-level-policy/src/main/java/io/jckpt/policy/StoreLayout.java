package io.jckpt.policy;

import io.jckpt.wire.OpenStatus;

/**
 * One configuration of a rank's node-local store: from which round on it is used, how many copies on
 * other ranks it holds, and its slot capacity. A change of m (ctrl), a slot that grows, or the memory
 * policy choosing fewer copies starts a new layout in a new directory; the old one is kept until the
 * first round of the new one is complete on every rank. Identical on every rank (decided collectively).
 *
 * @param firstRound        the first round written in this layout
 * @param replicas          the copies on other ranks it holds (the effective m)
 * @param requestedReplicas the m the program asked for (larger than {@code replicas} when degraded)
 * @param slotCapacity      the slot capacity in bytes
 * @param versionsKept      versions kept per owner
 */
record StoreLayout(long firstRound, int replicas, int requestedReplicas, long slotCapacity, int versionsKept) {
    /** Validates. */
    StoreLayout {
        if (firstRound < 1 || replicas < 0 || requestedReplicas < replicas || slotCapacity <= 0 || versionsKept < 2) {
            throw new IllegalArgumentException("bad store layout: first round " + firstRound + ", m " + replicas
                    + " (asked " + requestedReplicas + "), slot " + slotCapacity + " bytes, " + versionsKept + " versions");
        }
    }

    /** @return whether fewer copies than asked for are kept */
    /** @return the layout as the open exchange carries it */
    OpenStatus.Layout toWire() {
        return new OpenStatus.Layout(firstRound, replicas, requestedReplicas, slotCapacity, versionsKept);
    }

    /** @return the layout the open exchange carried */
    static StoreLayout of(OpenStatus.Layout l) {
        return new StoreLayout(l.firstRound(), l.replicas(), l.requestedReplicas(), l.slotCapacity(), l.versionsKept());
    }

    boolean degraded() {
        return replicas < requestedReplicas;
    }

    /** @return the name of its directory under the rank's store directory */
    String directoryName() {
        return "layout-" + firstRound;
    }

    /** @return e.g. "m=2, slot 1048576 bytes, from round 11" */
    String describe() {
        return "m=" + replicas + (degraded() ? " (asked " + requestedReplicas + ")" : "") + ", slot " + slotCapacity
                + " bytes, from round " + firstRound;
    }
}
