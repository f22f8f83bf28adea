package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import io.jckpt.testkit.hosts.HostedJobs;
import io.jckpt.testkit.hosts.HostedJobsExtension;
import io.jckpt.testkit.hosts.TestHost;
import io.jckpt.testkit.hosts.TestHosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The launcher across real namespace hosts ({@link TestHosts}: own /dev/shm, own sshd, addresses
 * enforced so that wrong peer information fails): ranks started over ssh with a hostfile, copies on
 * other hosts, a whole host lost, an unreachable host at start, a stopped rank killed on its host and a
 * host that hangs. Skipped with the reason when the harness is unavailable (not root, a tool missing).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class MultiHostLaunchTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";
    private static final long RUN_MILLIS = 180_000;
    @RegisterExtension
    static final HostedJobsExtension jobs = new HostedJobsExtension(LaunchedJob.repoRoot().resolve("runtime/target"),
            "multihost", work -> TestHosts.builder().hosts(4).enforceAddresses(true));

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
            assertEquals(1, job.rollbacks(1, "memory", "receive"), job.output());
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
                assertEquals(1, job.rollbacks(rank, "memory", "receive"), job.output());
                assertEquals(1, HostedJobs.moves(job, rank, lost.address()).size(), job.output());
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
    @Test
    @Order(6)
    void aStoppedRankIsKilledOnItsHostAndAHostThatHangsDoesNotHoldTheRecovery() throws Exception {
        // 3 slots a host, by node: ranks 0,3 on h0, 1,4 on h1, 2 alone on h2; a free slot on every host
        TestHost[] h = {jobs.host(0), jobs.host(1), jobs.host(2)};
        Path file = jobs.hostfile("stopped", 3, h[0], h[1], h[2]);
        try (LaunchedJob job = LaunchedJob.start("-np", "5", "--hostfile", file.toString(), "--rsh", jobs.rsh(),
                "--map-by", "node", "--on-failure", "respawn", "--replicas", "1", "--standby", "0",
                "-cp", LaunchedJob.testClasses().toString(), LOOP, "40", "100")) {
            job.awaitLines("checkpoint round", 2, 120_000);
            String hostsLine = job.linesContaining("hosts: ").get(0);
            assertTrue(hostsLine.contains(h[0].address() + ": ranks 0,3") && hostsLine.contains(h[2].address() + ": ranks 2"),
                    hostsLine);

            // 1. rank 3's JVM stopped on h0, whose rank 0 still answers: the heartbeat declares rank 3 failed,
            // it restarts on h0, and its stopped JVM (which cannot halt itself) is killed there
            long stopped = rankJvm(h[0], job.jobId(), 3);
            signal("STOP", stopped);
            job.awaitLine("recovered: all 5 ranks", RUN_MILLIS);
            Matcher killed = Pattern.compile("rank 3's failed process on " + Pattern.quote(h[0].address())
                    + " \\(pid ([0-9]+)\\) killed").matcher(job.awaitLine("rank 3's failed process on", RUN_MILLIS).text());
            assertTrue(killed.find(), job.output());
            assertTrue(awaitGone(stopped), "rank 3's stopped JVM still on " + h[0] + ": " + state(stopped) + "\n" + job.output());
            assertTrue(job.linesContaining("rank 3: host ").isEmpty(), "rank 3 restarts on its host: " + job.output());

            // 2. h2 hangs (its sshd stopped: a connection is accepted, never answered) and its only rank's JVM
            // stops: the heartbeat declares rank 2 failed; h2's probe hangs, yet rank 2 restarts on another
            // host before any verdict on h2, which cannot come while its sshd is stopped
            long sshd = sshdListener(h[2]);
            long lone = rankJvm(h[2], job.jobId(), 2);
            signal("STOP", sshd);
            try {
                signal("STOP", lone);
                String moved = job.awaitLine("rank 2: host " + h[2].address() + " does not answer, restarts on ", RUN_MILLIS).text();
                assertTrue(job.linesContaining("host " + h[2].address() + " lost").isEmpty(), "h2's verdict before the move: "
                        + job.output());
                assertTrue(job.linesContaining("hosts checked in").stream().anyMatch(l -> l.contains(h[2].address()
                        + " not answering yet")), job.output());
                assertTrue(!moved.contains("restarts on " + h[2].address()), moved);
            } finally {
                signal("CONT", sshd);
            }
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(5, job.linesContaining("loop done at round 40 sum " + 5L * 40 * 41 / 2).size(), job.output());
            assertEquals(2, job.linesContaining("recovering: epoch").size(), job.output());
            // h2 answered again (its stopped JVM then killed), or its probe overran and it was found lost (the
            // job's end killed what the job left there): either way nothing of the job is left on any host
            assertTrue(awaitGone(lone), "rank 2's stopped JVM still on " + h[2] + ": " + state(lone) + "\n" + job.output());
            jobs.assertNothingLeft(job.jobId());
        }
    }

    /** The machine-namespace pid of {@code rank}'s JVM of job {@code jobId} on {@code host}. */
    private static long rankJvm(TestHost host, String jobId, int rank) throws IOException {
        List<Long> jvms = LaunchedJob.processesOfJob(jobId).stream().filter(host.processes()::contains)
                .filter(pid -> read(pid, "cmdline").contains("java") && read(pid, "environ").contains("JCKPT_RANK=" + rank + "\0"))
                .toList();
        assertEquals(1, jvms.size(), "rank " + rank + "'s JVM on " + host + ": " + jvms);
        return jvms.get(0);
    }

    /** The machine-namespace pid of {@code host}'s sshd listener (not a session's). */
    private static long sshdListener(TestHost host) {
        List<Long> sshd = host.processes().stream().filter(pid -> read(pid, "cmdline").replace('\0', ' ').contains(" -D -e -f ")).toList();
        assertEquals(1, sshd.size(), "sshd of " + host + ": " + sshd);
        return sshd.get(0);
    }

    private static void signal(String name, long pid) throws IOException, InterruptedException {
        assertEquals(0, new ProcessBuilder("kill", "-" + name, Long.toString(pid)).inheritIO().start().waitFor(),
                "kill -" + name + " " + pid);
    }

    /**
     * Whether process {@code pid} is gone (or a zombie waiting for its reaper: it runs no more) within 5 s: a
     * SIGKILLed JVM takes a moment to release its memory.
     */
    private static boolean awaitGone(long pid) throws InterruptedException {
        long deadline = System.nanoTime() + 5_000_000_000L;
        for (;;) {
            String state = state(pid);
            if (state.isEmpty() || state.equals("Z") || state.equals("X")) {
                return true;
            }
            if (System.nanoTime() > deadline) {
                return false;
            }
            Thread.sleep(20); // polling /proc for a process of another namespace
        }
    }

    private static String state(long pid) {
        String stat = read(pid, "stat");
        int end = stat.lastIndexOf(')');
        return end < 0 || end + 2 >= stat.length() ? "" : stat.substring(end + 2, end + 3);
    }

    /** /proc/PID/FILE as it is (environ and cmdline: NUL-separated), or "" when the process is gone. */
    private static String read(long pid, String file) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), file), java.nio.charset.StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            return "";
        }
    }
}
