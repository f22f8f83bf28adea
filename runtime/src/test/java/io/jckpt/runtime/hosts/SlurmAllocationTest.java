package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** SLURM's compressed nodelist and tasks-per-node syntax, and the allocation read from a given environment. */
class SlurmAllocationTest {
    private static List<String> expand(String nodelist) throws UsageException {
        return SlurmAllocation.expandNodelist("SLURM_JOB_NODELIST", nodelist);
    }

    private static String nodelistError(String nodelist) {
        return assertThrows(UsageException.class, () -> expand(nodelist)).getMessage();
    }

    @Test
    void plainNamesAndLists() throws Exception {
        assertEquals(List.of("node1"), expand("node1"));
        assertEquals(List.of("a", "b.example.org", "c-1"), expand("a,b.example.org,c-1"));
    }

    @Test
    void rangesListsAndZeroPadding() throws Exception {
        assertEquals(List.of("node01", "node02", "node03", "node07", "gpu1", "gpu2"), expand("node[01-03,07],gpu[1-2]"));
        assertEquals(List.of("n8", "n9", "n10", "n11"), expand("n[8-11]"));
        assertEquals(List.of("n08", "n09", "n10", "n11"), expand("n[08-11]"));
        assertEquals(List.of("n098", "n099", "n100"), expand("n[098-100]"));
        assertEquals(List.of("n0", "n5", "n6"), expand("n[0,5-6]"));
        assertEquals(List.of("n007"), expand("n[007]"));
        assertEquals(List.of("x9", "x10"), expand("x[9-10]"));
    }

    @Test
    void severalBracketGroupsAndSuffixes() throws Exception {
        assertEquals(List.of("r1n1", "r1n2", "r2n1", "r2n2"), expand("r[1-2]n[1-2]"));
        assertEquals(List.of("rack01-node1-ib", "rack01-node3-ib", "rack02-node1-ib", "rack02-node3-ib", "login"),
                expand("rack[01-02]-node[1,3]-ib,login"));
        assertEquals(List.of("1a", "2a"), expand("[1-2]a"));
        List<String> big = expand("c[001-100]");
        assertEquals(100, big.size());
        assertEquals("c001", big.get(0));
        assertEquals("c100", big.get(99));
    }

    @Test
    void malformedNodelistsNameTheProblem() {
        assertEquals("SLURM_JOB_NODELIST 'n[1-3': '[' without ']'", nodelistError("n[1-3"));
        assertEquals("SLURM_JOB_NODELIST 'n1-3]': ']' without '[' at character 5", nodelistError("n1-3]"));
        assertEquals("SLURM_JOB_NODELIST 'n[[1]]': nested '[' at character 3", nodelistError("n[[1]]"));
        assertEquals("SLURM_JOB_NODELIST 'n[3-1]': range '3-1' in [3-1] goes downwards", nodelistError("n[3-1]"));
        assertEquals("SLURM_JOB_NODELIST 'n[a-c]': 'a-c' in [a-c] is not a number or a range lo-hi", nodelistError("n[a-c]"));
        assertEquals("SLURM_JOB_NODELIST 'n[]': '' in [] is not a number or a range lo-hi", nodelistError("n[]"));
        assertEquals("SLURM_JOB_NODELIST 'n[1,]': '' in [1,] is not a number or a range lo-hi", nodelistError("n[1,]"));
        assertEquals("SLURM_JOB_NODELIST 'a,,b': empty entry", nodelistError("a,,b"));
        assertEquals("SLURM_JOB_NODELIST 'a,': empty entry", nodelistError("a,"));
        assertEquals("SLURM_JOB_NODELIST 'n[1-99999999]': expands to more than 65536 hosts", nodelistError("n[1-99999999]"));
        assertEquals("SLURM_JOB_NODELIST 'a[1-300]b[1-300]': expands to more than 65536 hosts",
                nodelistError("a[1-300]b[1-300]"));
        assertTrue(nodelistError("bad name[1-2]").startsWith("SLURM_JOB_NODELIST 'bad name[1-2]': bad host name 'bad name1'"));
    }

    @Test
    void tasksPerNode() throws Exception {
        assertEquals(List.of(2, 2, 2, 1), SlurmAllocation.expandTasksPerNode("T", "2(x3),1"));
        assertEquals(List.of(4), SlurmAllocation.expandTasksPerNode("T", "4"));
        assertEquals(List.of(1, 3, 3, 2, 2), SlurmAllocation.expandTasksPerNode("T", "1,3(x2),2(x2)"));
        for (String bad : new String[] {"", "2(3)", "2(x)", "2(x3", "x(x3)", "0", "2(x0)", "2,,1", "-1"}) {
            String message = assertThrows(UsageException.class, () -> SlurmAllocation.expandTasksPerNode("T", bad),
                    bad).getMessage();
            assertTrue(message.startsWith("T '" + bad + "': "), message);
        }
    }

    @Test
    void theAllocationFromTheEnvironment() throws Exception {
        HostList hosts = SlurmAllocation.fromEnvironment(Map.of(
                "SLURM_JOB_NODELIST", "node[01-03],gpu7",
                "SLURM_NODELIST", "ignored[1-9]",
                "SLURM_TASKS_PER_NODE", "2(x3),1")).orElseThrow();
        assertEquals(List.of(new Host("node01", 2), new Host("node02", 2), new Host("node03", 2), new Host("gpu7", 1)),
                hosts.hosts());
        assertEquals("SLURM allocation (SLURM_JOB_NODELIST=node[01-03],gpu7)", hosts.source());
    }

    @Test
    void theOlderVariableAndNoTaskCounts() throws Exception {
        HostList hosts = SlurmAllocation.fromEnvironment(Map.of("SLURM_NODELIST", "n[1-2]")).orElseThrow();
        assertEquals(List.of(new Host("n1", 1), new Host("n2", 1)), hosts.hosts());
    }

    @Test
    void outsideAnAllocation() throws Exception {
        assertEquals(Optional.empty(), SlurmAllocation.fromEnvironment(Map.of("SLURM_TASKS_PER_NODE", "2")));
        assertEquals(Optional.empty(), SlurmAllocation.fromEnvironment(Map.of("SLURM_JOB_NODELIST", " ")));
    }

    @Test
    void countsThatDisagreeWithTheNodesAreAnError() {
        assertEquals("SLURM_TASKS_PER_NODE '2(x2)' gives 2 task counts for the 3 nodes of SLURM_JOB_NODELIST 'n[1-3]'",
                assertThrows(UsageException.class, () -> SlurmAllocation.fromEnvironment(Map.of(
                        "SLURM_JOB_NODELIST", "n[1-3]", "SLURM_TASKS_PER_NODE", "2(x2)"))).getMessage());
    }

    @Test
    void expansionMatchesAnIndependentEnumeration() throws Exception {
        // every range lo-hi for lo, hi < 120 with widths 1..3: the names are the numbers, padded to lo's width
        for (int width = 1; width <= 3; width++) {
            for (int lo = 0; lo < 120; lo += 7) {
                String l = String.format("%0" + width + "d", lo);
                for (int hi = lo; hi < 120; hi += 13) {
                    List<String> expected = new ArrayList<>();
                    for (int v = lo; v <= hi; v++) {
                        expected.add("h" + String.format("%0" + l.length() + "d", v) + "x");
                    }
                    assertEquals(expected, expand("h[" + l + "-" + hi + "]x"), l + "-" + hi);
                }
            }
        }
    }
}
