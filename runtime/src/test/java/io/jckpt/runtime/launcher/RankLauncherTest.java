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

/** The command line and environment of a rank's JVM, built without starting one; the probe of hosts through the remote shell (a stand-in agent). */
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
    void unreachableHostsAreThoseThatDoNotAnswerTheRemoteShellInTime(@TempDir Path home) throws Exception {
        // fake-rsh: host "unreachable" fails as ssh does (exit 255), any other runs the command here
        Path fakeRsh = Path.of(System.getProperty("jckpt.repo.root", ".")).resolve("runtime/src/test/resources/hosts/fake-rsh");
        assertEquals(new java.util.TreeSet<>(List.of("unreachable")),
                launcher(home, fakeRsh.toString()).unreachable(List.of("b", "unreachable", "a"), 20_000));
        // an agent that never answers: every host is lost once the bound has passed, and the probes are killed
        long start = System.nanoTime();
        assertEquals(new java.util.TreeSet<>(List.of("a", "b")),
                launcher(home, "sh -c 'exec sleep 60' hang").unreachable(List.of("a", "b"), 300));
        assertTrue(System.nanoTime() - start < 20_000_000_000L, "bounded by the wait, not by the agent");
    }

    private static RankLauncher launcher(Path home, String rsh) throws Exception {
        Files.writeString(home.resolve("jckpt-lib.classpath"), "/deps/a.jar\n");
        Files.writeString(home.resolve("jckpt-mpj.classpath"), "/mpj/mpj.jar\n");
        Files.writeString(home.resolve("jckpt-log.classpath"), "/log/slf4j-simple.jar\n");
        JckptHome jckpt = JckptHome.at(home);
        Path app = Files.createDirectories(home.resolve("app/org/example"));
        Files.write(app.resolve("Main.class"), new byte[] {(byte) 0xca, (byte) 0xfe});
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "2", "--host", "a,b", "--rsh", rsh, "-cp",
                home.resolve("app").toString(), "org.example.Main"});
        RankLogging logging = RankLogging.decide(spec.classPath(), jckpt.simpleBinding(), null, spec.jvmOptions());
        return new RankLauncher(spec, jckpt, logging, "job1", JobSecret.random(),
                new JobConsole(new PrintStream(OutputStream.nullOutputStream()), new PrintStream(OutputStream.nullOutputStream()),
                        true, null), event -> { });
    }
}
