package io.jckpt.chaos;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One {@code bin/ckpt-run} process of a campaign run (a run that kills the launcher has two): its
 * output lines with arrival times (the launcher's events and the ranks' lines), bounded waits for a
 * line, and where each rank's process is now (from {@code /proc}, and the launcher's
 * "taken over by standby" events for ranks a standby took).
 */
final class LaunchedRun {
    private static final Pattern EPOCH = Pattern.compile("recovering: epoch (\\d+)");
    private static final Pattern TAKEOVER = Pattern.compile("rank (\\d+) taken over by standby \\d+ \\(pid (\\d+)\\)");

    /** A line and when it arrived (nanoTime). */
    record Line(long nanos, String text) {
    }

    private final Process process;
    private final String jobId;
    private final long startNanos;
    private final List<Line> lines = new ArrayList<>();
    private final List<Thread> readers = new ArrayList<>();
    private int openStreams = 2;
    /** Per rank: the standby pid that took it over and the epoch it did, from the launcher's events. */
    private final java.util.Map<Integer, long[]> takeovers = new java.util.HashMap<>();
    private int epoch;

    private LaunchedRun(Process process, String jobId, String name) {
        this.process = process;
        this.jobId = jobId;
        this.startNanos = System.nanoTime();
        readers.add(reader(process.getInputStream(), name + "-out"));
        readers.add(reader(process.getErrorStream(), name + "-err"));
    }

    /** Starts {@code root/bin/ckpt-run args...} with this JVM's Java. */
    static LaunchedRun start(Path root, String jobId, List<String> args, String name) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(root.resolve("bin/ckpt-run").toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(root.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process process = builder.start();
        process.getOutputStream().close();
        return new LaunchedRun(process, jobId, name);
    }

    private Thread reader(InputStream stream, String name) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String text = reader.readLine(); text != null; text = reader.readLine()) {
                    add(text);
                }
            } catch (IOException ignored) {
                // the launcher is gone
            } finally {
                synchronized (lines) {
                    openStreams--;
                    lines.notifyAll();
                }
            }
        }, "chaos-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    private void add(String text) {
        synchronized (lines) {
            lines.add(new Line(System.nanoTime(), text));
            Matcher m = EPOCH.matcher(text);
            if (m.find()) {
                epoch = Integer.parseInt(m.group(1));
            }
            m = TAKEOVER.matcher(text);
            if (m.find()) {
                takeovers.put(Integer.parseInt(m.group(1)), new long[] {Long.parseLong(m.group(2)), epoch});
            }
            lines.notifyAll();
        }
    }

    long startNanos() {
        return startNanos;
    }

    long pid() {
        return process.pid();
    }

    /**
     * Waits until a line matches, the launcher's output ended, or {@code deadlineNanos}; returns the
     * first matching line (from the start) or null.
     */
    Line await(Predicate<String> match, long deadlineNanos) throws InterruptedException {
        synchronized (lines) {
            int seen = 0;
            for (;;) {
                for (; seen < lines.size(); seen++) {
                    if (match.test(lines.get(seen).text())) {
                        return lines.get(seen);
                    }
                }
                long left = (deadlineNanos - System.nanoTime()) / 1_000_000L;
                if (left <= 0 || openStreams == 0) {
                    return null;
                }
                lines.wait(Math.min(left, 1_000));
            }
        }
    }

    /** Sleeps until {@code nanos} (nanoTime) or until the launcher's output ended; false when it ended. */
    boolean sleepUntil(long nanos) throws InterruptedException {
        synchronized (lines) {
            for (;;) {
                if (openStreams == 0) {
                    return false;
                }
                long left = (nanos - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    return true;
                }
                lines.wait(left);
            }
        }
    }

    boolean ended() {
        synchronized (lines) {
            return openStreams == 0 || !process.isAlive();
        }
    }

    /**
     * The pid of {@code rank}'s current process: the live process of the job with that rank and the
     * newest start epoch, or the standby that took the rank over in a newer epoch; -1 when none.
     */
    long rankPid(int rank) {
        long best = -1;
        int bestEpoch = -1;
        for (JobProcesses.Member m : JobProcesses.of(jobId)) {
            if (m.rank() == rank && m.epoch() > bestEpoch) {
                best = m.pid();
                bestEpoch = m.epoch();
            }
        }
        synchronized (lines) {
            long[] t = takeovers.get(rank);
            if (t != null && t[1] >= bestEpoch && JobProcesses.alive(t[0])) {
                best = t[0];
            }
        }
        return best;
    }

    /** Waits (bounded) until {@code rank} has a live process; its pid, or -1. */
    long awaitRankPid(int rank, long deadlineNanos) throws InterruptedException {
        for (;;) {
            long pid = rankPid(rank);
            if (pid > 0 || System.nanoTime() >= deadlineNanos || ended()) {
                return pid;
            }
            Thread.sleep(10);
        }
    }

    /** SIGKILL to the launcher itself (bin/ckpt-run execs the launcher's JVM: this process). */
    void killLauncher() {
        process.destroyForcibly();
    }

    /** Waits for the launcher to exit until {@code deadlineNanos}; its status, or null on a timeout. */
    Integer awaitExit(long deadlineNanos) throws InterruptedException {
        long left = deadlineNanos - System.nanoTime();
        if (!process.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
            return null;
        }
        for (Thread reader : readers) {
            reader.join(2_000);
        }
        return process.exitValue();
    }

    /** SIGTERM to the launcher, without waiting (its shutdown hook stops the ranks). */
    void terminate() {
        process.destroy();
    }

    /** Stops a stalled launcher: SIGTERM (its shutdown hook stops the ranks), SIGKILL after 5 s. */
    void stop() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(5, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            process.waitFor(5, TimeUnit.SECONDS);
        }
    }

    /** Every line so far, each with its time since this launcher started. */
    String transcript() {
        StringBuilder text = new StringBuilder();
        synchronized (lines) {
            for (Line line : lines) {
                text.append(String.format(java.util.Locale.ROOT, "%8.3f %s%n", (line.nanos() - startNanos) / 1e9,
                        line.text()));
            }
        }
        return text.toString();
    }

    List<String> texts() {
        synchronized (lines) {
            return lines.stream().map(Line::text).toList();
        }
    }
}
