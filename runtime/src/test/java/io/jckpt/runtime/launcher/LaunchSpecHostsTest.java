package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import io.jckpt.runtime.hosts.CopyPlacement;
import io.jckpt.runtime.hosts.RemoteShell;
import io.jckpt.runtime.programs.CheckpointLoop;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's host options as {@link LaunchSpec#parse} reads them (no process started). */
class LaunchSpecHostsTest {

    private static LaunchSpec parse(String... options) throws Exception {
        List<String> args = new ArrayList<>(List.of(options));
        args.addAll(List.of("-cp", Path.of(CheckpointLoop.class.getProtectionDomain().getCodeSource().getLocation().toURI())
                .toString(), CheckpointLoop.class.getName(), "3", "1"));
        return LaunchSpec.parse(args.toArray(new String[0]));
    }

    @Test
    void withoutHostsEveryRankRunsHereAsBefore() throws Exception {
        LaunchSpec spec = parse("-np", "4");
        assertFalse(spec.remote());
        assertEquals(Collections.nCopies(4, LaunchSpec.LOOPBACK), spec.hosts());
        assertNull(spec.ringOrder());
        assertNull(spec.remoteShell());
        assertEquals(LaunchSpec.LOOPBACK, spec.bindAddress());
    }

    @Test
    void aHostListMapsRanksAndPlacesCopiesOnOtherHosts() throws Exception {
        LaunchSpec spec = parse("-np", "6", "--host", "127.0.0.2:2,127.0.0.3:2,127.0.0.4:2", "--on-failure", "respawn");
        assertTrue(spec.remote());
        assertEquals(List.of("127.0.0.2", "127.0.0.2", "127.0.0.3", "127.0.0.3", "127.0.0.4", "127.0.0.4"), spec.hosts());
        assertEquals(RemoteShell.SSH, spec.remoteShell());
        assertEquals(CopyPlacement.plan(spec.mapping(), 1).ring(), spec.ringOrder());
        assertEquals("0,2,4,1,3,5", spec.ringOrder().text());
        assertEquals(1, spec.placement().hostLossesSurvived());
        assertEquals(0, spec.standbys(), "with hosts, no standby unless asked for (the hosts' cores are unknown)");
        assertEquals(LaunchSpec.LOOPBACK, spec.bindAddress(), "every host is a loopback address");
    }

    @Test
    void hostfileMappingRshBindAndRingOrderReachTheSpec(@TempDir Path tmp) throws Exception {
        Path file = Files.writeString(tmp.resolve("hosts"), "# two hosts\n127.0.0.2 slots=2\n\n127.0.0.3 slots=2\n");
        LaunchSpec spec = parse("-np", "4", "-machinefile", file.toString(), "--map-by", "node",
                "--rsh", "ssh -F /some/config", "--bind", "127.0.0.1", "--ring-order", "0,1,2,3", "--replicas", "1");
        assertEquals(List.of("127.0.0.2", "127.0.0.3", "127.0.0.2", "127.0.0.3"), spec.hosts());
        assertEquals(List.of("ssh", "-F", "/some/config"), spec.remoteShell().agent());
        assertEquals("127.0.0.1", spec.bindAddress());
        assertEquals("0,1,2,3", spec.ringOrder().text(), "--ring-order overrides the placement's ring");
        assertEquals(List.of(1), spec.placement().holders(0));
    }

    @Test
    void standbysWithHostsAreAskedForPerHost() throws Exception {
        LaunchSpec spec = parse("-np", "2", "--host", "127.0.0.2:2,127.0.0.3", "--spare-hosts", "127.0.0.4",
                "--on-failure", "respawn", "--standby", "1");
        assertEquals(1, spec.standbys());
        // by slot both ranks run on the first host: the second and --spare-hosts are spares, standbys run on all
        assertEquals(List.of("127.0.0.2", "127.0.0.3", "127.0.0.4"), StandbyPool.hostsOf(spec));
        assertEquals(Collections.singletonList(null), StandbyPool.hostsOf(parse("-np", "2")), "the launcher's host");
        assertTrue(assertThrows(UsageException.class, () -> parse("-np", "2", "--host", "127.0.0.2:2",
                "--standby", "1")).getMessage().startsWith("--standby needs --on-failure respawn or relaunch"));
    }

    @Test
    void theLauncherEngineIsSshOutsideASlurmAllocationAndSlurmThereNeedsOne() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(System.getenv("SLURM_JOB_ID") == null, "the tests run inside a SLURM job");
        assertEquals(io.jckpt.runtime.hosts.RemoteShell.SSH,
                parse("-np", "2", "--host", "127.0.0.2:2", "--launcher", "ssh").remoteShell());
        assertEquals(io.jckpt.runtime.hosts.RemoteShell.SSH, parse("-np", "2", "--host", "127.0.0.2:2").remoteShell());
        String outside = assertThrows(UsageException.class, () -> parse("-np", "2", "--host", "127.0.0.2:2",
                "--launcher", "slurm")).getMessage();
        assertTrue(outside.startsWith("--launcher slurm needs a SLURM allocation (SLURM_JOB_ID is not set)"), outside);
        String both = assertThrows(UsageException.class, () -> parse("-np", "2", "--host", "127.0.0.2:2",
                "--launcher", "slurm", "--rsh", "ssh")).getMessage();
        assertTrue(both.startsWith("--launcher slurm starts ranks with srun: it cannot be given with --rsh"), both);
        String bad = assertThrows(UsageException.class, () -> parse("-np", "2", "--host", "127.0.0.2:2",
                "--launcher", "pbs")).getMessage();
        assertEquals("--launcher must be ssh or slurm, got 'pbs'", bad);
    }

    @Test
    void hostOptionsThatCannotWorkAreUsageErrorsNamingTheOption() {
        assertTrue(assertThrows(UsageException.class, () -> parse("-np", "2", "--rsh", "ssh"))
                .getMessage().startsWith("--rsh needs hosts"));
        assertTrue(assertThrows(UsageException.class, () -> parse("-np", "2", "--bind", "127.0.0.1"))
                .getMessage().startsWith("--bind needs hosts"));
        assertTrue(assertThrows(UsageException.class, () -> parse("-np", "2", "--map-by", "node"))
                .getMessage().startsWith("--map-by needs hosts"));
        assertTrue(assertThrows(UsageException.class, () -> parse("-np", "2", "--host", "127.0.0.2:2", "--dev", "multicore"))
                .getMessage().startsWith("--dev multicore"));
        String tooMany = assertThrows(UsageException.class, () -> parse("-np", "5", "--host", "127.0.0.2:2,127.0.0.3:2"))
                .getMessage();
        assertTrue(tooMany.contains("5") && tooMany.contains("4"), tooMany);
    }
}
