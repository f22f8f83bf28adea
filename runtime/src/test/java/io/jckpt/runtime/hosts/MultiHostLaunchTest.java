package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import io.jckpt.testkit.hosts.HostedJobsExtension;
import io.jckpt.testkit.hosts.TestHost;
import io.jckpt.testkit.hosts.TestHosts;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The launcher across real namespace hosts ({@link TestHosts}: own /dev/shm, own sshd, addresses
 * enforced so that wrong peer information fails): ranks started over ssh with a hostfile, copies on
 * other hosts, a whole host lost, an unreachable host at start. Skipped with the reason when the
 * harness is unavailable (not root, a tool missing).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiHostLaunchTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";
    private static final long RUN_MILLIS = 180_000;
    @RegisterExtension
    static final HostedJobsExtension jobs = new HostedJobsExtension(LaunchedJob.repoRoot().resolve("runtime/target"),
            "multihost", work -> TestHosts.builder().hosts(4).enforceAddresses(true));

    @Test
    @Order(1)
    void threeHostsTimesTwoRanksGiveTheFailureFreeResult() throws Exception {
        Path file = jobs.hostfile("three", 2, jobs.host(0), jobs.host(1), jobs.host(2));
        try (LaunchedJob job = LaunchedJob.start("-np", "6", "--hostfile", file.toString(), "--rsh", jobs.rsh(),
                "-cp", LaunchedJob.testClasses().toString(), LOOP, "20", "20")) {
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            // by slot: ranks 0,1 on the first host, 2,3 on the second, 4,5 on the third; copies on other hosts
            assertEquals(1, job.linesContaining("hosts: " + jobs.host(0).address() + ": ranks 0,1").size(), job.output());
            assertEquals(1, job.linesContaining("survives").size(), job.output());
            assertEquals(6, job.linesContaining("loop done at round 20 sum " + 6L * 20 * 21 / 2).size(), job.output());
            jobs.assertNothingLeft(job.jobId());
        }
    }

    @Test
    @Order(2)
    void anUnreachableHostAtStartIsAClearErrorAndNothingStarts() throws Exception {
        TestHost gone = jobs.host(3);
        gone.loseNode();
        Path file = jobs.hostfile("unreachable", 2, jobs.host(0), jobs.host(1), gone);
        try (LaunchedJob job = LaunchedJob.start("-np", "6", "--hostfile", file.toString(), "--rsh", jobs.rsh(),
                "--job-id", "unreachable-" + ProcessHandle.current().pid(),
                "-cp", LaunchedJob.testClasses().toString(), LOOP, "20", "20")) {
            assertEquals(2, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(1, job.linesContaining("host " + gone.address() + " cannot be reached").size(), job.output());
            assertTrue(job.linesContaining("[rank").isEmpty(), job.output());
            jobs.assertNothingLeft("unreachable-" + ProcessHandle.current().pid());
        }
    }

    @Test
    @Order(3)
    void aRemoteRankWhoseAgentIsKilledIsStoppedAndRespawnedOnItsHost() throws Exception {
        // --kill SIGKILLs the rank's ssh client only: the remote JVM lives on until the launcher closes
        // its control connection (a rank halts when it loses its launcher); :wipe removes its store on
        // its own host, so that it restores from the copy on another host
        Path file = jobs.hostfile("agent", 2, jobs.host(0), jobs.host(1), jobs.host(2));
        try (LaunchedJob job = LaunchedJob.start("-np", "6", "--hostfile", file.toString(), "--rsh", jobs.rsh(),
                "--on-failure", "respawn", "--kill", "1@round=5:wipe",
                "-cp", LaunchedJob.testClasses().toString(), LOOP, "30", "100")) {
            job.awaitLine("recovered: all 6 ranks", RUN_MILLIS);
            // six rank JVMs of the job on the hosts: the killed agent's JVM is gone, its replacement runs
            long deadline = System.nanoTime() + 10_000_000_000L;
            List<Long> ranks = LaunchedJob.processesOfJob(job.jobId());
            while (ranks.size() != 6 && System.nanoTime() < deadline && job.linesContaining("loop done").isEmpty()) {
                Thread.sleep(50);
                ranks = LaunchedJob.processesOfJob(job.jobId());
            }
            assertEquals(6, ranks.size(), ranks + "\n" + job.output());
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(6, job.linesContaining("loop done at round 30 sum " + 6L * 30 * 31 / 2).size(), job.output());
            assertEquals(1, job.linesContaining("rank 1: restored round").stream()
                    .filter(l -> l.contains("from memory (RECEIVE)")).count(), job.output());
            assertTrue(job.linesContaining("restarts on").isEmpty(), "rank 1's host lives: " + job.output());
            jobs.assertNothingLeft(job.jobId());
        }
    }

    @Test
    @Order(4)
    void aWholeHostLostIsRestoredFromCopiesOnOtherHostsAndRespawnedElsewhere() throws Exception {
        // 3 slots a host, 2 ranks each by node: every host keeps a free slot for a respawn
        TestHost lost = jobs.host(2);
        Path file = jobs.hostfile("loss", 3, jobs.host(0), jobs.host(1), lost);
        try (LaunchedJob job = LaunchedJob.start("-np", "6", "--hostfile", file.toString(), "--rsh", jobs.rsh(),
                "--map-by", "node", "--on-failure", "respawn", "--replicas", "1",
                "-cp", LaunchedJob.testClasses().toString(), LOOP, "40", "100")) {
            // three progress lines (one a second at most): rounds are complete with their copies on every rank
            job.awaitLines("checkpoint round", 3, 120_000);
            // by node: ranks 2 and 5 run on the third host
            assertEquals(1, job.linesContaining(lost.address() + ": ranks 2,5").size(), job.output());
            lost.loseNode();
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(6, job.linesContaining("loop done at round 40 sum " + 6L * 40 * 41 / 2).size(), job.output());
            assertEquals(1, job.linesContaining("host " + lost.address() + " lost: it does not answer").size(), job.output());
            for (int rank : new int[] {2, 5}) {
                assertEquals(1, job.linesContaining("rank " + rank + ": restored round").stream()
                        .filter(l -> l.contains("from memory (RECEIVE)")).count(), job.output());
                assertEquals(1, job.linesContaining("rank " + rank + ": host " + lost.address() + " lost, restarts on 127.0.0.")
                        .size(), job.output());
            }
            jobs.assertNothingLeft(job.jobId());
        } finally {
            lost.restart();
        }
    }

    @Test
    @Order(5)
    void ctrlCStopsEveryRemoteRankAndRemovesTheStoresOnEveryHost() throws Exception {
        // Ctrl-C in a terminal signals the launcher's whole process group: the remote shells' agents are in
        // sessions of their own (no spurious failure of theirs), the launcher closes the control connections
        // (the remote JVMs halt) and removes the job's stores on every host
        Path file = jobs.hostfile("interrupted", 2, jobs.host(0), jobs.host(1), jobs.host(2));
        try (LaunchedJob job = LaunchedJob.startInOwnProcessGroup("-np", "6", "--hostfile", file.toString(),
                "--rsh", jobs.rsh(), "--on-failure", "respawn", "-cp", LaunchedJob.testClasses().toString(), LOOP,
                "100000", "50")) {
            job.awaitLines("checkpoint round", 2, 120_000);
            boolean storesWritten = false;
            for (TestHost h : List.of(jobs.host(0), jobs.host(1), jobs.host(2))) {
                storesWritten |= h.run("ls -R /dev/shm").stdout().contains(job.jobId());
            }
            assertTrue(storesWritten, "the job's stores exist on the hosts before the signal");
            job.interruptGroup();
            assertTrue(job.awaitExit(60_000) != 0, job.output());
            assertEquals(1, job.linesContaining("launcher interrupted: stopping all ranks").size(), job.output());
            assertTrue(job.linesContaining("FAILURE").isEmpty(), "no failure on Ctrl-C: " + job.output());
            assertEquals(1, job.linesContaining("node-local stores of job " + job.jobId() + " deleted on every host").size(),
                    job.output());
            jobs.assertNothingLeft(job.jobId());
        }
    }
}
