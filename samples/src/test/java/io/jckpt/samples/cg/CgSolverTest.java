package io.jckpt.samples.cg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CG solver under bin/ckpt-run gives exactly the sequential reference's checksum: failure-free on
 * any number of ranks, and on 4 ranks killed with SIGKILL by the launcher's failure injection. The
 * problem (96 x 64, 200 iterations) is far from converged at the end, so x still changes in every
 * iteration and a wrong rollback would change the checksum.
 */
class CgSolverTest {
    private static final int NX = 96;
    private static final int NY = 64;
    private static final int ITERATIONS = 200;
    private static String expected;

    @TempDir
    Path disk;

    @BeforeAll
    static void reference() {
        PoissonProblem.Solution reference = new PoissonProblem(NX, NY).solveSequentially(ITERATIONS, 0);
        assertEquals(ITERATIONS, reference.iterations());
        expected = String.format(Locale.ROOT, "checksum %016x", PoissonProblem.checksum(reference.x()));
    }

    private LaunchedJob start(String launcher, String solver) throws Exception {
        List<String> args = new ArrayList<>(split(launcher));
        args.addAll(List.of("-cp", LaunchedJob.repoRoot().resolve("samples/target/classes").toString(),
                CgSolver.class.getName(), "--nx", Integer.toString(NX), "--ny", Integer.toString(NY),
                "--iterations", Integer.toString(ITERATIONS), "--report", "20"));
        args.addAll(split(solver));
        return LaunchedJob.start(args.toArray(String[]::new));
    }

    private List<String> split(String options) {
        return options.isBlank() ? List.of() : List.of(options.replace("DISK", disk.toString()).trim().split(" +"));
    }

    private static void assertExactResult(LaunchedJob job) throws Exception {
        assertEquals(0, job.awaitExit(90_000), job.output());
        List<String> checksums = job.linesContaining("] checksum ");
        assertEquals(1, checksums.size(), job.output());
        assertTrue(checksums.get(0).startsWith("[rank 0] " + expected), checksums.get(0) + " vs " + expected);
        assertTrue(LaunchedJob.processesOfJob(job.jobId()).isEmpty());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        // 4 ranks on niodev, a checkpoint every 10: the failure case below, which compares the same checksum
        "-np 3 --dev multicore | --ckpt-every 0",
        "-np 1 --dev niodev    | --ckpt-every 25 --replicas 0 --disk-ratio 2 --disk-dir DISK"})
    void checksumEqualsTheSequentialReference(String launcher, String solver) throws Exception {
        try (LaunchedJob job = start(launcher, solver)) {
            assertExactResult(job);
        }
    }

    /**
     * Checkpoint every 10 iterations (round 6 = iteration 60); the failures the levels promise to
     * survive, each followed by exactly one rollback to a checkpoint taken before it.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // the hardest memory path for CG's four vectors and scalars; the heat solver's tests run the other
        // losses (a local restore, the disk generation) on the same library paths
        "two adjacent nodes lost, m = 2     | --kill 1,2@round=6:wipe   | --replicas 2 | RECEIVE | 2"})
    void failureMidRunRecoversToTheSameChecksum(String failure, String kill, String solver, String source,
                                                int restoredFromThere) throws Exception {
        try (LaunchedJob job = start("-np 4 --on-failure respawn " + kill,
                "--ckpt-every 10 --sleep-ms 6 " + solver)) {
            assertExactResult(job);
            List<String> rolledBack = job.linesContaining("] rolled back to iteration ");
            assertEquals(1, rolledBack.size(), job.output());
            assertTrue(rolledBack.get(0).matches(".*rolled back to iteration [1-9][0-9]* .*"), rolledBack.get(0));
            long restored = 0;
            for (int rank = 0; rank < 4; rank++) {
                restored += source.equals("disk") ? job.rollbacks(rank, "disk", null)
                        : job.rollbacks(rank, "memory", source.toLowerCase(java.util.Locale.ROOT));
            }
            assertEquals(restoredFromThere, restored, job.output());
        }
    }
}
