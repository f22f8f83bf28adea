package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A rank stopped (SIGSTOP) at a moment of the job's start-up, held there by the rank JVM's latch
 * ({@code -Djckpt.test.hooks}), never a sleep: before it connected to the launcher (it had sent no
 * heartbeat yet), and in Ckpt.open right after the open exchange (the other ranks go on to join the
 * replication ring and wait for it). Either must be detected at the heartbeat timeout and recovered, and
 * the first checkpoint must follow at once: the start timeout and the library's exchange and replication
 * timeouts are 600 s, so a world that waited any of them out fails the test's 120 s bounds. Before the
 * fixes, the first stalled the job until the start timeout ("MPJ port exchange failed: Accept timed
 * out"), the second held the survivors' new world until the abandoned open's ring join timed out.
 */
class StartupWindowsTest {
    private static final String PROGRAM = "io.jckpt.runtime.programs.CheckpointUntil";
    private static final Pattern DONE = Pattern.compile("loop done at round ([0-9]+) sum ([0-9]+)");
    /** Every wait of the test: a fifth of the timeouts below, and room for rank JVMs starting on 2 loaded cores. */
    private static final long RUN_MILLIS = 120_000;
    private static final String TIMEOUT_SECONDS = "600";

    @TempDir
    Path hooks;

    @ParameterizedTest(name = "rank {1} stopped at {0}")
    @CsvSource({"before-connect, 2", "after-exchange-open, 0"})
    void aRankStoppedDuringStartUpIsReplacedAndTheFirstCheckpointFollowsAtOnce(String point, int rank) throws Exception {
        String latch = point + "-rank-" + rank + "-epoch-0";
        Files.createFile(hooks.resolve("hold-" + latch));
        Path stop = hooks.resolve("stop");
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "--standby", "0",
                "--detector", "heartbeat:2000", "--start-timeout", TIMEOUT_SECONDS,
                "--jvm-opt", "-Djckpt.test.hooks=" + hooks, "--jvm-opt", "-DcheckpointUntil.timeoutSeconds=" + TIMEOUT_SECONDS,
                "-cp", LaunchedJob.testClasses().toString(), PROGRAM, stop.toString(), "5")) {
            long pid = awaitReached(hooks.resolve("reached-" + latch), job);
            new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor(5, TimeUnit.SECONDS);

            String failure = job.awaitLine("FAILURE: rank " + rank + " silent for", RUN_MILLIS).text();
            assertTrue(failure.contains("process stopped"), failure);
            job.awaitLine("recovered: all 4 ranks in a new MPJ world (epoch 1)", RUN_MILLIS);
            job.awaitLine("checkpoint round", RUN_MILLIS);
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
            assertEquals(1, job.linesContaining("recovering: epoch").size(), job.output());
            assertFalse(job.output().contains("timed out"), job.output());
        }
    }

    /** Waits (bounded) until the rank reached its latch; the pid it wrote there. */
    private static long awaitReached(Path file, LaunchedJob job) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(RUN_MILLIS);
        while (System.nanoTime() < deadline) {
            if (Files.exists(file)) {
                String pid = Files.readString(file).trim();
                if (!pid.isEmpty()) {
                    return Long.parseLong(pid);
                }
            }
            Thread.sleep(20); // another process writes the file
        }
        throw new AssertionError(file + " never appeared: the rank did not reach its latch\n" + job.output());
    }
}
