package io.jckpt.policy.interval;

/**
 * The 8-byte encoding of one decision of rank 0, as it travels on the ring's watermarks or in the
 * background size agreement: the interval in calls of needCheckpoint() (bits 24..62, 0 = no interval
 * decided) and the disk ratio (bits 0..23, 0 = unchanged). 0 as a whole = no decision.
 */
public final class IntervalDecision {
    /** No decision (nothing measured yet, or not carried). */
    public static final long NONE = 0;
    /** Largest interval that can be carried, in calls. */
    public static final long MAX_INTERVAL = (1L << 39) - 1;
    /** Largest disk ratio that can be carried. */
    public static final int MAX_DISK_RATIO = (1 << 24) - 1;

    private IntervalDecision() {
    }

    /**
     * @param intervalCalls the interval in calls (0 = none; capped at {@link #MAX_INTERVAL})
     * @param diskRatio     the disk ratio (0 = unchanged; capped at {@link #MAX_DISK_RATIO})
     * @return the encoding
     */
    public static long encode(long intervalCalls, int diskRatio) {
        long i = Math.max(0, Math.min(MAX_INTERVAL, intervalCalls));
        long k = Math.max(0, Math.min(MAX_DISK_RATIO, diskRatio));
        return i << 24 | k;
    }

    /**
     * @param decision an encoding, or a value meaning none (&lt;= 0)
     * @return its interval in calls, 0 = none
     */
    public static long interval(long decision) {
        return decision <= 0 ? 0 : decision >>> 24;
    }

    /**
     * @param decision an encoding, or a value meaning none (&lt;= 0)
     * @return its disk ratio, 0 = unchanged
     */
    public static int diskRatio(long decision) {
        return decision <= 0 ? 0 : (int) (decision & MAX_DISK_RATIO);
    }
}
