package io.jckpt.disk;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/** A {@link CrashingRankMain} child JVM with its output read by a named thread; every wait bounded. */
final class ChildProcess implements AutoCloseable {
    private static final Duration WAIT = Duration.ofSeconds(60);
    private final Process process;
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> transcript = new ArrayList<>();
    private final Thread reader;

    private ChildProcess(final Process process, final String name) {
        this.process = process;
        this.reader = new Thread(this::read, "child-output-" + name);
        this.reader.setDaemon(true);
        this.reader.start();
    }

    static ChildProcess start(final String mode, final Path root, final String jobId, final int rank, final int worldSize,
                              final long round, final int length) throws IOException {
        final String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        final ProcessBuilder builder = new ProcessBuilder(java, "-Xmx128m", "-XX:TieredStopAtLevel=1",
            "-cp", System.getProperty("java.class.path"), CrashingRankMain.class.getName(), mode, root.toString(), jobId,
            Integer.toString(rank), Integer.toString(worldSize), Long.toString(round), Integer.toString(length));
        builder.redirectErrorStream(true);
        return new ChildProcess(builder.start(), mode + "-r" + rank);
    }

    /** Runs a child to its end and returns its exit code. */
    static int run(final String mode, final Path root, final String jobId, final int rank, final int worldSize,
                   final long round, final int length) throws Exception {
        try (ChildProcess child = start(mode, root, jobId, rank, worldSize, round, length)) {
            return child.waitForExit();
        }
    }

    /** Waits, bounded, for a line of output; fails with the transcript if it does not come. */
    void awaitLine(final String expected) throws InterruptedException {
        final long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            final String line = lines.poll(200, TimeUnit.MILLISECONDS);
            if (line != null && line.equals(expected)) {
                return;
            }
            if (line == null && !process.isAlive() && lines.isEmpty()) {
                break;
            }
        }
        throw new AssertionError("child never printed " + expected + "; output: " + transcript());
    }

    /** SIGKILL, then a bounded wait for the process to be gone. */
    void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            throw new AssertionError("child survived SIGKILL");
        }
    }

    int waitForExit() throws InterruptedException {
        if (!process.waitFor(WAIT.toSeconds(), TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new AssertionError("child did not finish in " + WAIT + "; output: " + transcript());
        }
        reader.join(TimeUnit.SECONDS.toMillis(5));
        if (process.exitValue() != 0) {
            throw new AssertionError("child exit " + process.exitValue() + "; output: " + transcript());
        }
        return process.exitValue();
    }

    synchronized String transcript() {
        return String.join("\n", transcript);
    }

    @Override
    public void close() {
        try {
            if (process.isAlive()) {
                kill();
            }
            reader.join(TimeUnit.SECONDS.toMillis(5));
        } catch (final InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }

    private void read() {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (this) {
                    transcript.add(line);
                }
                lines.add(line);
            }
        } catch (final IOException e) {
            // the process was killed: its output ends here
        }
    }
}
