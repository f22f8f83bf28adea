package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import io.jckpt.JobSettings;
import io.jckpt.runtime.launcher.LaunchSpec.FailurePolicy;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The launch specification built in code: the builder fills in the command line's defaults, validates at
 * {@code build()} with messages naming the option, and the record it returns cannot be changed.
 */
class LaunchSpecBuilderTest {
    private static final LaunchProgram PROGRAM = new LaunchProgram(List.of("/app/classes"), "org.example.Main",
            List.of("a", "b"));

    private static LaunchSpecBuilder four() {
        return LaunchSpec.builder().worldSize(4).program(PROGRAM);
    }

    @Test
    void theDefaultsAreTheCommandLinesAndTheValueIsImmutable() throws Exception {
        List<String> jvm = new ArrayList<>(List.of("-Xmx64m"));
        LaunchSpec spec = four().jvmOptions(jvm).setting(JobSettings.Setting.DISK, "rel/disk")
                .eventsFile(Path.of("ev.jsonl")).build();
        jvm.add("-Xss1m"); // the builder copied it
        assertEquals(4, spec.worldSize());
        assertEquals(Device.NIODEV, spec.device());
        assertEquals(List.of("/app/classes"), spec.classPath());
        assertEquals("org.example.Main", spec.mainClass());
        assertEquals(List.of("a", "b"), spec.programArgs());
        assertEquals(List.of("-Xmx64m"), spec.jvmOptions());
        assertEquals(Collections.nCopies(4, LaunchSpec.LOOPBACK), spec.hosts());
        assertEquals(60_000, spec.startTimeoutMillis());
        assertEquals(20_000, spec.deadlockMillis());
        assertEquals(FailurePolicy.FAIL, spec.onFailure());
        assertEquals(10, spec.maxRecoveries());
        assertEquals(1, spec.seed());
        assertEquals(0, spec.standbys(), "no standby when a failure fails the job");
        assertEquals(1, spec.detectors().size());
        assertEquals(LaunchSpec.DEFAULT_HEARTBEAT_MILLIS,
                ((HeartbeatDetector) spec.detectors().get(0)).timeoutMillis());
        assertEquals(Path.of("rel/disk").toAbsolutePath().normalize().toString(),
                spec.settings().get(JobSettings.Setting.DISK));
        assertEquals(Path.of("ev.jsonl").toAbsolutePath().normalize(), spec.eventsFile());
        assertFalse(spec.remote());
        assertNull(spec.mapping());
        assertNull(spec.ringOrder());
        assertThrows(UnsupportedOperationException.class, () -> spec.hosts().set(0, "elsewhere"));
        assertThrows(UnsupportedOperationException.class, () -> spec.jvmOptions().add("-Xss1m"));
        assertThrows(UnsupportedOperationException.class, () -> spec.detectors().clear());
        assertThrows(UnsupportedOperationException.class,
                () -> spec.settings().put(JobSettings.Setting.REPLICAS, "3"));
    }

    @Test
    void optionsThatDependOnTheWorldSizeAreCheckedAgainstIt() throws Exception {
        LaunchSpec spec = four().onFailure(FailurePolicy.RESPAWN).standbys(2).kill("1,3@round=5:wipe")
                .ringOrder("0,2,1,3").noDefaultHeartbeat().build();
        assertEquals(2, spec.standbys());
        assertEquals(List.of(1, 3), spec.kills().get(0).ranks());
        assertTrue(spec.kills().get(0).wipe());
        assertEquals("0,2,1,3", spec.ringOrder().text());
        assertEquals(List.of(), spec.detectors(), "--detector none: process exits only");
    }

    @Test
    void badValuesFailAtBuildNamingTheOption() {
        assertError("-np N is required; see ckpt-run --help", LaunchSpec.builder().program(PROGRAM));
        assertError("-np must be at least 1, got 0", LaunchSpec.builder().worldSize(0).program(PROGRAM));
        assertError("-np 1025 is more than this launcher supports (1024)",
                LaunchSpec.builder().worldSize(1025).program(PROGRAM));
        assertError("--start-timeout must be at least 1 second", four().startTimeoutMillis(999));
        assertError("--deadlock-timeout must be 0 (off) or at least 2 seconds", four().deadlockMillis(1000));
        assertError("--deadlock-timeout must be 0 (off) or at least 2 seconds", four().deadlockMillis(-2000));
        assertError("--job-id must be 1-64 letters, digits, '.', '_' or '-', got 'a b'", four().jobId("a b"));
        assertError("--kill 4@1s: rank 4 is not in 0..3", four().kill("4@1s"));
        assertError("--max-recoveries must not be negative, got -1", four().maxRecoveries(-1));
        assertError("--standby 17 is more than this launcher keeps (16)",
                four().onFailure(FailurePolicy.RESPAWN).standbys(17));
        assertError("--on-failure relaunch needs --dev niodev",
                four().onFailure(FailurePolicy.RELAUNCH).device(Device.MULTICORE));
        assertError("--replicas 4 needs more ranks", four().setting(JobSettings.Setting.REPLICAS, "4"));
        assertError("--replicas=x: must be a whole number", four().setting(JobSettings.Setting.REPLICAS, "x"));
        assertError("--log-level must be one of", four().logLevel("LOUD"));
        assertError("--ring-order 0,1 orders 2 ranks, but -np is 4", four().ringOrder("0,1"));
        assertError("--detector none contradicts --detector heartbeat:MILLIS",
                four().noDefaultHeartbeat().detector(new HeartbeatDetector(500)));
        assertError("--rsh needs hosts", four().remoteShell("ssh"));
        assertError("no main class given", LaunchSpec.builder().worldSize(2).program(null, null, List.of(), List.of()));
    }

    @Test
    void aBuilderCanBeBuiltAgainAndEachSpecKeepsItsOwnValues() throws Exception {
        LaunchSpecBuilder b = four().kill("0@1s");
        LaunchSpec first = b.build();
        LaunchSpec second = b.kill("1@2s").jobId("again").build();
        assertEquals(1, first.kills().size());
        assertNull(first.jobId());
        assertEquals(2, second.kills().size());
        assertEquals("again", second.jobId());
    }

    private static void assertError(String expected, LaunchSpecBuilder builder) {
        UsageException e = assertThrows(UsageException.class, builder::build);
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertFalse(e.getMessage().contains("\n"), e.getMessage());
    }
}
