package io.jckpt.runtime;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real run of {@code bin/ckpt-run} for tests: a separate launcher process whose output is
 * collected line by line with arrival times; every wait bounded.
 */
public final class LaunchedJob implements AutoCloseable {
    private static final Pattern JOB_ID = Pattern.compile("job ([0-9a-f]{12}):");
    private static final Pattern PIDS = Pattern.compile("ranks running \\(pids ([0-9 ]+)\\)");

    public record Line(long nanos, String text) {
    }

    private final Process process;
    private final List<Line> lines = new ArrayList<>();
    private final List<Thread> readers = new ArrayList<>();

    private LaunchedJob(Process process) {
        this.process = process;
        readers.add(reader(process.getInputStream(), "out"));
        readers.add(reader(process.getErrorStream(), "err"));
    }

    public static Path repoRoot() {
        String root = System.getProperty("jckpt.repo.root");
        return root != null ? Paths.get(root) : Paths.get("..").toAbsolutePath().normalize();
    }

    public static Path testClasses() {
        return repoRoot().resolve("runtime/target/test-classes");
    }

    /** Starts {@code bin/ckpt-run args...}. */
    public static LaunchedJob start(String... args) throws IOException {
        return startWithEnvironment(java.util.Map.of(), args);
    }

    /** Starts {@code bin/ckpt-run args...} with {@code environment} added to the launcher's (and so the ranks'). */
    public static LaunchedJob startWithEnvironment(java.util.Map<String, String> environment, String... args)
            throws IOException {
        List<String> command = new ArrayList<>();
        command.add(repoRoot().resolve("bin/ckpt-run").toString());
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command).directory(repoRoot().toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        builder.environment().putAll(environment);
        return new LaunchedJob(builder.start());
    }

    private Thread reader(java.io.InputStream stream, String name) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    synchronized (lines) {
                        lines.add(new Line(System.nanoTime(), line));
                        lines.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // process gone
            }
        }, "test-launcher-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** Waits (bounded) for a line containing {@code text}; returns it. */
    public Line awaitLine(String text, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (lines) {
            for (;;) {
                for (Line line : lines) {
                    if (line.text().contains(text)) {
                        return line;
                    }
                }
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw new AssertionError("no line containing '" + text + "' within " + millis + " ms; output:\n" + output());
                }
                lines.wait(left);
            }
        }
    }

    /** Waits (bounded) until {@code count} lines contain {@code text}; returns the last of them. */
    public Line awaitLines(String text, int count, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (lines) {
            for (;;) {
                int found = 0;
                for (Line line : lines) {
                    if (line.text().contains(text) && ++found == count) {
                        return line;
                    }
                }
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw new AssertionError(count + " lines containing '" + text + "' not seen within " + millis
                            + " ms; output:\n" + output());
                }
                lines.wait(left);
            }
        }
    }

    /** Waits (bounded) for the launcher to exit; returns its exit status. */
    public int awaitExit(long millis) throws InterruptedException {
        if (!process.waitFor(millis, TimeUnit.MILLISECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("launcher did not exit within " + millis + " ms; output:\n" + output());
        }
        for (Thread reader : readers) {
            reader.join(2_000);
        }
        return process.exitValue();
    }

    public String output() {
        StringBuilder text = new StringBuilder();
        synchronized (lines) {
            for (Line line : lines) {
                text.append(line.text()).append('\n');
            }
        }
        return text.toString();
    }

    public List<String> linesContaining(String text) {
        List<String> found = new ArrayList<>();
        synchronized (lines) {
            for (Line line : lines) {
                if (line.text().contains(text)) {
                    found.add(line.text());
                }
            }
        }
        return found;
    }

    public String jobId() {
        Matcher matcher = JOB_ID.matcher(output());
        if (!matcher.find()) {
            throw new AssertionError("no job id in output:\n" + output());
        }
        return matcher.group(1);
    }

    /** Rank pids in rank order, from the launcher's "all N ranks running" line. */
    public long[] rankPids() {
        Matcher matcher = PIDS.matcher(output());
        if (!matcher.find()) {
            throw new AssertionError("no pids in output:\n" + output());
        }
        return Stream.of(matcher.group(1).trim().split(" ")).mapToLong(Long::parseLong).toArray();
    }

    public long launcherPid() {
        return process.pid();
    }

    /** Processes (any) whose environment carries this job's id: the job's leftovers. */
    public static List<Long> processesOfJob(String jobId) {
        List<Long> found = new ArrayList<>();
        byte[] marker = ("JCKPT_JOB_ID=" + jobId).getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> procs = Files.list(Paths.get("/proc"))) {
            for (Path proc : (Iterable<Path>) procs::iterator) {
                String name = proc.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    byte[] environ = Files.readAllBytes(proc.resolve("environ"));
                    if (indexOf(environ, marker) >= 0) {
                        found.add(Long.parseLong(name));
                    }
                } catch (IOException | SecurityException ignored) {
                    // gone meanwhile, or not ours to read
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list /proc", e);
        }
        return found;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
