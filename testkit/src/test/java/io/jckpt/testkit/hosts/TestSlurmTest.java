package io.jckpt.testkit.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.hosts.TestHosts.Result;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The SLURM test cluster: salloc/srun place tasks on the three nodes' namespaces, the environment SLURM gives
 * salloc and sbatch jobs (what the launcher reads), a client past its limit is killed and its job cancelled
 * (salloc ignores SIGTERM), a lost node goes DOWN and comes back, and close() leaves nothing.
 */
class TestSlurmTest {
    private static final Duration LIMIT = Duration.ofSeconds(30);

    @RegisterExtension
    static final TestSlurmExtension slurm = new TestSlurmExtension(Path.of("target"), "testslurm", b -> b.nodes(3));

    @Test
    void sallocSrunRunsTwoTasksOnEachNodeInThatNodesNamespaces() throws IOException {
        TestSlurm c = slurm.cluster();
        Result r = c.salloc(LIMIT, "-N3", "-n6", "srun", "hostname");
        List<String> names = Arrays.stream(r.check("salloc srun hostname").split("\n")).map(String::strip).sorted().toList();
        assertEquals(List.of("node1", "node1", "node2", "node2", "node3", "node3"), names, r.stderr());

        // a task on node2 writes node2's own /dev/shm (not node1's, not the machine's)
        String marker = "testslurm-" + System.nanoTime();
        c.srun(LIMIT, "-N1", "-n1", "-w", "node2", "sh", "-c", "echo x > /dev/shm/" + marker).check("srun on node2");
        assertTrue(Files.exists(c.node(1).shm().resolve(marker)));
        assertFalse(Files.exists(c.node(0).shm().resolve(marker)));
        assertFalse(Files.exists(Path.of("/dev/shm", marker)));
    }

    @Test
    void sallocAndSbatchJobsGetTheAllocationInTheirEnvironment() throws IOException {
        TestSlurm c = slurm.cluster();
        Map<String, String> salloc = env(c.salloc(LIMIT, "-N3", "-n6", "env").check("salloc env"));
        assertEquals("node[1-3]", salloc.get("SLURM_JOB_NODELIST"), salloc.toString());
        assertEquals("3", salloc.get("SLURM_JOB_NUM_NODES"));
        assertEquals("6", salloc.get("SLURM_NTASKS"));
        assertEquals("2(x3)", salloc.get("SLURM_TASKS_PER_NODE"));
        assertEquals("2(x3)", salloc.get("SLURM_JOB_CPUS_PER_NODE"));
        assertTrue(salloc.get("SLURM_JOB_ID").matches("\\d+"), salloc.toString());

        Path work = slurm.work();
        Path script = work.resolve("env.sbatch");
        Files.writeString(script, "#!/bin/bash\n#SBATCH -N3 -n6\nenv > " + work.resolve("batch-$SLURM_JOB_ID.env")
                + "\nsrun sh -c 'echo $SLURM_PROCID $SLURMD_NODENAME' > " + work.resolve("batch-$SLURM_JOB_ID.tasks") + "\n");
        String jobId = c.submit("-o", work.resolve("batch-%j.out").toString(), script.toString());
        assertEquals("COMPLETED", c.awaitJob(jobId, LIMIT));
        Map<String, String> batch = env(Files.readString(work.resolve("batch-" + jobId + ".env")));
        assertEquals(jobId, batch.get("SLURM_JOB_ID"));
        assertNotEquals(salloc.get("SLURM_JOB_ID"), jobId);
        assertEquals("node[1-3]", batch.get("SLURM_JOB_NODELIST"));
        assertEquals("2(x3)", batch.get("SLURM_TASKS_PER_NODE"));
        assertEquals("6", batch.get("SLURM_NTASKS"));
        assertEquals("0", batch.get("SLURM_NODEID"));
        assertEquals("0", batch.get("SLURM_PROCID"));
        assertEquals("2", batch.get("SLURM_CPUS_ON_NODE"));
        List<String> tasks = Files.readAllLines(work.resolve("batch-" + jobId + ".tasks")).stream().sorted().toList();
        assertEquals(List.of("0 node1", "1 node1", "2 node2", "3 node2", "4 node3", "5 node3"), tasks);
    }

    @Test
    void aClientPastItsLimitIsKilledWithItsJobEvenThoughSallocIgnoresSigterm() throws IOException {
        TestSlurm c = slurm.cluster();
        IOException e = assertThrows(IOException.class, () -> c.salloc(Duration.ofSeconds(1), "-N1", "sleep", "120"));
        assertTrue(e.getMessage().contains("timed out after 1000 ms"), e.getMessage());
        assertEquals("", c.client(LIMIT, "squeue", "-h", "-t", "PD,CF,R,S").check("squeue"), "a job outlived its salloc");
        assertEquals(List.of(), List.copyOf(TestHosts.Cgroups.processes(c.cgroup("login"))),
                "client processes left in the login cgroup");
    }

    @Test
    void aLostNodeIsDownAtOnceAndRefusedUntilItIsRestarted() throws IOException {
        TestSlurm c = slurm.cluster();
        SlurmNode node3 = c.node(2);
        long init = node3.initPid();
        c.loseNode(node3);
        assertFalse(ProcessHandle.of(init).isPresent(), "node3's init survived");
        assertFalse(Files.exists(node3.cgroup()), "node3's cgroup survived");
        assertTrue(c.nodeStates().get("node3").startsWith("down"), c.nodeStates().toString());
        Result refused = c.srun(LIMIT, "--immediate=1", "-N1", "-w", "node3", "hostname");
        assertNotEquals(0, refused.exitCode(), refused.stdout());

        c.restartNode(node3);
        assertEquals("idle", c.nodeStates().get("node3"));
        assertEquals("node3", c.srun(LIMIT, "-N1", "-w", "node3", "hostname").check("srun on node3").strip());
    }

    @Test
    void closeLeavesNoProcessCgroupOrFile() throws IOException {
        TestSlurm c = TestSlurm.builder().nodes(2).start();
        List<Long> pids = c.nodes().stream().flatMap(n -> n.processes().stream()).collect(Collectors.toList());
        pids.addAll(c.controller().processes());
        assertTrue(pids.size() >= 5, "inits, munged, slurmctld, slurmds: " + pids);
        Path cgroup = c.controller().cgroup().getParent();
        Path dir = c.runDirectory();
        c.close();
        assertEquals(List.of(), pids.stream().filter(p -> ProcessHandle.of(p).isPresent()).toList());
        assertFalse(Files.exists(cgroup), "cgroup left: " + cgroup);
        assertFalse(Files.exists(dir), "run directory left: " + dir);
    }

    private static Map<String, String> env(String text) {
        return Arrays.stream(text.split("\n")).filter(l -> l.startsWith("SLURM")).map(l -> l.split("=", 2))
                .filter(kv -> kv.length == 2).collect(Collectors.toMap(kv -> kv[0], kv -> kv[1], (a, b) -> b));
    }
}
