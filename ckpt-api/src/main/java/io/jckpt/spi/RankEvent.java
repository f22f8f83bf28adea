package io.jckpt.spi;

import io.jckpt.Checkpointer;
import java.util.Locale;
import java.util.Objects;

/**
 * What a rank's library tells the launcher for the job's events ({@link JobServices#event(RankEvent)}):
 * one record per kind the launcher records with its own fields ({@code docs/events.md}), and {@link Text}
 * for the rest. Each carries its data as values and says its console line with {@link #text()}; the
 * launcher types its event by the record, never by the text. On the wire: {@link RankEventCodec}.
 */
public sealed interface RankEvent {

    /** @return the console line (after the launcher's {@code "rank N: "}) */
    String text();

    /**
     * A line with no data of its own: a warning, a note, a summary ({@code rank_event}).
     *
     * @param message the line
     */
    record Text(String message) implements RankEvent {
        public Text {
            Objects.requireNonNull(message, "message");
        }

        @Override
        public String text() {
            return message;
        }
    }

    /**
     * The checkpoint settings in effect and where each came from ({@code rank_event}), sent by rank 0 at
     * the job's first open: the launcher shows it only where it differs from its own line (a program's
     * builder call overrode a job setting).
     *
     * @param summary {@link io.jckpt.CkptOptions#settingsSummary()}
     */
    record Settings(String summary) implements RankEvent {
        public Settings {
            Objects.requireNonNull(summary, "summary");
        }

        @Override
        public String text() {
            return "checkpoint settings: " + summary;
        }
    }

    /**
     * Rank 0 committed the disk generation of a round ({@code disk_commit}).
     *
     * @param round the round
     */
    record DiskCommitted(long round) implements RankEvent {
        @Override
        public String text() {
            return "disk generation of round " + round + " committed";
        }
    }

    /**
     * A recovery restored a round ({@code rollback}).
     *
     * @param round  the restored round
     * @param source {@code memory} or {@code disk}
     * @param how    a memory restore's kind as the recovery plan names it ({@code LOCAL}, ...); empty from disk
     * @param step   the program's step at that round, or {@link Checkpointer#NO_STEP}
     */
    record Restored(long round, String source, String how, long step) implements RankEvent {
        public static final String MEMORY = "memory";
        public static final String DISK = "disk";

        public Restored {
            if (!MEMORY.equals(source) && !DISK.equals(source)) {
                throw new IllegalArgumentException("restored round " + round + ": source must be memory or disk, not "
                        + source);
            }
            Objects.requireNonNull(how, "how");
            if (DISK.equals(source) != how.isEmpty()) {
                throw new IllegalArgumentException("restored round " + round + " from " + source
                        + ": a memory restore names its kind, a disk restore none (got '" + how + "')");
            }
        }

        /** @return where it came from, as the console says it ("memory (LOCAL)", "disk generation of round 4") */
        public String from() {
            return MEMORY.equals(source) ? "memory (" + how + ")" : "disk generation of round " + round;
        }

        @Override
        public String text() {
            return "restored round " + round + " from " + from() + (step == Checkpointer.NO_STEP ? "" : ", step " + step);
        }
    }

    /**
     * A recovery's world had nothing to restore and starts the program again ({@code rollback} to round 0).
     *
     * @param reason why
     */
    record Restarted(String reason) implements RankEvent {
        public Restarted {
            Objects.requireNonNull(reason, "reason");
        }

        @Override
        public String text() {
            return "restarted from the beginning: " + reason;
        }
    }

    /**
     * The rank's {@code Ckpt.open} returned ({@code rank_open}: a start-up phase of the report page).
     *
     * @param epoch     the world it was opened in
     * @param openNanos how long the open took
     */
    record Opened(int epoch, long openNanos) implements RankEvent {
        @Override
        public String text() {
            return String.format(Locale.ROOT, "checkpointer opened in epoch %d in %.3f ms", epoch, openNanos / 1e6);
        }
    }

    /**
     * One rank's checkpointing totals at close, for the launcher's end-of-job summary ({@code rank_totals}).
     *
     * @param checkpoints how many rounds here() took
     * @param bytes       the newest image's length
     * @param blockingMs  here()'s blocking time, summed
     * @param hereP50Ms   here()'s blocking time, median
     * @param hereP99Ms   here()'s blocking time, 99th percentile
     * @param diskWritten disk rounds written
     * @param diskFailed  disk rounds that failed
     */
    record Totals(long checkpoints, long bytes, double blockingMs, double hereP50Ms, double hereP99Ms,
                  long diskWritten, long diskFailed) implements RankEvent {
        @Override
        public String text() {
            return String.format(Locale.ROOT, "checkpoint totals: checkpoints=%d bytes=%d blocking_ms=%.3f "
                            + "here_p50_ms=%.3f here_p99_ms=%.3f disk_written=%d disk_failed=%d", checkpoints, bytes,
                    blockingMs, hereP50Ms, hereP99Ms, diskWritten, diskFailed);
        }
    }
}
