package io.jckpt.samples.heat;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jckpt.testkit.LaunchedJob;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The heat solver under bin/ckpt-run gives exactly the sequential reference's checksum. */
class HeatSolverTest {

    @ParameterizedTest
    @CsvSource({"niodev, 4", "multicore, 3", "niodev, 1"})
    void checksumEqualsTheSequentialReference(String device, int ranks) throws Exception {
        int nx = 96;
        int ny = 80;
        int iterations = 150;
        HeatProblem problem = new HeatProblem(nx, ny);
        double[] reference = problem.solveSequentially(iterations);
        String expected = String.format(Locale.ROOT, "checksum %016x", HeatProblem.checksum(reference, 0, reference.length));
        String classes = LaunchedJob.repoRoot().resolve("samples/target/classes").toString();
        try (LaunchedJob job = LaunchedJob.start("-np", Integer.toString(ranks), "--dev", device, "-cp", classes,
                HeatSolver.class.getName(), "--nx", Integer.toString(nx), "--ny", Integer.toString(ny),
                "--iterations", Integer.toString(iterations), "--report", "50")) {
            assertEquals(0, job.awaitExit(60_000), job.output());
            List<String> checksums = job.linesContaining("] checksum ");
            assertEquals(1, checksums.size(), job.output());
            assertEquals(true, checksums.get(0).startsWith("[rank 0] " + expected), checksums.get(0) + " vs " + expected);
        }
    }
}
