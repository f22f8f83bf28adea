package io.jckpt.imem;

import io.jckpt.wire.CopyStatus;
import io.jckpt.wire.RankStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Test model of what the ring leaves in the stores: round {@code base} complete everywhere (and
 * {@code base-1} kept as the previous version); round {@code base+1} in progress, owner o's copy
 * present at the first {@code progress[o]} holders (0 = not yet written, m+1 = fully replicated).
 * A holder that stored base+1 for an owner overwrote that owner's base-1 (two versions kept).
 */
final class RingModel {
    final int n;
    final int m;
    final long base;
    final int[] progress;

    RingModel(int n, int m, long base, int[] progress) {
        this.n = n;
        this.m = m;
        this.base = base;
        this.progress = progress.clone();
    }

    static RingModel complete(int n, int m, long base) {
        return new RingModel(n, m, base, new int[n]);
    }

    static int len(int owner, long round) {
        return 100 + owner * 7 + (int) round;
    }

    static int crc(int owner, long round) {
        return (int) (owner * 1_000_003L + round * 7919L);
    }

    /** Copies rank j holds, before any failure. */
    List<CopyStatus> copiesAt(int j) {
        List<CopyStatus> copies = new ArrayList<>();
        for (int d = 0; d <= m; d++) {
            int owner = Math.floorMod(j - d, n);
            boolean hasNext = d < progress[owner];
            if (!hasNext) {
                copies.add(new CopyStatus(owner, base - 1, len(owner, base - 1), crc(owner, base - 1), true));
            }
            copies.add(new CopyStatus(owner, base, len(owner, base), crc(owner, base), true));
            if (hasNext) {
                copies.add(new CopyStatus(owner, base + 1, len(owner, base + 1), crc(owner, base + 1), true));
            }
        }
        return copies;
    }

    /**
     * Statuses after the ranks in {@code failed} were re-spawned.
     *
     * @param wiped true if their node-local stores were lost too
     */
    List<RankStatus> statuses(Set<Integer> failed, boolean wiped) {
        List<RankStatus> out = new ArrayList<>();
        for (int j = 0; j < n; j++) {
            boolean f = failed.contains(j);
            out.add(new RankStatus(j, f, f && wiped ? List.of() : copiesAt(j)));
        }
        return out;
    }

    /** Whether owner o has a surviving holder of round base+1 (store wiped for failed ranks). */
    boolean nextRoundSurvives(int owner, Set<Integer> failed, boolean wiped) {
        for (int d = 0; d < progress[owner]; d++) {
            if (!wiped || !failed.contains((owner + d) % n)) {
                return true;
            }
        }
        return false;
    }

    /** Whether owner o has a surviving holder of round base. */
    boolean baseSurvives(int owner, Set<Integer> failed, boolean wiped) {
        for (int d = 0; d <= m; d++) {
            if (!wiped || !failed.contains((owner + d) % n)) {
                return true;
            }
        }
        return false;
    }
}
