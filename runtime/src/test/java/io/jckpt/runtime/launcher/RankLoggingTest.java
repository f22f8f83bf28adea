package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Logging that respects the program: a program that brings logback and a logback.xml gets them, for
 * its own loggers and the library's; a program that brings none gets the launcher's slf4j-simple with
 * its INFO lines shown and the library's loggers at {@code --log-level}.
 */
class RankLoggingTest {
    private static final String PROGRAM = "io.jckpt.runtime.programs.LoggingProgram";
    /** logback-classic and logback-core, copied by the build (never on the tests' own class path). */
    private static final Path LOGBACK = LaunchedJob.repoRoot().resolve("runtime/target/logback");

    private static List<String> logbackJars() throws Exception {
        try (var files = Files.list(LOGBACK)) {
            return files.filter(f -> f.toString().endsWith(".jar")).map(Path::toString).sorted().toList();
        }
    }

    private static Path logbackConfig(Path dir) throws Exception {
        Files.writeString(dir.resolve("logback.xml"), """
                <configuration>
                  <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
                    <encoder><pattern>LOGBACK-OF-THE-PROGRAM|%level|%logger|%msg%n</pattern></encoder>
                  </appender>
                  <logger name="io.jckpt" level="DEBUG"/>
                  <root level="INFO"><appender-ref ref="OUT"/></root>
                </configuration>
                """);
        return dir;
    }

    @Test
    void theProgramsLogbackConfigurationTakesEffectForProgramAndLibrary(@TempDir Path conf) throws Exception {
        List<String> cp = new ArrayList<>();
        cp.add(LaunchedJob.testClasses().toString());
        cp.add(logbackConfig(conf).toString());
        cp.addAll(logbackJars());
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "-cp", String.join(File.pathSeparator, cp), PROGRAM)) {
            assertEquals(0, job.awaitExit(120_000), job.output());
            for (int rank = 0; rank < 2; rank++) {
                assertEquals(1, job.linesContaining("[rank " + rank + "] LOGBACK-OF-THE-PROGRAM|INFO|org.example.Program"
                        + "|program info line from rank " + rank).size(), job.output());
                // the program's configuration also sets the library's loggers (io.jckpt at DEBUG there)
                assertEquals(1, job.linesContaining("[rank " + rank + "] LOGBACK-OF-THE-PROGRAM|DEBUG|io.jckpt.probe"
                        + "|library debug line from rank " + rank).size(), job.output());
            }
            assertEquals(2, job.linesContaining("logger factory ch.qos.logback.classic.LoggerContext same as the library's: true")
                    .size(), job.output());
            List<String> logging = job.linesContaining("logging: the program's SLF4J binding (logback-classic-");
            assertEquals(1, logging.size(), job.output());
            assertTrue(logging.get(0).contains("logback-core-") && logging.get(0).contains(conf.resolve("logback.xml").toUri().toString()),
                    logging.get(0));
            assertTrue(job.linesContaining("No SLF4J providers").isEmpty(), job.output());
            assertTrue(job.linesContaining("multiple SLF4J providers").isEmpty(), job.output());
        }
    }

    @Test
    void withoutABindingTheProgramsInfoLinesShowAndLogLevelSetsTheLibrarys() throws Exception {
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "--log-level", "debug", "-cp",
                LaunchedJob.testClasses().toString(), PROGRAM)) {
            assertEquals(0, job.awaitExit(120_000), job.output());
            assertEquals(2, job.linesContaining("INFO org.example.Program - program info line from rank").size(), job.output());
            assertEquals(2, job.linesContaining("DEBUG io.jckpt.probe - library debug line from rank").size(), job.output());
            assertEquals(2, job.linesContaining("logger factory org.slf4j.simple.SimpleLoggerFactory").size(), job.output());
            assertEquals(1, job.linesContaining("logging: slf4j-simple").size(), job.output());
        }
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "-cp", LaunchedJob.testClasses().toString(), PROGRAM)) {
            assertEquals(0, job.awaitExit(120_000), job.output());
            assertEquals(2, job.linesContaining("INFO org.example.Program - program info line from rank").size(), job.output());
            assertTrue(job.linesContaining("library debug line").isEmpty(), "io.jckpt is at WARN by default:\n" + job.output());
        }
    }

    @Test
    void decideFindsTheProviderItsGroupAndTheConfiguration(@TempDir Path conf) throws Exception {
        List<String> jars = logbackJars();
        Path dir = logbackConfig(conf);
        List<String> cp = new ArrayList<>(List.of("/no/such/app.jar", dir.toString()));
        cp.addAll(jars);
        RankLogging logging = RankLogging.decide(cp, List.of("/simple.jar"), null, List.of());
        assertEquals(jars, logging.classPath().stream().sorted().toList());
        assertEquals(List.of("-Dlogback.configurationFile=" + dir.resolve("logback.xml").toUri()), logging.jvmFlags());
        // a configuration named with --jvm-opt wins over the one found on the class path
        RankLogging named = RankLogging.decide(cp, List.of("/simple.jar"), "info", List.of("-Dlogback.configurationFile=/x.xml"));
        assertEquals(List.of(), named.jvmFlags());
        assertTrue(named.description().contains("--log-level info ignored"), named.description());
        // no provider: the launcher's binding with its levels
        RankLogging simple = RankLogging.decide(List.of(dir.toString()), List.of("/simple.jar"), "error", List.of());
        assertEquals(List.of("/simple.jar"), simple.classPath());
        assertTrue(simple.jvmFlags().contains("-Dorg.slf4j.simpleLogger.log.io.jckpt=error"), simple.jvmFlags().toString());
        assertTrue(simple.jvmFlags().contains("-Dorg.slf4j.simpleLogger.defaultLogLevel=info"), simple.jvmFlags().toString());
    }
}
