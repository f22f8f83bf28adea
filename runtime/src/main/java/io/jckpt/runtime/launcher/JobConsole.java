package io.jckpt.runtime.launcher;

import java.io.BufferedWriter;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Locale;

/**
 * Where the job's output goes: rank output lines and the launcher's own events (one line each,
 * with the time since the job started), to the console and, when asked, to a log file. Lines from
 * different threads never interleave.
 */
final class JobConsole implements AutoCloseable {
    private final PrintStream out;
    private final PrintStream err;
    private final boolean quiet;
    private final BufferedWriter log;
    private final long startNanos = System.nanoTime();
    private EventLog events;
    private boolean noPrefix;
    private java.nio.file.Path rankOutputs;
    private final java.util.Map<Integer, BufferedWriter> rankFiles = new java.util.HashMap<>();
    private static final java.util.regex.Pattern RANK_TAG = java.util.regex.Pattern.compile("^\\[rank (\\d+)\\] ");
    private boolean report;
    private final java.util.List<java.util.function.Consumer<ReportedEvent>> observers = new java.util.ArrayList<>();
    private final java.util.List<Deriver> derivers = new java.util.ArrayList<>();

    JobConsole(PrintStream out, PrintStream err, boolean quiet, Path logFile) throws IOException {
        this.out = out;
        this.err = err;
        this.quiet = quiet;
        this.log = logFile == null ? null : Files.newBufferedWriter(logFile, StandardCharsets.UTF_8,
                StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE);
    }

    /** Seconds since the job started. */
    double elapsedSeconds() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    /**
     * From now on every event also goes to {@code log} as JSON (closed with this console).
     *
     * @param log the job's events file
     */
    synchronized void recordEventsIn(EventLog log) {
        recordEventsIn(log, true);
    }

    /**
     * As {@link #recordEventsIn(EventLog)}; {@code report} false: no report page at close ({@code --no-report}).
     *
     * @param log    the job's events file
     * @param report whether close writes report.html beside it
     */
    synchronized void recordEventsIn(EventLog log, boolean report) {
        this.events = log;
        this.report = report;
    }

    /**
     * @param observer told of every event after it is shown and written (on the thread that reports it,
     *                 under this console's lock: it must only record)
     */
    synchronized void observe(java.util.function.Consumer<ReportedEvent> observer) {
        observers.add(observer);
    }

    /** Makes an event of the events before it (a recovery's line once its last rank rolled back). */
    @FunctionalInterface
    interface Deriver {
        /**
         * @param seconds when {@code event} was reported, on the console's clock (the events file's)
         * @param event   the event, after it was shown, written and observed
         * @return the event it completes, reported next; or null
         */
        ReportedEvent derive(double seconds, ReportedEvent event);
    }

    /** @param deriver told of every event after the observers, under this console's lock; its events are reported next */
    synchronized void derive(Deriver deriver) {
        derivers.add(deriver);
    }

    /** A launcher event without structure of its own (type {@code message} in the events file): always shown. */
    void event(String text) {
        event(ReportedEvent.message(text));
    }

    /**
     * A launcher event: its line always shown (none for an event with an empty text: the events file
     * only), the event written to the events file when there is one.
     */
    synchronized void event(ReportedEvent event) {
        event(event, elapsedSeconds());
    }

    /** An event at {@code seconds}: a derived event takes the time of the event that completed it. */
    private void event(ReportedEvent event, double seconds) {
        if (!event.text().isEmpty()) {
            String line = String.format(Locale.ROOT, "[ckpt-run %8.3fs] %s", seconds, event.text());
            err.println(line);
            err.flush();
            toLog(line);
        }
        if (events != null) {
            String failure = events.write(seconds, event);
            if (failure != null) {
                err.println(String.format(Locale.ROOT, "[ckpt-run %8.3fs] WARNING: %s", seconds, failure));
            }
        }
        for (java.util.function.Consumer<ReportedEvent> observer : observers) {
            observer.accept(event);
        }
        for (Deriver deriver : derivers) {
            ReportedEvent derived = deriver.derive(seconds, event);
            if (derived != null) {
                event(derived, seconds);
            }
        }
    }

