package io.jckpt.samples.mandelbrot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The Mandelbrot tiler under bin/ckpt-run renders exactly the sequential reference's image, failure-free
 * and with the master or workers killed by the launcher's failure injection, and its workers'
 * rolled-back counters agree with the master's rolled-back mosaic.
 */
class MandelbrotTilerTest {
    private static final int WIDTH = 160;
    private static final int HEIGHT = 120;
    private static final int TILE = 16; // 10 x 8 = 80 tiles, in 10 rounds of 8
    private static final int ITERATIONS = 300;
    private static String expected;

    @TempDir
    Path disk;

    @BeforeAll
    static void reference() {
        MandelbrotProblem problem = new MandelbrotProblem(WIDTH, HEIGHT, TILE, ITERATIONS);
        expected = String.format(Locale.ROOT, "checksum %016x", MandelbrotProblem.checksum(problem.renderSequentially()));
    }

    private LaunchedJob start(String launcher, String tiler) throws Exception {
        List<String> args = new ArrayList<>(split(launcher));
        args.addAll(List.of("-cp", LaunchedJob.repoRoot().resolve("samples/target/classes").toString(),
                MandelbrotTiler.class.getName(), "--width", Integer.toString(WIDTH), "--height",
                Integer.toString(HEIGHT), "--tile", Integer.toString(TILE), "--iterations", Integer.toString(ITERATIONS),
                "--batch", "8"));
        args.addAll(split(tiler));
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
        List<String> tally = job.linesContaining("] tiles per rank ");
        assertEquals(1, tally.size(), job.output());
        assertTrue(tally.get(0).endsWith(": 80 of 80, agreeing with the mosaic"), tally.get(0));
        assertTrue(LaunchedJob.processesOfJob(job.jobId()).isEmpty());
    }

    @ParameterizedTest(name = "{0} {1}")
    @CsvSource(delimiter = '|', value = {
        // 4 ranks on niodev: the failure cases below, which compare the same checksum
        "-np 3 --dev multicore | --ckpt-every 0",
        "-np 1 --dev niodev    | --ckpt-every 2 --replicas 0 --disk-ratio 2 --disk-dir DISK"})
    void checksumEqualsTheSequentialReference(String launcher, String tiler) throws Exception {
        try (LaunchedJob job = start(launcher, tiler)) {
            assertExactResult(job);
        }
    }

    /**
     * A checkpoint every 2 rounds of tiles (checkpoint round 2 = after tile round 4); the master's
     * mosaic is a Kryo object graph, restored locally, or received from the next rank when its node
     * is lost, or read from the disk generation.
     */
    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        // the mosaic (a Kryo graph) received from a holder or read from disk; a local restore is the growing
        // mosaic's test below
        "master's and a worker's nodes, m = 2 | --kill 0,1@round=2:wipe  | --replicas 2 | RECEIVE | 2",
        "total loss, from disk                | --kill all@round=3:wipe  | --disk-ratio 2 --disk-dir DISK | disk | 4"})
    void failureMidRunRecoversToTheSameChecksum(String failure, String kill, String tiler, String source,
                                                int restoredFromThere) throws Exception {
        try (LaunchedJob job = start("-np 4 --on-failure respawn " + kill,
                "--ckpt-every 2 --sleep-ms 25 " + tiler)) {
            assertExactResult(job);
            List<String> rolledBack = job.linesContaining("] rolled back to round ");
            assertEquals(1, rolledBack.size(), job.output());
            assertTrue(rolledBack.get(0).matches(".*rolled back to round [1-9][0-9]*, .*"), rolledBack.get(0));
            long restored = 0;
            for (int rank = 0; rank < 4; rank++) {
                restored += source.equals("disk") ? job.rollbacks(rank, "disk", null)
                        : job.rollbacks(rank, "memory", source.toLowerCase(java.util.Locale.ROOT));
            }
            assertEquals(restoredFromThere, restored, job.output());
        }
    }

    /**
     * Without pre-allocation the master's mosaic grows with every round of tiles: the slots grow
     * collectively several times (the round that outgrew them is skipped on the master, every rank
     * switches at the next one); the master's node lost after that restores from the grown store of
     * its next rank.
     */
    @Test
    void aGrowingMosaicGrowsTheSlotsAndStillRecoversAfterANodeLoss() throws Exception {
        try (LaunchedJob job = start("-np 4 --on-failure respawn --kill 0@round=7:wipe",
                "--ckpt-every 1 --sleep-ms 10 --replicas 1 --preallocate false")) {
            assertExactResult(job);
            assertTrue(job.linesContaining("store layout switched").size() >= 2, job.output());
            String out = job.output();
            assertTrue(out.indexOf("store layout switched") < out.indexOf("FAILURE: rank 0"), "grown before the failure: " + out);
            assertEquals(1, job.rollbacks(0, "memory", "receive"), job.output());
        }
    }
}
