package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A rank skips a here() and another rank is killed right after: whichever comes first, the ranks'
 * comparison of their steps (at the next here(), or in the recovery's open when the restored round
 * already holds the skip), the job ends with one FAILURE that names the rank that skipped, its step
 * and the others', as the program's mistake: no result printed, no wait for an exchange that never
 * completes (the program's exchange timeout is 120 s, the bound 60 s), no "program error" of whichever
 * rank reported it. Real launcher, real rank JVMs, a real SIGKILL.
 */
class CollectiveMistakeLaunchTest {
    private static final long RUN_MILLIS = 90_000;

    @Test
    void aFailureAfterASkippedHereEndsInTheClearErrorWithinABound() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--standby", "0",
                "--kill", "2@round=5", "-cp", LaunchedJob.testClasses().toString(),
                "io.jckpt.runtime.programs.SkippedHere", "60", "20", "1", "5", "120")) {
            LaunchedJob.Line kill = job.awaitLine("injecting failure", RUN_MILLIS);
            assertEquals(1, job.awaitExit(RUN_MILLIS), job.output());
            long millis = (System.nanoTime() - kill.nanos()) / 1_000_000L;
            System.out.printf("a failure after a skipped here(): the job ended %d ms after the kill%n", millis);
            List<String> failures = job.linesContaining("FAILURE: the ranks' steps differ");
            assertEquals(1, failures.size(), job.output());
            String failure = failures.get(0);
            // rank 1 took its round 5 at step 6: named the same way in flight and in the recovery's open
            assertTrue(failure.contains("rank 1 called here(6) while ranks 0,2 called here(5)"), failure);
            assertTrue(failure.contains("a mistake in the program's checkpoint calls, not retried"), failure);
            assertTrue(job.linesContaining("loop done").isEmpty(), job.output());
            assertTrue(job.linesContaining("a program error").isEmpty(), job.output());
            // the detection bound (one step) plus a recovery (about 14 s on a loaded 2-core machine), far
            // below the 120 s a wait for a missing rank at an exchange would take
            assertTrue(millis < 60_000, "the job ended " + millis + " ms after the kill");
            LauncherCleanupTest.assertNoProcessLeft(job.jobId());
        }
    }
}
