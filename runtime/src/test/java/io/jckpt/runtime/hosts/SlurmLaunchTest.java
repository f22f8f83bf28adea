package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.jckpt.testkit.JobEvents;
import io.jckpt.testkit.LaunchedJob;
import io.jckpt.testkit.hosts.SlurmNode;
import io.jckpt.testkit.hosts.TestSlurm;
import io.jckpt.testkit.hosts.TestSlurmExtension;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The launcher inside a real SLURM allocation ({@link TestSlurm}: a controller and three slurmd nodes, each its
 * own namespaces and /dev/shm): started under {@code salloc --no-kill} it takes the allocation's nodes and
 * starts each rank as an {@code srun --overlap} step on its node, not over ssh; a rank whose JVM hangs is
 * declared failed and killed on its node (not only its local srun); a node killed mid-run (its
 * namespace SIGKILLed, then DOWN in SLURM) is found lost, its ranks restart on the allocation's free node and
 * are restored from the copies in the other nodes' memory, with the loop's exact sum, and nothing of the job
 * is left. Skipped with the reason when the cluster cannot be made here (not root, SLURM missing).
 */
class SlurmLaunchTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";
    private static final long RUN_MILLIS = 120_000;

    @RegisterExtension
    static final TestSlurmExtension slurm = new TestSlurmExtension(LaunchedJob.repoRoot().resolve("runtime/target"),
            "slurmlaunch", b -> b.nodes(3));

    @Test
    void aHungRankIsKilledOnItsNodeAndALostNodeIsRestoredFromMemoryOnTheAllocationsFreeNode() throws Exception {
        TestSlurm c = slurm.cluster();
        Path events = slurm.work().resolve("loss.jsonl");
        // 6 slots on 3 nodes, 4 ranks: node1 and node2 run two each, node3 is the allocation's free node
        List<String> salloc = List.of(c.loginScript().toString(), "salloc", "-N3", "-n6", "--no-kill", "--quiet");
        int rounds = 80;
        try (LaunchedJob job = LaunchedJob.startUnder(salloc, "-np", "4", "--on-failure", "respawn",
                "--events", events.toString(), "--output-dir", slurm.work().resolve("out").toString(),
                "-cp", LaunchedJob.testClasses().toString(), LOOP, Integer.toString(rounds), "100")) {
            job.awaitLines("checkpoint round", 2, RUN_MILLIS);
            String hosts = job.linesContaining("hosts: ").get(0);
            assertTrue(hosts.contains("hosts: node1: ranks 0,1; node2: ranks 2,3; spare: node3:2; remote shell: srun --overlap"),
                    hosts);

            // 1. rank 1's JVM on node1 stopped: silent past the heartbeat timeout, declared failed, and it must
            // die on node1 (killing the local srun would leave the step's JVM there), not only be replaced
            long hung = rankJvm(c.node(0), job.jobId(), 1);
            stop(hung);
            job.awaitLine("recovered: all 4 ranks", RUN_MILLIS);
            assertTrue(awaitGone(hung, 10_000), "rank 1's stopped JVM (pid " + hung + ") still runs on node1: "
                    + job.output());
            // by the launcher's kill through an srun step on node1 (the pid is node1's own)
            job.awaitLine("rank 1's failed process on node1 (pid ", RUN_MILLIS);
            List<String> kills = job.linesContaining("rank 1's failed process on node1 (pid ");
            assertEquals(1, kills.size(), job.output());
            assertTrue(kills.get(0).endsWith(") killed"), kills.get(0));

            // 2. node2 lost whole (its namespace SIGKILLed, then DOWN in SLURM) once computing again
            job.awaitLine("recovery 1: ", RUN_MILLIS);
            c.loseNode(c.node(1));
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(4, job.linesContaining("loop done at round " + rounds + " sum " + 4L * rounds * (rounds + 1) / 2)
                    .size(), job.output());
            assertEquals(1, job.linesContaining("host node2 lost: it does not answer").size(), job.output());
            assertEquals(2, job.linesContaining("recovering: epoch").size(), job.output());
            for (int rank : List.of(2, 3)) {
                List<String> moved = job.linesContaining("rank " + rank + ": host node2 lost, restarts on ");
                assertEquals(1, moved.size(), job.output());
                assertTrue(!moved.get(0).contains("restarts on node2") && !moved.get(0).contains("host node2 lost, restarts"
                        + " on spare host node2"), moved.get(0));
            }
            Map<Integer, JsonNode> rollbacks = JobEvents.lastRollbacks(events);
            assertEquals(Set.of(0, 1, 2, 3), rollbacks.keySet(), job.output());
            for (JsonNode r : rollbacks.values()) {
                assertEquals("memory", r.get("source").asText(), r + "\n" + job.output());
                assertEquals(r.get("rank").asInt() >= 2 ? "receive" : "local", r.get("how").asText(), r + "\n" + job.output());
            }
            List<Long> left = LaunchedJob.processesLeft(job.jobId(), 10_000);
            assertEquals(List.of(), left, "processes of the job left: " + job.output());
            for (SlurmNode node : List.of(c.node(0), c.node(2))) {
                String stores = node.run(Duration.ofSeconds(20), "ls -R /dev/shm").check("ls on " + node);
                assertTrue(!stores.contains(job.jobId()), node + " keeps a store: " + stores);
            }
            job.linesContaining("recovery ").forEach(l -> System.out.println("slurm launch: " + l));
        } finally {
            c.cancelAllJobs(); // the launcher's salloc was SIGKILLed if the case failed: no allocation outlives it
            if (!c.node(1).isUp()) {
                c.restartNode(c.node(1));
            }
        }
    }

    /** The machine PID of rank {@code rank}'s JVM of job {@code jobId} on {@code node} (by its environment). */
    private static long rankJvm(SlurmNode node, String jobId, int rank) throws IOException {
        for (long pid : node.processes()) {
            try {
                String env = Files.readString(Path.of("/proc", Long.toString(pid), "environ"));
                List<String> vars = List.of(env.split("\0"));
                if (vars.contains("JCKPT_JOB_ID=" + jobId) && vars.contains("JCKPT_RANK=" + rank)
                        && ProcessHandle.of(pid).flatMap(h -> h.info().command()).orElse("").endsWith("java")) {
                    return pid;
                }
            } catch (IOException gone) {
                // ended meanwhile
            }
        }
        throw new AssertionError("no JVM of rank " + rank + " of job " + jobId + " on " + node);
    }

    private static void stop(long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-STOP", Long.toString(pid)).inheritIO().start();
        assertTrue(kill.waitFor(10, TimeUnit.SECONDS) && kill.exitValue() == 0, "kill -STOP " + pid);
    }

    /** Whether process {@code pid} is gone within {@code millis} (it is being killed: bounded polling). */
    private static boolean awaitGone(long pid, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        while (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20);
        }
        return true;
    }

}