    /**
     * How rank lines are shown and kept: {@code noPrefix} drops the {@code [rank r]} tag on the console
     * ({@code --no-prefix}); with {@code directory} each rank's lines also go to {@code rank-R.out} there
     * ({@code --output-dir}), untagged, stdout and stderr in the order they arrived.
     *
     * @param noPrefix  whether the console shows lines without their tag
     * @param directory where the per-rank files go, or null for none
     */
    synchronized void rankOutput(boolean noPrefix, java.nio.file.Path directory) {
        this.noPrefix = noPrefix;
        this.rankOutputs = directory;
    }

    /** A line a rank printed; {@code prefix} is "[rank r] " or empty when the line carries its own. */
    synchronized void rankLine(String prefix, String line, boolean stderr) {
        String full = prefix + line;
        if (!noPrefix && rankOutputs == null) { // the usual case: nothing to strip, no file to pick
            if (!quiet) {
                (stderr ? err : out).println(full);
            }
            toLog(full);
            return;
        }
        java.util.regex.Matcher tag = RANK_TAG.matcher(full);
        boolean tagged = tag.find();
        if (!quiet) {
            PrintStream stream = stderr ? err : out;
            stream.println(noPrefix && tagged ? full.substring(tag.end()) : full);
        }
        toLog(full);
        if (rankOutputs != null && tagged) {
            toRankFile(Integer.parseInt(tag.group(1)), full.substring(tag.end()));
        }
    }

    private void toRankFile(int rank, String line) {
        try {
            BufferedWriter w = rankFiles.get(rank);
            if (w == null) {
                Files.createDirectories(rankOutputs);
                w = Files.newBufferedWriter(rankOutputs.resolve("rank-" + rank + ".out"), StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
                rankFiles.put(rank, w);
            }
            w.write(line);
            w.newLine();
            w.flush();
        } catch (IOException e) {
            err.println("[ckpt-run] WARNING: rank " + rank + "'s output file in " + rankOutputs + " cannot be written ("
                    + e.getMessage() + "); its lines stay on the console only");
            rankOutputs = null;
        }
    }

    synchronized void flush() {
        out.flush();
        err.flush();
        if (log != null) {
            try {
                log.flush();
            } catch (IOException ignored) {
                // the log is best effort; the console has the same lines
            }
        }
    }

    private void toLog(String line) {
        if (log != null) {
            try {
                log.write(line);
                log.newLine();
            } catch (IOException ignored) {
                // best effort, see flush()
            }
        }
    }

    /**
     * The job's report page, {@code report.html} next to its events file: best effort, one warning when it fails.
     *
     * @return the page, or null when it was not written
     */
    private java.nio.file.Path writeReport(java.nio.file.Path eventsFile) {
        java.nio.file.Path page = io.jckpt.runtime.report.JobReport.besideEvents(eventsFile);
        try {
            io.jckpt.runtime.report.JobReport.write(eventsFile, page);
            return page;
        } catch (IOException | RuntimeException | LinkageError e) {
            err.println(String.format(Locale.ROOT, "[ckpt-run %8.3fs] WARNING: report page %s not written (%s)",
                    elapsedSeconds(), page, e));
            err.flush();
            return null;
        }
    }

    @Override
    public synchronized void close() {
        flush();
        for (BufferedWriter w : rankFiles.values()) {
            try {
                w.close();
            } catch (IOException ignored) {
                // best effort, as the log
            }
        }
        if (events != null) {
            events.close();
            java.nio.file.Path page = report ? writeReport(events.file()) : null;
            String where = String.format(Locale.ROOT, "[ckpt-run %8.3fs] events: %s%s", elapsedSeconds(),
                    events.file().toAbsolutePath(), page != null ? "; report: " + page : "");
            out.println(where);
            out.flush();
            toLog(where);
        }
        if (log != null) {
            try {
                log.close();
            } catch (IOException ignored) {
                // best effort
            }
        }
    }
}
