package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The launcher's command line (picocli): both value forms, the documented aliases, --help and
 * --version, and usage errors that are one short line naming the fix.
 */
class LauncherCliTest {
    /** A class that exists on the test class path, to launch nothing but parse a whole line. */
    private static final String MAIN = LauncherCliTest.class.getName();
    private static final String CP = Path.of(System.getProperty("jckpt.repo.root", "."))
            .resolve("runtime/target/test-classes").toString();

    @Test
    void bothValueFormsAndEveryAliasGiveTheSameSpec() throws Exception {
        LaunchSpec spaced = LaunchSpec.parse(new String[] {"-np", "3", "--on-failure", "respawn", "--replicas", "2",
                "--kill", "1@round=3", "-cp", CP, MAIN, "--not-ours", "@file"});
        LaunchSpec equals = LaunchSpec.parse(new String[] {"-np=3", "--on-failure=respawn", "--replicas=2",
                "--kill=1@round=3", "--class-path=" + CP, MAIN, "--not-ours", "@file"});
        LaunchSpec aliases = LaunchSpec.parse(new String[] {"-n", "3", "--on-failure", "respawn", "--replicas", "2",
                "--kill", "1@round=3", "-classpath", CP, MAIN, "--not-ours", "@file"});
        for (LaunchSpec spec : List.of(spaced, equals, aliases)) {
            assertEquals(3, spec.worldSize());
            assertEquals(LaunchSpec.FailurePolicy.RESPAWN, spec.onFailure());
            assertEquals("2", spec.settings().get(io.jckpt.JobSettings.Setting.REPLICAS));
            assertEquals(1, spec.kills().size());
            assertEquals(MAIN, spec.mainClass());
            assertEquals(List.of("--not-ours", "@file"), spec.programArgs(), "the program's arguments are its own");
        }
        assertEquals(3, LaunchSpec.parse(new String[] {"--np", "3", "-cp", CP, MAIN}).worldSize());
        assertTrue(LaunchSpec.parse(new String[] {"-np", "1", "-q", "-cp", CP, MAIN}).quiet());
        assertEquals(List.of("-Xmx64m", "-Dx=1"), LaunchSpec.parse(new String[] {"-np", "1", "--jvm-opt", "-Xmx64m",
                "--jvm-opt=-Dx=1", "-cp", CP, MAIN}).jvmOptions(), "JVM options that look like options are values");
    }

    @Test
    void helpAndVersionArePrintedNotErrors() {
        UsageException help = assertThrows(UsageException.class, () -> LaunchSpec.parse(new String[] {"--help"}));
        assertTrue(help.help());
        assertTrue(help.getMessage().contains("-np N, -n N, --np N") && help.getMessage().contains("--opt=VALUE"),
                help.getMessage());
        UsageException version = assertThrows(UsageException.class, () -> LaunchSpec.parse(new String[] {"--version"}));
        assertTrue(version.help());
        assertTrue(version.getMessage().matches("ckpt-run \\(jckpt\\) \\d+\\.\\d+\\.\\d+.*"), version.getMessage());
    }

    @Test
    void usageErrorsAreOneShortLineNamingTheFix() {
        assertError("unknown option --lgo (did you mean --log", "-np", "2", "--lgo", "x", "-cp", CP, MAIN);
        assertError("unknown option --replica (did you mean --replicas", "-np", "2", "--replica", "1", "-cp", CP, MAIN);
        assertError("--log needs a value; see ckpt-run --help", "-np", "2", "--log");
        assertError("-np N is required; see ckpt-run --help", "-cp", CP, MAIN);
        assertError("no main class given", "-np", "2", "-cp", CP);
        assertError("main class org.example.Missing not found on class path", "-np", "2", "-cp", CP, "org.example.Missing");
        assertError("-cp: class path entry /nonexistent/app.jar does not exist", "-np", "2", "-cp",
                CP + java.io.File.pathSeparator + "/nonexistent/app.jar", MAIN);
    }

    private static void assertError(String expected, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> LaunchSpec.parse(args));
        assertFalse(e.help());
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
        assertTrue(e.getMessage().length() <= 200, "short: " + e.getMessage().length() + " characters: " + e.getMessage());
    }
}
