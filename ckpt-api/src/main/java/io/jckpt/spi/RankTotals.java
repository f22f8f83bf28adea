package io.jckpt.spi;

import java.util.Locale;

/**
 * One rank's checkpointing totals at close, for the launcher's end-of-job summary: the checkpointer
 * sends them with {@link JobServices#event} as {@link #line()}, the launcher reads them back with
 * {@link #parse}. The line's format is this record's alone.
 *
 * @param checkpoints how many rounds here() took
 * @param bytes       the newest image's length
 * @param blockingMs  here()'s blocking time, summed
 * @param hereP50Ms   here()'s blocking time, median
 * @param hereP99Ms   here()'s blocking time, 99th percentile
 * @param diskWritten disk rounds written
 * @param diskFailed  disk rounds that failed
 */
public record RankTotals(long checkpoints, long bytes, double blockingMs, double hereP50Ms, double hereP99Ms,
                         long diskWritten, long diskFailed) {
    private static final String PREFIX = "checkpoint totals: ";
    private static final String[] NAMES = {"checkpoints", "bytes", "blocking_ms", "here_p50_ms", "here_p99_ms",
        "disk_written", "disk_failed"};

    /** @return the event line: {@code checkpoint totals: checkpoints=N bytes=B blocking_ms=X ...} */
    public String line() {
        return String.format(Locale.ROOT, PREFIX + "%s=%d %s=%d %s=%.3f %s=%.3f %s=%.3f %s=%d %s=%d",
                NAMES[0], checkpoints, NAMES[1], bytes, NAMES[2], blockingMs, NAMES[3], hereP50Ms, NAMES[4], hereP99Ms,
                NAMES[5], diskWritten, NAMES[6], diskFailed);
    }

    /**
     * @param line an event line
     * @return the totals it carries, or null when it is not a totals line (or not a well-formed one)
     */
    public static RankTotals parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return null;
        }
        String[] parts = line.substring(PREFIX.length()).split(" ");
        if (parts.length != NAMES.length) {
            return null;
        }
        double[] v = new double[NAMES.length];
        for (int i = 0; i < NAMES.length; i++) {
            if (!parts[i].startsWith(NAMES[i] + "=")) {
                return null;
            }
            try {
                v[i] = Double.parseDouble(parts[i].substring(NAMES[i].length() + 1));
            } catch (NumberFormatException e) {
                return null;
            }
        }
        return new RankTotals((long) v[0], (long) v[1], v[2], v[3], v[4], (long) v[5], (long) v[6]);
    }
}
