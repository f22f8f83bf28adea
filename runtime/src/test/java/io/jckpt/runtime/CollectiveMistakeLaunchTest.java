package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A rank skips a here() and another rank is killed right after. When the round restored holds the skip
 * (the ranks' comparison of their steps at the next here(), or in the recovery's open), the job ends
 * with one FAILURE that names the rank that skipped, its step and the others', as the program's mistake.
 * When the round restored is the one before the skip (the killed rank's copy of the newest round not
 * yet complete), the program skips again at the first here() after the recovery, which every rank
 * enters together: the other ranks wait there while the skipping rank waits in its next Allreduce, and
 * the deadlock watch ends the job naming both calls. Either way: no result printed, no wait for an
 * exchange that never completes (the program's exchange timeout is 120 s, the bound 60 s), no "program
 * error" of whichever rank reported it. Real launcher, real rank JVMs, a real SIGKILL.
 */
class CollectiveMistakeLaunchTest {
    private static final long RUN_MILLIS = 90_000;

    @Test
    void aFailureAfterASkippedHereEndsInTheClearErrorWithinABound() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--standby", "0", "--deadlock-timeout", "5",
                "--kill", "2@round=5", "-cp", LaunchedJob.testClasses().toString(),
                "io.jckpt.runtime.programs.SkippedHere", "60", "20", "1", "5", "120")) {
            LaunchedJob.Line kill = job.awaitLine("injecting failure", RUN_MILLIS);
            assertEquals(1, job.awaitExit(RUN_MILLIS), job.output());
            long millis = (System.nanoTime() - kill.nanos()) / 1_000_000L;
            System.out.printf("a failure after a skipped here(): the job ended %d ms after the kill%n", millis);
            List<String> failures = job.linesContaining("FAILURE: the ranks' steps differ");
            List<String> deadlocks = job.linesContaining("FAILURE: deadlock: ");
            assertEquals(1, failures.size() + deadlocks.size(), job.output());
            if (!failures.isEmpty()) {
                String failure = failures.get(0);
                // rank 1 took its round 5 at step 6: named the same way in flight and in the recovery's open
                assertTrue(failure.contains("rank 1 called here(6) while ranks 0,2 called here(5)"), failure);
                assertTrue(failure.contains("a mistake in the program's checkpoint calls, not retried"), failure);
            } else {
                String deadlock = deadlocks.get(0);
                assertTrue(io.jckpt.testkit.JobEvents.ofType(job.events(), "rollback").stream()
                        .anyMatch(e -> e.number("round") == 4 && e.text("source").equals("memory")), job.output());
                assertTrue(deadlock.contains("ranks 0,2 in the status exchange of Ckpt.here from SkippedHere.main:")
                        && deadlock.contains("rank 1 in mpi.Intracomm.Allreduce from SkippedHere.main:"), deadlock);
                assertTrue(deadlock.contains("or at the first here() after the recovery, which every rank enters"
                        + " together; not retried"), deadlock);
            }
            assertTrue(job.linesContaining("loop done").isEmpty(), job.output());
            assertTrue(job.linesContaining("a program error").isEmpty(), job.output());
            // the detection bound (one step) plus a recovery (about 14 s on a loaded 2-core machine), far
            // below the 120 s a wait for a missing rank at an exchange would take
            assertTrue(millis < 60_000, "the job ended " + millis + " ms after the kill");
            LauncherCleanupTest.assertNoProcessLeft(job.jobId());
        }
    }
}
