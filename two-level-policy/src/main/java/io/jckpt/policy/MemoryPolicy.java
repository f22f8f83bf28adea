package io.jckpt.policy;

import io.jckpt.CkptOptions;
import io.jckpt.MemoryShortage;
import io.jckpt.StorageException;
import io.jckpt.imem.ReplicaSlotDescriptor;
import java.nio.file.Path;

/**
 * The memory part of the paper's Figure 4: given every rank's memory budget, how many copies on other
 * ranks the node-local stores can hold, and what to do when that is fewer than asked for. A pure
 * function of exchanged data, so every rank takes the same decision.
 */
final class MemoryPolicy {
    private MemoryPolicy() {
    }

    /**
     * What one rank can give its node-local store.
     *
     * @param cap  the options' maxMemoryBytes of that rank
     * @param free the usable bytes of the store's file system now (the current store already counted)
     */
    record Budget(long cap, long free) {
        long bytes() {
            return Math.min(cap, free);
        }
    }

    /**
     * The decision.
     *
     * @param replicas  the m to use
     * @param diskRatio the disk ratio to use
     * @param warning   what was chosen and why, with the numbers; null when nothing was degraded
     */
    record Decision(int replicas, int diskRatio, String warning) {
    }

    /**
     * @param wanted       the m asked for
     * @param requested    the options asked for (floor, shortage mode, disk level and ratio, versions)
     * @param slotCapacity the slot capacity the store will have
     * @param budgets      every rank's budget, indexed by rank
     * @param rank         this rank (for messages)
     * @param where        this rank's store directory (for the exception)
     * @return the decision
     * @throws StorageException when the asked m does not fit and the mode is FAIL, or not even the floor fits
     */
    static Decision decide(int wanted, CkptOptions requested, long slotCapacity, Budget[] budgets, int rank, Path where) {
        long perCopy = (long) requested.versionsKept() * ReplicaSlotDescriptor.fileSize(slotCapacity);
        int worst = 0;
        long fit = Long.MAX_VALUE;
        for (int r = 0; r < budgets.length; r++) {
            long copies = budgets[r].bytes() / perCopy - 1; // -1: not even the own copy fits
            if (copies < fit) {
                fit = copies;
                worst = r;
            }
        }
        if (fit >= wanted) {
            return new Decision(wanted, requested.diskRatio(), null);
        }
        Budget b = budgets[worst];
        String shortage = "the node-local store needs (m+1) x versions x slot = (" + wanted + "+1) x "
                + requested.versionsKept() + " x " + ReplicaSlotDescriptor.fileSize(slotCapacity) + " = "
                + (wanted + 1) * perCopy + " bytes on every rank for m=" + wanted + ", but rank " + worst + " can hold only "
                + b.bytes() + " bytes (maxMemoryBytes " + b.cap() + ", " + b.free() + " bytes free in its store's file system)";
        if (requested.memoryShortage() == MemoryShortage.FAIL) {
            throw new StorageException(where, "rank " + rank + ": " + shortage + "; lower replicas, raise maxMemoryBytes,"
                    + " free memory, or choose memoryShortage(DEGRADE)", null);
        }
        if (fit < requested.minReplicas()) {
            throw new StorageException(where, "rank " + rank + ": " + shortage + "; it fits "
                    + (fit < 0 ? "not even the local copy" : "at most m=" + fit) + ", below the floor minReplicas="
                    + requested.minReplicas(), null);
        }
        int m = (int) fit;
        int ratio = requested.diskRatio();
        String disk;
        if (requested.diskLevelEnabled()) {
            int dropped = wanted - m;
            ratio = Math.max(1, dropped >= 31 ? 1 : ratio >> dropped);
            disk = " and a disk round every " + ratio + " rounds instead of every " + requested.diskRatio()
                    + " (halved per copy dropped)";
        } else {
            disk = "; no disk level makes up for it: " + (m == 0 ? "a node loss is not survivable"
                    : "up to " + m + " simultaneous node losses are survivable");
        }
        return new Decision(m, ratio, shortage + ": keeping m=" + m + " copies on other ranks" + disk);
    }
}
