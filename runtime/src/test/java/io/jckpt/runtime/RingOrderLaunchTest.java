package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import org.junit.jupiter.api.Test;

/**
 * {@code --ring-order}: the launcher gives the ranks the replication ring ({@code JCKPT_RING_ORDER}).
 * Real launcher, real rank JVMs, a real node loss (SIGKILL and the stores wiped).
 */
class RingOrderLaunchTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";
    private static final long RUN_MILLIS = 90_000;

    @Test
    void aLossAdjacentInRankOrderButNotOnTheRingRestoresFromMemory() throws Exception {
        // m = 1 (CheckpointLoop's), no disk. On the ring 0,2,1,3 rank 0's copy is on rank 2 and rank 1's
        // on rank 3, so losing ranks 0 and 1 with their stores leaves a copy of each; on the rank order
        // (rank 0's copy on rank 1) the same loss cannot be restored (LauncherEventsTest shows that error)
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "--standby", "0",
                "--ring-order", "0,2,1,3", "--kill", "0,1@round=3:wipe", "-cp", LaunchedJob.testClasses().toString(),
                LOOP, "20", "50")) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            // the failure-free result: every rank's sum of 1..20 over 4 ranks
            assertEquals(4, job.linesContaining("loop done at round 20 sum " + 4L * 20 * 21 / 2).size(), job.output());
            assertEquals(1, job.linesContaining("recovering: epoch 1").size(), job.output());
            assertTrue(job.linesContaining("recovery failed").isEmpty(), job.output());
            for (int rank : new int[] {0, 1}) {
                assertEquals(1, job.linesContaining("[rank " + rank + "] restored at round").size(), job.output());
            }
            LauncherCleanupTest.assertNoProcessLeft(job.jobId());
        }
    }
}
