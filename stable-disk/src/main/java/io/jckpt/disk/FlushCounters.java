package io.jckpt.disk;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Counters of one rank's {@link DiskFlusher}, readable from any thread while it runs. Written only
 * by the flusher and by submitters; each value is individually consistent.
 */
public final class FlushCounters {
    private static final int SUBMITTED = 0;
    private static final int FLUSHED = 1;
    private static final int BYTES_FLUSHED = 2;
    private static final int FLUSH_NANOS_TOTAL = 3;
    private static final int LAST_FLUSH_NANOS = 4;
    private static final int SKIPPED = 5;
    private static final int COALESCED = 6;
    private static final int FAILED = 7;
    private static final int FILES_PRUNED = 8;
    private static final int LAST_DURABLE_ROUND = 9;
    private static final int COUNT = 10;

    private final AtomicLongArray values = new AtomicLongArray(COUNT);
    private final AtomicReference<String> lastFailure = new AtomicReference<>("");

    FlushCounters() {
        values.set(LAST_DURABLE_ROUND, -1);
    }

    /** @return disk rounds handed to {@link DiskFlusher#submit}, whatever became of them */
    public long submitted() {
        return values.get(SUBMITTED);
    }

    /** @return rounds written durably */
    public long flushed() {
        return values.get(FLUSHED);
    }

    /** @return image bytes written durably */
    public long bytesFlushed() {
        return values.get(BYTES_FLUSHED);
    }

    /** @return total time spent in durable writes, nanoseconds */
    public long flushNanosTotal() {
        return values.get(FLUSH_NANOS_TOTAL);
    }

    /** @return time of the last durable write, nanoseconds */
    public long lastFlushNanos() {
        return values.get(LAST_FLUSH_NANOS);
    }

    /** @return rounds dropped because a flush was running ({@link OverlapPolicy#SKIP}) or the flusher closed */
    public long skipped() {
        return values.get(SKIPPED);
    }

    /** @return pending rounds replaced by a newer one before they started ({@link OverlapPolicy#COALESCE}) */
    public long coalesced() {
        return values.get(COALESCED);
    }

    /** @return rounds whose write failed (disk full, unwritable directory, ...) */
    public long failed() {
        return values.get(FAILED);
    }

    /** @return retired files this rank deleted */
    public long filesPruned() {
        return values.get(FILES_PRUNED);
    }

    /** @return the last round written durably, or -1 */
    public long lastDurableRound() {
        return values.get(LAST_DURABLE_ROUND);
    }

    /** @return the message of the last failure, or "" */
    public String lastFailure() {
        return lastFailure.get();
    }

    void onSubmitted() {
        values.incrementAndGet(SUBMITTED);
    }

    void onSkipped() {
        values.incrementAndGet(SKIPPED);
    }

    void onCoalesced() {
        values.incrementAndGet(COALESCED);
    }

    void onFlushed(final FlushedGeneration generation) {
        values.incrementAndGet(FLUSHED);
        values.addAndGet(BYTES_FLUSHED, generation.imageLength());
        values.addAndGet(FLUSH_NANOS_TOTAL, generation.nanos());
        values.set(LAST_FLUSH_NANOS, generation.nanos());
        values.set(LAST_DURABLE_ROUND, generation.round());
    }

    void onFailed(final String message) {
        values.incrementAndGet(FAILED);
        lastFailure.set(message);
    }

    void onPruned(final int files) {
        values.addAndGet(FILES_PRUNED, files);
    }

    @Override
    public String toString() {
        return "FlushCounters{submitted=" + submitted() + ", flushed=" + flushed() + ", bytes=" + bytesFlushed()
            + ", flushMs=" + flushNanosTotal() / 1_000_000 + ", skipped=" + skipped() + ", coalesced=" + coalesced()
            + ", failed=" + failed() + ", pruned=" + filesPruned() + ", lastDurableRound=" + lastDurableRound() + "}";
    }
}
