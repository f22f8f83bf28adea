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
 * The checkpoint settings as the launcher sees them: its options ({@code --memory-dir},
 * {@code --replicas}, ...), then its environment ({@code JCKPT_*}). The launcher's own system
 * properties are not the ranks' (theirs come with {@code --jvm-opt -Djckpt.*}), so they do not count.
 * Resolved once, when the job is made.
 */
final class LauncherSettings {
    private final JobSettings settings;
    private final Path memoryDirectory;

    /**
     * @param spec        the launcher's options
     * @param environment the launcher's environment
     */
    LauncherSettings(LaunchSpec spec, Map<String, String> environment) {
        Map<String, String> seen = new HashMap<>(environment);
        spec.settings().forEach((setting, value) -> seen.put(setting.launcherVariable(), value));
        this.settings = JobSettings.of(seen, new Properties());
        this.memoryDirectory = settings.lookup(JobSettings.Setting.MEMORY_DIR).map(v -> Path.of(v.text()))
                .orElseGet(CkptOptions::defaultMemoryDirectory);
    }

    /** Every setting with its value and origin, or {@code =default}: the launcher's settings line. */
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

    String line() {
        List<String> parts = new ArrayList<>();
        for (JobSettings.Setting setting : JobSettings.Setting.values()) {
            settings.lookup(setting).map(v -> setting.label() + "=" + v.text() + " (" + v.origin() + ")")
                    .or(() -> setting.defaultsUnlisted() ? java.util.Optional.empty()
                            : java.util.Optional.of(setting.label() + "=default"))
                    .ifPresent(parts::add);
        }
        return String.join(", ", parts);
    }

    /**
     * Where the ranks keep their node-local stores unless the program sets another directory: the
     * launcher's {@code --memory-dir}, else {@code JCKPT_MEMORY_DIR}, else the default.
     */
    Path memoryDirectory() {
        return memoryDirectory;
    }

    /** @return the disk level's directory the launcher knows of ({@code --disk}, {@code JCKPT_DISK}), or null */
    Path diskDirectory() {
        return LauncherJobKey.diskDirectory(settings);
    }
}
