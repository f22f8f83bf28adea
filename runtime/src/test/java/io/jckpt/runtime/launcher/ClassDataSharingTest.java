package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The rank JVMs' class-data archive on a home of its own: the runtime packaged as a jar from this
 * build's classes, the archive made by a real training JVM, a rank-like JVM started with what
 * {@link JckptHome} hands to ranks loading Chronicle from the archive, and every reason not to use
 * an archive (classes newer than the jar, another JVM build, a changed jar, switched off).
 */
class ClassDataSharingTest {
    private static Path home;
    private static Path jar;
    private static List<String> dependencies;

    @BeforeAll
    static void makeHome() throws IOException {
        Path runtimeTarget = LaunchedJob.repoRoot().resolve("runtime/target");
        home = Files.createTempDirectory("jckpt-cds-home");
        Files.createDirectories(home.resolve("classes"));
        Files.writeString(home.resolve("classes/marker.txt"), "compiled", StandardCharsets.UTF_8);
        Files.setLastModifiedTime(home.resolve("classes/marker.txt"), FileTime.fromMillis(System.currentTimeMillis() - 60_000));
        Files.copy(runtimeTarget.resolve("jckpt-mpj.classpath"), home.resolve("jckpt-mpj.classpath"));
        // CDS takes jars only: modules resolved as classes directories (a build without package) are jarred
        List<String> deps = new ArrayList<>();
        Files.createDirectories(home.resolve("deps"));
        for (String entry : Files.readString(runtimeTarget.resolve("jckpt-lib.classpath")).trim().split(java.io.File.pathSeparator)) {
            Path p = Path.of(entry);
            if (Files.isDirectory(p)) {
                Path jarred = home.resolve("deps").resolve(p.getParent().getParent().getFileName() + ".jar");
                jarUp(p, jarred);
                deps.add(jarred.toString());
            } else {
                deps.add(entry);
            }
        }
        Files.writeString(home.resolve("jckpt-lib.classpath"), String.join(java.io.File.pathSeparator, deps));
        Properties runtime = new Properties();
        try (InputStream in = JckptHome.class.getResourceAsStream("/jckpt-runtime.properties")) {
            runtime.load(in);
        }
        jar = home.resolve("runtime-" + runtime.getProperty("version") + ".jar");
        jarUp(runtimeTarget.resolve("classes"), jar);
        dependencies = JckptHome.at(home).dependencies();
    }

