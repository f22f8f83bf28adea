package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.JobEvents;
import io.jckpt.testkit.LaunchedJob;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What a job says about its disk level, through the launcher: an unusable directory (a fatal error
 * at open, or one warning with {@code diskUnavailable(MEMORY_ONLY)}), a directory that breaks
 * mid-run (one line per rank and reason, a summary at close), a damaged generation skipped at a
 * restart (named), and the {@code CkptStats} counters. Real launcher, real files.
 */
class DiskLevelLaunchTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";
    private static final long RUN_MILLIS = 90_000;
    /** 20 rounds of 3 ranks: the sum of 3 x (1 + ... + 20). */
    private static final String RESULT = "loop done at round 20 sum " + 3 * 20 * 21 / 2;

    @TempDir
    Path tmp;

    private static LaunchedJob loop(List<String> launcher, String... program) throws Exception {
        List<String> args = new java.util.ArrayList<>(List.of("-np", "3"));
        args.addAll(launcher);
        args.addAll(List.of("-cp", LaunchedJob.testClasses().toString(), LOOP));
        args.addAll(List.of(program));
        return LaunchedJob.start(args.toArray(new String[0]));
    }

    @Test
    void anUnusableDiskDirectoryFailsAtOpenNamingItTheRankAndWhy() throws Exception {
        Path notADirectory = Files.writeString(tmp.resolve("a-file"), "x");
        Path disk = notADirectory.resolve("ckpt");
        try (LaunchedJob job = loop(List.of(), "20", "5", disk.toString(), "5")) {
            assertEquals(1, job.awaitExit(RUN_MILLIS), job.output());
            List<String> failures = job.linesContaining("FAILURE");
            assertEquals(1, failures.size(), job.output());
            String failure = failures.get(0);
            assertTrue(failure.contains(disk + ": rank "), failure);
            assertTrue(failure.contains("the disk directory cannot be used"), failure);
            assertTrue(failure.contains("Not a directory"), failure);
            assertTrue(failure.contains("diskUnavailable(DiskUnavailable.MEMORY_ONLY)"), failure);
            assertTrue(job.linesContaining("loop done").isEmpty(), job.output());
        }
    }

    @Test
    void memoryOnlyRunsWithoutTheDiskLevelAndOneWarningLine() throws Exception {
        Path disk = Files.writeString(tmp.resolve("a-file"), "x").resolve("ckpt");
        try (LaunchedJob job = loop(List.of(), "20", "5", disk.toString(), "5", "memory-only")) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(3, job.linesContaining(RESULT).size(), job.output());
            List<String> warnings = job.linesContaining("WARNING");
            assertEquals(1, warnings.size(), job.output());
            assertTrue(warnings.get(0).contains("disk level off (diskUnavailable MEMORY_ONLY): the disk directory " + disk
                    + " cannot be used on ranks 0, 1, 2: "), warnings.get(0));
            assertEquals(3, job.linesContaining("stats diskCheckpoints=0 diskCommits=0 diskFailures=0 diskRatio=0 ")
                    .size(), job.output());
            assertTrue(job.linesContaining("disk level at close").isEmpty(), job.output());
        }
    }

    @Test
    void commitsAreCountedAndSummedUpAtClose() throws Exception {
        try (LaunchedJob job = loop(List.of(), "20", "5", tmp.toString(), "5")) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(3, job.linesContaining(RESULT).size(), job.output());
            // rounds 5, 10, 15, 20 go to disk; rank 0 commits each generation once every file is durable
            assertEquals(1, job.linesContaining("[rank 0] stats diskCheckpoints=4 diskCommits=4 diskFailures=0"
                    + " diskRatio=5 recoveries=0 rollbacks=0").size(), job.output());
            assertEquals(2, job.linesContaining("stats diskCheckpoints=4 diskCommits=0 diskFailures=0 diskRatio=5")
                    .size(), job.output());
            assertEquals(1, job.linesContaining("rank 0: disk level at close: 4 generations committed, 0 disk rounds"
                    + " failed, 0 not complete on every rank (4 disk rounds taken here)").size(), job.output());
            assertTrue(job.linesContaining("WARNING").isEmpty(), job.output());
        }
    }

    @Test
    void aDiskThatBreaksMidRunIsOneLinePerRankAndCountedAtClose() throws Exception {
        String jobId = "disk-breaks-" + UUID.randomUUID().toString().substring(0, 8);
        Path jobDir = tmp.resolve(jobId);
        try (LaunchedJob job = loop(List.of("--job-id", jobId), "60", "40", tmp.toString(), "5")) {
            job.awaitLine("rank 0: disk generation of round 5 committed", RUN_MILLIS);
            // the job's directory becomes a regular file: every later disk round fails on every rank
            try (java.util.stream.Stream<Path> files = Files.list(jobDir)) {
                for (Path f : files.toList()) {
                    Files.delete(f);
                }
            }
            Files.delete(jobDir);
            Files.writeString(jobDir, "not a directory any more");
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(3, job.linesContaining("loop done at round 60 sum " + 3 * 60 * 61 / 2).size(), job.output());
            // one line per rank and reason (a flush running at the moment of the break may fail for
            // another reason than the later ones), not one per round (at least 5 failed rounds per rank)
            for (int rank = 0; rank < 3; rank++) {
                int lines = job.linesContaining("rank " + rank + ": WARNING: disk round ").size();
                assertTrue(lines >= 1 && lines <= 2, "rank " + rank + ": " + lines + " lines: " + job.output());
            }
            String summary = job.awaitLine("rank 0: disk level at close: ", 1_000).text();
            // the figures from the events file: rank 0's commits, and its totals at close
            List<JobEvents.Event> events = job.events();
            long committed = JobEvents.ofType(events, "disk_commit").stream().filter(e -> e.number("rank") == 0).count();
            JobEvents.Event totals = JobEvents.first(events, "rank_totals", e -> e.number("rank") == 0);
            assertTrue(totals != null, "no rank_totals of rank 0: " + events);
            long failed = totals.number("disk_failed");
            assertTrue(committed >= 1 && failed >= 5, committed + " committed, " + failed + " failed: " + summary);
            assertTrue(summary.contains(committed + " generation" + (committed == 1 ? "" : "s") + " committed, " + failed
                    + " disk round"), summary);
            String stats = job.linesContaining("[rank 0] stats ").get(0);
            assertTrue(stats.contains("diskCommits=" + committed + " diskFailures=" + failed), stats + " / " + summary);
        } finally {
            Files.deleteIfExists(jobDir);
        }
    }

    @Test
    void aDamagedGenerationSkippedAtARestartIsNamed() throws Exception {
        String jobId = "disk-damaged-" + UUID.randomUUID().toString().substring(0, 8);
        try (LaunchedJob first = loop(List.of("--job-id", jobId), "20", "5", tmp.toString(), "5")) {
            assertEquals(0, first.awaitExit(RUN_MILLIS), first.output());
        }
        Path damaged = tmp.resolve(jobId).resolve(String.format("round-%019d.rank-%06d.jckpt", 20, 1));
        assertTrue(Files.exists(damaged), damaged + " not written");
        try (RandomAccessFile raf = new RandomAccessFile(damaged.toFile(), "rw")) {
            raf.seek(raf.length() - 3);
            int b = raf.read();
            raf.seek(raf.length() - 3);
            raf.write(b ^ 0x40);
        }
        // the same job id again: it restores from the newest intact generation (round 15)
        try (LaunchedJob again = loop(List.of("--job-id", jobId), "20", "5", tmp.toString(), "5")) {
            assertEquals(0, again.awaitExit(RUN_MILLIS), again.output());
            List<String> skipped = again.linesContaining("skipped");
            assertEquals(1, skipped.size(), again.output());
            assertTrue(skipped.get(0).contains("rank 0: WARNING: newer disk generation skipped: round 20: rank 1 DAMAGED"
                    + " (file " + damaged + ": IMAGE_CRC_MISMATCH"), skipped.get(0));
            assertTrue(skipped.get(0).endsWith("restoring the generation of round 15"), skipped.get(0));
            assertEquals(3, again.linesContaining("restored at round 16").size(), again.output());
            assertEquals(3, again.linesContaining(RESULT).size(), again.output());
            assertEquals(3, again.linesContaining("recoveries=1 rollbacks=1").size(), again.output());
        }
    }
}
