package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.JobSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's view of the checkpoint settings: its options win over its environment; its properties do not count. */
class LauncherSettingsTest {
    private static final String MEMORY_DIR = JobSettings.Setting.MEMORY_DIR.variable();

    @TempDir
    Path tmp;

    /** A class path with a class file for the main class: the launcher checks it is there. */
    private String classPath() throws IOException {
        Files.createDirectories(tmp.resolve("app"));
        Files.write(tmp.resolve("app/Main.class"), new byte[] {(byte) 0xca, (byte) 0xfe});
        return tmp.resolve("app").toString();
    }

    @Test
    void memoryDirectoryComesFromTheOptionThenTheEnvironmentThenTheDefault() throws Exception {
        Path option = tmp.resolve("opt");
        LaunchSpec withOption = LaunchSpec.parse(new String[] {"-np", "2", "-cp", classPath(), "--memory-dir",
                option.toString(), "Main"});
        LaunchSpec plain = LaunchSpec.parse(new String[] {"-np", "2", "-cp", classPath(), "Main"});
        Map<String, String> env = Map.of(MEMORY_DIR, tmp.resolve("env").toString());
        assertEquals(option, new LauncherSettings(withOption, env).memoryDirectory());
        assertEquals(tmp.resolve("env"), new LauncherSettings(plain, env).memoryDirectory());
        assertEquals(CkptOptions.defaultMemoryDirectory(), new LauncherSettings(plain, Map.of()).memoryDirectory());
    }

    @Test
    void lineNamesEverySettingWithItsOrigin() throws Exception {
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "3", "-cp", classPath(), "--replicas", "2", "Main"});
        String line = new LauncherSettings(spec, Map.of()).line();
        assertTrue(line.contains(JobSettings.Setting.REPLICAS.label() + "=2 ("), line);
        assertTrue(line.contains(JobSettings.Setting.MEMORY_DIR.label() + "=default"), line);
        // the interval's settings only when given: the line stays as it was for jobs that do not use them
        assertEquals(JobSettings.Setting.values().length - 2, line.split(", ").length, line);
        LaunchSpec auto = LaunchSpec.parse(new String[] {"-np", "3", "-cp", classPath(), "--interval", "calls:9",
                "--node-mtbf", "5y", "Main"});
        String autoLine = new LauncherSettings(auto, Map.of()).line();
        assertTrue(autoLine.endsWith("interval=calls:9 (--interval), nodeMtbf=5y (--node-mtbf)"), autoLine);
    }
}
