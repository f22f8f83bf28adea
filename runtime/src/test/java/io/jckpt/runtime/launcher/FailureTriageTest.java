package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The launcher's failure triage on a test clock: the 30 ms coalescing and the 1 s program-error window. */
class FailureTriageTest {
    private final AtomicLong now = new AtomicLong(1_000_000_000L);
    private final FailureTriage triage = new FailureTriage(now::get, 30, 1_000);

    private void advanceMillis(long millis) {
        now.addAndGet(millis * 1_000_000L);
    }

    @Test
    void failuresWithinTheCoalescingWindowAreRecoveredTogether() {
        assertEquals(List.of("FAILURE: rank 1 killed"), triage.failure(1, "rank 1 killed", 0, true));
        advanceMillis(29);
        assertEquals(List.of("FAILURE: rank 2 killed"), triage.failure(2, "rank 2 killed", 0, true));
        assertFalse(triage.recoveryDue());
        assertEquals(2, triage.pollMillis(20), "woken when the window closes, not a full poll later");
        advanceMillis(1);
        assertTrue(triage.recoveryDue());
        assertEquals(List.of(1, 2), List.copyOf(triage.pending().keySet()));
        assertEquals(List.of(), triage.failure(2, "rank 2 killed again", 0, true), "one failure, one line");
        triage.recovered();
        assertFalse(triage.recoveryDue());
        assertEquals(20, triage.pollMillis(20));
    }

    @Test
    void aProgramErrorBeforeAProcessFailureWithinTheWindowIsItsEcho() {
        assertEquals(List.of(), triage.programError(0, "rank 0 threw MPIException", "trace", 0));
        advanceMillis(999);
        assertFalse(triage.programErrorDue());
        List<String> lines = triage.failure(3, "rank 3 killed by SIGKILL", 0, true);
        assertEquals(List.of("FAILURE: rank 3 killed by SIGKILL",
                "rank 0 threw MPIException (the echo of the failure above: recovered with it)"), lines);
        assertTrue(triage.held().isEmpty());
        advanceMillis(30);
        assertTrue(triage.recoveryDue());
        assertEquals(List.of(0, 3), List.copyOf(triage.pending().keySet()));
    }

    @Test
    void anEchoOfTheBrokenWorldIsFoldedIntoTheRecoveryAndAnyOtherKeepsItsLine() {
        // MPJ Express's error, held before the failure; the library's lost ring connection (the
        // neighbour it names is not the failed rank), after it; a program's own exception type
        triage.programError(0, "rank 0 threw mpi.MPIException: xdev.XDevException: java.nio.channels."
                + "ClosedChannelException", "mpi.MPIException: xdev.XDevException\n\tat mpi.Comm.send(Comm.java:1)", 0);
        assertEquals(List.of("FAILURE: rank 2 killed by SIGKILL"), triage.failure(2, "rank 2 killed by SIGKILL", 0, true));
        assertEquals(List.of(), triage.programError(3, "rank 3 threw io.jckpt.CkptException: rank 3: checkpoint round 4"
                + " failed: rank 3: a peer failed or left the replication ring (the connection with rank 0 was closed)",
                "io.jckpt.CkptException: ...\n\tat io.jckpt.Ckpt.here(Ckpt.java:1)", 0));
        // wrapped by the program: recognised by its cause
        assertEquals(List.of(), triage.programError(4, "rank 4 threw java.lang.RuntimeException: step 7",
                "java.lang.RuntimeException: step 7\n\tat Main.main(Main.java:3)\nCaused by: mpi.MPIException: x", 0));
        assertEquals(List.of("rank 1 threw java.lang.IllegalStateException: bad (the echo of the failure above:"
                + " recovered with it)"), triage.programError(1, "rank 1 threw java.lang.IllegalStateException: bad",
                "java.lang.IllegalStateException: bad\n\tat Main.main(Main.java:3)", 0));
        assertEquals(List.of(0, 3, 4), List.copyOf(triage.folded().keySet()));
        assertEquals(List.of(0, 1, 2, 3, 4), List.copyOf(triage.pending().keySet()));
        triage.recovered();
        assertTrue(triage.folded().isEmpty());
        assertFalse(FailureTriage.worldError("rank 1 threw java.lang.ArithmeticException: / by zero",
                "java.lang.ArithmeticException: / by zero\n\tat mpi.MPI.Init(MPI.java:1)"), "a frame is no cause");
    }

