package io.jckpt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import java.util.Properties;
import org.junit.jupiter.api.Test;

/** The precedence of per-job settings: program > launcher > system property > environment > default. */
class JobSettingsTest {

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.setProperty(kv[i], kv[i + 1]);
        }
        return p;
    }

    private static CkptOptions build(CkptOptions.Builder b, Map<String, String> env, Properties props) {
        b.applyJobSettings(JobSettings.of(env, props));
        return b.build();
    }

    @Test
    void eachLevelBeatsTheOnesBelowIt() {
        Map<String, String> env = Map.of(
                "JCKPT_LAUNCHER_REPLICAS", "3", "JCKPT_REPLICAS", "5",
                "JCKPT_DISK_RATIO", "7", "JCKPT_DISK", "/env/disk",
                "JCKPT_MAX_MEMORY", "64m", "JCKPT_LAUNCHER_MEMORY_DIR", "/launcher/shm");
        Properties p = props("jckpt.replicas", "4", "jckpt.diskRatio", "6", "jckpt.memoryDir", "/prop/shm");

        // nothing from the program: launcher > property > environment > default
        CkptOptions o = build(CkptOptions.builder(), env, p);
        assertEquals(3, o.replicas());                           // launcher beats property and environment
        assertEquals(6, o.diskRatio());                          // property beats environment
        assertEquals(Path.of("/env/disk"), o.diskDirectory());    // environment alone
        assertEquals(Path.of("/launcher/shm"), o.memoryDirectory()); // launcher beats property
        assertEquals(64L << 20, o.maxMemoryBytes());
        Map<JobSettings.Setting, JobSettings.Value> origins = o.settingOrigins();
        assertEquals(JobSettings.Source.LAUNCHER, origins.get(JobSettings.Setting.REPLICAS).source());
        assertEquals("--replicas", origins.get(JobSettings.Setting.REPLICAS).origin());
        assertEquals("-Djckpt.diskRatio", origins.get(JobSettings.Setting.DISK_RATIO).origin());
        assertEquals("JCKPT_DISK", origins.get(JobSettings.Setting.DISK).origin());
        assertEquals("--memory-dir", origins.get(JobSettings.Setting.MEMORY_DIR).origin());
        assertTrue(o.settingsSummary().startsWith("replicas=3 (--replicas), disk=/env/disk (JCKPT_DISK), diskRatio=6 (-Djckpt.diskRatio)"),
                o.settingsSummary());

        // the program's explicit calls beat everything, including an explicit "no disk level"
        CkptOptions q = build(CkptOptions.builder().replicas(1).diskDirectory(null).maxMemoryBytes(1 << 20), env, p);
        assertEquals(1, q.replicas());
        assertNull(q.diskDirectory());
        assertEquals(1 << 20, q.maxMemoryBytes());
        assertEquals(6, q.diskRatio());
        assertEquals(JobSettings.Source.PROGRAM, q.settingOrigins().get(JobSettings.Setting.REPLICAS).source());
        // and the settings line names the job's value each call overrode, so an override is never silent
        assertTrue(q.settingsSummary().startsWith("replicas=1 (program, over --replicas 3), disk=none (program, over"
                + " JCKPT_DISK=/env/disk), diskRatio=6 (-Djckpt.diskRatio)"), q.settingsSummary());
        assertTrue(q.settingsSummary().contains("maxMemory=1 MiB (program, over JCKPT_MAX_MEMORY=64m)"), q.settingsSummary());
        assertTrue(build(CkptOptions.builder().replicas(1), Map.of(), props()).settingsSummary()
                .startsWith("replicas=1 (program), "));
        assertTrue(build(CkptOptions.builder().replicas(2), env, props("jckpt.replicas", "4")).settingsSummary()
                .startsWith("replicas=2 (program, over --replicas 3), "));
        assertTrue(build(CkptOptions.builder().replicas(2), Map.of(), props("jckpt.replicas", "4")).settingsSummary()
                .startsWith("replicas=2 (program, over -Djckpt.replicas=4), "));
    }

    @Test
    void theJobsLineIsTheLineOfAProgramThatSetsNothing() {
        Map<String, String> env = Map.of("JCKPT_LAUNCHER_REPLICAS", "3", "JCKPT_DISK", "/env/disk",
                "JCKPT_LAUNCHER_NODE_MTBF", "36h", "JCKPT_MAX_MEMORY", "64m");
        Properties p = props("jckpt.diskRatio", "auto:50", "jckpt.interval", "calls:4");
        JobSettings job = JobSettings.of(env, p);
        assertEquals(build(CkptOptions.builder(), env, p).settingsSummary(), CkptOptions.jobSettingsSummary(job));
        assertEquals("replicas=3 (--replicas), disk=/env/disk (JCKPT_DISK), diskRatio=auto:50 (-Djckpt.diskRatio),"
                + " memoryDir=" + CkptOptions.defaultMemoryDirectory() + " (default), maxMemory=64 MiB (JCKPT_MAX_MEMORY),"
                + " interval=calls:4 (-Djckpt.interval), nodeMtbf=36h (--node-mtbf)", CkptOptions.jobSettingsSummary(job));
        assertEquals(build(CkptOptions.builder(), Map.of(), props()).settingsSummary(),
                CkptOptions.jobSettingsSummary(JobSettings.of(Map.of(), props())));
        // the checks across options wait for the program (which may give the MTBF interval=auto needs) ...
        assertTrue(CkptOptions.jobSettingsSummary(JobSettings.of(Map.of("JCKPT_INTERVAL", "auto"), props()))
                .contains("interval=auto (JCKPT_INTERVAL)"));
        // ... a value that does not parse does not
        InvalidOptionException e = assertThrows(InvalidOptionException.class,
                () -> CkptOptions.jobSettingsSummary(JobSettings.of(Map.of(), props("jckpt.replicas", "two"))));
        assertTrue(e.getMessage().contains("-Djckpt.replicas=two"), e.getMessage());
    }

    @Test
    void aDurationIsWrittenAsItParses() {
        for (String text : new String[] {"5y", "30d", "36h", "90m", "45s", "1.5s", "0.001s", "400d"}) {
            java.time.Duration d = JobSettings.parseDuration(text, "t");
            assertEquals(d, JobSettings.parseDuration(JobSettings.formatDuration(d), "t"), text);
        }
        assertEquals("90m", JobSettings.formatDuration(java.time.Duration.ofMinutes(90)));
        assertEquals("25h", JobSettings.formatDuration(java.time.Duration.ofHours(25)));
        assertEquals("61s", JobSettings.formatDuration(java.time.Duration.ofSeconds(61)));
        assertEquals("1.5s", JobSettings.formatDuration(java.time.Duration.ofMillis(1500)));
    }

    @Test
    void nothingGivenMeansTheDefaults() {
        CkptOptions o = build(CkptOptions.builder(), Map.of(), props());
        assertEquals(CkptOptions.DEFAULT_REPLICAS, o.replicas());
        assertEquals(CkptOptions.DEFAULT_DISK_RATIO, o.diskRatio());
        assertNull(o.diskDirectory());
        assertEquals(CkptOptions.defaultMemoryDirectory(), o.memoryDirectory());
        assertEquals(CkptOptions.defaultMaxMemoryBytes(), o.maxMemoryBytes());
        for (JobSettings.Value v : o.settingOrigins().values()) {
            assertEquals(JobSettings.Source.DEFAULT, v.source());
        }
        assertTrue(o.settingsSummary().startsWith("replicas=1 (default), disk=none (default), diskRatio=1000 (default)"));
    }

    @Test
    void derivedOptionsKeepTheirOrigins() {
        CkptOptions o = build(CkptOptions.builder(), Map.of("JCKPT_REPLICAS", "2"), props());
        // toBuilder (and ctrl) must not read the environment again nor lose where a value came from
        CkptOptions derived = o.toBuilder().build();
        assertEquals(2, derived.replicas());
        assertEquals("JCKPT_REPLICAS", derived.settingOrigins().get(JobSettings.Setting.REPLICAS).origin());
        CkptOptions changed = o.withCtrl(CtrlOptions.builder().replicas(1).build());
        assertEquals(JobSettings.Source.PROGRAM, changed.settingOrigins().get(JobSettings.Setting.REPLICAS).source());
    }

    @Test
    void badValuesNameWhereTheyCameFrom() {
        InvalidOptionException e = assertThrows(InvalidOptionException.class,
                () -> build(CkptOptions.builder(), Map.of("JCKPT_REPLICAS", "two"), props()));
        assertEquals("JCKPT_REPLICAS", e.option());
        e = assertThrows(InvalidOptionException.class,
                () -> build(CkptOptions.builder(), Map.of(), props("jckpt.maxMemory", "lots")));
        assertEquals("-Djckpt.maxMemory", e.option());
        e = assertThrows(InvalidOptionException.class,
                () -> build(CkptOptions.builder(), Map.of("JCKPT_LAUNCHER_DISK_RATIO", "-1"), props()));
        assertEquals("--disk-ratio", e.option());
        // a bad value the program overrides is never read
        assertEquals(2, build(CkptOptions.builder().replicas(2), Map.of("JCKPT_REPLICAS", "two"), props()).replicas());
    }

    @Test
    void theDiskRatioChosenAtRunTimePerJob() {
        // auto: chosen up to the default cap; needs the disk level and a node MTBF, like the builder's diskRatioAuto
        Map<String, String> env = Map.of("JCKPT_LAUNCHER_DISK_RATIO", "auto", "JCKPT_DISK", "/shared/ckpt",
                "JCKPT_NODE_MTBF", "30d");
        CkptOptions o = build(CkptOptions.builder(), env, props());
        assertTrue(o.diskRatioAuto());
        assertEquals(CkptOptions.DEFAULT_DISK_RATIO, o.diskRatio());
        assertTrue(o.settingsSummary().contains("diskRatio=auto:1000 (--disk-ratio)"), o.settingsSummary());
        // auto:K caps it at K; the program's own diskRatio(K) wins over the job's, as for every setting
        o = build(CkptOptions.builder(), Map.of("JCKPT_DISK", "/shared/ckpt", "JCKPT_NODE_MTBF", "30d"),
                props("jckpt.diskRatio", "auto:50"));
        assertTrue(o.diskRatioAuto());
        assertEquals(50, o.diskRatio());
        o = build(CkptOptions.builder().diskRatio(20), env, props());
        assertEquals(20, o.diskRatio());
        assertTrue(!o.diskRatioAuto());
        // a fixed ratio stays fixed
        assertTrue(!build(CkptOptions.builder(), Map.of("JCKPT_DISK_RATIO", "7"), props()).diskRatioAuto());
        // bad values name where they came from and what is wrong
        InvalidOptionException e = assertThrows(InvalidOptionException.class,
                () -> build(CkptOptions.builder(), Map.of("JCKPT_DISK_RATIO", "auto:0"), props()));
        assertEquals("JCKPT_DISK_RATIO", e.option());
        assertTrue(e.getMessage().contains("auto:K needs a cap K >= 1"), e.getMessage());
        e = assertThrows(InvalidOptionException.class,
                () -> build(CkptOptions.builder(), Map.of("JCKPT_DISK_RATIO", "auto"), props()));
        assertTrue(e.getMessage().contains("needs nodeMtbf"), e.getMessage());
        e = assertThrows(InvalidOptionException.class,
                () -> build(CkptOptions.builder(), Map.of("JCKPT_DISK_RATIO", "auto", "JCKPT_NODE_MTBF", "30d"), props()));
        assertTrue(e.getMessage().contains("needs the disk level"), e.getMessage());
    }

    @Test
    void aSettingTooLargeForTheWorldNamesWhereItCameFrom() {
        CkptOptions o = build(CkptOptions.builder(), Map.of("JCKPT_REPLICAS", "3"), props());
        InvalidOptionException e = assertThrows(InvalidOptionException.class, () -> o.validateFor(3));
        assertTrue(e.getMessage().endsWith("; the job gave it with JCKPT_REPLICAS"), e.getMessage());
    }

    @Test
    void byteSizes() {
        assertEquals(512L << 20, JobSettings.parseBytes("512m", "x"));
        assertEquals(4L << 30, JobSettings.parseBytes("4G", "x"));
        assertEquals(1L << 30, JobSettings.parseBytes("1GiB", "x"));
        assertEquals(65536, JobSettings.parseBytes("65536", "x"));
        assertThrows(InvalidOptionException.class, () -> JobSettings.parseBytes("0", "x"));
        assertThrows(InvalidOptionException.class, () -> JobSettings.parseBytes("4 furlongs", "x"));
        assertEquals("4 GiB", JobSettings.formatBytes(4L << 30));
        assertEquals("1.5 MiB", JobSettings.formatBytes(3L << 19));
    }
}
