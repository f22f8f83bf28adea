package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.runtime.programs.OwnObjects;
import io.jckpt.testkit.LaunchedJob;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * End to end, with no configuration and no JVM flag from the user (issue 28 items 2 and 3; before,
 * items 1 and 6-8 of an earlier issue): a launched program checkpoints an object of its own class
 * (found in the world's class loader) holding a Random and a HashMap that the program also holds through
 * aliases taken before the rollback, a double[][] and an AtomicLong; a rank is SIGKILLed mid-run, and
 * after the recovery every rank's result equals the failure-free one bit for bit (the total includes
 * every rank's random draws, the weights are printed as bits). With Kryo the Random was refused, and a
 * Random in a field came back as a new object behind the alias: a wrong result with exit 0.
 */
class OwnObjectsRecoveryTest {
    private static final String PROGRAM = "io.jckpt.runtime.programs.OwnObjects";
    private static final int RANKS = 4;
    private static final int ROUNDS = 60;

    @Test
    void aKilledRankRestoresTheProgramsOwnObjectsInPlace() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", Integer.toString(RANKS), "--on-failure", "respawn",
                "--kill", "1@round=5", "-cp", LaunchedJob.testClasses().toString(), PROGRAM, Integer.toString(ROUNDS), "7")) {
            assertEquals(0, job.awaitExit(120_000), job.output());
            assertEquals(1, job.linesContaining("recovering:").size(), job.output());
            assertEquals(RANKS, job.linesContaining("rolled back to step").size(), job.output());
            assertTrue(job.linesContaining("Unable to find class").isEmpty(), job.output());
            long total = OwnObjects.expectedTotal(RANKS, ROUNDS);
            List<String> ok = job.linesContaining("own objects ok");
            assertEquals(RANKS, ok.size(), job.output());
            for (int r = 0; r < RANKS; r++) {
                int rank = r;
                long grid = 8L * 6 * ROUNDS * (ROUNDS + 1) / 2 + 4L * 28 * rank * ROUNDS;
                String expected = "[rank " + rank + "] own objects ok rank " + rank + " rounds " + ROUNDS + " total "
                        + total + " history " + ROUNDS + " grid " + grid + " weights " + OwnObjects.expectedWeights(rank, ROUNDS);
                assertEquals(1, ok.stream().filter(l -> l.endsWith(expected.substring(expected.indexOf(']') + 2))
                        && l.startsWith("[rank " + rank + "]")).count(), () -> expected + " in\n" + job.output());
            }
            assertFalse(job.output().contains("self broken"), job.output());
            assertFalse(job.output().contains("alias broken"), job.output());
            assertTrue(job.linesContaining("add-opens").isEmpty(), "no flag asked of the user:\n" + job.output());
            assertTrue(LaunchedJob.processesOfJob(job.jobId()).isEmpty());
        }
    }
}
