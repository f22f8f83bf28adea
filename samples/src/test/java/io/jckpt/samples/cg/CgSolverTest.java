package io.jckpt.samples.cg;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.runtime.LaunchedJob;
import io.jckpt.samples.testing.Failures;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The CG solver under bin/ckpt-run gives exactly the sequential reference's checksum, with or without
 * a rank killed by SIGKILL. The problem (96 x 64, 200 iterations) is far from converged at the end,
 * so x still changes in every iteration and a wrong rollback would change the checksum.
 */
class CgSolverTest {
    private static final int NX = 96;
    private static final int NY = 64;
    private static final int ITERATIONS = 200;

    private static String expectedChecksum() {
        PoissonProblem.Solution reference = new PoissonProblem(NX, NY).solveSequentially(ITERATIONS, 0);
        assertEquals(ITERATIONS, reference.iterations());
        return String.format(Locale.ROOT, "checksum %016x", PoissonProblem.checksum(reference.x()));
    }

    private static LaunchedJob start(List<String> launcher, String... solver) throws Exception {
        List<String> args = new ArrayList<>(launcher);
        args.addAll(List.of("-cp", LaunchedJob.repoRoot().resolve("samples/target/classes").toString(),
                CgSolver.class.getName(), "--nx", Integer.toString(NX), "--ny", Integer.toString(NY),
                "--iterations", Integer.toString(ITERATIONS), "--report", "20"));
        args.addAll(List.of(solver));
        return LaunchedJob.start(args.toArray(String[]::new));
    }

    private static void assertChecksum(LaunchedJob job, String expected) {
        List<String> checksums = job.linesContaining("] checksum ");
        assertEquals(1, checksums.size(), job.output());
        assertTrue(checksums.get(0).startsWith("[rank 0] " + expected), checksums.get(0) + " vs " + expected);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "niodev    | 4 | --ckpt-every 10",
        "multicore | 3 | --ckpt-every 0",
        "niodev    | 1 | --ckpt-every 25 --replicas 0 --disk-ratio 2 --disk-dir DISK"})
    void checksumEqualsTheSequentialReference(String device, int ranks, String options, @TempDir Path disk)
            throws Exception {
        String expected = expectedChecksum();
        try (LaunchedJob job = start(List.of("-np", Integer.toString(ranks), "--dev", device),
                options.replace("DISK", disk.toString()).split(" "))) {
            assertEquals(0, job.awaitExit(60_000), job.output());
            assertChecksum(job, expected);
            Failures.deleteStores(job);
        }
    }

    /**
     * Failures in the middle of the run, after a few checkpoints: one rank killed (m = 1); two adjacent
     * ranks killed together (m = 2); one rank's node lost, its node-local store wiped (m = 1), so its
     * successor receives its data from the next rank.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"one rank, 1", "two adjacent ranks, 2", "node of one rank, 1"})
    void failureMidRunRecoversToTheSameChecksum(String failure, int replicas) throws Exception {
        String expected = expectedChecksum();
        try (LaunchedJob job = start(List.of("-np", "4", "--on-failure", "respawn"),
                "--ckpt-every", "10", "--sleep-ms", "6", "--replicas", Integer.toString(replicas))) {
            try {
                job.awaitLine("[rank 0] iteration 60 ", 60_000); // checkpoints of iterations 10..50 at least are taken
                switch (failure) {
                    case "one rank" -> Failures.kill(job, 2);
                    case "two adjacent ranks" -> Failures.kill(job, 1, 2);
                    default -> Failures.loseNode(job, 2);
                }
                assertEquals(0, job.awaitExit(60_000), job.output());
                List<String> rolledBack = job.linesContaining("] rolled back to iteration ");
                assertEquals(1, rolledBack.size(), job.output());
                assertTrue(rolledBack.get(0).matches(".*rolled back to iteration [1-9][0-9]* .*"), rolledBack.get(0));
                if (failure.startsWith("node")) {
                    assertEquals(1, job.linesContaining("rank 2: restored round ").stream()
                            .filter(line -> line.endsWith("from memory (RECEIVE)")).count(), job.output());
                }
                assertChecksum(job, expected);
            } finally {
                job.close();
                Failures.deleteStores(job);
            }
        }
    }
}
