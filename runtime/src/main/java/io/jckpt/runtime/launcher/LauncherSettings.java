package io.jckpt.runtime.launcher;

import io.jckpt.CkptOptions;
import io.jckpt.JobSettings;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

/**
 * The checkpoint settings as the ranks will see them, resolved once when the job is made: the
 * launcher's options ({@code --memory-dir}, {@code --replicas}, ...), the system properties the rank
 * JVMs get ({@code -Djckpt.*} in {@code --jvm-opt}, {@code JCKPT_JVM_OPTS}, {@code JAVA_TOOL_OPTIONS},
 * {@code JDK_JAVA_OPTIONS}; the last one given wins, as in the JVM), then the environment
 * ({@code JCKPT_*}). Its line is the ranks' own ({@link CkptOptions#jobSettingsSummary}): the two
 * differ only where the program's builder calls set a value, and rank 0's line says so.
 */
final class LauncherSettings {
    private final JobSettings settings;
    private final Path memoryDirectory;

    /**
     * @param spec           the launcher's options
     * @param environment    the launcher's environment, which the ranks inherit
     * @param rankJvmOptions the options of every rank JVM's command line, in their order
     * @throws io.jckpt.InvalidOptionException naming the option, property or variable whose value does not parse
     */
    LauncherSettings(LaunchSpec spec, Map<String, String> environment, List<String> rankJvmOptions) {
        Map<String, String> seen = new HashMap<>(environment);
        spec.settings().forEach((setting, value) -> seen.put(setting.launcherVariable(), value));
        this.settings = JobSettings.of(seen, rankProperties(environment, rankJvmOptions));
        this.memoryDirectory = settings.lookup(JobSettings.Setting.MEMORY_DIR).map(v -> Path.of(v.text()))
                .orElseGet(CkptOptions::defaultMemoryDirectory);
    }

    /** The {@code -Djckpt.*} properties a rank JVM ends with: the JVM reads its variables first, then its command line. */
    static Properties rankProperties(Map<String, String> environment, List<String> rankJvmOptions) {
        List<String> words = new ArrayList<>();
        for (String variable : List.of("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS")) {
            String value = environment.get(variable);
            if (value != null && !value.isBlank()) {
                words.addAll(List.of(value.trim().split("\\s+")));
            }
        }
        words.addAll(rankJvmOptions);
        Properties properties = new Properties();
        for (String word : words) {
            if (word.startsWith("-Djckpt.")) {
                int eq = word.indexOf('=');
                properties.setProperty(eq < 0 ? word.substring(2) : word.substring(2, eq), eq < 0 ? "" : word.substring(eq + 1));
            }
        }
        return properties;
    }

    /** @return every setting: its value and origin, or "default", for the events file */
    java.util.Map<String, Object> fields() {
        java.util.Map<String, Object> fields = new java.util.LinkedHashMap<>();
        for (JobSettings.Setting setting : JobSettings.Setting.values()) {
            fields.put(setting.label(), settings.lookup(setting)
                    .<Object>map(v -> java.util.Map.of("value", v.text(), "origin", v.origin()))
                    .orElse("default"));
        }
        return fields;
    }

    /** @return the settings line: every setting as a rank whose program sets none of them will have it */
    String line() {
        return CkptOptions.jobSettingsSummary(settings);
    }

    /**
     * Where the ranks keep their node-local stores unless the program sets another directory: the
     * launcher's {@code --memory-dir}, else {@code -Djckpt.memoryDir}, else {@code JCKPT_MEMORY_DIR}, else the default.
     */
    Path memoryDirectory() {
        return memoryDirectory;
    }

    /** @return the disk level's directory the launcher knows of ({@code --disk}, {@code JCKPT_DISK}), or null */
    Path diskDirectory() {
        return LauncherJobKey.diskDirectory(settings);
    }
}
