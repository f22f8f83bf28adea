package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import io.jckpt.JobSettings;
import java.io.File;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's options for a program of one's own: -jar, --cp-file and the checkpoint settings. */
class LaunchSpecOptionsTest {

    private static Path jar(Path file, String mainClass, String classPath) throws Exception {
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        if (mainClass != null) {
            manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
        }
        if (classPath != null) {
            manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
        }
        try (OutputStream out = Files.newOutputStream(file); JarOutputStream jar = new JarOutputStream(out, manifest)) {
            jar.putNextEntry(new JarEntry("org/example/Main.class"));
            jar.write(new byte[] {(byte) 0xca, (byte) 0xfe});
            jar.closeEntry();
        }
        return file;
    }

    @Test
    void jarTakesMainClassAndClassPathFromItsManifest(@TempDir Path tmp) throws Exception {
        Path app = jar(tmp.resolve("app.jar"), "org.example.Main", "lib/a.jar  lib/b.jar");
        Path cpFile = tmp.resolve("classpath.txt");
        Files.writeString(cpFile, tmp.resolve("dep1.jar") + File.pathSeparator + tmp.resolve("dep2.jar") + "\n");
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "2", "-jar", app.toString(), "--cp-file", cpFile.toString(),
                "x", "-y"});
        assertEquals("org.example.Main", spec.mainClass());
        assertEquals(List.of(app.toString(), tmp.resolve("lib/a.jar").toString(), tmp.resolve("lib/b.jar").toString(),
                tmp.resolve("dep1.jar").toString(), tmp.resolve("dep2.jar").toString()), spec.classPath());
        assertEquals(List.of("x", "-y"), spec.programArgs());
    }

    @Test
    void cpFileAddsToCp(@TempDir Path tmp) throws Exception {
        Path app = jar(tmp.resolve("app.jar"), null, null);
        Path cpFile = tmp.resolve("classpath.txt");
        Files.writeString(cpFile, ""); // a project without dependencies of its own
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "1", "-cp", app.toString(), "--cp-file", cpFile.toString(),
                "org.example.Main"});
        assertEquals(List.of(app.toString()), spec.classPath());
    }

    @Test
    void badUsesAreOneLineErrorsNamingTheFix(@TempDir Path tmp) throws Exception {
        Path app = jar(tmp.resolve("app.jar"), "org.example.Main", null);
        Path noMain = jar(tmp.resolve("nomain.jar"), null, null);
        assertError("-jar and -cp exclude each other", "-np", "2", "-cp", app.toString(), "-jar", app.toString());
        assertError("has no Main-Class in its manifest: run it with -cp", "-np", "2", "-jar", noMain.toString());
        assertError("-jar " + tmp.resolve("none.jar") + ": no such file", "-np", "2", "-jar", tmp.resolve("none.jar").toString());
        assertError("--cp-file " + tmp.resolve("cp.txt") + ": cannot read it", "-np", "2", "--cp-file", tmp.resolve("cp.txt").toString(),
                "-jar", app.toString());
        assertError("--replicas 2 needs more ranks", "-np", "2", "--replicas", "2", "-jar", app.toString());
        assertError("--replicas=many: must be a whole number", "-np", "2", "--replicas", "many", "-jar", app.toString());
        assertError("--max-memory=lots: must be bytes", "-np", "2", "--max-memory", "lots", "-jar", app.toString());
        assertError("--log-level must be one of trace, debug, info, warn, error, off, got 'loud'", "-np", "2",
                "--log-level", "loud", "-jar", app.toString());
    }

    @Test
    void settingsAreValidatedAndPathsMadeAbsolute(@TempDir Path tmp) throws Exception {
        Path app = jar(tmp.resolve("app.jar"), "org.example.Main", null);
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "3", "--replicas", "2", "--disk", "rel/disk", "--disk-ratio", "0",
                "--memory-dir", tmp.toString(), "--max-memory", "1g", "--log-level", "INFO", "-jar", app.toString()});
        assertEquals("2", spec.settings().get(JobSettings.Setting.REPLICAS));
        assertEquals(Path.of("rel/disk").toAbsolutePath().normalize().toString(), spec.settings().get(JobSettings.Setting.DISK));
        assertEquals("0", spec.settings().get(JobSettings.Setting.DISK_RATIO));
        assertEquals(tmp.toString(), spec.settings().get(JobSettings.Setting.MEMORY_DIR));
        assertEquals("1g", spec.settings().get(JobSettings.Setting.MAX_MEMORY));
        assertEquals("info", spec.logLevel());
        assertTrue(LaunchSpec.parse(new String[] {"-np", "1", "-jar", app.toString()}).settings().isEmpty());
    }

    @Test
    void theIntervalPolicyAndTheNodeMtbfPerJob(@TempDir Path tmp) throws Exception {
        Path app = jar(tmp.resolve("app.jar"), "org.example.Main", null);
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "2", "--interval", "auto", "--node-mtbf", "30d", "-jar",
                app.toString()});
        assertEquals("auto", spec.settings().get(JobSettings.Setting.INTERVAL));
        assertEquals("30d", spec.settings().get(JobSettings.Setting.NODE_MTBF));
        assertEquals("JCKPT_LAUNCHER_INTERVAL", JobSettings.Setting.INTERVAL.launcherVariable());
        assertError("--interval", "-np", "2", "--interval", "sometimes", "-jar", app.toString());
        assertError("must be manual, calls:N", "-np", "2", "--interval", "seconds:0", "-jar", app.toString());
        assertError("--node-mtbf", "-np", "2", "--node-mtbf", "0", "-jar", app.toString());
        // the disk ratio chosen the same way, per job
        assertEquals("auto:50", LaunchSpec.parse(new String[] {"-np", "2", "--disk-ratio", "auto:50", "-jar", app.toString()})
                .settings().get(JobSettings.Setting.DISK_RATIO));
        assertEquals("auto", LaunchSpec.parse(new String[] {"-np", "2", "--disk-ratio", "AUTO", "-jar", app.toString()})
                .settings().get(JobSettings.Setting.DISK_RATIO).toLowerCase(java.util.Locale.ROOT));
        assertError("--disk-ratio=auto:0: auto:K needs a cap K >= 1", "-np", "2", "--disk-ratio", "auto:0", "-jar",
                app.toString());
        assertError("auto or auto:K", "-np", "2", "--disk-ratio", "sometimes", "-jar", app.toString());
    }

    @Test
    void ringOrderIsAPermutationOfTheRanks(@TempDir Path tmp) throws Exception {
        Path app = jar(tmp.resolve("app.jar"), "org.example.Main", null);
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "4", "--ring-order", "0,2,1,3", "-jar", app.toString()});
        assertEquals(io.jckpt.spi.RingOrder.of(0, 2, 1, 3), spec.ringOrder());
        assertEquals(null, LaunchSpec.parse(new String[] {"-np", "4", "-jar", app.toString()}).ringOrder());
        assertError("--ring-order 0,2,1 orders 3 ranks, but -np is 4 (give each rank 0..3 once, e.g. --ring-order 0,2,1,3)",
                "-np", "4", "--ring-order", "0,2,1", "-jar", app.toString());
        assertError("--ring-order 0,2,2,3: rank 2 appears at positions 1 and 2", "-np", "4", "--ring-order", "0,2,2,3",
                "-jar", app.toString());
        assertError("--ring-order 0,4,1,3: rank 4 at position 1 is outside 0..3", "-np", "4", "--ring-order", "0,4,1,3",
                "-jar", app.toString());
        assertError("--ring-order 0,x: 'x' at position 1 is not a rank number", "-np", "2", "--ring-order", "0,x",
                "-jar", app.toString());
        assertTrue(!LaunchSpec.HELP.contains("--ring-order"), "a testing aid, documented in docs/launcher.md");
    }

    private static void assertError(String expected, String... args) {
        UsageException e = assertThrows(UsageException.class, () -> LaunchSpec.parse(args));
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(!e.getMessage().contains("\n"), e.getMessage());
    }
}
