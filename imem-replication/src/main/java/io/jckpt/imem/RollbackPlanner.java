package io.jckpt.imem;

import io.jckpt.spi.RingOrder;

import io.jckpt.wire.CopyStatus;
import io.jckpt.wire.RankStatus;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * Computes the in-memory rollback plan from the exchanged status of all ranks.
 *
 * <p>A pure, deterministic function: every rank computes the identical plan from the same
 * (allgathered) input, so no further agreement is needed. Rules:
 * <ul>
 *   <li>The chosen round R is the newest round for which every rank's data has at least one intact
 *       copy somewhere (on any rank, old or new: a re-spawned rank whose node-local store survived
 *       counts as a holder).</li>
 *   <li>A rank holding an intact copy of its own data at R restores LOCAL; otherwise it RECEIVEs
 *       from its nearest NEXT rank on the ring (at ring distance 1, 2, ...) holding an intact copy. A survivor that is
 *       the nearest holder for several consecutive new ranks sends to each.</li>
 *   <li>If no round works, the result is NOT_RECOVERABLE, naming each lost rank and why, for the
 *       round that came closest (most ranks restorable, newest on a tie).</li>
 * </ul>
 * Intact copies of the same (owner, round) are expected to agree; the plan carries the length and
 * CRC32C of the copy chosen, which the receiver verifies.
 */
public final class RollbackPlanner {
    private RollbackPlanner() {
    }

    /**
     * Plans the rollback on the identity ring (rank order).
     *
     * @param statuses one status per rank, any order; ranks must be exactly 0..n-1
     * @return the plan (never null)
     * @throws IllegalArgumentException if the ranks are not exactly 0..n-1 or a copy names an
     *                                  owner outside 0..n-1
     */
    public static RollbackPlan plan(List<RankStatus> statuses) {
        if (statuses.isEmpty()) {
            throw new IllegalArgumentException("no ranks");
        }
        return plan(statuses, RingOrder.identity(statuses.size()));
    }

    /**
     * Plans the rollback: a rank that lost its own copy receives from the nearest holder after it on
     * {@code ring}.
     *
     * @param statuses one status per rank, any order; ranks must be exactly 0..n-1
     * @param ring     the job's replication ring, of n ranks
     * @return the plan (never null)
     * @throws IllegalArgumentException if the ranks are not exactly 0..n-1, a copy names an owner
     *                                  outside 0..n-1, or the ring is not of n ranks
     */
    public static RollbackPlan plan(List<RankStatus> statuses, RingOrder ring) {
        int n = statuses.size();
        if (n == 0) {
            throw new IllegalArgumentException("no ranks");
        }
        if (ring.size() != n) {
            throw new IllegalArgumentException("ring " + ring.text() + " of " + ring.size() + " ranks for " + n
                    + " rank statuses");
        }
        RankStatus[] byRank = new RankStatus[n];
        for (RankStatus s : statuses) {
            if (s.rank() >= n) {
                throw new IllegalArgumentException("rank " + s.rank() + " outside 0.." + (n - 1));
            }
            if (byRank[s.rank()] != null) {
                throw new IllegalArgumentException("rank " + s.rank() + " reported twice");
            }
            byRank[s.rank()] = s;
            for (CopyStatus c : s.copies()) {
                if (c.owner() >= n) {
                    throw new IllegalArgumentException("rank " + s.rank() + " reports a copy of rank "
                            + c.owner() + " outside 0.." + (n - 1));
                }
            }
        }
        TreeSet<Long> rounds = new TreeSet<>();
        for (RankStatus s : byRank) {
            for (CopyStatus c : s.copies()) {
                if (c.intact()) {
                    rounds.add(c.round());
                }
            }
        }
        long bestRound = -1;
        int bestCount = -1;
        for (Long round : rounds.descendingSet()) {
            List<RestoreAction> actions = new ArrayList<>(n);
            for (int r = 0; r < n; r++) {
                RestoreAction a = choose(byRank, ring, r, round);
                if (a != null) {
                    actions.add(a);
                }
            }
            if (actions.size() == n) {
                return RollbackPlan.recoverable(round, actions, ring, holdersAt(byRank, round));
            }
            if (actions.size() > bestCount) {
                bestCount = actions.size();
                bestRound = round;
            }
        }
        List<LostData> lost = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            if (bestRound < 0 || choose(byRank, ring, r, bestRound) == null) {
                lost.add(new LostData(r, explain(byRank, r, bestRound)));
            }
        }
        return RollbackPlan.notRecoverable(bestRound, lost);
    }

    /** Per owner, the ranks holding an intact copy of its data at {@code round}, ascending. */
    private static List<List<Integer>> holdersAt(RankStatus[] byRank, long round) {
        int n = byRank.length;
        List<List<Integer>> holders = new ArrayList<>(n);
        for (int owner = 0; owner < n; owner++) {
            List<Integer> h = new ArrayList<>();
            for (RankStatus s : byRank) {
                if (s.intactCopy(owner, round) != null) {
                    h.add(s.rank());
                }
            }
            holders.add(h);
        }
        return holders;
    }

    private static RestoreAction choose(RankStatus[] byRank, RingOrder ring, int rank, long round) {
        int n = byRank.length;
        for (int d = 0; d < n; d++) {
            int holder = ring.successor(rank, d);
            CopyStatus c = byRank[holder].intactCopy(rank, round);
            if (c != null) {
                return new RestoreAction(rank, d == 0 ? RestoreAction.Kind.LOCAL : RestoreAction.Kind.RECEIVE,
                        holder, c.length(), c.crc32c());
            }
        }
        return null;
    }

    private static String explain(RankStatus[] byRank, int rank, long round) {
        List<String> corrupt = new ArrayList<>();
        List<String> otherRounds = new ArrayList<>();
        for (RankStatus s : byRank) {
            for (CopyStatus c : s.copies()) {
                if (c.owner() != rank) {
                    continue;
                }
                if (c.round() == round && !c.intact()) {
                    corrupt.add(Integer.toString(s.rank()));
                } else if (c.round() != round) {
                    otherRounds.add("round " + c.round() + (c.intact() ? "" : " (corrupt)") + " at rank " + s.rank());
                }
            }
        }
        StringBuilder b = new StringBuilder();
        if (round < 0) {
            b.append("no rank holds any intact copy of any rank's data");
        } else {
            b.append("no intact copy of rank ").append(rank).append("'s data at round ").append(round)
                    .append(" (the round most ranks can restore)");
        }
        if (!corrupt.isEmpty()) {
            b.append("; copies refused at ranks ").append(corrupt)
                    .append(" (damaged, altered, or not this job's: each rank's log names the file and why)");
        }
        if (!otherRounds.isEmpty()) {
            b.append("; other copies: ").append(otherRounds);
        }
        if (corrupt.isEmpty() && otherRounds.isEmpty()) {
            b.append("; no rank holds any copy of it (its holders failed with their node-local stores)");
        }
        if (byRank[rank].fresh()) {
            b.append("; rank ").append(rank).append(" is new");
        }
        return b.toString();
    }
}
