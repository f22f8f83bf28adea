package io.jckpt.samples;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/setup-mpj} installs MPJ Express into the local Maven repository Maven itself would use:
 * the one {@code -Dmaven.repo.local} names (as {@code bin/install} and {@code bin/test} pass it on), the
 * one of {@code MAVEN_OPTS}, or the settings file's {@code <localRepository>}; never silently into
 * {@code ~/.m2}. Each repository starts empty; its plugins come from this build's repository through a
 * {@code file://} seed ({@link YourOwnProjectTest#seedSettings}).
 */
class SetupMpjTest {
    private static final List<String> JARS = List.of("mpj", "mpi", "mpjdev", "mpjbuf", "xdev", "niodev", "smpdev",
            "mpiExp", "runtimecommon", "starter");

    private static Path mpjLib() {
        String home = System.getenv("MPJ_HOME");
        return home != null ? Path.of(home, "lib") : Path.of("/usr/share/mpj/lib");
    }

    private static String run(Map<String, String> env, List<String> args) throws Exception {
        List<String> command = new ArrayList<>(List.of(LaunchedJob.repoRoot().resolve("bin/setup-mpj").toString()));
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        builder.environment().remove("MAVEN_OPTS");
        builder.environment().remove("MAVEN_REPO_LOCAL");
        builder.environment().putAll(env);
        Process p = builder.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(5, TimeUnit.MINUTES), out);
        assertEquals(0, p.exitValue(), out);
        return out;
    }

    private static void assertInstalledIn(Path repo, String out) throws Exception {
        assertTrue(out.contains("into " + repo + " "), out);
        for (String jar : JARS) {
            Path installed = repo.resolve("mpjexpress/" + jar + "/0.44/" + jar + "-0.44.jar");
            assertTrue(Files.isRegularFile(installed), installed + " missing: " + out);
            assertArrayEquals(Files.readAllBytes(mpjLib().resolve(jar + ".jar").toRealPath()), Files.readAllBytes(installed), jar);
        }
    }

    @Test
    void theRepositoryOfTheArgumentsOfMavenOptsAndOfTheSettingsFileIsTheOneFilled(@TempDir Path tmp) throws Exception {
        Path settings = YourOwnProjectTest.seedSettings(tmp);

        Path byArgument = tmp.resolve("by-argument");
        assertInstalledIn(byArgument, run(Map.of(), List.of("-s", settings.toString(), "-Dmaven.repo.local=" + byArgument,
                "-Djckpt.test.excludedGroups=slow"))); // an option that is not the repository's is left out
        // a second call finds the same jars there and does nothing
        assertEquals("", run(Map.of(), List.of("-s", settings.toString(), "-Dmaven.repo.local=" + byArgument)).strip());

        Path byOpts = tmp.resolve("by-maven-opts");
        assertInstalledIn(byOpts, run(Map.of("MAVEN_OPTS", "-Xmx512m -Dmaven.repo.local=" + byOpts),
                List.of("-s", settings.toString())));

        Path bySettings = tmp.resolve("by-settings");
        String text = Files.readString(settings);
        Path own = tmp.resolve("own-settings.xml");
        Files.writeString(own, text.replace("<settings>", "<settings><localRepository>\n  " + bySettings
                + "\n</localRepository>"));
        assertInstalledIn(bySettings, run(Map.of(), List.of("--settings", own.toString())));
    }
}
