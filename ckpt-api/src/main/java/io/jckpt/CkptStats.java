package io.jckpt;

/**
 * Counters and timings of one checkpointer, a snapshot taken by {@link Checkpointer#stats()}. Times are
 * in nanoseconds; "last" values describe the newest checkpoint or rollback, 0 when there was none.
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
 */
public record CkptStats(long round, long checkpoints, long diskCheckpoints, long lastImageBytes,
                        long lastBlockingNanos, long totalBlockingNanos, long lastReplicationNanos,
                        long lastFlushNanos, long hereWaits, long rollbacks, long lastRollbackNanos) {

    /** Stats of a checkpointer that has done nothing yet. */
    public static final CkptStats EMPTY = new CkptStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
}
