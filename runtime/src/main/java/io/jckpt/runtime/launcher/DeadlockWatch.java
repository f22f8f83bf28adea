package io.jckpt.runtime.launcher;

import io.jckpt.spi.Collective;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ranks' waits in communication calls as they report them ({@code RANK_WAIT}), and the deadlock
 * they make: every rank of the world has waited in one, using no CPU, for the timeout or longer. No
 * rank can then send what another waits for. A rank that computes, sleeps or is not heard from keeps
 * the verdict away, so a slow rank is never a deadlock; a report older than {@link #FRESH_NANOS} does
 * not count (the rank sends one about every second while it waits).
 */
final class DeadlockWatch {
    /** A report counts this long after it came. */
    static final long FRESH_NANOS = 3_000_000_000L;

    private record Wait(long sinceNanos, String call, long heardNanos) {
    }

    private final Map<Integer, Wait> waits = new ConcurrentHashMap<>();

    /** A rank's report: it has waited {@code millis} in {@code call} (0: it no longer waits). */
    void report(int rank, long millis, String call, long nowNanos) {
        if (millis <= 0) {
            waits.remove(rank);
        } else {
            waits.put(rank, new Wait(nowNanos - millis * 1_000_000L, call, nowNanos));
        }
    }

    /** The rank's program (re)starts: its waits in an earlier world mean nothing. */
    void forget(int rank) {
        waits.remove(rank);
    }

    /**
     * @return what every rank of {@code 0..worldSize-1} waits in, each for at least {@code timeoutNanos}
     *         ({@code "rank 0 in mpi.Intracomm.Gather from Main.main:40; ranks 1,2 in ..."}), or null
     *         when some rank does not (or was not heard from lately)
     */
    String verdict(int worldSize, long timeoutNanos, long nowNanos) {
        Map<String, List<Integer>> byCall = new TreeMap<>();
        for (int r = 0; r < worldSize; r++) {
            Wait w = waits.get(r);
            if (w == null || nowNanos - w.heardNanos() > FRESH_NANOS || nowNanos - w.sinceNanos() < timeoutNanos) {
                return null;
            }
            byCall.computeIfAbsent(w.call(), c -> new ArrayList<>()).add(r);
        }
        List<String> parts = new ArrayList<>();
        byCall.entrySet().stream().sorted(Map.Entry.comparingByValue((a, b) -> Integer.compare(a.get(0), b.get(0))))
                .forEach(e -> parts.add(Collective.describeRanks(e.getValue()) + " in " + e.getKey()));
        return String.join("; ", parts);
    }
}
