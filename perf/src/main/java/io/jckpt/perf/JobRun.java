package io.jckpt.perf;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One run of {@code bin/ckpt-run} whose output lines are collected with their arrival times;
 * every wait bounded. (The same idea as the runtime's test helper LaunchedJob, kept small here.)
 */
final class JobRun implements AutoCloseable {
    record Line(long nanos, String text) {
    }

    private static final Pattern PIDS = Pattern.compile("ranks running \\(pids ([0-9 ]+)\\)");

    final long startNanos = System.nanoTime();
    private final Process process;
    private final List<Line> lines = new ArrayList<>();
    private final Thread reader;
    private boolean ended; // guarded by lines: the launcher's output reached its end

    JobRun(Path repo, List<String> args) throws IOException {
        List<String> command = new ArrayList<>();
        command.add(repo.resolve("bin/ckpt-run").toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(repo.toFile()).redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        process = builder.start();
        reader = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line = r.readLine(); line != null; line = r.readLine()) {
                    synchronized (lines) {
                        lines.add(new Line(System.nanoTime(), line));
                        lines.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // process gone
            } finally {
                synchronized (lines) {
                    ended = true;
                    lines.notifyAll();
                }
            }
        }, "perf-job-output");
        reader.setDaemon(true);
        reader.start();
    }

    /** Waits (bounded) for the first line containing {@code text}. */
    Line await(String text, long millis) throws InterruptedException {
        return awaitLine(text, millis, false);
    }

    /**
     * Waits (bounded) for the first line containing {@code text}; null when the launcher's output
     * ended (it exited) without it.
     */
    Line awaitOrExit(String text, long millis) throws InterruptedException {
        return awaitLine(text, millis, true);
    }

    private Line awaitLine(String text, long millis, boolean nullAtExit) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (lines) {
            for (;;) {
                for (Line line : lines) {
                    if (line.text().contains(text)) {
                        return line;
                    }
                }
                if (nullAtExit && ended) {
                    return null;
                }
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw new IllegalStateException("no line containing '" + text + "' within " + millis + " ms; output:\n"
                            + output());
                }
                lines.wait(left);
            }
        }
    }

    List<Line> linesContaining(String text) {
        List<Line> found = new ArrayList<>();
        synchronized (lines) {
            for (Line line : lines) {
                if (line.text().contains(text)) {
                    found.add(line);
                }
            }
        }
        return found;
    }

    String output() {
        StringBuilder b = new StringBuilder();
        synchronized (lines) {
            for (Line line : lines) {
                b.append(line.text()).append('\n');
            }
        }
        return b.toString();
    }

    /** The output with each line's arrival time in seconds since the launch, e.g. {@code [  12.345] text}. */
    String timedOutput() {
        StringBuilder b = new StringBuilder();
        synchronized (lines) {
            for (Line line : lines) {
                b.append(String.format(java.util.Locale.ROOT, "[%9.3f] ", (line.nanos() - startNanos) / 1e9))
                        .append(line.text()).append('\n');
            }
        }
        return b.toString();
    }

    long[] rankPids() throws InterruptedException {
        Matcher m = PIDS.matcher(await("ranks running (pids", 60_000).text());
        if (!m.find()) {
            throw new IllegalStateException("no pids");
        }
        return java.util.Arrays.stream(m.group(1).trim().split(" ")).mapToLong(Long::parseLong).toArray();
    }

    /** Waits (bounded) for the launcher to exit; its status. */
    int awaitExit(long millis) throws InterruptedException {
        if (!process.waitFor(millis, TimeUnit.MILLISECONDS)) {
            close();
            throw new IllegalStateException("bin/ckpt-run did not exit within " + millis + " ms; output:\n" + output());
        }
        reader.join(5_000);
        return process.exitValue();
    }

    /** The first capture group of {@code pattern} in any line, or null. */
    String find(Pattern pattern) {
        synchronized (lines) {
            for (Line line : lines) {
                Matcher m = pattern.matcher(line.text());
                if (m.find()) {
                    return m.group(1);
                }
            }
        }
        return null;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