    @Test
    void aProgramErrorAfterAProcessFailureWithinTheWindowIsItsEchoEvenOnceRecovered() {
        triage.failure(2, "rank 2 killed", 4, true);
        advanceMillis(30);
        triage.recovered();
        advanceMillis(900); // the survivors' follow-on errors may come after the recovery started
        assertEquals(List.of("rank 1 threw (the echo of the failure above: recovered with it)"),
                triage.programError(1, "rank 1 threw", "", 4));
        triage.recovered();
        // in the next world, or past the window, the same error is the program's own
        advanceMillis(200);
        assertEquals(List.of(), triage.programError(1, "rank 1 threw", "", 4));
        assertFalse(triage.programErrorDue());
        advanceMillis(1_000);
        assertTrue(triage.programErrorDue());
        assertEquals("rank 1 threw", triage.held().firstEntry().getValue().description());
    }

    @Test
    void aProgramErrorAloneFailsTheJobOnlyAfterItsWindowAndKeepsTheBetterReport() {
        triage.programError(2, "rank 2 exited with status 3", "", 0);
        advanceMillis(500);
        triage.programError(2, "rank 2 threw IllegalStateException", "java.lang.IllegalStateException\n\tat x", 0);
        advanceMillis(499);
        assertFalse(triage.programErrorDue(), "the window counts from the first report");
        advanceMillis(1);
        assertTrue(triage.programErrorDue());
        FailureTriage.HeldError held = triage.held().get(2);
        assertTrue(held.stackTrace().startsWith("java.lang.IllegalStateException"), held.toString());
        // a process failure pending holds the verdict back: the error may be its echo
        triage.failure(0, "rank 0 killed", 0, true);
        assertFalse(triage.programErrorDue());
    }

    @Test
    void aRetriedProgramErrorIsQueuedWithoutMakingOthersItsEchoes() {
        triage.programError(1, "rank 1 threw", "", 0);
        assertEquals(List.of("FAILURE: rank 2 exited with status 3"), triage.failure(2, "rank 2 exited with status 3", 0, false));
        assertEquals(1, triage.held().size(), "not a process failure: rank 1's error is not its echo");
    }

    @Test
    void anErrorOutOfTheRestoreOfARecoveryIsARecoveryFailure() {
        FailureTriage.HeldError notRecoverable = new FailureTriage.HeldError(
                "rank 1 threw io.jckpt.NotRecoverableException: no copy of rank 2", "", 0);
        assertTrue(notRecoverable.duringRecovery(0), "at the job's first start too (a restart with --job-id)");
        FailureTriage.HeldError inOpen = new FailureTriage.HeldError("rank 1 threw java.io.IOException: timed out",
                "java.io.IOException: timed out\n\tat io.jckpt.Ckpt.open(Ckpt.java:120)\n", 0);
        assertFalse(inOpen.duringRecovery(0), "an error in the first open() is the program's");
        assertTrue(inOpen.duringRecovery(1));
        FailureTriage.HeldError inRollback = new FailureTriage.HeldError("rank 0 threw", "\tat io.jckpt.Ckpt.rollbackObject(Ckpt.java:9)", 0);
        assertTrue(inRollback.duringRecovery(2));
        assertFalse(new FailureTriage.HeldError("rank 0 threw java.lang.ArithmeticException", "\tat Main.main(Main.java:3)", 0)
                .duringRecovery(2));
    }

