package io.jckpt.runtime.launcher;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Declares a rank failed when nothing (heartbeat, progress, exchange) was heard from it for the
 * timeout: a stopped process (SIGSTOP), a hung one, or a rank on another host whose host died
 * without closing its connections. Ranks send a heartbeat every timeout/4 when otherwise silent.
 *
 * <p>A silent rank whose process runs on this host and is not stopped (its state in
 * {@code /proc/PID/stat} is neither {@code T} nor {@code t}) is starved rather than gone, as on a
 * machine with more busy processes than cores: it gets up to {@link #STARVED_FACTOR} timeouts before
 * it is declared hung. A stopped one is declared failed at the timeout.
 *
 * <p>A rank whose process has not connected yet (a JVM starting, whose silence counts from its start)
 * is declared failed only when its local process is stopped: one that runs is starting, however slowly
 * on a loaded host, and the start timeout bounds it; a remote one (no process state here) likewise.
 * So a rank stopped at any moment of its start, before it could send a heartbeat, is failed at the
 * timeout instead of stalling its world until the start timeout.
 */
final class HeartbeatDetector implements FailureDetector {
    /** How many timeouts a silent but running local process gets. */
    static final int STARVED_FACTOR = 5;
    private final long timeoutNanos;

    HeartbeatDetector(long timeoutMillis) {
        this.timeoutNanos = timeoutMillis * 1_000_000L;
    }

    /** The period ranks send heartbeats at. */
    long periodMillis() {
        return Math.max(1, timeoutNanos / 4 / 1_000_000L);
    }

    /** @return the timeout in milliseconds */
    long timeoutMillis() {
        return timeoutNanos / 1_000_000L;
    }

    @Override
    public String name() {
        return String.format(Locale.ROOT, "heartbeat (timeout %d ms)", timeoutNanos / 1_000_000L);
    }

    @Override
    public Map<Integer, String> poll(View view) {
        Map<Integer, String> failed = new HashMap<>();
        long now = System.nanoTime();
        for (int rank = 0; rank < view.worldSize(); rank++) {
            // whether it joined before when it was last heard: a rank that connects in between is then
            // either not joined yet (and running: skipped) or heard at its connection, never a starting
            // JVM's silence taken for a connected rank's
            boolean joined = view.joined(rank);
            long silent = now - view.lastHeardNanos(rank);
            if (!view.expectedAlive(rank) || silent <= timeoutNanos) {
                continue;
            }
            char state = processState(view.localPid(rank));
            boolean stopped = state == 'T' || state == 't';
            if (!joined && !stopped) {
                continue; // a JVM still starting: the start timeout bounds it
            }
            if (!stopped && state != '?' && silent <= STARVED_FACTOR * timeoutNanos) {
                continue; // running but not heard: starved of CPU, not gone
            }
            failed.put(rank, String.format(Locale.ROOT, "rank %d silent for %d ms%s (heartbeat timeout %d ms%s)", rank,
                    silent / 1_000_000L, joined ? "" : " since its start, before it connected", timeoutNanos / 1_000_000L,
                    stopped ? ", process stopped" : state == '?' ? "" : ", process running but unresponsive"));
        }
        return failed;
    }

    /** The state letter of a local process from /proc, or '?' when not known (not local, not Linux). */
    static char processState(long pid) {
        if (pid <= 0) {
            return '?';
        }
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"), StandardCharsets.US_ASCII);
            int end = stat.lastIndexOf(')'); // the command name may contain spaces and parentheses
            return end >= 0 && end + 2 < stat.length() ? stat.charAt(end + 2) : '?';
        } catch (IOException | RuntimeException e) {
            return '?';
        }
    }
}
