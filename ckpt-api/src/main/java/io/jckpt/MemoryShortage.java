package io.jckpt;

/**
 * What the checkpointer does when the node-local memory of some rank (its
 * {@link CkptOptions#maxMemoryBytes() cap}, or the free space of the store's file system) does not
 * suffice for m copies and the kept versions: the paper's Figure 4 choice between the levels. The
 * decision is taken collectively (from every rank's budget) whenever the store is sized: at the first
 * here(), when a slot grows, and when ctrl changes m.
 */
public enum MemoryShortage {
    /**
     * here() fails with a {@link StorageException} naming the rank, the bytes needed and the bytes
     * available; nothing already checkpointed is lost. The default: the program asked for m copies
     * and gets them or a clear error, never less without saying so.
     */
    FAIL,
    /**
     * Fewer copies on other ranks (the most every rank can hold, down to
     * {@link CkptOptions#minReplicas()}), and, when the disk level is on, more frequent disk rounds
     * (the disk ratio halved for each copy dropped, at least 1). Logged as a WARNING with the numbers,
     * reported to the launcher's log, and visible in {@link CkptStats#replicas()} and
     * {@link CkptStats#diskRatio()}. Below the floor it fails as {@link #FAIL} does.
     */
    DEGRADE
}
