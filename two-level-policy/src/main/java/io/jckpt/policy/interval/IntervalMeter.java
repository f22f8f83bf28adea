package io.jckpt.policy.interval;

/**
 * Where rank 0's interval decisions read time and cost: the system's clock and thread CPU times in a
 * job, a synthetic source in tests (the seam through which a test injects a known cost).
 */
public interface IntervalMeter {
    /** @return a monotonic clock, nanoseconds */
    long nanoTime();

    /**
     * @return the CPU time the checkpointer's background replication has used so far (ns, monotonic):
     *         what it took from the program's cores, counted in a checkpoint's cost
     */
    long backgroundCpuNanos();

    /** @return the CPU time the disk flusher has used so far (ns, monotonic): the cost of the disk rounds */
    long flushCpuNanos();

    /**
     * @return the CPU time of the calling thread so far (ns; the program's thread, which calls here()), or
     *         -1 when not known: with the clock, the share of a core the computation gets
     */
    default long programCpuNanos() {
        return -1;
    }
}