    @AfterAll
    static void removeHome() throws IOException {
        try (Stream<Path> files = Files.walk(home)) {
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(f);
            }
        }
    }

    @Test
    void archiveIsMadeAndRankJvmsLoadTheLibraryFromIt() throws Exception {
        Files.deleteIfExists(home.resolve(ClassDataSharing.ARCHIVE)); // whatever another test made
        Files.deleteIfExists(home.resolve(ClassDataSharing.DESCRIPTION));
        JckptHome before = JckptHome.at(home);
        assertTrue(before.classDataSharing().isEmpty(), "no archive yet");
        assertEquals(home.resolve("classes").toAbsolutePath().toString(), before.libClassPath().get(0));
        assertFalse(before.jvmFlags().stream().anyMatch(f -> f.startsWith("-XX:SharedArchiveFile")));

        ClassDataSharing made = ClassDataSharing.create(home, jar, dependencies, before.baseJvmFlags());
        assertTrue(Files.size(made.archive()) > (1 << 20), "an archive of the library's classes");

        JckptHome after = JckptHome.at(home);
        assertTrue(after.classDataSharing().isPresent());
        assertEquals(jar.toString(), after.libClassPath().get(0), "the runtime as a jar: CDS needs jars");
        assertTrue(after.jvmFlags().contains("-XX:SharedArchiveFile=" + made.archive()), after.jvmFlags().toString());

        // a JVM started as the launcher starts ranks (its flags and class path) defines Chronicle's
        // and the policy's classes from the archive
        List<String> command = new ArrayList<>();
        command.add(JckptHome.javaExecutable());
        command.addAll(after.jvmFlags());
        command.add("-Xlog:class+load=info:stdout");
        command.add("-cp");
        command.add(String.join(java.io.File.pathSeparator, after.libClassPath()));
        command.add(ClassDataSharing.TRAINING_MAIN);
        command.add(home.resolve("scratch").toString());
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertTrue(out.contains("net.openhft.chronicle.core.Jvm source: shared objects file (top)"), out);
        assertTrue(out.contains("io.jckpt.policy.TwoLevelCheckpointer source: shared objects file (top)"), out);
        assertFalse(out.contains("[cds"), "no CDS message reaches a program's output");
        assertTrue(ClassDataSharing.create(home, jar, dependencies, before.baseJvmFlags()).archive().equals(made.archive()));
    }

    @Test
    void aClassPathWithDirectoriesGetsNoArchive() {
        List<String> withDirectory = new ArrayList<>(dependencies);
        withDirectory.add(home.resolve("classes").toString());
        IOException e = org.junit.jupiter.api.Assertions.assertThrows(IOException.class,
                () -> ClassDataSharing.create(home, jar, withDirectory, List.of()));
        assertTrue(e.getMessage().contains("directory") && e.getMessage().contains(home.resolve("classes").toString()),
                e.getMessage());
        assertTrue(ClassDataSharing.find(home, jar, withDirectory).isEmpty());
    }

    @Test
    void anArchiveThatDoesNotFitIsNotUsed() throws Exception {
        ClassDataSharing.create(home, jar, dependencies, JckptHome.at(home).baseJvmFlags());
        assertTrue(ClassDataSharing.find(home, jar, dependencies).isPresent());

        // classes compiled after the jar was packaged (a test run after a change): the jar is stale
        Path marker = home.resolve("classes/marker.txt");
        FileTime jarTime = Files.getLastModifiedTime(jar);
        Files.setLastModifiedTime(marker, FileTime.fromMillis(jarTime.toMillis() + 5_000));
        assertTrue(ClassDataSharing.find(home, jar, dependencies).isEmpty(), "classes newer than the jar");
        assertEquals(home.resolve("classes").toAbsolutePath().toString(), JckptHome.at(home).libClassPath().get(0));
        Files.setLastModifiedTime(marker, FileTime.fromMillis(jarTime.toMillis() - 60_000));
        assertTrue(ClassDataSharing.find(home, jar, dependencies).isPresent());

        // made by another JVM build
        Path description = home.resolve(ClassDataSharing.DESCRIPTION);
        Path saved = home.resolve("saved.properties");
        Files.copy(description, saved, StandardCopyOption.REPLACE_EXISTING);
        rewrite(description, "java.vm.version", "17.0.0+0-other");
        assertTrue(ClassDataSharing.find(home, jar, dependencies).isEmpty(), "another JVM build");
        Files.copy(saved, description, StandardCopyOption.REPLACE_EXISTING);

        // a jar of the class path changed since (rebuilt): the JVM would reject the archive, so do we
        rewrite(description, "jar.stamps", "1@1;");
        assertTrue(ClassDataSharing.find(home, jar, dependencies).isEmpty(), "a changed jar");
        Files.copy(saved, description, StandardCopyOption.REPLACE_EXISTING);
        assertTrue(ClassDataSharing.find(home, jar, dependencies).isPresent());

        // switched off for the launcher
        System.setProperty(JckptHome.CLASS_DATA_SHARING_PROPERTY, "false");
        try {
            assertTrue(JckptHome.at(home).classDataSharing().isEmpty());
        } finally {
            System.clearProperty(JckptHome.CLASS_DATA_SHARING_PROPERTY);
        }
        assertTrue(JckptHome.at(home).classDataSharing().isPresent());
    }

    private static void rewrite(Path description, String key, String value) throws IOException {
        Properties p = new Properties();
        try (InputStream in = Files.newInputStream(description)) {
            p.load(in);
        }
        p.setProperty(key, value);
        try (OutputStream out = Files.newOutputStream(description)) {
            p.store(out, null);
        }
    }

    private static void jarUp(Path classes, Path jarFile) throws IOException {
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jarFile));
             Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile).sorted()::iterator) {
                out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                Files.copy(f, out);
                out.closeEntry();
            }
        }
    }
}
