package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The launcher's host options: what each takes, where hosts come from (hostfile, --host, SLURM, local), and misuse. */
class HostOptionsTest {
    @TempDir
    Path dir;

    private static HostOptions options(String... args) throws UsageException {
        HostOptions o = new HostOptions();
        for (int i = 0; i < args.length; ) {
            int used = o.accept(args, i);
            assertEquals(2, used, args[i]);
            i += used;
        }
        return o;
    }

    @Test
    void otherOptionsAreLeftAlone() throws Exception {
        HostOptions o = new HostOptions();
        assertEquals(0, o.accept(new String[] {"-np", "4"}, 0));
        assertEquals(0, o.accept(new String[] {"--hosts", "a"}, 0));
        assertFalse(o.hostsGiven());
    }

    @Test
    void noHostsAnywhereRunsLocally() throws Exception {
        RankMapping m = options().map(3, Map.of());
        assertEquals(List.of("localhost", "localhost", "localhost"), m.hostOfRank());
        assertEquals(List.of(), m.spares());
    }

    @Test
    void aHostfile() throws Exception {
        Path file = dir.resolve("hosts");
        Files.writeString(file, "a slots=2\nb slots=2\nc\n");
        RankMapping m = options("-machinefile", file.toString(), "--map-by", "node").map(4, Map.of());
        assertEquals(List.of("a", "b", "c", "a"), m.hostOfRank());
        assertTrue(options("--hostfile", file.toString()).hostsGiven());
    }

    @Test
    void aHostListWithSpares() throws Exception {
        RankMapping m = options("-H", "a:2,b:2", "--spare-hosts", "s", "--ranks-per-node", "1").map(2, Map.of());
        assertEquals(List.of("a", "b"), m.hostOfRank());
        assertEquals(List.of(new Host("s", 1)), m.spares());
    }

    @Test
    void aSlurmAllocationWhenNoHostsAreGiven() throws Exception {
        Map<String, String> env = Map.of("SLURM_JOB_NODELIST", "n[1-3]", "SLURM_TASKS_PER_NODE", "2(x3)");
        RankMapping m = options().map(5, env);
        assertEquals(List.of("n1", "n1", "n2", "n2", "n3"), m.hostOfRank());
        RankMapping given = options("--host", "x:5").map(5, env);
        assertEquals(List.of("x", "x", "x", "x", "x"), given.hostOfRank(), "given hosts win over SLURM");
        assertEquals("-np 7 exceeds the 6 slots of the 3 hosts in SLURM allocation (SLURM_JOB_NODELIST=n[1-3])"
                        + " (n1:2, n2:2, n3:2); give more hosts or slots, or a smaller -np",
                assertThrows(UsageException.class, () -> options().map(7, env)).getMessage());
    }

    @Test
    void misuse() throws Exception {
        assertEquals("--host needs a value",
                assertThrows(UsageException.class, () -> new HostOptions().accept(new String[] {"--host"}, 0)).getMessage());
        assertEquals("-H given twice (also as --host)",
                assertThrows(UsageException.class, () -> options("--host", "a", "-H", "b")).getMessage());
        assertEquals("--map-by must be slot or node, got 'socket'",
                assertThrows(UsageException.class, () -> options("--map-by", "socket")).getMessage());
        assertEquals("--ranks-per-node must be at least 1, got 0",
                assertThrows(UsageException.class, () -> options("--ranks-per-node", "0")).getMessage());
        assertEquals("-npernode must be a whole number, got 'two'",
                assertThrows(UsageException.class, () -> options("-npernode", "two")).getMessage());
        assertEquals("--spare-hosts 'a,': empty host entry",
                assertThrows(UsageException.class, () -> options("--spare-hosts", "a,")).getMessage());
        assertEquals("--hostfile and --host cannot both be given",
                assertThrows(UsageException.class, () -> options("--hostfile", "f", "--host", "a").map(1, Map.of()))
                        .getMessage());
        assertEquals("--map-by needs hosts: --hostfile, --host or a SLURM allocation",
                assertThrows(UsageException.class, () -> options("--map-by", "node").map(1, Map.of())).getMessage());
        assertEquals("--spare-hosts needs hosts: --hostfile, --host or a SLURM allocation",
                assertThrows(UsageException.class, () -> options("--spare-hosts", "s").map(1, Map.of())).getMessage());
        String missing = assertThrows(UsageException.class,
                () -> options("--hostfile", dir.resolve("none").toString()).map(1, Map.of())).getMessage();
        assertTrue(missing.startsWith("cannot read hostfile "), missing);
    }
}
