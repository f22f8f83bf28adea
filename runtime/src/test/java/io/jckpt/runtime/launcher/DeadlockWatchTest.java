package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The deadlock verdict from the ranks' reports: every rank, long enough, heard lately. */
class DeadlockWatchTest {
    private static final long S = 1_000_000_000L;
    private static final long TIMEOUT = 20 * S;

    @Test
    void everyRankWaitingLongEnoughIsADeadlockNamedByCall() {
        DeadlockWatch w = new DeadlockWatch();
        w.report(1, 25_000, "mpi.Intracomm.Allreduce from Main.main:80", 100 * S);
        w.report(0, 21_000, "mpi.Intracomm.Gather from Main.main:90", 100 * S);
        w.report(2, 30_000, "mpi.Intracomm.Allreduce from Main.main:80", 100 * S);
        assertEquals("rank 0 in mpi.Intracomm.Gather from Main.main:90; ranks 1,2 in mpi.Intracomm.Allreduce from"
                + " Main.main:80", w.verdict(3, TIMEOUT, 100 * S));
    }

    @Test
    void oneRankNotWaitingNotLongEnoughOrNotHeardLatelyIsNoDeadlock() {
        DeadlockWatch w = new DeadlockWatch();
        w.report(0, 30_000, "a", 100 * S);
        w.report(1, 30_000, "a", 100 * S);
        assertNull(w.verdict(3, TIMEOUT, 100 * S), "rank 2 computes");
        w.report(2, 19_000, "a", 100 * S);
        assertNull(w.verdict(3, TIMEOUT, 100 * S), "rank 2 waits 19 s");
        assertEquals("ranks 0,1,2 in a", w.verdict(3, TIMEOUT, 101 * S), "its wait goes on between reports");
        assertNull(w.verdict(3, TIMEOUT, 100 * S + DeadlockWatch.FRESH_NANOS + 1), "no report lately");
        w.report(1, 0, "", 101 * S);
        assertNull(w.verdict(3, TIMEOUT, 101 * S), "rank 1 returned from its call");
        w.report(1, 40_000, "a", 102 * S);
        w.forget(1);
        assertNull(w.verdict(3, TIMEOUT, 102 * S), "rank 1 restarted");
    }
}
