package io.jckpt.runtime.launcher;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.Locale;

/**
 * The newest checkpoint round a rank reported on its control channel ({@code RANK_ROUND}, sent at
 * most every {@code ControlProtocol.PROGRESS_MILLIS} by the rank's progress reporter), with its JVM's
 * totals so far: the launcher adds them up over every JVM the rank ran in.
 *
 * @param round        the checkpoint round
 * @param bytes        the bytes that round checkpointed on the rank
 * @param blockedNanos how long its here() blocked the program
 * @param checkpoints  here() calls of this JVM so far, over every world it ran in
 * @param blockedTotalNanos their blocking time
 * @param incarnation  this JVM among the rank's (a random number of its own)
 */
record RankProgress(long round, long bytes, long blockedNanos, long checkpoints, long blockedTotalNanos,
                    long incarnation) {
    /** The payload's size: six longs. */
    static final int BYTES = 48;

    /**
     * Decodes a {@code RANK_ROUND} payload (round, bytes, blocked nanos, checkpoints, blocked total, incarnation).
     *
     * @throws IOException when the payload is not six longs
     */
    static RankProgress decode(byte[] payload) throws IOException {
        if (payload.length != BYTES) {
            throw new IOException("RANK_ROUND payload of " + payload.length + " bytes, expected " + BYTES);
        }
        ByteBuffer b = ByteBuffer.wrap(payload);
        return new RankProgress(b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong(), b.getLong());
    }

    /** The launcher's progress line for rank 0's report. */
    String line() {
        return String.format(Locale.ROOT, "checkpoint round %d: %s per rank, here() blocked %.3f ms (rank 0)",
                round, size(bytes), blockedNanos / 1e6);
    }

    /** {@code n} bytes as B, KiB or MiB, rounded down, with at most four digits before the unit. */
    static String size(long n) {
        if (n < 10_000) {
            return n + " B";
        }
        if (n < 10_000_000) {
            return (n / 1024) + " KiB";
        }
        return (n >> 20) + " MiB";
    }
}
