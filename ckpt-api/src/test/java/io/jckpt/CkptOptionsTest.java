package io.jckpt;

import org.junit.jupiter.api.Test;

import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.*;

class CkptOptionsTest {

    private static void assertInvalid(Supplier<?> build, String option, String... fragments) {
        InvalidOptionException e = assertThrows(InvalidOptionException.class, build::get);
        assertEquals(option, e.option());
        assertTrue(e.getMessage().startsWith("invalid option " + option + "="), e.getMessage());
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "'" + f + "' not in: " + e.getMessage());
        }
    }

    @Test
    void defaults() {
        CkptOptions o = CkptOptions.defaults();
        assertEquals(1, o.replicas());
        assertEquals(1000, o.diskRatio());
        assertEquals(2, o.versionsKept());
        assertNull(o.diskDirectory());
        assertFalse(o.diskLevelEnabled());
        assertTrue(o.maxMemoryBytes() > 0);
        assertTrue(o.kryoRegistrationRequired());
        assertEquals(RecoveryFallback.ERROR, o.recoveryFallback());
        assertTrue(o.memoryDirectory().isAbsolute());
        assertTrue(o.memoryDirectory().getFileName().toString().startsWith("jckpt-"));
        assertEquals(Duration.ofSeconds(30), o.exchangeTimeout());
    }

    @Test
    void everyBadValueIsNamed() {
        assertInvalid(() -> CkptOptions.builder().replicas(-1).build(), "replicas", "-1", ">= 0");
        assertInvalid(() -> CkptOptions.builder().diskRatio(-5).build(), "diskRatio", "-5", ">= 0");
        assertInvalid(() -> CkptOptions.builder().versionsKept(1).build(), "versionsKept", "=1", ">= 2");
        assertInvalid(() -> CkptOptions.builder().versionsKept(1000).build(), "versionsKept", "<= 64");
        assertInvalid(() -> CkptOptions.builder().maxMemoryBytes(0).build(), "maxMemoryBytes", "=0", "> 0");
        assertInvalid(() -> CkptOptions.builder().memoryDirectory(null).build(), "memoryDirectory", "null");
        assertInvalid(() -> CkptOptions.builder().exchangeTimeout(Duration.ZERO).build(), "exchangeTimeout", "> 0");
        assertInvalid(() -> CkptOptions.builder().replicationTimeout(Duration.ofSeconds(-1)).build(), "replicationTimeout");
        assertInvalid(() -> CkptOptions.builder().replicationTimeout(null).build(), "replicationTimeout", "null");
        assertInvalid(() -> CkptOptions.builder().hereWaitTimeout(Duration.ofMillis(-1)).build(), "hereWaitTimeout", ">= 0");
        assertEquals(Duration.ZERO, CkptOptions.builder().hereWaitTimeout(Duration.ZERO).build().hereWaitTimeout());
        assertInvalid(() -> CkptOptions.builder().kryoConfigurer(null).build(), "kryoConfigurer", "KryoConfigurer.NONE");
        assertInvalid(() -> CkptOptions.builder().recoveryFallback(null).build(), "recoveryFallback");
    }

    @Test
    void replicasMustFitTheWorld() {
        CkptOptions o = CkptOptions.builder().replicas(3).build();
        o.validateFor(4);
        assertInvalid(() -> {
            o.validateFor(3);
            return null;
        }, "replicas", "=3", "n-1 = 2", "3 ranks");
        assertInvalid(() -> {
            CkptOptions.defaults().validateFor(0);
            return null;
        }, "worldSize");
        CkptOptions.builder().replicas(0).build().validateFor(1);
    }

    @Test
    void fingerprintCoversGlobalOptionsOnly() {
        CkptOptions a = CkptOptions.builder().memoryDirectory(Path.of("/tmp/a")).maxMemoryBytes(1 << 20).build();
        CkptOptions b = CkptOptions.builder().memoryDirectory(Path.of("/tmp/b")).maxMemoryBytes(1 << 30).build();
        assertEquals(a.globalFingerprint(), b.globalFingerprint(), "node-local options must not count");
        assertEquals(a.globalFingerprint(), a.toBuilder().build().globalFingerprint());
        assertNotEquals(a.globalFingerprint(), a.toBuilder().replicas(2).build().globalFingerprint());
        assertNotEquals(a.globalFingerprint(), a.toBuilder().diskRatio(10).build().globalFingerprint());
        assertNotEquals(a.globalFingerprint(), a.toBuilder().diskDirectory(Path.of("/d")).build().globalFingerprint());
        assertEquals(a.toBuilder().diskDirectory(Path.of("/d1")).build().globalFingerprint(),
                a.toBuilder().diskDirectory(Path.of("/d2")).build().globalFingerprint());
        assertNotEquals(a.globalFingerprint(), a.toBuilder().recoveryFallback(RecoveryFallback.CLEAN_START).build().globalFingerprint());
        assertNotEquals(a.globalFingerprint(), a.toBuilder().kryoRegistrationRequired(false).build().globalFingerprint());
        // stable across JVMs: pinned value of the canonical text
        assertEquals("v1;replicas=1;diskRatio=1000;disk=false;versionsKept=2;exchangeTimeoutMs=30000;"
                + "replicationTimeoutMs=60000;hereWaitTimeoutMs=60000;kryoRegistrationRequired=true;recoveryFallback=ERROR;"
                + "slotCapacity=0;memoryShortage=FAIL;minReplicas=0;diskUnavailable=FAIL", a.globalSummary());
        assertNotEquals(a.globalFingerprint(), a.toBuilder().slotCapacity(4096).build().globalFingerprint());
        assertNotEquals(a.globalFingerprint(), a.toBuilder().memoryShortage(MemoryShortage.DEGRADE).build().globalFingerprint());
        assertNotEquals(a.globalFingerprint(), a.toBuilder().minReplicas(1).build().globalFingerprint());
        assertNotEquals(a.globalFingerprint(), a.toBuilder().diskUnavailable(DiskUnavailable.MEMORY_ONLY).build()
                .globalFingerprint());
        assertEquals(fnv(a.globalSummary()), a.globalFingerprint());
    }

    private static long fnv(String s) {
        long h = 0xcbf29ce484222325L;
        for (byte x : s.getBytes(java.nio.charset.StandardCharsets.UTF_8)) {
            h = (h ^ (x & 0xff)) * 0x100000001b3L;
        }
        return h;
    }

    @Test
    void toBuilderKeepsEverything() {
        KryoConfigurer conf = k -> k.register(int[][].class);
        CkptOptions o = CkptOptions.builder().replicas(2).diskRatio(7).diskDirectory(Path.of("/tmp/d"))
                .versionsKept(3).maxMemoryBytes(12345).exchangeTimeout(Duration.ofSeconds(3))
                .replicationTimeout(Duration.ofSeconds(4)).hereWaitTimeout(Duration.ofSeconds(5))
                .kryoRegistrationRequired(false).kryoConfigurer(conf).recoveryFallback(RecoveryFallback.CLEAN_START).build();
        CkptOptions copy = o.toBuilder().build();
        assertEquals(o, copy);
        assertEquals(12345, copy.maxMemoryBytes());
        assertTrue(copy.diskLevelEnabled());
        assertSame(conf, copy.kryoConfigurer());
    }

    @Test
    void theRecordsConstructorValidatesAndCountsUnknownOriginsAsTheProgramsOwn() {
        assertInvalid(() -> new CkptOptions(1, 1000, Path.of("/tmp/m"), null, 1, 1 << 20, Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ZERO, true, KryoConfigurer.NONE, RecoveryFallback.ERROR, 0,
                MemoryShortage.FAIL, 0, IntervalPolicy.manual(), null, 0, false, DiskUnavailable.FAIL, null),
                "versionsKept", "=1", ">= 2");
        CkptOptions direct = new CkptOptions(2, 10, Path.of("/tmp/m/../m2"), null, 2, 1 << 20, Duration.ofSeconds(1),
                Duration.ofSeconds(1), Duration.ZERO, true, KryoConfigurer.NONE, RecoveryFallback.ERROR, 0,
                MemoryShortage.FAIL, 0, IntervalPolicy.manual(), null, 0, false, DiskUnavailable.FAIL, java.util.Map.of());
        assertEquals(Path.of("/tmp/m2"), direct.memoryDirectory());
        assertEquals(JobSettings.Setting.values().length, direct.settingOrigins().size());
        for (JobSettings.Value v : direct.settingOrigins().values()) {
            assertEquals(JobSettings.Source.PROGRAM, v.source());
        }
        assertTrue(direct.settingsSummary().startsWith("replicas=2 (program), disk=none (program)"), direct.settingsSummary());
        // deriving from them takes nothing from the job: the values given to the constructor stay
        CkptOptions.Builder derived = direct.toBuilder();
        derived.applyJobSettings(JobSettings.of(java.util.Map.of("JCKPT_REPLICAS", "3", "JCKPT_MAX_MEMORY", "1g"),
                new java.util.Properties()));
        CkptOptions copy = derived.build();
        assertEquals(2, copy.replicas());
        assertEquals(1 << 20, copy.maxMemoryBytes());
        assertEquals(direct, copy);
        // the machine's defaults are probed once per JVM, not at every build()
        assertSame(CkptOptions.defaultMemoryDirectory(), CkptOptions.defaultMemoryDirectory());
    }

    @Test
    void theIntervalAndTheNodeMtbfArePerJobSettings() {
        CkptOptions.Builder b = CkptOptions.builder();
        b.applyJobSettings(JobSettings.of(java.util.Map.of("JCKPT_LAUNCHER_INTERVAL", "auto", "JCKPT_NODE_MTBF", "30d"),
                new java.util.Properties()));
        CkptOptions o = b.build();
        assertEquals(IntervalPolicy.auto(), o.interval());
        assertEquals(Duration.ofDays(30), o.nodeMtbf());
        assertEquals("--interval", o.settingOrigins().get(JobSettings.Setting.INTERVAL).origin());
        assertTrue(o.settingsSummary().endsWith("interval=auto (--interval), nodeMtbf=30d (JCKPT_NODE_MTBF)"),
                o.settingsSummary());
        // a system property; the program's own call wins over every job setting
        java.util.Properties p = new java.util.Properties();
        p.setProperty("jckpt.interval", "calls:8");
        CkptOptions.Builder fromProperty = CkptOptions.builder();
        fromProperty.applyJobSettings(JobSettings.of(java.util.Map.of(), p));
        assertEquals(IntervalPolicy.everyCalls(8), fromProperty.build().interval());
        CkptOptions.Builder program = CkptOptions.builder().interval(IntervalPolicy.everySeconds(5));
        program.applyJobSettings(JobSettings.of(java.util.Map.of("JCKPT_INTERVAL", "calls:8"), p));
        assertEquals(IntervalPolicy.everySeconds(5), program.build().interval());
        // left at their defaults, the settings line is the one jobs had before these settings existed
        assertFalse(CkptOptions.builder().build().settingsSummary().contains("interval"));
        assertEquals(Duration.ofMinutes(90), JobSettings.parseDuration("90m", "x"));
        assertEquals(Duration.ofMillis(1500), JobSettings.parseDuration("1.5", "x"));
        assertEquals(Duration.ofDays(365 * 5), JobSettings.parseDuration("5y", "x"));
        for (String bad : new String[] {"0", "-1", "soon", "3w"}) {
            assertInvalid(() -> JobSettings.parseDuration(bad, "JCKPT_NODE_MTBF"), "JCKPT_NODE_MTBF", "duration > 0");
        }
        for (String bad : new String[] {"sometimes", "seconds:0", "overhead:100", "calls:x"}) {
            assertInvalid(() -> {
                CkptOptions.Builder x = CkptOptions.builder();
                x.applyJobSettings(JobSettings.of(java.util.Map.of("JCKPT_INTERVAL", bad), new java.util.Properties()));
                return x;
            }, "JCKPT_INTERVAL", "manual, calls:N");
        }
    }

    @Test
    void memoryPolicyOptionsAreValidated() {
        CkptOptions o = CkptOptions.builder().replicas(2).minReplicas(1).memoryShortage(MemoryShortage.DEGRADE)
                .slotCapacity(1 << 20).build();
        assertEquals(1, o.minReplicas());
        assertEquals(MemoryShortage.DEGRADE, o.memoryShortage());
        assertEquals(1 << 20, o.slotCapacity());
        assertEquals(o, o.toBuilder().build());
        assertEquals(MemoryShortage.FAIL, CkptOptions.defaults().memoryShortage());
        assertEquals(0, CkptOptions.defaults().slotCapacity());
        assertInvalid(() -> CkptOptions.builder().replicas(1).minReplicas(2).build(), "minReplicas", "2", "<= replicas = 1");
        assertInvalid(() -> CkptOptions.builder().minReplicas(-1).build(), "minReplicas", "-1");
        assertInvalid(() -> CkptOptions.builder().slotCapacity(-5).build(), "slotCapacity", "-5");
        assertInvalid(() -> CkptOptions.builder().memoryShortage(null).build(), "memoryShortage", "FAIL or DEGRADE");
        assertEquals(DiskUnavailable.FAIL, CkptOptions.defaults().diskUnavailable());
        CkptOptions memoryOnly = CkptOptions.builder().diskUnavailable(DiskUnavailable.MEMORY_ONLY).build();
        assertEquals(DiskUnavailable.MEMORY_ONLY, memoryOnly.diskUnavailable());
        assertEquals(memoryOnly, memoryOnly.toBuilder().build());
        assertInvalid(() -> CkptOptions.builder().diskUnavailable(null).build(), "diskUnavailable", "FAIL or MEMORY_ONLY");
        assertInvalid(() -> o.withCtrl(CtrlOptions.builder().replicas(0).build()), "replicas", "below minReplicas = 1");
        assertEquals(1, o.withCtrl(CtrlOptions.builder().replicas(1).build()).replicas());
    }

    @Test
    void ctrlChangesOnlyRuntimeOptions() {
        CkptOptions o = CkptOptions.builder().diskDirectory(Path.of("/tmp/d")).build();
        CkptOptions changed = o.withCtrl(CtrlOptions.builder().replicas(2).build());
        assertEquals(2, changed.replicas());
        assertEquals(o.diskRatio(), changed.diskRatio());
        assertEquals(5, o.withCtrl(CtrlOptions.builder().diskRatio(5).build()).diskRatio());
        assertFalse(o.withCtrl(CtrlOptions.builder().diskRatio(0).build()).diskLevelEnabled());

        assertInvalid(() -> CtrlOptions.builder().build(), "ctrl", "nothing would change");
        assertInvalid(() -> CtrlOptions.builder().replicas(-2).build(), "replicas", "-2");
        assertInvalid(() -> CtrlOptions.builder().diskRatio(-1).build(), "diskRatio");
        assertInvalid(() -> CkptOptions.defaults().withCtrl(CtrlOptions.builder().diskRatio(10).build()),
                "diskRatio", "no diskDirectory");
        assertEquals("CtrlOptions{replicas=1, diskRatio=2}", CtrlOptions.builder().replicas(1).diskRatio(2).build().toString());
    }
}
