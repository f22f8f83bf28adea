package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.CkptStats;
import org.junit.jupiter.api.Test;

/** The stats recorder: what is recorded comes out of the snapshot, field by field. */
class CkptStatsRecorderTest {

    @Test
    void nothingRecordedIsTheEmptySnapshot() {
        CkptStats s = new CkptStatsRecorder().snapshot(0, false, CkptOptions.builder().replicas(1).build(), null, null,
                null, null);
        assertEquals(0, s.checkpoints());
        assertEquals(0, s.recoveries());
        assertEquals(0, s.slotCapacity());
        assertEquals(0, s.diskRatio(), "no disk level: ratio 0");
        assertEquals(1, s.replicas());
        assertFalse(s.degraded());
        assertEquals(CkptStats.HereTimings.NONE, s.lastHere());
        assertEquals(CkptStats.RecoveryTimings.NONE, s.lastRecovery());
    }

    @Test
    void recordedFiguresComeOutOfTheSnapshot() {
        CkptStatsRecorder r = new CkptStatsRecorder();
        r.recordRecovery(new CkptStats.RecoveryTimings(1, 2, 3, 4, 5, 6, 7, 0, 9));
        r.recordRingJoin(8); // the ring join after an in-memory rollback, at the first here()
        r.recordHere(1000, 10, 20, 30, 100);
        r.recordHere(2000, 11, 21, 31, 200);
        r.recordSkippedRound();
        r.recordRollback(55);
        r.recordRollbackObject();
        r.recordReconfiguration();
        r.onFlushed();
        r.onFlushed();
        r.onFailed();
        r.onCommitted(4);
        r.onIncomplete(6);
        StoreLayout layout = new StoreLayout(3, 1, 2, 8192, 2);
        CkptStats s = r.snapshot(12, true, CkptOptions.builder().replicas(1).build(), layout, null, null, null);
        assertEquals(12, s.round());
        assertEquals(2, s.checkpoints());
        assertEquals(2000, s.lastImageBytes());
        assertEquals(200, s.lastBlockingNanos());
        assertEquals(300, s.totalBlockingNanos());
        assertEquals(new CkptStats.HereTimings(11, 21, 31, 200), s.lastHere());
        assertEquals(new CkptStats.RecoveryTimings(1, 2, 3, 4, 5, 6, 7, 8, 9), s.lastRecovery());
        assertEquals(2, s.rollbacks());
        assertEquals(55, s.lastRollbackNanos(), "rollbackObject is counted, not timed");
        assertEquals(1, s.recoveries());
        assertEquals(1, s.reconfigurations());
        assertEquals(8192, s.slotCapacity());
        assertTrue(s.degraded(), "m=1 kept where 2 were asked");
        assertEquals(2, s.diskCheckpoints(), "rounds made durable on this rank");
        assertEquals(1, s.diskCommits());
        assertEquals(1, s.diskFailures());
        assertEquals(1, r.skippedRounds());
        assertEquals(2000, r.lastImageBytes());
    }

    @Test
    void theDiskSummaryCountsEveryFate() {
        CkptStatsRecorder r = new CkptStatsRecorder();
        r.recordDiskRound();
        r.onCommitted(1);
        assertEquals("disk level at close: 1 generation committed, 0 disk rounds failed, 0 not complete on every"
                + " rank (1 disk round taken here)", r.diskSummary());
        r.recordDiskRound();
        r.recordDiskRound();
        r.onCommitted(2);
        r.onFailed();
        r.onIncomplete(3);
        assertEquals("disk level at close: 2 generations committed, 1 disk round failed, 1 not complete on every"
                + " rank (3 disk rounds taken here)", r.diskSummary());
    }
}
