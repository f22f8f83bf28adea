package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptStateException;
import io.jckpt.policy.PhaseMachine.Phase;
import java.util.EnumSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The checkpointer's phases: the moves allowed, the moves refused and what the refusal says. */
class PhaseMachineTest {

    @Test
    void theLifeOfACheckpointerIsAllowed() {
        PhaseMachine p = new PhaseMachine(2);
        assertEquals(Phase.OPENING, p.phase());
        p.moveTo(Phase.RESTORING, 0);
        p.moveTo(Phase.RUNNING, 0);
        p.moveTo(Phase.SWITCHING, 0); // the first here() makes the first layout
        p.moveTo(Phase.RUNNING, 0);
        p.moveTo(Phase.SWITCHING, 7);
        p.moveTo(Phase.RUNNING, 7);
        p.requireOpen("here");
        p.moveTo(Phase.CLOSING, 9);
        assertFalse(p.closed());
        p.moveTo(Phase.CLOSED, 9);
        assertTrue(p.closed());
    }

    @Test
    void everyMoveOutsideTheTableIsRefused() {
        Set<Phase> expectedFromRunning = EnumSet.of(Phase.SWITCHING, Phase.CLOSING, Phase.CLOSED);
        for (Phase from : Phase.values()) {
            for (Phase to : Phase.values()) {
                PhaseMachine p = at(from);
                if (from.next().contains(to)) {
                    p.moveTo(to, 3);
                    assertEquals(to, p.phase());
                } else {
                    assertThrows(CkptStateException.class, () -> p.moveTo(to, 3), from + " -> " + to);
                    assertEquals(from, p.phase(), "a refused move leaves the phase as it was");
                }
            }
        }
        assertEquals(expectedFromRunning, Phase.RUNNING.next());
        assertEquals(EnumSet.of(Phase.RESTORING, Phase.CLOSED), Phase.OPENING.next());
        assertEquals(EnumSet.of(Phase.RUNNING, Phase.CLOSED), Phase.RESTORING.next());
        assertEquals(EnumSet.of(Phase.RUNNING, Phase.CLOSING, Phase.CLOSED), Phase.SWITCHING.next());
        assertEquals(EnumSet.of(Phase.CLOSED), Phase.CLOSING.next());
        assertTrue(Phase.CLOSED.next().isEmpty());
    }

    @Test
    void aRefusalNamesTheRankTheRoundAndBothPhases() {
        PhaseMachine p = at(Phase.RUNNING);
        CkptStateException e = assertThrows(CkptStateException.class, () -> p.moveTo(Phase.RESTORING, 42));
        assertEquals("rank 5, round 42: the checkpointer cannot move from phase running to restoring"
                + " (allowed from running: [switching, closing, closed])", e.getMessage());
    }

    @Test
    void callsAfterCloseSayWhichCallAndRank() {
        PhaseMachine p = at(Phase.CLOSED);
        CkptStateException e = assertThrows(CkptStateException.class, () -> p.requireOpen("here"));
        assertEquals("here on rank 5 after close", e.getMessage());
        at(Phase.SWITCHING).requireOpen("ctrl"); // a broken switch still lets ctrl and close be called
    }

    /** A machine of rank 5 moved to {@code phase} along allowed moves. */
    private static PhaseMachine at(Phase phase) {
        PhaseMachine p = new PhaseMachine(5);
        for (Phase step : switch (phase) {
            case OPENING -> new Phase[0];
            case RESTORING -> new Phase[] {Phase.RESTORING};
            case RUNNING -> new Phase[] {Phase.RESTORING, Phase.RUNNING};
            case SWITCHING -> new Phase[] {Phase.RESTORING, Phase.RUNNING, Phase.SWITCHING};
            case CLOSING -> new Phase[] {Phase.RESTORING, Phase.RUNNING, Phase.CLOSING};
            case CLOSED -> new Phase[] {Phase.CLOSED};
        }) {
            p.moveTo(step, 0);
        }
        assertEquals(phase, p.phase());
        return p;
    }
}
