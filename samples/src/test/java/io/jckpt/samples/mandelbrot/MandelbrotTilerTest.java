package io.jckpt.samples.mandelbrot;

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
 * The Mandelbrot tiler under bin/ckpt-run renders exactly the sequential reference's image, with or
 * without a rank (the master, or a worker) killed by SIGKILL, and its workers' rolled-back counters
 * agree with the master's rolled-back mosaic.
 */
class MandelbrotTilerTest {
    private static final int WIDTH = 160;
    private static final int HEIGHT = 120;
    private static final int TILE = 16; // 10 x 8 = 80 tiles
    private static final int ITERATIONS = 300;

    private static String expectedChecksum() {
        MandelbrotProblem problem = new MandelbrotProblem(WIDTH, HEIGHT, TILE, ITERATIONS);
        return String.format(Locale.ROOT, "checksum %016x", MandelbrotProblem.checksum(problem.renderSequentially()));
    }

    private static LaunchedJob start(List<String> launcher, String... tiler) throws Exception {
        List<String> args = new ArrayList<>(launcher);
        args.addAll(List.of("-cp", LaunchedJob.repoRoot().resolve("samples/target/classes").toString(),
                MandelbrotTiler.class.getName(), "--width", Integer.toString(WIDTH), "--height",
                Integer.toString(HEIGHT), "--tile", Integer.toString(TILE), "--iterations", Integer.toString(ITERATIONS),
                "--batch", "8"));
        args.addAll(List.of(tiler));
        return LaunchedJob.start(args.toArray(String[]::new));
    }

    private static void assertResult(LaunchedJob job, String expected) {
        List<String> checksums = job.linesContaining("] checksum ");
        assertEquals(1, checksums.size(), job.output());
        assertTrue(checksums.get(0).startsWith("[rank 0] " + expected), checksums.get(0) + " vs " + expected);
        List<String> tally = job.linesContaining("] tiles per rank ");
        assertEquals(1, tally.size(), job.output());
        assertTrue(tally.get(0).endsWith(": 80 of 80, agreeing with the mosaic"), tally.get(0));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "niodev    | 4 | --ckpt-every 1",
        "multicore | 3 | --ckpt-every 0",
        "niodev    | 1 | --ckpt-every 2 --replicas 0 --disk-ratio 2 --disk-dir DISK"})
    void checksumEqualsTheSequentialReference(String device, int ranks, String options, @TempDir Path disk)
            throws Exception {
        String expected = expectedChecksum();
        try (LaunchedJob job = start(List.of("-np", Integer.toString(ranks), "--dev", device),
                options.replace("DISK", disk.toString()).split(" "))) {
            assertEquals(0, job.awaitExit(60_000), job.output());
            assertResult(job, expected);
            Failures.deleteStores(job);
        }
    }

    /**
     * Failures in the middle of the run, after a checkpoint: the master killed; a worker killed; the
     * master's node lost (its store wiped), so its mosaic comes back from the next rank's replica.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource({"master killed, 0", "worker killed, 2", "master's node lost, 0"})
    void failureMidRunRecoversToTheSameChecksum(String failure, int victim) throws Exception {
        String expected = expectedChecksum();
        try (LaunchedJob job = start(List.of("-np", "4", "--on-failure", "respawn"),
                "--ckpt-every", "2", "--sleep-ms", "25")) {
            try {
                job.awaitLine("[rank 0] round 4:", 60_000); // the checkpoint of round 2 at least is taken
                if (failure.contains("node")) {
                    Failures.loseNode(job, victim);
                } else {
                    Failures.kill(job, victim);
                }
                assertEquals(0, job.awaitExit(60_000), job.output());
                List<String> rolledBack = job.linesContaining("] rolled back to round ");
                assertEquals(1, rolledBack.size(), job.output());
                assertTrue(rolledBack.get(0).matches(".*rolled back to round [1-9][0-9]*, .*"), rolledBack.get(0));
                if (failure.contains("node")) {
                    assertEquals(1, job.linesContaining("rank " + victim + ": restored round ").stream()
                            .filter(line -> line.endsWith("from memory (RECEIVE)")).count(), job.output());
                }
                assertResult(job, expected);
            } finally {
                job.close();
                Failures.deleteStores(job);
            }
        }
    }
}
