package io.jckpt.policy.interval;

/**
 * The CPU time of a background thread that is replaced now and then (a new replication agent after a
 * store layout switch or a recovery), summed into one monotonic count. Not thread-safe.
 */
public final class ThreadCpu {
    private Object source;
    private long last;
    private long total;

    /**
     * @param current the object owning the thread now (null = none)
     * @param cpuNanos its thread's CPU time so far, or -1 when not known
     * @return the CPU time of every source sampled, summed (ns)
     */
    public long sample(Object current, long cpuNanos) {
        if (current != source) {
            source = current;
            last = 0;
        }
        if (cpuNanos > last) {
            total += cpuNanos - last;
            last = cpuNanos;
        }
        return total;
    }
}
