package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** A recovery's timeline and its lines (tools parse them: the words stay). */
class RecoveryReportTest {
    private static final long MS = 1_000_000L;

    @Test
    void startLineNamesTheReSpawnedRanksOrSaysAllAreRelaunched() {
        assertEquals("recovering: epoch 1, re-spawning rank 2", RecoveryReport.startLine(1, new int[] {2}, 4));
        assertEquals("recovering: epoch 3, re-spawning ranks 0, 3", RecoveryReport.startLine(3, new int[] {0, 3}, 4));
        assertEquals("recovering: epoch 2, every rank failed: relaunching all (they restore from node-local stores"
                + " or disk)", RecoveryReport.startLine(2, new int[] {0, 1}, 2));
    }

    @Test
    void completeOnceTheWorldFormedAndEveryRankRunsAgain() {
        RecoveryReport report = new RecoveryReport(2, 3, 1_000 * MS);
        report.respawned(1_040 * MS);
        report.rankReady();
        report.rankReady();
        report.rankReady();
        assertFalse(report.complete(), "every rank ready, but the new world's exchange not complete");
        report.worldFormed(0);
        assertFalse(report.complete());
        report.worldFormed(1_250 * MS);
        report.worldFormed(1_900 * MS); // a later look at the same exchange: the first time counts
        assertTrue(report.complete());
        assertEquals("recovered: all 3 ranks in a new MPJ world (epoch 2) 250 ms after the failure was detected"
                + " (respawn started after 40 ms)", report.line());
    }

    @Test
    void lineCountsTheRanksThatCameFromStandbys() {
        RecoveryReport one = new RecoveryReport(1, 2, 0);
        one.fromStandby();
        one.respawned(5 * MS);
        one.worldFormed(100 * MS);
        assertEquals(1, one.standbysUsed());
        assertTrue(one.line().endsWith("(respawn started after 5 ms, 1 rank from a standby)"), one.line());
        one.fromStandby();
        assertTrue(one.line().endsWith("(respawn started after 5 ms, 2 ranks from standbys)"), one.line());
    }
}
