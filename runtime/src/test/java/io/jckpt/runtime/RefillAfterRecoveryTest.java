package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A second node loss right after a recovery, before any later round exists: rank 2's node is lost (its
 * re-spawned process holds none of rank 1's copies), the job recovers and every rank parks; then rank 1's
 * node is lost. Rank 1's data at the restored round is only where the first recovery refilled it, at rank 2.
 * Without the refill the second recovery found no intact copy of rank 1's data anywhere (the window the
 * fault campaign and a CI run of StandbyHostsLaunchTest hit at random).
 */
class RefillAfterRecoveryTest {
    private static final String PROGRAM = "io.jckpt.runtime.programs.CheckpointUntil";
    private static final Pattern DONE = Pattern.compile("loop done at round ([0-9]+) sum ([0-9]+)");
    private static final long RUN_MILLIS = 60_000;

    @TempDir
    Path work;

    @Test
    void aNodeLostRightAfterARecoveryIsRestoredFromTheRefilledCopy() throws Exception {
        Path stop = work.resolve("stop");
        Path park = work.resolve("park");
        Path memory = work.resolve("memory");
        Files.createFile(park);
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "--standby", "0",
                "--memory-dir", memory.toString(), "--kill", "2@round=8:wipe",
                "-cp", LaunchedJob.testClasses().toString(), PROGRAM, stop.toString(), "5", park.toString())) {
            job.awaitLine("recovered: all 4 ranks", RUN_MILLIS);
            job.awaitLines("restored at round", 4, RUN_MILLIS); // every rank restored and parked
            long round = restoredRound(job, 2, "receive");
            assertEquals(1, job.linesContaining("copies of round " + round
                    + " refilled where the failure left them missing: rank 1's at rank 2").size(), job.output());

            // rank 1's node lost: its store gone, then its process
            Path store = memory.resolve(job.jobId()).resolve("rank-1");
            assertTrue(Files.isDirectory(store), store + "\n" + job.output());
            wipe(store);
            long rank1 = job.rankPids()[1];
            new ProcessBuilder("kill", "-9", Long.toString(rank1)).start().waitFor(5, TimeUnit.SECONDS);
            job.awaitLines("recovered: all 4 ranks", 2, RUN_MILLIS);
            job.awaitLines("restored at round", 8, RUN_MILLIS);
            assertEquals(round, restoredRound(job, 1, "receive"), "rank 1 from its copy at rank 2: " + job.output());
            assertEquals(1, job.linesContaining("copies of round " + round
                    + " refilled where the failure left them missing: rank 0's at rank 1").size(), job.output());

            Files.delete(park);
            job.awaitLines("checkpoint round", job.linesContaining("checkpoint round").size() + 1, RUN_MILLIS);
            Files.createFile(stop);
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            List<String> done = job.linesContaining("loop done at round");
            assertEquals(4, done.size(), job.output());
            for (String line : done) {
                Matcher m = DONE.matcher(line);
                assertTrue(m.find(), line);
                long rounds = Long.parseLong(m.group(1));
                assertEquals(4 * rounds * (rounds + 1) / 2, Long.parseLong(m.group(2)), "the failure-free sum: " + line);
            }
        }
    }

    /** The round {@code rank} restored from memory as {@code kind} (its first such rollback event). */
    private static long restoredRound(LaunchedJob job, int rank, String kind) throws InterruptedException {
        return job.awaitEvent("rollback", e -> e.number("rank") == rank && e.text("source").equals("memory")
                && e.text("how").equals(kind), RUN_MILLIS).number("round");
    }

    private static void wipe(Path dir) throws Exception {
        try (var files = Files.walk(dir)) {
            for (Path p : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
