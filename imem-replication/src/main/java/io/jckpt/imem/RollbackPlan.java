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

    private RollbackPlan(Outcome outcome, long round, List<RestoreAction> actions,
                         List<List<Integer>> sends, List<LostData> lost) {
        this.outcome = outcome;
        this.round = round;
        this.actions = actions;
        this.sends = sends;
        this.lost = lost;
    }

    static RollbackPlan recoverable(long round, List<RestoreAction> actions, RingOrder ring) {
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
        return new RollbackPlan(Outcome.RECOVERABLE, round, List.copyOf(actions), List.copyOf(sends), List.of());
    }

    static RollbackPlan notRecoverable(long bestRound, List<LostData> lost) {
        return new RollbackPlan(Outcome.NOT_RECOVERABLE, bestRound, List.of(), List.of(), List.copyOf(lost));
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

    /** @return one action per rank, indexed by rank */
    public List<RestoreAction> actions() {
        return actions;
    }

    /**
     * @param rank a rank
     * @return the new ranks this rank sends its copy of their data to, nearest first; usually empty
     */
    public List<Integer> sendsTo(int rank) {
        requireRecoverable();
        return sends.get(rank);
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
                && sends.equals(p.sends) && lost.equals(p.lost);
    }

    @Override
    public int hashCode() {
        return Objects.hash(outcome, round, actions, sends, lost);
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
