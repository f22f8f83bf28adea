package io.jckpt.runtime.launcher;

import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;

/**
 * One operating-system process of the job and the ranks it hosts: one rank for niodev, all of
 * them for multicore, none for a warm standby until it is assigned one. Owns the process and the
 * pumps forwarding its output.
 */
final class RankHost {
    private final String name;
    private volatile List<Integer> ranks;
    private final Process process;
    private final OutputPump stdout;
    private final OutputPump stderr;

    private RankHost(String name, List<Integer> ranks, Process process, OutputPump stdout, OutputPump stderr) {
        this.name = name;
        this.ranks = List.copyOf(ranks);
        this.process = process;
        this.stdout = stdout;
        this.stderr = stderr;
    }

    /**
     * Starts the process; {@code onExit} is called with its exit status from the JDK's process
     * reaper as soon as the process is gone.
     *
     * @param prefix the prefix of its output lines ("" when the process prefixes lines itself)
     */
    static RankHost start(String name, List<Integer> ranks, List<String> command, Map<String, String> environment,
                          String prefix, JobConsole console, IntConsumer onExit) throws IOException {
        return start(name, ranks, command, environment, null, prefix, console, onExit);
    }

    /**
     * As above; {@code stdin}, when not null, is written to the process's standard input before it is
     * closed (the job secret for a remote shell, which reads it there: never on a command line).
     */
    static RankHost start(String name, List<Integer> ranks, List<String> command, Map<String, String> environment,
                          String stdin, String prefix, JobConsole console, IntConsumer onExit) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().putAll(environment);
        Process process = builder.start();
        try (java.io.OutputStream in = process.getOutputStream()) { // ranks read no standard input
            if (stdin != null) {
                in.write(stdin.getBytes(java.nio.charset.StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            // the agent died at once: its exit reports the failure
        }
        OutputPump out = new OutputPump(process.getInputStream(), prefix, false, console, "jckpt-out-" + name);
        OutputPump err = new OutputPump(process.getErrorStream(), prefix, true, console, "jckpt-err-" + name);
        RankHost host = new RankHost(name, ranks, process, out, err);
        process.onExit().thenAccept(p -> onExit.accept(p.exitValue()));
        return host;
    }

    String name() {
        return name;
    }

    List<Integer> ranks() {
        return ranks;
    }

    /** A standby became {@code rank}: it hosts that rank from now on, and its lines say so. */
    void assign(int rank, String prefix) {
        ranks = List.of(rank);
        stdout.prefix(prefix);
        stderr.prefix(prefix);
    }

    long pid() {
        return process.pid();
    }

    boolean isAlive() {
        return process.isAlive();
    }

    /** SIGKILL to the process and anything it started. */
    void kill() {
        process.descendants().forEach(ProcessHandle::destroyForcibly);
        process.destroyForcibly();
    }

    /** Waits (bounded) for the process to be gone. */
    boolean awaitExit(long millis) {
        try {
            return process.waitFor(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Waits (bounded) until its output has been forwarded. */
    void drainOutput(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        stdout.drain(millis);
        stderr.drain(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
    }
}
