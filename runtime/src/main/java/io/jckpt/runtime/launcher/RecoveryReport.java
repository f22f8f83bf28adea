package io.jckpt.runtime.launcher;

import java.util.Arrays;
import java.util.Locale;

/**
 * One recovery's timeline, from the detection of the failure to every rank running in the new MPJ
 * world, and the launcher's lines about it ({@code recovering: ...} when it starts, {@code recovered: ...}
 * when every rank runs again; tools parse both). Filled in by the supervisor thread only.
 */
final class RecoveryReport {
    private final int epoch;
    private final int worldSize;
    private final long detectedNanos;
    private long respawnedNanos;
    /** When the new world's port exchange completed: every rank is in MPI.Init of the new world. */
    private long worldNanos;
    /** Ranks whose program (re-)started in the new epoch. */
    private int ready;
    /** Replacements that came from warm standbys. */
    private int fromStandby;

    /**
     * @param epoch         the epoch the recovery starts
     * @param worldSize     the job's ranks
     * @param detectedNanos when the first failure it recovers was detected
     */
    RecoveryReport(int epoch, int worldSize, long detectedNanos) {
        this.epoch = epoch;
        this.worldSize = worldSize;
        this.detectedNanos = detectedNanos;
    }

    /** The line announcing the recovery of {@code failed} (sorted) into {@code epoch}. */
    static String startLine(int epoch, int[] failed, int worldSize) {
        return "recovering: epoch " + epoch + (failed.length == worldSize
                ? ", every rank failed: relaunching all (they restore from node-local stores or disk)"
                : ", re-spawning rank" + (failed.length > 1 ? "s " : " ") + ranks(failed));
    }

    /** {@code 1, 3}: ranks as the launcher's lines name them. */
    static String ranks(int[] ranks) {
        return Arrays.toString(ranks).replaceAll("[\\[\\]]", "");
    }

    /** A failed rank was handed to a warm standby. */
    void fromStandby() {
        fromStandby++;
    }

    /** @return the replacements that came from warm standbys */
    int standbysUsed() {
        return fromStandby;
    }

    /** Every replacement was started or assigned at {@code nanos}. */
    void respawned(long nanos) {
        respawnedNanos = nanos;
    }

    /** The new world's port exchange completed at {@code nanos} (0: not yet); the first report counts. */
    void worldFormed(long nanos) {
        if (worldNanos == 0) {
            worldNanos = nanos;
        }
    }

    /** A rank's program (re-)started in the new epoch. */
    void rankReady() {
        ready++;
    }

    /** @return whether every rank runs in the new world: time to report */
    boolean complete() {
        return worldNanos != 0 && ready >= worldSize;
    }

    /** @return the epoch this recovery forms */
    int epoch() {
        return epoch;
    }

    /** @return milliseconds from detection to every rank in the new world */
    double worldMillis() {
        return (worldNanos - detectedNanos) / 1e6;
    }

    /** @return milliseconds from detection to every replacement started or assigned */
    double respawnMillis() {
        return (respawnedNanos - detectedNanos) / 1e6;
    }

    /** The line reporting the completed recovery. */
    String line() {
        return String.format(Locale.ROOT,
                "recovered: all %d ranks in a new MPJ world (epoch %d) %.0f ms after the failure was detected"
                        + " (respawn started after %.0f ms%s)",
                worldSize, epoch, (worldNanos - detectedNanos) / 1e6, (respawnedNanos - detectedNanos) / 1e6,
                fromStandby == 0 ? "" : fromStandby == 1 ? ", 1 rank from a standby"
                        : ", " + fromStandby + " ranks from standbys");
    }
}
