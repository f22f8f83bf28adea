package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.runtime.launcher.Device;
import io.jckpt.runtime.launcher.LaunchSpec;
import io.jckpt.testkit.JobEvents;
import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** bin/ckpt-run end to end: real rank JVMs, real MPJ Express worlds, real SIGKILLs. */
class LauncherTest {
    private static final String RING = "io.jckpt.runtime.programs.RingCheck";
    private static final String RING_UNTIL = "io.jckpt.runtime.programs.RingUntil";
    private static final Pattern RING_UNTIL_OK = Pattern.compile("\\[rank ([0-9])\\] ring ok from ([0-9]) after ([0-9]+) iterations sum ([0-9]+)");
    private static final long RUN_MILLIS = 60_000;

    @ParameterizedTest
    @ValueSource(strings = {"niodev", "multicore"})
    void fourRanksAllgatherAndRingGiveTheExpectedValues(String device) throws Exception {
        int iterations = 3;
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--dev", device, "-cp", LaunchedJob.testClasses().toString(),
                RING, Integer.toString(iterations))) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            for (int rank = 0; rank < 4; rank++) {
                assertEquals(1, job.linesContaining("[rank " + rank + "] allgather ok 1,11,21,31").size(), job.output());
                int prev = (rank + 3) % 4;
                long sum = 0;
                for (int i = 0; i < iterations; i++) {
                    sum += prev * 1000L + i;
                }
                assertEquals(1, job.linesContaining("[rank " + rank + "] ring ok from " + prev + " sum " + sum).size(),
                        job.output());
            }
            assertTrue(job.output().contains("finished: all 4 ranks completed"), job.output());
            assertTrue(LaunchedJob.processesOfJob(job.jobId()).isEmpty());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"niodev", "multicore"})
    void statusExchangeThroughTheLauncherDeliversEveryRanksPart(String device) throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--dev", device, "-cp", LaunchedJob.testClasses().toString(),
                "io.jckpt.runtime.programs.ExchangeCheck", "20")) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(4, job.linesContaining("exchange ok 20 rounds").size(), job.output());
        }
    }

    @Test
    void rankKilledMidLoopIsNamedAndTheJobIsTornDownWithNothingLeft() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "-cp", LaunchedJob.testClasses().toString(), RING, "1000000")) {
            job.awaitLine("[rank 2] iteration 100", RUN_MILLIS);
            long[] pids = job.rankPids();
            assertEquals(4, pids.length);
            long killed = System.nanoTime();
            new ProcessBuilder("kill", "-9", Long.toString(pids[2])).start().waitFor(5, TimeUnit.SECONDS);
            LaunchedJob.Line failure = job.awaitLine("FAILURE: rank 2", 5_000);
            int status = job.awaitExit(5_000);
            long exitedMillis = (System.nanoTime() - killed) / 1_000_000L;
            long detectedMillis = (failure.nanos() - killed) / 1_000_000L;
            System.out.printf("SIGKILL of rank 2: reported after %d ms, launcher exited after %d ms%n",
                    detectedMillis, exitedMillis);
            assertEquals(1, status, job.output());
            assertTrue(failure.text().contains("killed by SIGKILL"), failure.text());
            // the bound: torn down with a non-zero exit within 2 s (plus the JVM's own exit)
            assertTrue(exitedMillis < 2_500, "launcher took " + exitedMillis + " ms to exit after the kill");
            assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void respawnedRankAndSurvivorsFinishInAFreshWorld() throws Exception {
        int iterations = 8_000;
        // --standby 0: the replacement is a freshly forked JVM (the standby path has its own test)
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "--standby", "0", "-cp",
                LaunchedJob.testClasses().toString(), RING, Integer.toString(iterations))) {
            job.awaitLine("[rank 2] iteration 300", RUN_MILLIS);
            long[] pids = job.rankPids();
            new ProcessBuilder("kill", "-9", Long.toString(pids[2])).start().waitFor(5, TimeUnit.SECONDS);
            job.awaitLine("recovered: all 4 ranks in a new MPJ world (epoch 1)", 20_000);
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertTrue(job.output().contains("FAILURE: rank 2 (pid " + pids[2] + ") killed by SIGKILL"), job.output());
            for (int rank = 0; rank < 4; rank++) {
                int prev = (rank + 3) % 4;
                long sum = 0;
                for (int i = 0; i < iterations; i++) {
                    sum += prev * 1000L + i;
                }
                assertEquals(1, job.linesContaining("[rank " + rank + "] ring ok from " + prev + " sum " + sum).size(),
                        job.output());
            }
            assertTrue(job.output().contains("finished: all 4 ranks completed after 1 recovery"), job.output());
            assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void standbyTakesOverAFailedRankAndItsReplacementTakesTheNextFailure() throws Exception {
        Path stop = Files.createTempDirectory("jckpt-launcher-test").resolve("stop");
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "--standby", "1", "-cp",
                LaunchedJob.testClasses().toString(), RING_UNTIL, stop.toString())) {
            job.awaitLine("standby 0 ready (pid ", RUN_MILLIS);
            job.awaitLine("[rank 2] iteration 0", RUN_MILLIS);
            long[] pids = job.rankPids();
            new ProcessBuilder("kill", "-9", Long.toString(pids[2])).start().waitFor(5, TimeUnit.SECONDS);
            long firstStandby = takenOverPid(job, 0);
            JobEvents.Event recovered = job.awaitEvent("recovered", e -> e.number("epoch") == 1, 20_000);
            assertEquals(1, recovered.number("from_standby"), recovered.toString());
            // the used standby is replaced; the former standby is rank 2 now: kill it in turn
            job.awaitLine("standby 1 ready (pid ", RUN_MILLIS);
            job.awaitLines("[rank 2] iteration 0", 2, RUN_MILLIS);
            new ProcessBuilder("kill", "-9", Long.toString(firstStandby)).start().waitFor(5, TimeUnit.SECONDS);
            job.awaitLine("FAILURE: rank 2 (pid " + firstStandby + ") killed by SIGKILL", 20_000);
            long secondStandby = takenOverPid(job, 1);
            job.awaitLine("recovered: all 4 ranks in a new MPJ world (epoch 2)", 20_000);
            job.awaitLines("[rank 2] iteration 0", 3, RUN_MILLIS);
            Files.createFile(stop);
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertTrue(firstStandby != secondStandby && firstStandby != pids[2], job.output());
            assertRingUntilResults(job, 4);
            assertTrue(job.output().contains("finished: all 4 ranks completed after 2 recoveries"), job.output());
            assertNoProcessLeft(job.jobId());
        } finally {
            Files.deleteIfExists(stop);
            Files.deleteIfExists(stop.getParent());
        }
    }

    @Test
    void programExceptionUnderRespawnFailsTheJobAtOnceWithItsStackTrace() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "-cp",
                LaunchedJob.testClasses().toString(), RING, "4000", "2", "throw")) {
            LaunchedJob.Line thrown = job.awaitLine("[rank 2] throwing the injected failure", RUN_MILLIS);
            int status = job.awaitExit(20_000);
            long millis = (System.nanoTime() - thrown.nanos()) / 1_000_000L;
            System.out.printf("program error of rank 2: launcher exited %d ms after the throw%n", millis);
            assertEquals(1, status, job.output());
            assertTrue(job.output().contains("FAILURE: rank 2 threw java.lang.IllegalStateException: injected failure"
                    + " on rank 2: a program error, not retried"), job.output());
            assertTrue(job.output().contains("at mpj-world-0//" + RING + ".main(RingCheck.java:"), job.output());
            assertTrue(job.linesContaining("recovering:").isEmpty(), job.output());
            // the grace window for a peer's death (1 s), then the teardown
            assertTrue(millis < 4_000, "launcher exited " + millis + " ms after the program error");
            assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void programExitCodeUnderRespawnFailsTheJob() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "-cp",
                LaunchedJob.testClasses().toString(), RING, "4000", "1", "exit3")) {
            assertEquals(3, job.awaitExit(RUN_MILLIS), "the rank's exit status is passed on\n" + job.output());
            String failure = job.awaitLine("FAILURE: rank 1 (pid ", 1_000).text();
            assertTrue(failure.contains("exited with code 3: a program error, not retried"), failure);
            assertTrue(job.linesContaining("recovering:").isEmpty(), job.output());
            assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void retryProgramErrorsRecoversThemLikeProcessFailures() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--retry-program-errors",
                "--max-recoveries", "1", "-cp", LaunchedJob.testClasses().toString(), RING, "4000", "2", "throw")) {
            assertEquals(1, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(1, job.linesContaining("recovering: epoch 1, re-spawning rank 2").size(), job.output());
            assertTrue(job.output().contains("injected failure on rank 2 (recovery limit of 1 reached; --max-recoveries N raises it)"), job.output());
            assertTrue(job.linesContaining("a program error").isEmpty(), job.output());
            assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void twoRanksKilledAtOnceAreRecoveredTogether() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "-cp",
                LaunchedJob.testClasses().toString(), RING, "8000")) {
            job.awaitLine("[rank 1] iteration 300", RUN_MILLIS);
            long[] pids = job.rankPids();
            new ProcessBuilder("kill", "-9", Long.toString(pids[1]), Long.toString(pids[2])).start()
                    .waitFor(5, TimeUnit.SECONDS);
            job.awaitLine("recovering: epoch 1, re-spawning ranks 1, 2", 20_000);
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(4, job.linesContaining("ring ok").size(), job.output());
            assertTrue(job.linesContaining("recovering: epoch 2").isEmpty(), job.output());
        }
    }

    @Test
    void aWarmStandbyByDefaultOnlyWithACoreToSpare() throws Exception {
        LaunchSpec.FailurePolicy respawn = LaunchSpec.FailurePolicy.RESPAWN;
        assertEquals(1, LaunchSpec.defaultStandbys(respawn, Device.NIODEV, 4, 8));
        assertEquals(1, LaunchSpec.defaultStandbys(LaunchSpec.FailurePolicy.RELAUNCH, Device.NIODEV, 1, 2));
        assertEquals(0, LaunchSpec.defaultStandbys(respawn, Device.NIODEV, 4, 4), "every core has a rank");
        assertEquals(0, LaunchSpec.defaultStandbys(respawn, Device.NIODEV, 4, 2));
        assertEquals(0, LaunchSpec.defaultStandbys(LaunchSpec.FailurePolicy.FAIL, Device.NIODEV, 1, 8));
        int cores = Runtime.getRuntime().availableProcessors();
        String cp = LaunchedJob.testClasses().toString();
        assertEquals(cores > 4 ? 1 : 0, LaunchSpec.parse(new String[] {"-np", "4", "--on-failure", "respawn", "-cp", cp, RING})
                .standbys());
        assertEquals(cores > 1 ? 1 : 0, LaunchSpec.parse(new String[] {"-np", "1", "--on-failure", "respawn", "-cp", cp, RING})
                .standbys());
        assertEquals(1, LaunchSpec.parse(new String[] {"-np", "4", "--on-failure", "respawn", "--standby", "1", "-cp", cp,
                RING}).standbys(), "asked for");
        assertEquals(0, LaunchSpec.parse(new String[] {"-np", "1", "-cp", cp, RING}).standbys());
        // the job says what it chose
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "--on-failure", "respawn", "-cp", cp, RING, "1")) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            String chosen = cores > 2 ? "; 1 warm standby (" + cores + " cores)" : "; no warm standby (" + cores + " cores)";
            assertEquals(1, job.linesContaining(chosen).size(), job.output());
        }
    }

    @Test
    void aFailureDueAfterItsRankCompletedIsNotInjected() throws Exception {
        // rank 2 returns from main right after an Allgather; the others wait for the stop file. The
        // kill of rank 2 falls due (round 1, reported by rank 0 once the go file appears) after the
        // launcher recorded rank 2's completion (its rank_completed event), while the job still runs: injecting it would start a recovery of
        // a rank that has nothing left to do
        Path stop = Files.createTempDirectory("jckpt-launcher-test").resolve("stop");
        Path go = stop.resolveSibling("go");
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "--standby", "0",
                "--kill", "2@round=1", "-cp", LaunchedJob.testClasses().toString(),
                "io.jckpt.runtime.programs.EarlyFinish", "2", stop.toString(), go.toString())) {
            job.awaitLine("[rank 2] done early", RUN_MILLIS);
            // the launcher has taken rank 2's word that its program completed (its JVM waits for the job's end)
            job.awaitEvent("rank_completed", e -> e.number("rank") == 2, RUN_MILLIS);
            Files.createFile(go);
            job.awaitLine("failure 2@round=1 not injected: rank 2 already completed or gone", 20_000);
            Files.createFile(stop);
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(3, job.linesContaining("done after the stop file").size(), job.output());
            assertTrue(job.linesContaining("injecting failure").isEmpty(), job.output());
            assertTrue(job.linesContaining("recovering").isEmpty(), job.output());
            assertTrue(job.output().contains("finished: all 4 ranks completed\n")
                    || job.output().trim().endsWith("finished: all 4 ranks completed"), job.output());
            assertNoProcessLeft(job.jobId());
        } finally {
            Files.deleteIfExists(stop);
            Files.deleteIfExists(go);
            Files.deleteIfExists(stop.getParent());
        }
    }

    @Test
    void recoveryLimitEndsTheJobWithAClearMessage() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--max-recoveries", "0", "-cp",
                LaunchedJob.testClasses().toString(), RING, "1000000")) {
            job.awaitLine("[rank 1] iteration 100", RUN_MILLIS);
            new ProcessBuilder("kill", "-9", Long.toString(job.rankPids()[1])).start().waitFor(5, TimeUnit.SECONDS);
            assertEquals(1, job.awaitExit(10_000), job.output());
            assertTrue(job.output().contains("(recovery limit of 0 reached; --max-recoveries N raises it)"), job.output());
            assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void rankThatThrowsIsNamedWithItsException() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "-cp", LaunchedJob.testClasses().toString(), RING,
                "1000", "2", "throw")) {
            assertEquals(1, job.awaitExit(RUN_MILLIS), job.output());
            assertTrue(job.output().contains("FAILURE: rank 2 threw java.lang.IllegalStateException: injected failure on rank 2"),
                    job.output());
            assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void rankThatExitsWithCode3IsNamed() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "-cp", LaunchedJob.testClasses().toString(), RING,
                "1000", "1", "exit3")) {
            assertEquals(3, job.awaitExit(RUN_MILLIS), "the rank's exit status is passed on\n" + job.output());
            assertTrue(job.output().contains("FAILURE: rank 1 (pid"), job.output());
            assertTrue(job.output().contains("exited with code 3"), job.output());
            assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void multicoreRankThatThrowsFailsTheJob() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--dev", "multicore", "-cp",
                LaunchedJob.testClasses().toString(), RING, "1000", "1", "throw")) {
            assertEquals(1, job.awaitExit(RUN_MILLIS), job.output());
            assertTrue(job.output().contains("FAILURE: rank 1 threw java.lang.IllegalStateException"), job.output());
            assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void twoJobsAtOnceOnTheSameHostBothSucceed() throws Exception {
        try (LaunchedJob first = LaunchedJob.start("-np", "3", "-cp", LaunchedJob.testClasses().toString(), RING, "300");
             LaunchedJob second = LaunchedJob.start("-np", "3", "-cp", LaunchedJob.testClasses().toString(), RING, "300")) {
            assertEquals(0, first.awaitExit(RUN_MILLIS), first.output());
            assertEquals(0, second.awaitExit(RUN_MILLIS), second.output());
            assertTrue(!first.jobId().equals(second.jobId()));
            assertEquals(3, first.linesContaining("ring ok").size(), first.output());
            assertEquals(3, second.linesContaining("ring ok").size(), second.output());
        }
    }

    @Test
    void sigtermOnTheLauncherStopsEveryRank() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "-cp", LaunchedJob.testClasses().toString(), RING, "1000000")) {
            job.awaitLine("[rank 1] iteration 100", RUN_MILLIS);
            String jobId = job.jobId();
            assertEquals(3, LaunchedJob.processesOfJob(jobId).size());
            new ProcessBuilder("kill", "-TERM", Long.toString(job.launcherPid())).start().waitFor(5, TimeUnit.SECONDS);
            int status = job.awaitExit(5_000);
            assertEquals(128 + 15, status, job.output());
            assertTrue(job.output().contains("launcher interrupted: stopping all ranks"), job.output());
            assertNoProcessLeft(jobId);
        }
    }

    @Test
    void ranksDieWhenTheLauncherIsKilled() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "-cp", LaunchedJob.testClasses().toString(), RING, "1000000")) {
            job.awaitLine("[rank 1] iteration 100", RUN_MILLIS);
            String jobId = job.jobId();
            new ProcessBuilder("kill", "-9", Long.toString(job.launcherPid())).start().waitFor(5, TimeUnit.SECONDS);
            job.awaitExit(5_000);
            assertNoProcessLeft(jobId);
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"-np 0 X", "-np 2 io.jckpt.NoSuchMain", "-np 2 --dev carrier-pigeon X", "-np two X",
            "-np 2", "--frobnicate -np 2 X", "-np 2 --on-failure pray X", "-np 2 --dev multicore --on-failure respawn X"})
    void badInputGivesOneClearLineAndExitCode2(String commandLine) throws Exception {
        String[] args = (commandLine + " ").replace(" X ", " " + RING + " ").trim().split(" ");
        String[] withCp = new String[args.length + 2];
        withCp[0] = "-cp";
        withCp[1] = LaunchedJob.testClasses().toString();
        System.arraycopy(args, 0, withCp, 2, args.length);
        try (LaunchedJob job = LaunchedJob.start(withCp)) {
            assertEquals(2, job.awaitExit(RUN_MILLIS), job.output());
            List<String> lines = job.output().lines().toList();
            assertEquals(1, lines.size(), job.output());
            assertTrue(lines.get(0).startsWith("ckpt-run: "), lines.get(0));
        }
    }

    @Test
    void badInputMessagesNameTheProblem() throws Exception {
        assertMessage("-np must be at least 1, got 0", "-np", "0", RING);
        assertMessage("main class io.jckpt.NoSuchMain not found on class path", "-cp",
                LaunchedJob.testClasses().toString(), "-np", "2", "io.jckpt.NoSuchMain");
        assertMessage("unknown device 'carrier-pigeon' (use niodev or multicore)", "-np", "2", "--dev", "carrier-pigeon", RING);
        assertMessage("--standby needs --on-failure respawn or relaunch on niodev", "-np", "2", "--standby", "1", RING);
        assertMessage("--standby must not be negative, got -1", "-np", "2", "--on-failure", "respawn", "--standby", "-1",
                RING);
        assertMessage("--retry-program-errors needs --on-failure respawn or relaunch", "-np", "2",
                "--retry-program-errors", RING);
    }

    /** The pid of the standby that took rank 2's place, from its standby_takeover event. */
    private static long takenOverPid(LaunchedJob job, int standby) throws InterruptedException {
        JobEvents.Event takeover = job.awaitEvent("standby_takeover", e -> e.number("standby") == standby, 20_000);
        assertEquals(2, takeover.number("rank"), takeover.toString());
        return takeover.number("pid");
    }

    /** Every rank's "ring ok" line of RingUntil, with the sum its iteration count implies. */
    private static void assertRingUntilResults(LaunchedJob job, int size) {
        List<String> ok = job.linesContaining("ring ok from");
        assertEquals(size, ok.size(), job.output());
        for (String line : ok) {
            Matcher matcher = RING_UNTIL_OK.matcher(line);
            assertTrue(matcher.find(), line);
            int rank = Integer.parseInt(matcher.group(1));
            int prev = Integer.parseInt(matcher.group(2));
            long n = Long.parseLong(matcher.group(3));
            assertEquals((rank + size - 1) % size, prev, line);
            assertTrue(n >= 100, line);
            assertEquals(prev * 1000L * n + n * (n - 1) / 2, Long.parseLong(matcher.group(4)), line);
        }
    }

    private static void assertMessage(String expected, String... args) throws Exception {
        try (LaunchedJob job = LaunchedJob.start(args)) {
            assertEquals(2, job.awaitExit(RUN_MILLIS), job.output());
            assertTrue(job.output().contains(expected), job.output());
        }
    }

    private static void assertNoProcessLeft(String jobId) throws InterruptedException {
        List<Long> left = LaunchedJob.processesLeft(jobId, 2_000);
        assertTrue(left.isEmpty(), "processes of job " + jobId + " left behind: " + left);
    }
}
