package io.jckpt.samples.heat;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.JobEvents;
import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The heat solver on 4 ranks, killed with SIGKILL by the launcher's failure injection, recovered in
 * place: the checksum is exactly the failure-free sequential reference's, for every pattern the
 * levels promise to survive; beyond that, a clear error and no hang.
 */
class HeatRecoveryTest {
    private static final int NX = 128;
    private static final int NY = 96;
    private static final int ITERATIONS = 600;
    private static String expected;

    @TempDir
    Path tmp;

    @BeforeAll
    static void reference() {
        double[] grid = new HeatProblem(NX, NY).solveSequentially(ITERATIONS);
        expected = String.format(Locale.ROOT, "checksum %016x", HeatProblem.checksum(grid, 0, grid.length));
    }

    private static LaunchedJob run(List<String> launcher, String... solver) throws Exception {
        List<String> args = new ArrayList<>(List.of("-np", "4"));
        if (!launcher.contains("--on-failure")) {
            args.addAll(List.of("--on-failure", "respawn"));
        }
        args.addAll(launcher);
        args.addAll(List.of("-cp", LaunchedJob.repoRoot().resolve("samples/target/classes").toString(),
                HeatSolver.class.getName(), "--nx", Integer.toString(NX), "--ny", Integer.toString(NY),
                "--iterations", Integer.toString(ITERATIONS), "--ckpt-every", "10", "--sleep-ms", "4", "--report", "100"));
        args.addAll(List.of(solver));
        return LaunchedJob.start(args.toArray(new String[0]));
    }

    /** Every rank's restore after the recoveries, from the job's events file (docs/events.md). */
    private static List<JobEvents.Event> rollbacks(LaunchedJob job) {
        return JobEvents.ofType(job.events(), "rollback");
    }

    /** @return how many of them received their copy from a holder's memory */
    private static long received(List<JobEvents.Event> rollbacks) {
        return rollbacks.stream().filter(e -> e.text("source").equals("memory") && e.text("how").equals("receive")).count();
    }

    private static void assertExactResult(LaunchedJob job) throws Exception {
        assertEquals(0, job.awaitExit(90_000), job.output());
        List<String> checksums = job.linesContaining("] checksum ");
        assertEquals(1, checksums.size(), job.output());
        assertTrue(checksums.get(0).startsWith("[rank 0] " + expected), checksums.get(0) + " vs " + expected);
        assertTrue(LaunchedJob.processesOfJob(job.jobId()).isEmpty());
    }

    @Test
    void ctrlRaisesReplicasMidRunThenTwoAdjacentNodesLostTwiceRestoreExactly() throws Exception {
        // m = 1 at open, ctrl(m = 2) after round 5: rounds 6.. are held by the next two ranks, so two
        // adjacent node losses at round 12 restore from memory; the second pair at round 30 proves the
        // recovery went on with the m recorded in the stores (the program does not call ctrl again)
        try (LaunchedJob job = run(List.of("--kill", "1,2@round=12:wipe", "--kill", "2,3@round=30:wipe"),
                "--replicas", "1", "--ctrl-replicas", "5:2")) {
            assertExactResult(job);
            assertTrue(job.output().contains("store layout switched from m=1"), job.output());
            assertEquals(1, job.linesContaining("store layout switched").size(), job.output());
            assertEquals(4, received(rollbacks(job)), job.output());
            assertTrue(job.output().contains("after 2 recoveries"), job.output());
        }
    }

    @Test
    void mPlusOneAdjacentNodesLostThenEveryNodeLostRestoreFromTheDiskGeneration() throws Exception {
        try (LaunchedJob job = run(List.of("--kill", "1,2@round=12:wipe", "--kill", "all@round=30:wipe"),
                "--disk-dir", tmp.toString(), "--disk-ratio", "5")) {
            assertExactResult(job);
            assertEquals(8, rollbacks(job).stream().filter(e -> e.text("source").equals("disk")).count(), job.output());
            assertTrue(job.output().contains("after 2 recoveries"), job.output());
        }
    }

    @Test
    void twoAdjacentNodesLostWithOneReplicaAndNoDiskIsAClearErrorNotAHang() throws Exception {
        try (LaunchedJob job = run(List.of("--kill", "1,2@round=8:wipe", "--max-recoveries", "1"))) {
            assertEquals(1, job.awaitExit(90_000), job.output());
            assertTrue(job.output().contains("the checkpoint cannot be restored"), job.output());
            assertTrue(job.output().contains("rank 1"), job.output());
            assertTrue(LaunchedJob.processesOfJob(job.jobId()).isEmpty());
        }
    }

