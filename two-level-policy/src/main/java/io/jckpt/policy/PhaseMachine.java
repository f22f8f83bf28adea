package io.jckpt.policy;

import io.jckpt.CkptStateException;
import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/**
 * The phase of one rank's {@link TwoLevelCheckpointer} and the moves allowed between phases:
 * opening (the open exchange) → restoring (the restore decision and its transfers) → running (here,
 * ctrl, rollback) ⇄ switching (a here() reconfiguring the store layout) → closing (the collective
 * close) → closed. Open failing, or a rank's death in tests, goes straight to closed.
 *
 * <p>A switch that fails with the current store unchanged goes back to running (the next here()
 * tries again); one that broke the store stays at switching, and every later here() names it. A move not in the table is refused with a {@link CkptStateException}
 * naming the rank, the round and both phases. Used by one thread (the program's) only.
 */
final class PhaseMachine {
    /** The phases, in their order. */
    enum Phase {
        OPENING, RESTORING, RUNNING, SWITCHING, CLOSING, CLOSED;

        /** @return the phases this one may move to */
        Set<Phase> next() {
            return switch (this) {
                case OPENING -> EnumSet.of(RESTORING, CLOSED);
                case RESTORING -> EnumSet.of(RUNNING, CLOSED);
                case RUNNING -> EnumSet.of(SWITCHING, CLOSING, CLOSED);
                case SWITCHING -> EnumSet.of(RUNNING, CLOSING, CLOSED);
                case CLOSING -> EnumSet.of(CLOSED);
                case CLOSED -> EnumSet.noneOf(Phase.class);
            };
        }

        @Override
        public String toString() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    private final int rank;
    private Phase phase = Phase.OPENING;

    PhaseMachine(int rank) {
        this.rank = rank;
    }

    /** @return the current phase */
    Phase phase() {
        return phase;
    }

    /**
     * @param next  the phase to move to
     * @param round the checkpointer's round, for the error
     * @throws CkptStateException if the move is not allowed from the current phase
     */
    void moveTo(Phase next, long round) {
        if (!phase.next().contains(next)) {
            throw new CkptStateException("rank " + rank + ", round " + round + ": the checkpointer cannot move from"
                    + " phase " + phase + " to " + next + " (allowed from " + phase + ": " + phase.next() + ")");
        }
        phase = next;
    }

    /** @return whether the checkpointer is closed */
    boolean closed() {
        return phase == Phase.CLOSED;
    }

    /**
     * @param operation the API call, for the error
     * @throws CkptStateException if the checkpointer is closed
     */
    void requireOpen(String operation) {
        if (phase == Phase.CLOSED) {
            throw new CkptStateException(operation + " on rank " + rank + " after close");
        }
    }
}
