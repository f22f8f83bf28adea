package io.jckpt.disk;

/**
 * What {@link DiskFlusher#submit} did with a disk round.
 */
public enum SubmitOutcome {
    /** Queued; the flusher was idle or will start it next. */
    ACCEPTED,
    /** Queued in place of an older pending round, which was dropped ({@link OverlapPolicy#COALESCE}). */
    ACCEPTED_COALESCED,
    /** Dropped because a flush was running ({@link OverlapPolicy#SKIP}); the image was released. */
    SKIPPED_BUSY,
    /** Dropped because the flusher is closed; the image was released. */
    REJECTED_CLOSED
}