    @Test
    void aProgramErrorAloneFailsTheJobNamingItAndTheOthersHeld() {
        triage.programError(2, "rank 2 threw java.lang.IllegalStateException: bad input", "trace of 2", 0);
        triage.programError(0, "rank 0 exited with status 3", "", 0);
        advanceMillis(1_000);
        assertTrue(triage.programErrorDue());
        FailureTriage.Verdict verdict = triage.programErrorVerdict(0, new int[0], "job1", false);
        assertEquals(0, verdict.rank(), "the lowest rank first");
        assertEquals("", verdict.stackTrace());
        assertEquals("rank 0 exited with status 3 (and 1 more rank): a program error, not retried (no rank process"
                + " failed within 1000 ms of it; --retry-program-errors recovers such errors too)", verdict.reason());
        assertTrue(triage.held().isEmpty());
        triage.programError(1, "rank 1 threw", "trace", 0);
        advanceMillis(1_000);
        FailureTriage.Verdict underFail = triage.programErrorVerdict(0, new int[0], "job1", true);
        assertEquals("rank 1 threw", underFail.reason());
        assertEquals("trace", underFail.stackTrace());
    }

    @Test
    void aProgramErrorWhileRestoringIsAFailedRecovery() {
        triage.programError(1, "rank 1 threw java.io.IOException: copy missing",
                "java.io.IOException\n\tat io.jckpt.Ckpt.open(Ckpt.java:1)", 3);
        advanceMillis(1_000);
        assertEquals("recovery failed (epoch 3, after the failure of ranks 0, 2): rank 1 threw java.io.IOException: copy"
                + " missing; not retried", triage.programErrorVerdict(3, new int[] {0, 2}, "job1", false).reason());
        triage.programError(0, "rank 0 threw io.jckpt.NotRecoverableException: no copy", "", 0);
        advanceMillis(1_000);
        assertEquals("recovery failed (restoring the checkpoint of job job1): rank 0 threw"
                + " io.jckpt.NotRecoverableException: no copy; not retried",
                triage.programErrorVerdict(0, new int[0], "job1", true).reason());
    }

    @Test
    void aCollectiveMistakeIsReportedAsTheLibraryWordsItNamingTheRankThatDiffers() {
        String mistake = "the ranks' steps differ at checkpoint round 2: rank 1 called here(3) while ranks 0,2 called"
                + " here(2); every rank must call here() at the same steps of the program (did a rank skip or add a here()?)";
        for (int r : new int[] {2, 0}) { // rank 1 is still in MPI: the others report it
            triage.programError(r, "rank " + r + " threw io.jckpt.StepMismatchException: rank " + r + ": " + mistake,
                    "io.jckpt.StepMismatchException: rank " + r + ": " + mistake + "\n\tat Main.main(Main.java:9)", 0);
        }
        advanceMillis(1_000);
        FailureTriage.Verdict verdict = triage.programErrorVerdict(0, new int[0], "job1", false);
        assertEquals(mistake + " (reported by ranks 0,2): a mistake in the program's checkpoint calls, not retried",
                verdict.reason());
        assertEquals(1, verdict.exitStatus());

        // in a recovery's open (a skip before the failure): the mistake, not "recovery failed"
        String tags = "the checkpoint restored at round 4 holds tags that were neither restored nor removed (rank 1: 'v')";
        triage.programError(1, "rank 1 threw java.lang.RuntimeException: wrapped",
                "java.lang.RuntimeException: wrapped\n\tat io.jckpt.Ckpt.open(Ckpt.java:1)\nCaused by:"
                        + " io.jckpt.UnrestoredTagsException: rank 1: " + tags + "\n\tat Main.main(Main.java:5)", 2);
        advanceMillis(1_000);
        assertEquals(tags + " (reported by rank 1, found restoring after the failure of rank 3 (epoch 2)): a mistake in"
                + " the program's checkpoint calls, not retried",
                triage.programErrorVerdict(2, new int[] {3}, "job1", false).reason());

        assertEquals("rank 1 called close() at round 2 (close) while rank 0 called close() at round 3 (close)",
                FailureTriage.collectiveMistake("rank 0 threw io.jckpt.CollectiveMismatchException: rank 0, collective"
                        + " exchange #3: rank 1 called close() at round 2 (close) while rank 0 called close() at round 3"
                        + " (close)", ""));
        assertEquals(null, FailureTriage.collectiveMistake("rank 0 threw java.lang.IllegalStateException: no", "trace"));
    }
}
