package io.jckpt.policy.interval;

import java.io.IOException;
import java.io.Reader;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;

/**
 * What one job id has seen, kept across restarts beside its checkpoints: the failures (recoveries)
 * and the run time exposed to failures, from which the job's MTBF is learned, plus the measured
 * figures of its checkpoints for {@code bin/ckpt-advisor --stats}. A small properties file
 * ({@value #FILE_NAME}), written by rank 0 only, atomically (a temporary file renamed over it);
 * advisory: a lost update costs precision, never correctness.
 *
 * <p>Where: in the job's directory of the disk level ({@code <diskDirectory>/<jobId>/}) when there is
 * one, since it survives the loss of any node and a restart of the whole job; else in rank 0's
 * node-local job directory ({@code <memoryDirectory>/<jobId>/}), which survives process failures and
 * goes with the job's stores.
 *
 * <p>Learned MTBF: the configured MTBF counts as one failure observed after that much time, so
 * M = (configured + exposed) / (1 + failures): the configured value until the job has seen failures,
 * the observed rate after many.
 */
public final class FailureHistory {
    /** The file's name in the job directory. */
    public static final String FILE_NAME = "interval-history.properties";
    /** Key: failures (recoveries) seen by the job id. */
    public static final String FAILURES = "failures";
    /** Key: seconds of run time exposed to failures. */
    public static final String EXPOSED = "exposedSeconds";
    /** Key: the wall-clock time of the last save, milliseconds since the epoch. */
    public static final String SAVED_AT = "savedAtMillis";

    private final Path file;
    private final Map<String, String> values = new TreeMap<>();
    /** Kept as numbers (updated at every here() of rank 0 without allocating), written at save(). */
    private long failures;
    private double exposed;

    private FailureHistory(Path file) {
        this.file = file;
    }

    /**
     * Loads the history, or an empty one when the file does not exist or cannot be read.
     *
     * @param file the file
     * @return the history
     */
    public static FailureHistory load(Path file) {
        FailureHistory h = new FailureHistory(file);
        if (Files.isRegularFile(file)) {
            Properties p = new Properties();
            try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
                p.load(r);
                for (String k : p.stringPropertyNames()) {
                    h.values.put(k, p.getProperty(k));
                }
                h.failures = (long) h.number(FAILURES, 0);
                h.exposed = h.number(EXPOSED, 0);
            } catch (IOException | IllegalArgumentException e) {
                // advisory: start afresh
            }
        }
        return h;
    }

    /** @return the file */
    public Path file() {
        return file;
    }

    /** @return failures seen by the job id */
    public long failures() {
        return failures;
    }

    /** @return seconds of run time exposed to failures */
    public double exposedSeconds() {
        return exposed;
    }

    /** Counts one failure (a recovery). */
    public void recordFailure() {
        failures++;
    }

    /**
     * Counts one failure and the run time between the last save and the recovery that reads this
     * history: the work the failure lost and the restart itself were exposed to failures too, and
     * without them a job failing more often than it saves would learn an MTBF far too short. The gap is
     * capped, so that a whole job restarted with its id long after it stopped does not count the pause.
     *
     * @param nowMillis     the wall clock now (ranks of one job share it closely enough for seconds)
     * @param maxGapSeconds the most the gap may add
     */
    public void recordFailure(long nowMillis, double maxGapSeconds) {
        failures++;
        double savedAt = number(SAVED_AT, Double.NaN);
        if (!Double.isNaN(savedAt)) {
            addExposure(Math.min(maxGapSeconds, (nowMillis - savedAt) / 1000.0));
        }
    }

    /**
     * @param seconds run time to add to the exposure (&gt;= 0)
     */
    public void addExposure(double seconds) {
        if (seconds > 0) {
            exposed += seconds;
        }
    }

    /**
     * @param priorJobMtbf the configured MTBF of the job (node MTBF / nodes), seconds
     * @return the learned MTBF of the job, seconds: (prior + exposed) / (1 + failures)
     */
    public double jobMtbfSeconds(double priorJobMtbf) {
        return (priorJobMtbf + exposedSeconds()) / (1 + failures());
    }

    /**
     * @param key   a figure's name
     * @param value its value
     */
    public void put(String key, String value) {
        values.put(key, value);
    }

    /**
     * @param key a figure's name
     * @return its text, or null when absent
     */
    public String value(String key) {
        return values.get(key);
    }

    /**
     * @param key      a figure's name
     * @param fallback the value when absent or not a number
     * @return its value
     */
    public double number(String key, double fallback) {
        String v = values.get(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    /**
     * Writes the file atomically.
     *
     * @throws IOException when it cannot be written
     */
    public void save() throws IOException {
        Files.createDirectories(file.getParent());
        Path tmp = file.resolveSibling(FILE_NAME + ".tmp");
        values.put(FAILURES, Long.toString(failures));
        values.put(EXPOSED, Double.toString(exposed));
        values.put(SAVED_AT, Long.toString(System.currentTimeMillis()));
        Properties p = new Properties();
        p.putAll(values);
        try (Writer w = Files.newBufferedWriter(tmp, StandardCharsets.UTF_8)) {
            p.store(w, "jckpt interval policy: failures and measured figures of this job id (bin/ckpt-advisor --stats)");
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
    }
}