    @Test
    void aRankKilledDuringTheRollbackLeadsToAnotherRecovery() throws Exception {
        try (LaunchedJob job = run(List.of("--kill", "2@round=8:wipe", "--kill", "3@recovery"))) {
            assertExactResult(job);
            assertTrue(job.output().contains("injecting failure 3@recovery"), job.output());
            assertTrue(job.output().contains("after 2 recoveries"), job.output());
        }
    }

    @Test
    void aRankKilledWhileFlushingToDiskRestoresFromMemory() throws Exception {
        try (LaunchedJob job = run(List.of("--kill", "1@round=9"), "--disk-dir", tmp.toString(), "--disk-ratio", "1")) {
            assertExactResult(job);
            assertEquals(4, rollbacks(job).stream().filter(e -> e.text("source").equals("memory")
                    && e.text("how").equals("local")).count(), job.output());
        }
    }

    @Test
    void theLibraryDecidesWhenToCheckpointAndTheScheduleSurvivesANodeLoss() throws Exception {
        // --interval auto: every rank asks Ckpt.needCheckpoint() after each pair of sweeps (--ckpt-every is
        // ignored); a rank that got another answer would call here() alone and the job would fail or hang
        try (LaunchedJob job = run(List.of("--kill", "1@round=7:wipe"), "--interval", "auto", "--node-mtbf", "8")) {
            assertExactResult(job);
            assertEquals(1, received(rollbacks(job).stream().filter(e -> e.number("rank") == 1).limit(1).toList()),
                    job.output());
            // rank 0's figures at close: a failure learned (the recovery), the measured cost
            List<String> figures = job.linesContaining("interval policy auto:");
            assertEquals(1, figures.size(), job.output());
            assertTrue(figures.get(0).contains("job MTBF") && figures.get(0).contains(": 1 failure(s) in"), figures.get(0));
            assertTrue(figures.get(0).contains("checkpoint --cost "), figures.get(0));
            // the restart rank 0 measured: the launcher's detection of the failure (the order to recover less
            // the failure's age it carried) -> computing again, so at least detection -> new world
            java.util.regex.Matcher restart = java.util.regex.Pattern.compile(" --restart ([0-9.]+) ").matcher(figures.get(0));
            java.util.regex.Matcher world = java.util.regex.Pattern.compile("new MPJ world \\(epoch 1\\) ([0-9]+) ms after")
                    .matcher(job.output());
            assertTrue(restart.find() && world.find(), job.output());
            assertTrue(Double.parseDouble(restart.group(1)) * 1000 > Long.parseLong(world.group(1)) - 2,
                    restart.group(1) + " s vs " + world.group(1) + " ms in " + job.output());
        }
    }

    @Test
    void aStoppedRankIsFoundByTheDefaultHeartbeatWithNoDetectorOption() throws Exception {
        try (LaunchedJob job = run(List.of())) {
            job.awaitLine("checkpoint round", 60_000);
            long victim = job.rankPids()[2];
            new ProcessBuilder("kill", "-STOP", Long.toString(victim)).start().waitFor();
            assertExactResult(job);
            assertTrue(job.output().contains("detector heartbeat (timeout 3000 ms): rank 2 silent for"), job.output());
        }
    }

    @Test
    void relaunchRestartsEveryRankFromItsNodeLocalStore() throws Exception {
        try (LaunchedJob job = run(List.of("--on-failure", "relaunch", "--kill", "2@round=8"))) {
            assertExactResult(job);
            assertEquals(4, rollbacks(job).stream().filter(e -> e.text("source").equals("memory")
                    && e.text("how").equals("local")).count(), job.output());
            assertTrue(job.output().contains("every rank failed: relaunching all"), job.output());
        }
    }

    @Test
    void fiveFailuresInOneRunAllRecovered() throws Exception {
        try (LaunchedJob job = run(List.of("--kill", "1@round=6", "--kill", "3@round=14:wipe", "--kill", "0@round=22",
                "--kill", "2@round=30:wipe", "--kill", "1,2@round=38"))) {
            assertExactResult(job);
            assertTrue(job.output().contains("after 5 recoveries"), job.output());
            List<JobEvents.Event> rollbacks = rollbacks(job);
            assertEquals(20, rollbacks.size(), job.output());
            // the first: rank 1 killed, its node store kept, so every rank restores its own copy
            assertTrue(rollbacks.subList(0, 4).stream().anyMatch(e -> e.number("rank") == 1), job.output());
            assertEquals(0, received(rollbacks.subList(0, 4)), job.output());
            // the second: rank 3's node lost, so its replacement receives its copy from the next rank
            List<JobEvents.Event> rank3 = rollbacks.subList(4, 8).stream().filter(e -> e.number("rank") == 3).toList();
            assertEquals(1, rank3.size(), job.output());
            assertEquals(1, received(rank3), job.output());
            assertEquals(1, received(rollbacks.subList(4, 8)), job.output());
        }
    }
}
