package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.JobEvents;
import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What the launcher says about failures: one FAILURE line per failure (survivors' follow-on errors
 * are not failures of their own), recovery errors labelled as such, each stack trace printed once,
 * no checkpoint progress of an abandoned world or after the job completed. Real launcher, real
 * rank JVMs, real SIGKILLs.
 */
class LauncherEventsTest {
    private static final String RING = "io.jckpt.runtime.programs.RingCheck";
    private static final String ECHO = "io.jckpt.runtime.programs.EchoOnPeerDeath";
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";
    private static final long RUN_MILLIS = 60_000;

    @Test
    void aKillWhoseSurvivorsThrowGivesExactlyOneFailureLine() throws Exception {
        Path dead = Files.createTempDirectory("jckpt-events-test").resolve("dead");
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "--standby", "0", "-cp",
                LaunchedJob.testClasses().toString(), ECHO, "1", dead.toString())) {
            job.awaitLines("] watching", 4, RUN_MILLIS);
            long victim = job.rankPids()[1];
            // the survivors throw first (MPJ Express's echo of a peer's death, made deterministic);
            // the victim dies while the launcher holds their errors (within its 1 s window)
            Files.createFile(dead);
            job.awaitLines("peer died", 3, RUN_MILLIS);
            new ProcessBuilder("kill", "-9", Long.toString(victim)).start().waitFor(5, TimeUnit.SECONDS);
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            List<String> failures = job.linesContaining("FAILURE");
            assertEquals(1, failures.size(), job.output());
            assertTrue(failures.get(0).contains("FAILURE: rank 1 (pid " + victim + ") killed by SIGKILL"), failures.get(0));
            for (int survivor : new int[] {0, 2, 3}) {
                List<String> echo = job.linesContaining("] rank " + survivor + " threw java.lang.IllegalStateException");
                assertEquals(1, echo.size(), job.output());
                assertTrue(echo.get(0).endsWith("(the echo of the failure above: recovered with it)"), echo.get(0));
            }
            assertEquals(1, job.linesContaining("recovering: epoch 1, re-spawning rank 1").size(), job.output());
            assertEquals(4, job.linesContaining("done in epoch 1").size(), job.output());
            assertTrue(job.linesContaining("a program error").isEmpty(), job.output());
            LauncherCleanupTest.assertNoProcessLeft(job.jobId());
        } finally {
            Files.deleteIfExists(dead);
            Files.deleteIfExists(dead.getParent());
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"fail", "respawn"})
    void aProgramErrorsStackTraceIsPrintedOnce(String policy) throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", policy, "-cp",
                LaunchedJob.testClasses().toString(), RING, "2000", "2", "throw")) {
            assertEquals(1, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(1, job.linesContaining("at mpj-world-0//" + RING + ".main(RingCheck.java:").size(), job.output());
            assertEquals(1, job.linesContaining("FAILURE").size(), job.output());
            assertTrue(job.output().contains("FAILURE: rank 2 threw java.lang.IllegalStateException: injected failure on"
                    + " rank 2"), job.output());
            LauncherCleanupTest.assertNoProcessLeft(job.jobId());
        }
    }

    @Test
    void noCheckpointProgressDuringARecoveryNorAfterTheJobCompleted() throws Exception {
        // rounds every 20 ms: several progress lines a run, one a second at most
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--standby", "0",
                "--kill", "1@round=60", "-cp", LaunchedJob.testClasses().toString(), LOOP, "200", "20")) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(3, job.linesContaining("loop done at round 200 sum " + 3L * 200 * 201 / 2).size(), job.output());
            assertEquals(1, job.linesContaining("FAILURE").size(), job.output());
            assertQuietRecovery(job.output(), 1);
            assertEquals(1, job.linesContaining("recovering: epoch 1, re-spawning rank 1").size(), job.output());
            // the events file, in order: the console's progress lines are its progress events
            List<JobEvents.Event> events = job.events();
            int recovering = indexOf(events, e -> e.type().equals("recovery_start") && e.number("epoch") == 1);
            int recovered = indexOf(events, e -> e.type().equals("recovered") && e.number("epoch") == 1);
            int completed = indexOf(events, e -> e.type().equals("message") && e.text("text").startsWith("all 3 ranks completed"));
            assertTrue(recovering >= 0 && recovered > recovering && completed > recovered, events.toString());
            for (int i = recovering; i < recovered; i++) {
                assertTrue(!events.get(i).type().equals("progress"), "progress during the recovery: " + events.get(i));
            }
            for (int i = completed; i < events.size(); i++) {
                assertTrue(!events.get(i).type().equals("progress"), "progress after completion: " + events.get(i));
            }
        }
    }

    @Test
    void anErrorDuringTheRecoveryIsLabelledARecoveryFailureNamingTheLostRanks() throws Exception {
        // m = 1 and no disk: two adjacent ranks with their stores lost cannot be restored
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--on-failure", "respawn", "--standby", "0",
                "--kill", "1,2@round=20:wipe", "-cp", LaunchedJob.testClasses().toString(), LOOP, "100000", "10")) {
            assertEquals(1, job.awaitExit(RUN_MILLIS), job.output());
            List<String> failures = job.linesContaining("FAILURE");
            assertEquals(3, failures.size(), job.output()); // the two kills, then the recovery failure
            String last = failures.get(2);
            assertTrue(last.contains("FAILURE: recovery failed (epoch 1, after the failure of ranks 1, 2): rank "), last);
            assertTrue(last.contains("io.jckpt.NotRecoverableException"), last);
            assertTrue(job.linesContaining("a program error").isEmpty(), job.output());
            // one stack trace (the launcher's), not one from the rank and one from the launcher
            assertEquals(1, job.output().lines().filter(l -> l.startsWith("io.jckpt.NotRecoverableException: ")).count(),
                    job.output());
            assertEquals(1, job.linesContaining("\tat io.jckpt.Ckpt.open(Ckpt.java:").stream()
                    .filter(l -> l.equals(job.linesContaining("\tat io.jckpt.Ckpt.open(Ckpt.java:").get(0))).count(),
                    job.output());
            LauncherCleanupTest.assertNoProcessLeft(job.jobId());
        }
    }

    /**
     * A routine recovery of {@code failed}'s SIGKILL looks like one: no stack trace, no "threw" (the
     * survivors' errors are folded into the recovery's line), no rank-tagged WARN or ERROR line, and no
     * launcher warning or error naming a rank that did not fail.
     */
    static void assertQuietRecovery(String output, int failed) {
        java.util.regex.Pattern rank = java.util.regex.Pattern.compile("\\brank (\\d+)");
        for (String line : output.lines().toList()) {
            assertTrue(!line.contains("\tat ") && !line.contains("Exception in thread") && !line.contains(" threw ")
                    && !line.startsWith("Caused by: "), "alarming line: " + line + "\n" + output);
            boolean warning = line.contains("WARN") || line.contains("ERROR");
            assertTrue(!(warning && line.startsWith("[rank ")), "a survivor's warning: " + line + "\n" + output);
            if (warning) {
                java.util.regex.Matcher named = rank.matcher(line);
                while (named.find()) {
                    assertEquals(failed, Integer.parseInt(named.group(1)), "names a rank that did not fail: " + line);
                }
            }
        }
    }

    private static int indexOf(List<JobEvents.Event> events, java.util.function.Predicate<JobEvents.Event> test) {
        for (int i = 0; i < events.size(); i++) {
            if (test.test(events.get(i))) {
                return i;
            }
        }
        return -1;
    }
}
