package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The launcher's deadlock watch on real rank JVMs in real MPJ Express calls: a job whose ranks all wait
 * for each other ends with one FAILURE naming every rank's call, long before the program's own 120 s
 * exchange timeout could end it; a rank that waits for a slow (sleeping) sender is left alone.
 */
class DeadlockLaunchTest {
    private static final long RUN_MILLIS = 90_000;

    @Test
    void ranksThatAllWaitInMpjCallsEndTheJobWithTheirCallsNamed() throws Exception {
        String failure = deadlockOf("ring");
        assertTrue(failure.contains("ranks 0,1,2 in mpi.Comm.Recv from WaitsFor.main:"), failure);
    }

    @Test
    void aRankInAnExtraBarrierAndTheOthersInCloseAreADeadlockToo() throws Exception {
        String failure = deadlockOf("extra-barrier");
        assertTrue(failure.contains("rank 0 in mpi.Intracomm.Barrier from WaitsFor.main:"), failure);
        assertTrue(failure.contains("ranks 1,2 in the status exchange of Ckpt.close from WaitsFor.main:"), failure);
    }

    @Test
    void ranksWaitingForASleepingSenderAreNotADeadlock() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--deadlock-timeout", "2", "-cp",
                LaunchedJob.testClasses().toString(), "io.jckpt.runtime.programs.WaitsFor", "slow-sender", "6000")) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(3, job.linesContaining("done").size(), job.output());
            assertTrue(job.linesContaining("deadlock").isEmpty(), job.output());
        }
    }

    private static String deadlockOf(String mode) throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--deadlock-timeout", "2", "-cp",
                LaunchedJob.testClasses().toString(), "io.jckpt.runtime.programs.WaitsFor", mode)) {
            LaunchedJob.Line running = job.awaitLine("ranks running", RUN_MILLIS);
            assertEquals(1, job.awaitExit(RUN_MILLIS), job.output());
            long millis = (System.nanoTime() - running.nanos()) / 1_000_000L;
            System.out.printf("deadlock (%s): the job ended %d ms after its ranks ran%n", mode, millis);
            List<String> failures = job.linesContaining("FAILURE: deadlock: every rank has waited at least 2 s");
            assertEquals(1, failures.size(), job.output());
            assertTrue(job.linesContaining("done").size() < 3, job.output());
            // far below the program's 120 s exchange timeout: only the watch can have ended it
            assertTrue(millis < 60_000, "the job ended " + millis + " ms after its ranks ran");
            LauncherCleanupTest.assertNoProcessLeft(job.jobId());
            return failures.get(0);
        }
    }
}
