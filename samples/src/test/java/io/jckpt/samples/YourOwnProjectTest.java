package io.jckpt.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * "Your own project in ten minutes", end to end, as a new user would do it: from a copy of the
 * checkout (its sources only, no build output), {@code bin/install} puts every artifact into a
 * local Maven repository of this test's own (never the shared {@code ~/.m2}); {@code bin/new-app}
 * makes a project from the template outside the checkout; {@code mvn package} builds it against the
 * installed artifacts; {@code bin/ckpt-run --replicas 2 --kill 1@round=3 -jar app.jar} runs it with a
 * failure, and its result equals the failure-free run's.
 *
 * <p>Offline-capable: the test's Maven repository is filled from the local repository this build
 * uses (read through a {@code file://} repository, releases only, so no jckpt snapshot found there
 * is ever used), Maven Central only for what is missing there. Tagged {@code slow} and
 * {@code ecosystem}: {@code -Djckpt.test.excludedGroups=ecosystem} skips it.
 */
class YourOwnProjectTest {
    private static final Pattern RESULT = Pattern.compile("result: .*checksum [0-9a-f]+");
    private static final long INSTALL_MINUTES = 15;

    @Test
    @Tag("slow")
    @Tag("ecosystem")
    void aProjectFromTheTemplateBuildsAgainstTheInstalledArtifactsAndRecovers(@TempDir Path tmp) throws Exception {
        Path clone = tmp.resolve("jckpt");
        copySources(LaunchedJob.repoRoot(), clone);
        Path repo = tmp.resolve("repository");
        Path settings = seedSettings(tmp);
        List<String> maven = List.of("-s", settings.toString(), "-Dmaven.repo.local=" + repo);

        List<String> install = new ArrayList<>(List.of(clone.resolve("bin/install").toString()));
        install.addAll(maven);
        run(install, clone, tmp.resolve("install.log"), INSTALL_MINUTES);
        for (String artifact : List.of("jckpt-bom", "jckpt-parent", "ckpt-api", "imem-replication", "stable-disk",
                "two-level-policy", "runtime", "samples", "perf")) {
            assertTrue(Files.isDirectory(repo.resolve("io/jckpt/" + artifact + "/0.1.0-SNAPSHOT")), artifact + " not installed");
        }
        for (String module : List.of("ckpt-api", "imem-replication", "stable-disk", "two-level-policy", "runtime")) {
            Path dir = repo.resolve("io/jckpt/" + module + "/0.1.0-SNAPSHOT");
            assertTrue(Files.isRegularFile(dir.resolve(module + "-0.1.0-SNAPSHOT-sources.jar")), module + " sources");
            assertTrue(Files.isRegularFile(dir.resolve(module + "-0.1.0-SNAPSHOT-javadoc.jar")), module + " javadoc");
        }

        Path app = tmp.resolve("my-app"); // outside the checkout
        run(List.of(clone.resolve("bin/new-app").toString(), app.toString()), tmp, tmp.resolve("new-app.log"), 1);
        List<String> build = new ArrayList<>(List.of("mvn", "-B", "-q"));
        build.addAll(maven);
        build.add("package");
        run(build, app, tmp.resolve("app-build.log"), 5);
        Path jar = app.resolve("target/app.jar");
        assertTrue(Files.isRegularFile(jar), "mvn package made no target/app.jar");

        String ckptRun = clone.resolve("bin/ckpt-run").toString();
        String failureFree = run(List.of(ckptRun, "-np", "3", "-jar", jar.toString(),
                "--cp-file", app.resolve("target/classpath.txt").toString()), app, tmp.resolve("run.log"), 5);
        String withFailure = run(List.of(ckptRun, "-np", "3", "--on-failure", "respawn", "--replicas", "2",
                "--kill", "1@round=3", "-jar", jar.toString(), "--cp-file", app.resolve("target/classpath.txt").toString()),
                app, tmp.resolve("run-kill.log"), 5);
        String expected = result(failureFree);
        assertEquals(expected, result(withFailure), withFailure);
        assertTrue(withFailure.contains("injecting failure 1@round=3"), withFailure);
        assertEquals(1, withFailure.lines().filter(l -> l.contains("recovering:")).count(), withFailure);
        // the template sets nothing itself: the launcher's line is the ranks' own, and rank 0 adds none
        assertTrue(withFailure.contains("checkpoint settings (the program's own builder calls win): replicas=2 (--replicas)"),
                withFailure);
        assertFalse(withFailure.contains("rank 0: checkpoint settings"), withFailure);
    }

    @Test
    void theBomNamesEveryModuleAtTheProjectsVersion() throws IOException {
        Path root = LaunchedJob.repoRoot();
        String parent = Files.readString(root.resolve("pom.xml"));
        String bom = Files.readString(root.resolve("bom/pom.xml"));
        String version = first(Pattern.compile("<artifactId>jckpt-parent</artifactId>\\s*<version>([^<]+)</version>"), parent);
        assertEquals(version, first(Pattern.compile("<artifactId>jckpt-bom</artifactId>\\s*(?:<!--[^>]*-->\\s*)?<version>([^<]+)</version>"), bom));
        assertEquals(version, first(Pattern.compile("<jckpt.version>([^<]+)</jckpt.version>"), bom));
        Set<String> modules = new LinkedHashSet<>();
        Matcher m = Pattern.compile("<module>([^<]+)</module>").matcher(parent);
        while (m.find()) {
            modules.add(m.group(1));
        }
        modules.remove("bom");
        modules.remove("architecture"); // tests only: no artifact a program uses
        for (String module : modules) {
            assertTrue(bom.contains("<artifactId>" + module + "</artifactId><version>${jckpt.version}</version>"),
                    "jckpt-bom lacks module " + module);
        }
        String template = Files.readString(root.resolve("samples/template/pom.xml"));
        assertEquals(version, first(Pattern.compile("<jckpt.version>([^<]+)</jckpt.version>"), template));
    }

    private static String first(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        assertTrue(m.find(), pattern + " not found");
        return m.group(1);
    }

    private static String result(String output) {
        List<String> results = output.lines().filter(l -> RESULT.matcher(l).find()).collect(Collectors.toList());
        assertEquals(1, results.size(), output);
        Matcher m = RESULT.matcher(results.get(0));
        assertTrue(m.find());
        return m.group();
    }

    /** Runs a command to its end (bounded), output to {@code log}; fails with the output unless it exits 0. */
    private static String run(List<String> command, Path dir, Path log, long minutes) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(log.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = builder.start();
        if (!p.waitFor(minutes, TimeUnit.MINUTES)) {
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
            throw new AssertionError(command + " did not end within " + minutes + " min:\n" + Files.readString(log));
        }
        String output = Files.readString(log, StandardCharsets.UTF_8);
        assertEquals(0, p.exitValue(), () -> String.join(" ", command) + " failed:\n" + output);
        return output;
    }

    /**
     * A Maven settings file whose first repository is the local repository this build reads (found
     * from where slf4j-api was resolved), as a read-only {@code file://} repository of releases.
     */
    static Path seedSettings(Path tmp) throws Exception {
        Path jar = Path.of(org.slf4j.LoggerFactory.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path seed = jar.getParent().getParent().getParent().getParent().getParent(); // org/slf4j/slf4j-api/V/x.jar
        assertTrue(Files.isDirectory(seed.resolve("org/slf4j")), "not a Maven repository: " + seed);
        String repository = "<id>seed</id><url>" + seed.toUri() + "</url>"
                + "<releases><enabled>true</enabled><checksumPolicy>ignore</checksumPolicy></releases>"
                + "<snapshots><enabled>false</enabled></snapshots>";
        Path settings = tmp.resolve("settings.xml");
        Files.writeString(settings, "<settings><profiles><profile><id>seed</id>"
                + "<repositories><repository>" + repository + "</repository></repositories>"
                + "<pluginRepositories><pluginRepository>" + repository + "</pluginRepository></pluginRepositories>"
                + "</profile></profiles><activeProfiles><activeProfile>seed</activeProfile></activeProfiles></settings>");
        return settings;
    }

    /** Copies the checkout's sources (no build output, no git metadata), keeping the scripts executable. */
    private static void copySources(Path from, Path to) throws IOException {
        Files.walkFileTree(from, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) throws IOException {
                String name = dir.getFileName().toString();
                if (!dir.equals(from) && (name.equals("target") || name.equals(".git") || name.equals("out")
                        || name.equals(".idea"))) {
                    return FileVisitResult.SKIP_SUBTREE;
                }
                Files.createDirectories(to.resolve(from.relativize(dir).toString()));
                return FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                String name = file.getFileName().toString();
                if (attrs.isRegularFile() && !name.endsWith(".log") && !name.equals(".git")) { // a worktree's .git is a file
                    Files.copy(file, to.resolve(from.relativize(file).toString()), StandardCopyOption.COPY_ATTRIBUTES);
                }
                return FileVisitResult.CONTINUE;
            }
        });
    }
}
