package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.spi.RankEvent;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each recovery end to end from the events as the launcher reports them, at given times. */
class RecoveryLedgerTest {
    private final RecoveryLedger ledger = new RecoveryLedger(3);

    private ReportedEvent at(double seconds, ReportedEvent e) {
        return ledger.accept(seconds, e);
    }

    private static ReportedEvent round(long round) {
        return ReportedEvent.of("checkpoint", "", "rank", 0, "round", round, "bytes", 8L, "here_ms", 0.1);
    }

    private static ReportedEvent failure(int rank) {
        return LauncherEvents.triageLine("FAILURE: rank " + rank + " exited with status 137", rank, 0);
    }

    private static ReportedEvent rollback(int rank, long round) {
        return LauncherEvents.rankEvent(rank, new RankEvent.Restored(round, "memory", "LOCAL", 10 * round), "");
    }

    private void startedAndCheckpointed() {
        at(1.0, LauncherEvents.ranksRunning("all 3 ranks running", 0, List.of(1L, 2L, 3L)));
        at(2.0, round(1));
        at(2.5, round(1)); // a later report of the same round: the first counts
        at(3.0, round(2));
        at(4.0, round(3));
    }

    @Test
    void aKilledRankFromInjectionToTheLastRollback() {
        startedAndCheckpointed();
        at(4.25, LauncherEvents.injection("injecting", "1@round=3", List.of(1), false, 3));
        at(4.5, failure(1));
        at(4.6, LauncherEvents.recoveryStart("recovering", 1, new int[] {1}));
        at(6.0, ReportedEvent.of("recovered", "recovered", "epoch", 1));
        assertNull(at(7.0, rollback(0, 3)));
        assertNull(at(7.5, rollback(2, 3)));
        ReportedEvent done = at(8.0, rollback(1, 3));
        assertEquals("recovery", done.type());
        assertEquals("recovery 1: rank 1 exited with status 137, at 4.25 s; computing again at 8.00 s, 3.75 s later"
                + " (detect 0.25, new world 1.50, restore 2.00 s); restored round 3 (step 30) from memory; redone: 0.25 s"
                + " of work", done.text());
        assertEquals(30L, done.fields().get("step"));
        RecoveryLedger.Recovery r = ledger.recoveries().get(0);
        assertEquals(3.75, r.recovering(), 1e-12);
        assertEquals(0.25, r.redone(), 1e-12);
        assertTrue(Double.isNaN(ledger.openSince()));
    }

    @Test
    void aFailureDetectedWithoutInjectionStartsAtItsDetectionAndRoundsRedoneAreTimedAgain() {
        startedAndCheckpointed();
        at(5.0, failure(2));
        at(5.1, LauncherEvents.recoveryStart("recovering", 1, new int[] {2}));
        at(6.0, ReportedEvent.of("recovered", "recovered", "epoch", 1));
        at(6.1, rollback(0, 2)); // round 3 was not complete everywhere: round 2
        at(6.2, rollback(1, 2));
        ReportedEvent first = at(6.3, rollback(2, 2));
        assertTrue(first.text().contains("at 5.00 s;") && first.text().contains("(detect 0.00, new world 1.00, restore 0.30 s)")
                && first.text().endsWith("restored round 2 (step 20) from memory; redone: 2.00 s of work"), first.text());
        // round 3 is done again at 7.0; the next failure after it redoes 0.5 s, not the time since the old round 3
        at(7.0, round(3));
        at(7.5, failure(0));
        at(7.6, LauncherEvents.recoveryStart("recovering", 2, new int[] {0}));
        at(8.0, ReportedEvent.of("recovered", "recovered", "epoch", 2));
        for (int rank = 0; rank < 3; rank++) {
            at(9.0, rollback(rank, 3));
        }
        RecoveryLedger.Recovery second = ledger.recoveries().get(1);
        assertEquals(2, second.number());
        assertEquals(0.5, second.redone(), 1e-12);
    }

    @Test
    void aFailureDuringARecoveryJoinsItAndItsWorldCounts() {
        startedAndCheckpointed();
        at(5.0, failure(1));
        at(5.02, failure(0)); // the same host's other rank: with it
        at(5.1, LauncherEvents.recoveryStart("recovering", 1, new int[] {0, 1}));
        at(6.0, ReportedEvent.of("recovered", "recovered", "epoch", 1));
        at(6.5, rollback(0, 3)); // rank 0 of epoch 1 rolled back, then rank 2 fails
        at(6.6, failure(2));
        at(6.7, LauncherEvents.recoveryStart("recovering", 2, new int[] {2}));
        assertNull(at(7.5, rollback(1, 3)), "a rollback before the new world formed is the old world's");
        at(8.0, ReportedEvent.of("recovered", "recovered", "epoch", 2));
        at(8.5, rollback(0, 3));
        at(8.6, rollback(1, 3));
        ReportedEvent done = at(8.7, rollback(2, 3));
        assertTrue(done.text().startsWith("recovery 1: rank 1 exited with status 137 (and 1 more failure with it) (and 1"
                + " more failure during the recovery), at 5.00 s; computing again at 8.70 s, 3.70 s later (detect 0.00, new world 3.00, restore"
                + " 0.70 s)"), done.text());
        assertEquals(2, done.fields().get("epoch"));
        assertEquals(1, ledger.recoveries().size());
    }

    @Test
    void aRecoveryWithNothingToRestoreRedoesTheWorkSinceTheStart() {
        at(1.0, LauncherEvents.ranksRunning("all 3 ranks running", 0, List.of(1L, 2L, 3L)));
        at(3.0, failure(0));
        at(3.1, LauncherEvents.recoveryStart("recovering", 1, new int[] {0}));
        at(4.0, ReportedEvent.of("recovered", "recovered", "epoch", 1));
        ReportedEvent done = null;
        for (int rank = 0; rank < 3; rank++) {
            done = at(4.5, LauncherEvents.rankEvent(rank, new RankEvent.Restarted("no rank holds a checkpoint"), ""));
        }
        assertTrue(done.text().endsWith("restarted from the beginning (no checkpoint yet); redone: 2.00 s of work"),
                done.text());
        assertEquals(0L, done.fields().get("round"));
    }

    @Test
    void aJobThatStopsDuringARecoveryKeepsItOpenAndTheJobsOwnFailureIsNone() {
        startedAndCheckpointed();
        at(5.0, LauncherEvents.jobFailure("FAILURE: recovery limit reached", "recovery limit reached"));
        assertTrue(Double.isNaN(ledger.openSince()), "the job's end is not a rank's failure");
        at(6.0, failure(2));
        assertEquals(6.0, ledger.openSince());
        assertEquals(List.of(), ledger.recoveries());
    }
}
