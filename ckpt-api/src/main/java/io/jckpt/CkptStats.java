package io.jckpt;

/**
 * Counters and timings of one checkpointer, a snapshot taken by {@link Checkpointer#stats()}. Times are
 * in nanoseconds; "last" values describe the newest checkpoint or rollback, 0 when there was none.
 * The effective configuration ({@code replicas}, {@code diskRatio}, {@code slotCapacity}) is what the
 * checkpointer runs with now: it differs from the options when {@link MemoryShortage#DEGRADE} chose
 * fewer copies, after a {@code ctrl}, and after the slots grew.
 *
 * @param round                newest round taken or restored by this rank (0 = none)
 * @param checkpoints          here() calls that took a checkpoint
 * @param diskCheckpoints      checkpoints that also went to the disk level
 * @param lastImageBytes       bytes of the newest checkpoint image of this rank
 * @param lastBlockingNanos    time the newest here() blocked its caller
 * @param totalBlockingNanos   total time here() blocked its callers
 * @param lastReplicationNanos time the newest completed round took to reach all m replicas
 * @param lastFlushNanos       time the newest disk round took (write + force + rename)
 * @param hereWaits            here() calls that had to wait for the previous round to finish replicating
 * @param rollbacks            recoveries this rank took part in
 * @param lastRollbackNanos    time of the newest recovery, from the status exchange to data restored
 * @param replicas             effective replication degree m (copies on other ranks), -1 = not known
 * @param diskRatio            effective disk ratio (every k-th round also goes to disk; 0 = off), -1 = not known
 * @param slotCapacity         slot capacity of the node-local store in bytes (0 = no store yet)
 * @param reconfigurations     store layout switches (m changed, slots grown) since open
 * @param degraded             whether fewer copies than asked for are kept because memory does not suffice
 */
public record CkptStats(long round, long checkpoints, long diskCheckpoints, long lastImageBytes,
                        long lastBlockingNanos, long totalBlockingNanos, long lastReplicationNanos,
                        long lastFlushNanos, long hereWaits, long rollbacks, long lastRollbackNanos,
                        int replicas, int diskRatio, long slotCapacity, long reconfigurations, boolean degraded) {

    /** Stats of a checkpointer that has done nothing yet. */
    public static final CkptStats EMPTY = new CkptStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /**
     * Stats without the effective configuration (an implementation that does not change it).
     *
     * @param round                see the record
     * @param checkpoints          see the record
     * @param diskCheckpoints      see the record
     * @param lastImageBytes       see the record
     * @param lastBlockingNanos    see the record
     * @param totalBlockingNanos   see the record
     * @param lastReplicationNanos see the record
     * @param lastFlushNanos       see the record
     * @param hereWaits            see the record
     * @param rollbacks            see the record
     * @param lastRollbackNanos    see the record
     */
    public CkptStats(long round, long checkpoints, long diskCheckpoints, long lastImageBytes,
                     long lastBlockingNanos, long totalBlockingNanos, long lastReplicationNanos,
                     long lastFlushNanos, long hereWaits, long rollbacks, long lastRollbackNanos) {
        this(round, checkpoints, diskCheckpoints, lastImageBytes, lastBlockingNanos, totalBlockingNanos,
                lastReplicationNanos, lastFlushNanos, hereWaits, rollbacks, lastRollbackNanos, -1, -1, 0, 0, false);
    }
}
