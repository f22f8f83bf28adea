package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The hostfile format mpirun users write, and a clear file:line error for each bad line. */
class HostFileTest {
    @TempDir
    Path dir;

    private static HostList parse(String... lines) throws UsageException {
        return HostFile.parse("hosts.txt", List.of(lines));
    }

    private static String error(String... lines) {
        return assertThrows(UsageException.class, () -> parse(lines)).getMessage();
    }

    @Test
    void commentsBlankLinesSlotsAndRepeats() throws Exception {
        HostList hosts = parse(
                "# the cluster",
                "",
                "node01 slots=4   # Open MPI style",
                "  node02:2",
                "node03",
                "\tnode01 slots=2 max_slots=8",
                "node-4.example.org max-slots=3",
                "   # indented comment",
                "node_5 slots=1");
        assertEquals(List.of(new Host("node01", 6), new Host("node02", 2), new Host("node03", 1),
                new Host("node-4.example.org", 1), new Host("node_5", 1)), hosts.hosts());
        assertEquals(11, hosts.totalSlots());
        assertEquals("hostfile hosts.txt", hosts.source());
        assertEquals("node01:6, node02:2, node03:1, node-4.example.org:1, node_5:1", hosts.describe());
    }

    @Test
    void aHostWithoutSlotsRepeatedCountsOnePerLine() throws Exception {
        assertEquals(List.of(new Host("a", 3), new Host("b", 1)), parse("a", "b", "a", "a").hosts());
    }

    @Test
    void badLinesNameFileAndLine() {
        assertEquals("hosts.txt:2: 'slots=x': slots must be a whole number, got 'x'", error("a", "b slots=x"));
        assertEquals("hosts.txt:1: 'slots=0': slots must be at least 1, got 0", error("a slots=0"));
        assertEquals("hosts.txt:1: 'slots=-2': slots must be at least 1, got -2", error("a slots=-2"));
        assertEquals("hosts.txt:1: 'slots': slots must be a whole number, got ''", error("a slots"));
        assertEquals("hosts.txt:3: 'b:0': slots must be at least 1, got 0", error("# c", "a", "b:0"));
        assertEquals("hosts.txt:1: 'b:two': slots must be a whole number, got 'two'", error("b:two"));
        assertEquals("hosts.txt:1: unknown attribute 'cpus=4' of host a (expected slots=N or max_slots=N)",
                error("a cpus=4"));
        assertEquals("hosts.txt:1: host a has its slots given twice", error("a slots=1 slots=2"));
        assertEquals("hosts.txt:1: host a has its slots given twice", error("a:1 slots=2"));
        assertEquals("hosts.txt:1: host a has max_slots given twice", error("a max_slots=2 max-slots=3"));
        assertEquals("hosts.txt:1: host a has max_slots=2 below its slots=4", error("a slots=4 max_slots=2"));
        assertTrue(error("a", "", "b/c").startsWith("hosts.txt:3: bad host name 'b/c'"));
        assertTrue(error("-a").startsWith("hosts.txt:1: bad host name '-a'"));
        assertEquals("hostfile hosts.txt names no host (only comments and blank lines)", error("# only", "", "  "));
        assertThrows(UsageException.class, () -> parse("a slots=99999999999"));
    }

    @Test
    void readsARealFile() throws Exception {
        Path file = dir.resolve("machines");
        Files.writeString(file, "# two hosts\nh1 slots=2\nh2\n", StandardCharsets.UTF_8);
        HostList hosts = HostFile.read(file);
        assertEquals(List.of(new Host("h1", 2), new Host("h2", 1)), hosts.hosts());
        assertEquals("hostfile " + file, hosts.source());
        Files.writeString(file, "h1\nh2 slots=two\n", StandardCharsets.UTF_8);
        assertEquals(file + ":2: 'slots=two': slots must be a whole number, got 'two'",
                assertThrows(UsageException.class, () -> HostFile.read(file)).getMessage());
    }

    @Test
    void aMissingFileIsAClearError() {
        Path missing = dir.resolve("nope");
        String message = assertThrows(UsageException.class, () -> HostFile.read(missing)).getMessage();
        assertTrue(message.startsWith("cannot read hostfile " + missing + ": "), message);
        assertTrue(message.contains("NoSuchFile"), message);
    }
}
