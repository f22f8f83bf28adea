package io.jckpt.imem;

import io.jckpt.spi.RingOrder;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * The result of {@link RollbackPlanner#plan}: identical on every rank that computed it from the
 * same exchanged status. Either {@link Outcome#RECOVERABLE} with a round and one action per rank,
 * or {@link Outcome#NOT_RECOVERABLE} naming the ranks whose data is lost.
 */
public final class RollbackPlan {
    /** Whether the in-memory level can restore every rank. */
    public enum Outcome {
        /** Every rank restores round {@link #round()}: locally or from one sender. */
        RECOVERABLE,
        /** Some rank's data is not intact anywhere at any common round; see {@link #lost()}. */
        NOT_RECOVERABLE
    }

    private final Outcome outcome;
    private final long round;
    private final List<RestoreAction> actions;
    private final List<List<Integer>> sends;
    private final List<LostData> lost;
    private final RingOrder ring;
    /** Per owner, the ranks holding an intact copy of its data at the round (ascending). */
    private final List<List<Integer>> holders;

    private RollbackPlan(Outcome outcome, long round, List<RestoreAction> actions,
                         List<List<Integer>> sends, List<LostData> lost, RingOrder ring, List<List<Integer>> holders) {
        this.outcome = outcome;
        this.round = round;
        this.actions = actions;
        this.sends = sends;
        this.lost = lost;
        this.ring = ring;
        this.holders = holders;
    }

    static RollbackPlan recoverable(long round, List<RestoreAction> actions, RingOrder ring, List<List<Integer>> holders) {
        int n = actions.size();
        List<List<Integer>> sends = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            sends.add(new ArrayList<>());
        }
        for (RestoreAction a : actions) {
            if (a.kind() == RestoreAction.Kind.RECEIVE) {
                sends.get(a.source()).add(a.rank());
            }
        }
        // order each sender's targets by ring distance behind it (nearest first): deterministic
        for (int s = 0; s < n; s++) {
            final int sender = s;
            sends.get(s).sort((x, y) -> Integer.compare(ring.distance(x, sender), ring.distance(y, sender)));
            sends.set(s, List.copyOf(sends.get(s)));
        }
        List<List<Integer>> held = new ArrayList<>(n);
        for (List<Integer> h : holders) {
            held.add(List.copyOf(h));
        }
        return new RollbackPlan(Outcome.RECOVERABLE, round, List.copyOf(actions), List.copyOf(sends), List.of(), ring,
                List.copyOf(held));
    }

    static RollbackPlan notRecoverable(long bestRound, List<LostData> lost) {
        return new RollbackPlan(Outcome.NOT_RECOVERABLE, bestRound, List.of(), List.of(), List.copyOf(lost), null,
                List.of());
    }

    /** @return the outcome */
    public Outcome outcome() {
        return outcome;
    }

    /** @return true if every rank can restore from memory */
    public boolean recoverable() {
        return outcome == Outcome.RECOVERABLE;
    }

    /**
     * @return the round every rank restores; for NOT_RECOVERABLE the round that came closest
     * (most ranks restorable, newest on a tie), or -1 if no rank holds any intact copy
     */
    public long round() {
        return round;
    }

    /** @return the number of ranks (0 for NOT_RECOVERABLE) */
    public int size() {
        return actions.size();
    }

    /**
     * @param rank a rank
     * @return what that rank does
     */
    public RestoreAction action(int rank) {
        requireRecoverable();
        return actions.get(rank);
    }

    /**
     * @param rank a rank
     * @return the new ranks this rank sends its copy of their data to, nearest first; usually empty
     */
    public List<Integer> sendsTo(int rank) {
        requireRecoverable();
        return sends.get(rank);
    }

    /**
     * The copies of the plan's round that the holders at ring distance 1..m lack, each sent by the
     * rank that has the owner's data for the restore (the owner itself when it restores locally, else
     * its source). Every rank computes the same list; the transfers run with the restore.
     *
     * @param m the copies kept of every rank's data in the layout of the plan's round (0 keeps none)
     * @return the refills, by owner then distance; empty when every copy is where it belongs
     */
    public List<Refill> refills(int m) {
        requireRecoverable();
        if (m < 0) {
            throw new IllegalArgumentException("m = " + m + " copies");
        }
        int n = actions.size();
        List<Refill> out = new ArrayList<>();
        for (int owner = 0; owner < n; owner++) {
            RestoreAction a = actions.get(owner);
            for (int d = 1; d <= Math.min(m, n - 1); d++) {
                int holder = ring.successor(owner, d);
                if (!holders.get(owner).contains(holder)) {
                    out.add(new Refill(owner, holder, a.source(), a.length(), a.crc32c()));
                }
            }
        }
        return out;
    }

    /** @return the ranks whose data is lost, with reasons (empty when recoverable) */
    public List<LostData> lost() {
        return lost;
    }

    private void requireRecoverable() {
        if (outcome != Outcome.RECOVERABLE) {
            throw new IllegalStateException("not recoverable from memory: " + lost);
        }
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RollbackPlan p)) {
            return false;
        }
        return outcome == p.outcome && round == p.round && actions.equals(p.actions)
                && sends.equals(p.sends) && lost.equals(p.lost) && Objects.equals(ring, p.ring)
                && holders.equals(p.holders);
    }

    @Override
    public int hashCode() {
        return Objects.hash(outcome, round, actions, sends, lost, holders);
    }

    @Override
    public String toString() {
        if (outcome == Outcome.NOT_RECOVERABLE) {
            return "RollbackPlan[NOT_RECOVERABLE closest round " + round + ", lost " + lost + "]";
        }
        StringBuilder b = new StringBuilder("RollbackPlan[round ").append(round);
        for (RestoreAction a : actions) {
            b.append(", ").append(a.rank()).append(a.kind() == RestoreAction.Kind.LOCAL ? ":local" : ":<-" + a.source());
        }
        return b.append(']').toString();
    }
}
