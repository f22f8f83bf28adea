package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint settings per job through the launcher: the program's builder call beats the launcher's
 * option, which beats a system property of the rank JVM, which beats the environment; the job's
 * first lines say what is in effect and where each came from.
 */
class JobSettingsLaunchTest {
    private static final String PROGRAM = "io.jckpt.runtime.programs.SettingsProbe";

    @Test
    void eachSettingComesFromTheStrongestSourceThatGivesIt(@TempDir Path tmp) throws Exception {
        Path memory = Files.createDirectories(tmp.resolve("shm"));
        Map<String, String> env = Map.of(
                "JCKPT_REPLICAS", "1",          // beaten by --replicas
                "JCKPT_DISK_RATIO", "7",        // beaten by --disk-ratio, then by the program's own call
                "JCKPT_MAX_MEMORY", "256m",     // beaten by -Djckpt.maxMemory on the rank JVMs
                "JCKPT_MEMORY_DIR", "/nonexistent/ignored", // beaten by --memory-dir
                // the second beaten by --jvm-opt; a property given twice: the JVM takes the last one, so do the lines
                "JCKPT_JVM_OPTS", " -Djckpt.test.site=env   -Djckpt.test.both=env -Djckpt.nodeMtbf=5y ");
        try (LaunchedJob job = LaunchedJob.startWithEnvironment(env, "-np", "3", "--on-failure", "respawn",
                "--standby", "1", "--replicas", "2", "--disk-ratio", "9",
                "--memory-dir", memory.toString(), "--jvm-opt", "-Djckpt.maxMemory=128m", "--jvm-opt", "-Djckpt.test.both=cli",
                "--jvm-opt", "-Djckpt.nodeMtbf=90m", "--interval", "calls:5",
                "-cp", LaunchedJob.testClasses().toString(), PROGRAM, "3")) {
            assertEquals(0, job.awaitExit(120_000), job.output());
            // the launcher's line, before any rank starts: the ranks' settings as they will compute them
            String launcher = lineAfter(job, "checkpoint settings (the program's own builder calls win): ");
            assertEquals("replicas=2 (--replicas), disk=none (default), diskRatio=9 (--disk-ratio), memoryDir=" + memory
                    + " (--memory-dir), maxMemory=128 MiB (-Djckpt.maxMemory), interval=calls:5 (--interval),"
                    + " nodeMtbf=90m (-Djckpt.nodeMtbf)", launcher);
            // rank 0 at open: what is in effect; the same line but where the program's own call won, which it names
            String effective = lineAfter(job, "rank 0: checkpoint settings: ");
            assertEquals(launcher.replace("diskRatio=9 (--disk-ratio)", "diskRatio=3 (program, over --disk-ratio 9)"),
                    effective);
            // and every rank really runs with them
            List<String> ranks = job.linesContaining("effective replicas=2 diskRatio=3 maxMemory=" + (128L << 20)
                    + " memoryDir=" + memory + " diskLevelRatio=0 interval=calls:5" // no disk directory: the level is off
                    + " site=env both=cli"); // JCKPT_JVM_OPTS reached every rank JVM, before the --jvm-opts
            assertEquals(3, ranks.size(), job.output());
            // the stores (and the standby's rehearsal) lived under --memory-dir, and the launcher removed them at the end
            assertFalse(Files.exists(memory.resolve(job.jobId())), "the job's stores were not removed");
        }
    }

    /** @return the text after {@code prefix} on the one line of the job's output that holds it */
    private static String lineAfter(LaunchedJob job, String prefix) {
        List<String> lines = job.linesContaining(prefix);
        assertEquals(1, lines.size(), job.output());
        return lines.get(0).substring(lines.get(0).indexOf(prefix) + prefix.length());
    }

    @Test
    void aBadSettingIsAUsageErrorNamingIt() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "--replicas", "2", "-cp",
                LaunchedJob.testClasses().toString(), PROGRAM)) {
            assertEquals(2, job.awaitExit(60_000), job.output());
            assertTrue(job.output().contains("--replicas 2 needs more ranks"), job.output());
        }
        try (LaunchedJob job = LaunchedJob.startWithEnvironment(Map.of("JCKPT_DISK_RATIO", "often"), "-np", "2", "-cp",
                LaunchedJob.testClasses().toString(), PROGRAM)) {
            assertEquals(2, job.awaitExit(60_000), job.output());
            assertTrue(job.output().contains("environment variable JCKPT_DISK_RATIO=often: must be a whole number"), job.output());
        }
        // checked before any rank starts: more replicas than the world holds, a disk directory that cannot be made
        try (LaunchedJob job = LaunchedJob.startWithEnvironment(Map.of("JCKPT_REPLICAS", "5"), "-np", "4", "-cp",
                LaunchedJob.testClasses().toString(), PROGRAM)) {
            assertEquals(2, job.awaitExit(60_000), job.output());
            assertTrue(job.output().contains("environment variable JCKPT_REPLICAS=5 needs more ranks: a rank's copies live"
                    + " on the other ranks, so at most -np - 1 = 3"), job.output());
            assertFalse(job.output().contains("ranks running"), "no rank started: " + job.output());
        }
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--jvm-opt", "-Djckpt.replicas=3", "-cp",
                LaunchedJob.testClasses().toString(), PROGRAM)) { // a rank JVM's property counts before launch too
            assertEquals(2, job.awaitExit(60_000), job.output());
            assertTrue(job.output().contains("rank JVM option -Djckpt.replicas=3 needs more ranks"), job.output());
            assertFalse(job.output().contains("ranks running"), "no rank started: " + job.output());
        }
        try (LaunchedJob job = LaunchedJob.startWithEnvironment(Map.of("JCKPT_JVM_OPTS", "-Djckpt.disk=/proc/jckpt-test/d"),
                "-np", "2", "-cp", LaunchedJob.testClasses().toString(), PROGRAM)) {
            assertEquals(2, job.awaitExit(60_000), job.output());
            assertTrue(job.output().contains("rank JVM option -Djckpt.disk=/proc/jckpt-test/d: the disk directory cannot"
                    + " be made"), job.output());
        }
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "--max-memory", "64T", "-cp",
                LaunchedJob.testClasses().toString(), PROGRAM)) { // a cap this host's memory can never hold
            assertEquals(2, job.awaitExit(60_000), job.output());
            assertTrue(job.output().contains("--max-memory 64T: more than this host's memory ("), job.output());
            assertFalse(job.output().contains("ranks running"), "no rank started: " + job.output());
        }
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "--disk", "/proc/jckpt-test/disk", "-cp",
                LaunchedJob.testClasses().toString(), PROGRAM)) {
            assertEquals(2, job.awaitExit(60_000), job.output());
            assertTrue(job.output().contains("--disk /proc/jckpt-test/disk: the disk directory cannot be made"), job.output());
        }
        try (LaunchedJob job = LaunchedJob.startWithEnvironment(Map.of("JCKPT_JVM_OPTS", "-Xmx64m Xss1m"), "-np", "2",
                "-cp", LaunchedJob.testClasses().toString(), PROGRAM)) {
            assertEquals(2, job.awaitExit(60_000), job.output());
            assertTrue(job.output().contains("JCKPT_JVM_OPTS holds 'Xss1m', which is not a JVM option"), job.output());
        }
    }
}
