package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.JobSettings;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The launcher's view of the checkpoint settings, the ranks' own: its options win over the rank JVMs'
 * properties, which win over the environment; the launcher's own properties do not count.
 */
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
    void memoryDirectoryComesFromTheOptionThenARankPropertyThenTheEnvironmentThenTheDefault() throws Exception {
        Path option = tmp.resolve("opt");
        LaunchSpec withOption = LaunchSpec.parse(new String[] {"-np", "2", "-cp", classPath(), "--memory-dir",
                option.toString(), "Main"});
        LaunchSpec plain = LaunchSpec.parse(new String[] {"-np", "2", "-cp", classPath(), "Main"});
        Map<String, String> env = Map.of(MEMORY_DIR, tmp.resolve("env").toString());
        List<String> property = List.of("-Xmx64m", "-Djckpt.memoryDir=" + tmp.resolve("prop"));
        assertEquals(option, new LauncherSettings(withOption, env, property).memoryDirectory());
        assertEquals(tmp.resolve("prop"), new LauncherSettings(plain, env, property).memoryDirectory());
        assertEquals(tmp.resolve("env"), new LauncherSettings(plain, env, List.of()).memoryDirectory());
        assertEquals(CkptOptions.defaultMemoryDirectory(), new LauncherSettings(plain, Map.of(), List.of()).memoryDirectory());
    }

    @Test
    void lineIsTheRanksLineOfAProgramThatSetsNothing() throws Exception {
        LaunchSpec spec = LaunchSpec.parse(new String[] {"-np", "3", "-cp", classPath(), "--replicas", "2", "Main"});
        String line = new LauncherSettings(spec, Map.of(), List.of()).line();
        assertTrue(line.startsWith(JobSettings.Setting.REPLICAS.label() + "=2 (--replicas), disk=none (default),"
                + " diskRatio=" + CkptOptions.DEFAULT_DISK_RATIO + " (default), memoryDir="
                + CkptOptions.defaultMemoryDirectory() + " (default), maxMemory="), line);
        // the interval's settings only when given: the line stays as it was for jobs that do not use them
        assertEquals(JobSettings.Setting.values().length - 2, line.split(", ").length, line);
        LaunchSpec auto = LaunchSpec.parse(new String[] {"-np", "3", "-cp", classPath(), "--interval", "calls:9",
                "--node-mtbf", "5y", "Main"});
        String autoLine = new LauncherSettings(auto, Map.of(), List.of()).line();
        assertTrue(autoLine.endsWith("interval=calls:9 (--interval), nodeMtbf=5y (--node-mtbf)"), autoLine);
    }

    @Test
    void rankPropertiesAreTheLastGivenAsTheJvmReadsThem() {
        Map<String, String> env = Map.of("JAVA_TOOL_OPTIONS", "-Djckpt.replicas=1 -Djckpt.disk=/a",
                "JDK_JAVA_OPTIONS", " -Djckpt.replicas=2  -Dother=x");
        Properties both = LauncherSettings.rankProperties(env, List.of("-Xss1m", "-Djckpt.replicas=3"));
        assertEquals("3", both.getProperty("jckpt.replicas")); // the command line after the variables
        assertEquals("/a", both.getProperty("jckpt.disk"));
        assertEquals(null, both.getProperty("other")); // only the library's
        assertEquals("2", LauncherSettings.rankProperties(env, List.of()).getProperty("jckpt.replicas"));
        assertEquals("1", LauncherSettings.rankProperties(Map.of("JAVA_TOOL_OPTIONS", "-Djckpt.replicas=1"), List.of())
                .getProperty("jckpt.replicas"));
    }
}
