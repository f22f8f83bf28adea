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
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Failure windows of a recovery found by the fault campaign, opened deterministically with the rank
 * JVMs' start latches ({@code -Djckpt.test.hooks}): a second failure while the first failure's
 * replacement is still starting, before or right after it connects to the launcher. Both used to
 * stall 60 s and fail with "MPJ port exchange failed: Accept timed out" (the RECOVER for the late
 * rank was read before anyone listened and dropped).
 */
class RecoveryWindowsTest {
    private static final String RING_UNTIL = "io.jckpt.runtime.programs.RingUntil";
    private static final Pattern RING_UNTIL_OK = Pattern.compile(
            "\\[rank ([0-9])\\] ring ok from ([0-9]) after ([0-9]+) iterations sum ([0-9]+)");
    private static final long RUN_MILLIS = 60_000;

    @TempDir
    Path hooks;

    @ParameterizedTest
    @ValueSource(strings = {"before-connect", "after-connect"})
    void aSecondFailureWhileTheReplacementStartsIsRecoveredWithTheLateRank(String point) throws Exception {
        Path stop = hooks.resolve("stop");
        String latch = point + "-rank-1-epoch-1";
        Files.createFile(hooks.resolve("hold-" + latch));
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "--standby", "0",
                "--jvm-opt", "-Djckpt.test.hooks=" + hooks, "-cp", LaunchedJob.testClasses().toString(), RING_UNTIL,
                stop.toString())) {
            job.awaitLine("[rank 1] iteration 100", RUN_MILLIS);
            long[] pids = job.rankPids();
            kill(pids[1]);
            // rank 1's replacement (world 1) is held at the latch: now the second failure
            awaitFile(hooks.resolve("reached-" + latch), job);
            kill(pids[2]);
            job.awaitLine("FAILURE: rank 2 (pid " + pids[2] + ") killed by SIGKILL", 20_000);
            Files.createFile(hooks.resolve("release-" + latch));
            job.awaitLine("recovered: all 4 ranks in a new MPJ world", 30_000);
            job.awaitLines("[rank 1] iteration 100", 2, RUN_MILLIS);
            Files.createFile(stop);
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            List<String> ok = job.linesContaining("ring ok from");
            assertEquals(4, ok.size(), job.output());
            for (String line : ok) {
                Matcher m = RING_UNTIL_OK.matcher(line);
                assertTrue(m.find(), line);
                long n = Long.parseLong(m.group(3));
                int prev = Integer.parseInt(m.group(2));
                assertEquals(prev * 1000L * n + n * (n - 1) / 2, Long.parseLong(m.group(4)), line);
            }
            assertTrue(!job.output().contains("Accept timed out"), job.output());
        }
    }

    @Test
    void aRankThatDoesNotExitAfterTheJobCompletedIsEndedAndTheResultStands() throws Exception {
        // rank 2 completes, hears that every rank did, then hangs before exiting (held at its latch for
        // good, as a rank stopped at that moment would be): the launcher must not wait for it forever
        Files.createFile(hooks.resolve("hold-before-exit-rank-2-epoch-0"));
        Path stop = hooks.resolve("stop");
        Files.createFile(stop);
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--jvm-opt", "-Djckpt.test.hooks=" + hooks, "-cp",
                LaunchedJob.testClasses().toString(), RING_UNTIL, stop.toString())) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertTrue(Files.exists(hooks.resolve("reached-before-exit-rank-2-epoch-0")), job.output());
            assertTrue(job.output().contains("WARNING: rank 2 (pid ") && job.output().contains(
                    "did not exit within 5000 ms after the job completed (stopped or hung); SIGKILL to it"), job.output());
            assertEquals(4, job.linesContaining("ring ok from").size(), job.output());
            assertTrue(LaunchedJob.processesOfJob(job.jobId()).isEmpty(), job.output());
        }
    }

    private static void kill(long pid) throws Exception {
        new ProcessBuilder("kill", "-9", Long.toString(pid)).start().waitFor(5, TimeUnit.SECONDS);
    }

    private static void awaitFile(Path file, LaunchedJob job) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(file) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertTrue(Files.exists(file), file + " never appeared: the replacement did not reach the latch\n" + job.output());
    }
}
