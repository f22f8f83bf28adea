package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.testkit.LaunchedJob;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The launcher's clean-up of node-local stores (/dev/shm) and processes: on SIGTERM / SIGINT, at
 * a job's start (stores whose launcher is gone) and with {@code ckpt-run --clean}. Real launcher
 * processes, real signals, real store directories.
 */
class LauncherCleanupTest {
    private static final String STORE_UNTIL = "io.jckpt.runtime.programs.StoreUntil";
    private static final long RUN_MILLIS = 60_000;

    @ParameterizedTest
    @ValueSource(strings = {"TERM", "INT"})
    void aSignalOnTheLauncherLeavesNoStoreNoRankAndNoStandby(String signal) throws Exception {
        Path stop = Files.createTempDirectory("jckpt-cleanup-test").resolve("stop");
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--standby", "1", "-cp",
                LaunchedJob.testClasses().toString(), STORE_UNTIL, stop.toString())) {
            job.awaitLines("] checkpointed", 3, RUN_MILLIS);
            job.awaitLine("standby 0 ready (pid ", RUN_MILLIS);
            String jobId = job.jobId();
            Path store = CkptOptions.defaultMemoryDirectory().resolve(jobId);
            for (int rank = 0; rank < 3; rank++) {
                assertTrue(Files.isDirectory(store.resolve("rank-" + rank)), "no store of rank " + rank + " in " + store);
            }
            assertEquals(4, LaunchedJob.processesOfJob(jobId).size(), "3 ranks and a standby: " + job.output());
            new ProcessBuilder("kill", "-" + signal, Long.toString(job.launcherPid())).start().waitFor(5, TimeUnit.SECONDS);
            int status = job.awaitExit(10_000);
            assertEquals(128 + (signal.equals("TERM") ? 15 : 2), status, job.output());
            assertTrue(job.output().contains("launcher interrupted: stopping all ranks and standbys"), job.output());
            assertTrue(job.output().contains("node-local stores of job " + jobId + " deleted"), job.output());
            assertFalse(Files.exists(store), store + " left behind: " + job.output());
            assertNoProcessLeft(jobId);
            assertTrue(job.linesContaining("FAILURE").isEmpty(), "the launcher's own SIGKILLs are no failures: "
                    + job.output());
        } finally {
            Files.deleteIfExists(stop.getParent());
        }
    }

    @Test
    void aJobWithAnExplicitIdKeepsItsStoreOnSigtermUntilClean() throws Exception {
        Path stop = Files.createTempDirectory("jckpt-cleanup-test").resolve("stop");
        String jobId = "cleanup-test-" + UUID.randomUUID().toString().substring(0, 8);
        Path store = CkptOptions.defaultMemoryDirectory().resolve(jobId);
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "--job-id", jobId, "-cp", LaunchedJob.testClasses().toString(),
                STORE_UNTIL, stop.toString())) {
            job.awaitLines("] checkpointed", 2, RUN_MILLIS);
            new ProcessBuilder("kill", "-TERM", Long.toString(job.launcherPid())).start().waitFor(5, TimeUnit.SECONDS);
            assertEquals(128 + 15, job.awaitExit(10_000), job.output());
            assertTrue(job.output().contains("kept for a restart with --job-id " + jobId), job.output());
            assertNoProcessLeft(jobId);
            assertTrue(Files.isDirectory(store.resolve("rank-1")), job.output());
            assertTrue(owner(store).contains("keep=true"), owner(store));
            // another job's start does not remove a store kept for a restart
            runShortJob();
            assertTrue(Files.isDirectory(store.resolve("rank-1")), "a kept store was removed by another job's start");
            String cleaned = clean("--job-id", jobId);
            assertTrue(cleaned.contains("removed the node-local store of job " + jobId), cleaned);
            assertFalse(Files.exists(store), cleaned);
        } finally {
            deleteTree(store);
            Files.deleteIfExists(stop.getParent());
        }
    }

    @Test
    void staleStoresAreRemovedAtTheNextStartAndByCleanLiveOnesAreNot() throws Exception {
        Path base = CkptOptions.defaultMemoryDirectory();
        String tag = "stale-test-" + UUID.randomUUID().toString().substring(0, 8);
        ProcessHandle me = ProcessHandle.current();
        long myStart = me.info().startInstant().orElseThrow().toEpochMilli();
        Process ended = new ProcessBuilder("true").start();
        ended.waitFor(10, TimeUnit.SECONDS);
        long deadPid = ended.pid();
        assertFalse(ProcessHandle.of(deadPid).map(ProcessHandle::isAlive).orElse(false));
        Path dead = fakeStore(base, tag + "-dead", "pid=" + deadPid + "\nstarted=" + myStart + "\nkeep=false\n");
        // a live pid (this JVM) with another start time: the pid was reused, its launcher is gone
        Path reused = fakeStore(base, tag + "-reused", "pid=" + me.pid() + "\nstarted=" + (myStart - 3_600_000)
                + "\nkeep=false\n");
        Path live = fakeStore(base, tag + "-live", "pid=" + me.pid() + "\nstarted=" + myStart + "\nkeep=false\n");
        Path kept = fakeStore(base, tag + "-kept", "pid=" + deadPid + "\nstarted=" + myStart + "\nkeep=true\n");
        Path foreign = fakeStore(base, tag + "-foreign", null);
        try {
            String output = runShortJob();
            assertFalse(Files.exists(dead), output);
            assertFalse(Files.exists(reused), output);
            assertTrue(output.contains("removed the node-local store of job " + tag + "-dead"), output);
            assertTrue(Files.isDirectory(live.resolve("rank-0")), output);
            assertTrue(Files.isDirectory(kept.resolve("rank-0")), output);
            assertTrue(Files.isDirectory(foreign.resolve("rank-0")), output);

            String cleaned = clean();
            assertTrue(cleaned.contains("removed the node-local store of job " + tag + "-kept"), cleaned);
            assertFalse(Files.exists(kept), cleaned);
            assertTrue(cleaned.contains("job " + tag + "-live: its launcher (pid " + me.pid() + ") runs"), cleaned);
            assertTrue(Files.isDirectory(live.resolve("rank-0")), cleaned);
            assertTrue(Files.isDirectory(foreign.resolve("rank-0")), "a store without owner file is never touched");
        } finally {
            for (Path p : List.of(dead, reused, live, kept, foreign)) {
                deleteTree(p);
            }
        }
    }

    @Test
    void cleanWithBadArgumentsIsAUsageError() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("--clean", "--job-id", "no/slashes")) {
            assertEquals(2, job.awaitExit(RUN_MILLIS), job.output());
            assertTrue(job.output().startsWith("ckpt-run: usage: ckpt-run --clean [--job-id ID]"), job.output());
        }
    }

    private static Path fakeStore(Path base, String jobId, String owner) throws IOException {
        Path dir = base.resolve(jobId);
        Files.createDirectories(dir.resolve("rank-0"));
        Files.write(dir.resolve("rank-0").resolve("o0-v0.slot"), new byte[4096]);
        if (owner != null) {
            Files.writeString(dir.resolve("launcher.owner"), owner, StandardCharsets.UTF_8);
        }
        return dir;
    }

    private static String runShortJob() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "-cp", LaunchedJob.testClasses().toString(),
                "io.jckpt.runtime.programs.RingCheck", "10")) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            return job.output();
        }
    }

    private static String clean(String... args) throws Exception {
        String[] all = new String[args.length + 1];
        all[0] = "--clean";
        System.arraycopy(args, 0, all, 1, args.length);
        try (LaunchedJob job = LaunchedJob.start(all)) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            return job.output();
        }
    }

    private static String owner(Path store) throws IOException {
        return Files.readString(store.resolve("launcher.owner"), StandardCharsets.UTF_8);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    static void assertNoProcessLeft(String jobId) throws InterruptedException {
        List<Long> left = LaunchedJob.processesLeft(jobId, 5_000);
        assertTrue(left.isEmpty(), "processes of job " + jobId + " left behind: " + left);
    }
}
