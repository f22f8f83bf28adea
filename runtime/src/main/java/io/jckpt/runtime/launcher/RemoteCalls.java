package io.jckpt.runtime.launcher;

import java.io.IOException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Short commands the launcher runs on hosts through the remote shell without waiting for them: host
 * probes at a recovery and the kill of a failed rank's process on its host. Each call has a deadline;
 * its end (exit, or SIGKILL once overdue) is reported to the caller's callback on the JDK's process
 * reaper thread. Owns the calls' local processes: {@link #expireOverdue} (the supervisor loop) ends the
 * overdue ones, {@link #stopAll} every one at the job's end.
 */
final class RemoteCalls {
    /** How one call ended. */
    record Ended(String host, int status, boolean overdue, long tookNanos) {
        /** @return whether the command ran and exited 0 */
        boolean ok() {
            return !overdue && status == 0;
        }
    }

    /** Starts a command on a host through the remote shell (input from /dev/null, output discarded). */
    interface Starter {
        Process start(String host, List<String> command) throws IOException;
    }

    private final class Call {
        final String host;
        final Process process;
        final long startNanos;
        final long deadlineNanos;
        volatile boolean overdue;

        Call(String host, Process process, long startNanos, long deadlineNanos) {
            this.host = host;
            this.process = process;
            this.startNanos = startNanos;
            this.deadlineNanos = deadlineNanos;
        }
    }

    private final Starter starter;
    private final List<Call> running = new CopyOnWriteArrayList<>();

    RemoteCalls(Starter starter) {
        this.starter = starter;
    }

    /**
     * Runs {@code command} on {@code host}, bounded by {@code millis}; {@code onEnd} hears how it ended
     * (a command that cannot even be started ends at once with status -1).
     */
    void start(String host, List<String> command, long millis, Consumer<Ended> onEnd) {
        long start = System.nanoTime();
        Process process;
        try {
            process = starter.start(host, command);
        } catch (IOException e) {
            onEnd.accept(new Ended(host, -1, false, System.nanoTime() - start));
            return;
        }
        Call call = new Call(host, process, start, start + millis * 1_000_000L);
        running.add(call);
        process.onExit().thenAccept(p -> {
            running.remove(call);
            onEnd.accept(new Ended(host, p.exitValue(), call.overdue, System.nanoTime() - call.startNanos));
        });
    }

    /** Ends (SIGKILL) the calls past their deadline; they report as overdue. */
    void expireOverdue(long nowNanos) {
        for (Call call : running) {
            if (nowNanos - call.deadlineNanos >= 0 && call.process.isAlive()) {
                call.overdue = true;
                call.process.destroyForcibly();
            }
        }
    }

    /** @return the nanoTime of the earliest deadline of a running call, or {@code orElse} when none runs */
    long nextDeadline(long orElse) {
        long next = orElse;
        for (Call call : running) {
            if (call.deadlineNanos - next < 0) {
                next = call.deadlineNanos;
            }
        }
        return next;
    }

    /** Ends every call (SIGKILL to its local process); they report as overdue. */
    void stopAll() {
        for (Call call : running) {
            call.overdue = true;
            call.process.destroyForcibly();
        }
    }
}
