package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.rank.RankEnvironment;
import io.jckpt.runtime.rank.RankMain;
import java.io.File;
import java.io.PrintStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line and environment of a rank's JVM, built without starting one; the kill of a failed rank's
 * process and the end-of-job clean-up on hosts through the remote shell (a stand-in agent that runs the
 * command here), against real processes.
 */
class RankLauncherTest {

    @Test
    void rankJvmGetsTheLibraryClassPathTheFlagsTheProgramAndItsRankEnvironment(@TempDir Path home) throws Exception {
        Files.writeString(home.resolve("jckpt-lib.classpath"), "/deps/a.jar" + File.pathSeparator + "/deps/b.jar\n");
        Files.writeString(home.resolve("jckpt-mpj.classpath"), "/mpj/mpj.jar\n");
        Files.writeString(home.resolve("jckpt-log.classpath"), "/log/slf4j-simple.jar\n");
        JckptHome jckpt = JckptHome.at(home);
        Path app = home.resolve("app");
        Files.createDirectories(app.resolve("org/example"));
        Files.write(app.resolve("org/example/Main.class"), new byte[] {(byte) 0xca, (byte) 0xfe});
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "3", "-cp", app.toString(), "--jvm-opt", "-Xmx256m",
                "--on-failure", "respawn", "--detector", "heartbeat:800", "--replicas", "2", "org.example.Main", "x", "-y"});
        RankLogging logging = RankLogging.decide(spec.classPath(), jckpt.simpleBinding(), null, spec.jvmOptions());
        JobSecret secret = JobSecret.random();
        try (JobConsole console = new JobConsole(new PrintStream(OutputStream.nullOutputStream()),
                new PrintStream(OutputStream.nullOutputStream()), true, null)) {
            RankLauncher launcher = new RankLauncher(spec, jckpt, logging, "job1", secret, console, event -> { });
            launcher.controlPort(4711);
            byte[] key = io.jckpt.image.ImageKey.newJobKey();
            launcher.jobKey(key);

            List<String> expected = new ArrayList<>();
            expected.add(JckptHome.javaExecutable());
            expected.addAll(jckpt.jvmFlags());
            expected.addAll(logging.jvmFlags());
            expected.add("-Xmx256m");
            expected.add("-cp");
            expected.add(String.join(File.pathSeparator, home.resolve("classes").toAbsolutePath().toString(),
                    "/deps/a.jar", "/deps/b.jar", "/log/slf4j-simple.jar"));
            expected.addAll(List.of(RankMain.class.getName(), "org.example.Main", "x", "-y"));
            assertEquals(expected, launcher.javaCommand(RankMain.class.getName()));

            Map<String, String> env = launcher.rankEnvironment(2, 5, true, "mpj conf text");
            assertEquals("2", env.get(RankEnvironment.RANK));
            assertEquals("3", env.get(RankEnvironment.SIZE));
            assertEquals("5", env.get(RankEnvironment.EPOCH));
            assertEquals("true", env.get(RankEnvironment.NEW_RANK));
            assertEquals("true", env.get(RankEnvironment.RECOVERY));
            assertEquals("job1", env.get(RankEnvironment.JOB_ID));
            assertEquals(secret.toHex(), env.get(RankEnvironment.SECRET));
            assertEquals(java.util.HexFormat.of().formatHex(key), env.get(RankEnvironment.JOB_KEY));
            assertArrayEquals(key, new RankEnvironment(env).jobKey());
            assertEquals(LaunchSpec.LOOPBACK + ":4711", env.get(RankEnvironment.CONTROL));
            assertEquals("mpj conf text", env.get(RankEnvironment.MPJ_CONF));
            assertEquals("niodev", env.get(RankEnvironment.DEVICE));
            assertEquals("respawn", env.get(RankEnvironment.ON_FAILURE));
            assertEquals("200", env.get(RankEnvironment.HEARTBEAT_MILLIS), "a quarter of the timeout");
            assertEquals("/mpj/mpj.jar", env.get(RankEnvironment.MPJ_CLASSPATH));
            assertEquals(app.toString(), env.get(RankEnvironment.APP_CLASSPATH));
            assertEquals("2", env.get(io.jckpt.JobSettings.Setting.REPLICAS.launcherVariable()));
            assertEquals(jckpt.mpjHome().toString(), env.get("MPJ_HOME"));
            assertNull(env.get(RankEnvironment.STANDBY));

            Map<String, String> first = launcher.rankEnvironment(0, 0, false, "conf");
            assertEquals("false", first.get(RankEnvironment.NEW_RANK));
            assertEquals("false", first.get(RankEnvironment.RECOVERY));
            assertFalse(launcher.tearingDown());
            assertFalse(launcher.anyAlive());
        }
    }

    @Test
    void theKillOfAFailedProcessAndTheCleanUpAtTheEndTouchOnlyTheJobsProcesses(@TempDir Path home) throws Exception {
        Path fakeRsh = Path.of(System.getProperty("jckpt.repo.root", ".")).resolve("runtime/src/test/resources/hosts/fake-rsh");
        String job = "kill-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
        RankLauncher launcher = launcher(home, fakeRsh.toString(), job, new PrintStream(out, true));
        Process failed = sleeper(job);
        Process left = sleeper(job);
        Process otherJob = sleeper(job + "0"); // an id that starts with this one's
        try {
            assertEquals(0, run(launcher, launcher.killCommand(failed.pid())), "killed");
            assertTrue(failed.waitFor(10, java.util.concurrent.TimeUnit.SECONDS));
            assertEquals(RankLauncher.KILL_GONE, run(launcher, launcher.killCommand(failed.pid())), "already gone");
            assertEquals(RankLauncher.KILL_GONE, run(launcher, launcher.killCommand(otherJob.pid())), "not the job's");
            assertTrue(otherJob.isAlive());

            Path memory = Files.createDirectories(home.resolve("shm"));
            Path store = Files.createDirectories(memory.resolve(job).resolve("rank-0"));
            Files.writeString(store.resolve("image"), "bytes");
            launcher.cleanRemoteHosts(List.of("a"), List.of(), memory, false);
            assertTrue(left.waitFor(10, java.util.concurrent.TimeUnit.SECONDS), "the job's process left there is killed");
            assertTrue(otherJob.isAlive(), "another job's process is not");
            assertTrue(Files.exists(store.resolve("image")), "stores kept when asked");
            assertTrue(out.toString().contains("host a: processes of job " + job + " left there killed (pid " + left.pid() + ")"),
                    out.toString());
            launcher.cleanRemoteHosts(List.of("a"), List.of("unreachable"), memory, true);
            assertFalse(Files.exists(memory.resolve(job)), "stores removed");
        } finally {
            for (Process p : List.of(failed, left, otherJob)) {
                p.destroyForcibly();
            }
        }
    }

    /** A process whose environment names job {@code job}, as a rank's does. */
    private static Process sleeper(String job) throws java.io.IOException {
        ProcessBuilder b = new ProcessBuilder("sleep", "600");
        b.environment().put(RankEnvironment.JOB_ID, job);
        return b.start();
    }

    private static int run(RankLauncher launcher, List<String> command) throws Exception {
        Process p = launcher.startOn("a", command);
        assertTrue(p.waitFor(20, java.util.concurrent.TimeUnit.SECONDS), command.toString());
        return p.exitValue();
    }

    private static RankLauncher launcher(Path home, String rsh, String jobId, PrintStream out) throws Exception {
        Files.writeString(home.resolve("jckpt-lib.classpath"), "/deps/a.jar\n");
        Files.writeString(home.resolve("jckpt-mpj.classpath"), "/mpj/mpj.jar\n");
        Files.writeString(home.resolve("jckpt-log.classpath"), "/log/slf4j-simple.jar\n");
        JckptHome jckpt = JckptHome.at(home);
        Path app = Files.createDirectories(home.resolve("app/org/example"));
        Files.write(app.resolve("Main.class"), new byte[] {(byte) 0xca, (byte) 0xfe});
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "2", "--host", "a,b", "--rsh", rsh, "-cp",
                home.resolve("app").toString(), "org.example.Main"});
        RankLogging logging = RankLogging.decide(spec.classPath(), jckpt.simpleBinding(), null, spec.jvmOptions());
        return new RankLauncher(spec, jckpt, logging, jobId, JobSecret.random(), new JobConsole(out, out, true, null),
                event -> { });
    }
}
