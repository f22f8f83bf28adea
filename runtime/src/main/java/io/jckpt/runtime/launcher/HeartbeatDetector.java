package io.jckpt.runtime.launcher;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * Declares a rank failed when nothing (heartbeat, progress, exchange) was heard from it for the
 * timeout: a hung process, a stopped one (SIGSTOP), or a rank on another host whose host died
 * without closing its connections. Ranks send a heartbeat every timeout/4 when otherwise silent.
 */
final class HeartbeatDetector implements FailureDetector {
    private final long timeoutNanos;

    HeartbeatDetector(long timeoutMillis) {
        this.timeoutNanos = timeoutMillis * 1_000_000L;
    }

    /** The period ranks send heartbeats at. */
    long periodMillis() {
        return Math.max(1, timeoutNanos / 4 / 1_000_000L);
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
            long silent = now - view.lastHeardNanos(rank);
            if (view.expectedAlive(rank) && silent > timeoutNanos) {
                failed.put(rank, String.format(Locale.ROOT, "rank %d silent for %d ms (heartbeat timeout %d ms)", rank,
                        silent / 1_000_000L, timeoutNanos / 1_000_000L));
            }
        }
        return failed;
    }
}
