package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import io.jckpt.testkit.JobEvents;
import io.jckpt.testkit.LaunchedJob;
import io.jckpt.testkit.hosts.HostedJobs;
import io.jckpt.testkit.hosts.TestHost;
import io.jckpt.testkit.hosts.TestHosts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Losses beyond one host, on real namespace hosts ({@link TestHosts}: own /dev/shm and /tmp, own sshd,
 * addresses enforced, a disk directory shared by every host): two whole hosts of four lost at once with
 * m = 2 (every rank restored from the copies on the surviving hosts), every host running a rank lost
 * (restored on spare hosts from the shared disk directory), and a host without a class path entry at
 * start (a clear error, nothing started anywhere). Skipped with the reason when the harness is
 * unavailable (not root, a tool missing).
 */
class MultiHostLossLaunchTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";
    private static final long RUN_MILLIS = 180_000;
    private static HostedJobs jobs;
    private static TestHosts hosts;
    private static Path work;
    /** Shared by every host: outside it, /tmp is each host's own tmpfs. */
    private static Path disk;

    @BeforeAll
    static void startHosts() throws IOException {
        TestHosts.assumeAvailable();
        disk = Files.createTempDirectory("jckpt-hostloss-disk");
        jobs = HostedJobs.start(LaunchedJob.repoRoot().resolve("runtime/target"), "hostloss",
                dir -> TestHosts.builder().hosts(4).share(disk).enforceAddresses(true));
        hosts = jobs.hosts();
        work = jobs.work();
    }

    @AfterAll
    static void stopHosts() throws IOException {
        try {
            if (jobs != null) {
                jobs.close();
            }
        } finally {
            if (disk != null) {
                TestHosts.deleteTree(disk);
            }
        }
    }

    /** The next case gets four live hosts with an empty /dev/shm. */
    @AfterEach
    void restartLostHosts() throws IOException {
        for (TestHost h : hosts.hosts()) {
            if (!h.isUp()) {
                h.restart();
            }
        }
    }

    @Test
    void twoHostsOfFourLostAtOnceWithTwoCopiesAreRestoredFromMemory() throws Exception {
        // 4 hosts x 1 rank (by node; a free slot on each host for a respawn), m = 2: every rank's two
        // holders on two distinct other hosts, so any two hosts may go
        Path events = work.resolve("two-lost.jsonl");
        try (LaunchedJob job = LaunchedJob.start("-np", "4",
                "--hostfile", jobs.hostfile("two-lost", 2, hosts.hosts()).toString(),
                "--rsh", jobs.rsh(), "--map-by", "node", "--on-failure", "respawn", "--replicas", "2",
                "--events", events.toString(), "-cp", LaunchedJob.testClasses().toString(), LOOP, "40", "100")) {
            job.awaitLines("checkpoint round", 3, 120_000);
            Map<Integer, String> hostOfRank = hostsLine(job);
            int[] ring = ringOf(job);
            assertEquals(4, ring.length, job.output());
            assertEquals(1, job.linesContaining("copies: m = 2 on 4 hosts, ring ").size(), job.output());
            assertEquals(1, job.linesContaining("every rank's 2 holders are on 2 other hosts; survives the loss of any 2 hosts"
                    + " from memory").size(), job.output());
            assertTrue(job.linesContaining("placement warning").isEmpty(), job.output());
            // what the line states, from the ring itself: each rank's 2 holders on 2 distinct hosts, not its own
            for (int i = 0; i < ring.length; i++) {
                Set<String> distinct = new HashSet<>(List.of(hostOfRank.get(ring[i]),
                        hostOfRank.get(ring[(i + 1) % 4]), hostOfRank.get(ring[(i + 2) % 4])));
                assertEquals(3, distinct.size(), "rank " + ring[i] + "'s holders: " + job.output());
            }
            // the harder pair: a rank's host and its first holder's host, so that its copy comes from the second
            int owner = ring[0];
            int firstHolder = ring[1];
            TestHost a = host(hostOfRank.get(owner));
            TestHost b = host(hostOfRank.get(firstHolder));
            hosts.loseNodes(a, b); // at the same instant: a rack, a power feed
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(4, job.linesContaining("loop done at round 40 sum " + 4L * 40 * 41 / 2).size(), job.output());
            for (TestHost lost : List.of(a, b)) {
                assertEquals(1, job.linesContaining("host " + lost.address() + " lost: it does not answer").size(), job.output());
            }
            // one recovery for both hosts, though their ranks' agents end one by one: once a host is found
            // lost the launcher asks every host, and no rank is placed on the other lost one
            assertEquals(1, job.linesContaining("recovering: epoch").size(), job.output());
            assertEquals(1, job.linesContaining("recovering: epoch 1, re-spawning ranks " + Math.min(owner, firstHolder) + ", "
                    + Math.max(owner, firstHolder)).size(), job.output());
            Map<Integer, JsonNode> rollbacks = JobEvents.lastRollbacks(events);
            assertEquals(Set.of(0, 1, 2, 3), rollbacks.keySet(), job.output());
            for (JsonNode r : rollbacks.values()) {
                assertEquals("memory", r.get("source").asText(), r + "\n" + job.output());
                int rank = r.get("rank").asInt();
                boolean lost = rank == owner || rank == firstHolder;
                assertEquals(lost ? "receive" : "local", r.get("how").asText(), r + "\n" + job.output());
                if (lost) {
                    // respawned on a surviving host's free slot
                    List<String> moved = HostedJobs.moves(job, rank, hostOfRank.get(rank));
                    assertEquals(1, moved.size(), job.output());
                    Matcher target = Pattern.compile("restarts on (\\S+) \\(free slot\\)$").matcher(moved.get(0));
                    assertTrue(target.find(), moved.get(0));
                    assertTrue(!target.group(1).equals(a.address()) && !target.group(1).equals(b.address()), moved.get(0));
                }
            }
            jobs.assertNothingLeft(job.jobId());
        }
    }

    @Test
    void everyHostOfTheJobLostRestoresOnSpareHostsFromTheSharedDisk() throws Exception {
        // 2 hosts x 2 ranks, 2 spare hosts (the hostfile's entries beyond -np); a disk generation every
        // 3 rounds in the shared directory; both job hosts lost: every rank and every copy gone
        List<TestHost> all = hosts.hosts();
        Path events = work.resolve("total.jsonl");
        Path diskDir = disk.resolve("total");
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--hostfile", jobs.hostfile("total", 2, all).toString(),
                "--rsh", jobs.rsh(), "--on-failure", "respawn", "--disk", diskDir.toString(), "--disk-ratio", "3",
                "--events", events.toString(), "-cp", LaunchedJob.testClasses().toString(), LOOP, "30", "100")) {
            job.awaitLine("disk generation of round", 120_000);
            Map<Integer, String> hostOfRank = hostsLine(job);
            assertEquals(Map.of(0, all.get(0).address(), 1, all.get(0).address(), 2, all.get(1).address(),
                    3, all.get(1).address()), hostOfRank, job.output());
            hosts.loseNodes(all.get(0), all.get(1));
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
            assertEquals(4, job.linesContaining("loop done at round 30 sum " + 4L * 30 * 31 / 2).size(), job.output());
            assertEquals(1, job.linesContaining("recovering: epoch").size(), job.output());
            assertEquals(1, job.linesContaining("recovering: epoch 1, every rank failed").size(), job.output());
            Map<Integer, JsonNode> rollbacks = JobEvents.lastRollbacks(events);
            assertEquals(Set.of(0, 1, 2, 3), rollbacks.keySet(), job.output());
            int round = rollbacks.get(0).get("round").asInt();
            for (JsonNode r : rollbacks.values()) {
                assertEquals("disk", r.get("source").asText(), r + "\n" + job.output());
                assertEquals(round, r.get("round").asInt(), "one disk generation for all: " + r);
            }
            assertTrue(round > 0 && round % 3 == 0, "a disk round: " + round);
            // ranks 0,1 on the first spare host, 2,3 on the second (a spare joins with its slots)
            for (int rank = 0; rank < 4; rank++) {
                String spare = all.get(2 + rank / 2).address();
                List<String> moved = HostedJobs.moves(job, rank, hostOfRank.get(rank));
                assertEquals(1, moved.size(), job.output());
                assertTrue(moved.get(0).endsWith(", restarts on spare host " + spare), moved.get(0));
            }
            jobs.assertNothingLeft(job.jobId());
        }
    }

    @Test
    void aHostWithoutAClassPathEntryIsAClearErrorAndNothingStarts() throws Exception {
        // /tmp is each host's own: the entry exists on the launcher's host and on the first two test hosts only
        Path entry = Files.createTempDirectory("jckpt-hostloss-cp");
        try {
            TestHost bare = hosts.host(2);
            for (TestHost h : List.of(hosts.host(0), hosts.host(1))) {
                h.run("mkdir -p " + entry).check("mkdir on " + h);
            }
            String jobId = "missing-cp-" + ProcessHandle.current().pid();
            String classPath = LaunchedJob.testClasses() + ":" + entry;
            try (LaunchedJob job = LaunchedJob.start("-np", "3", "--hostfile",
                    jobs.hostfile("missing-cp", 1, List.of(hosts.host(0), hosts.host(1), bare)).toString(),
                    "--rsh", jobs.rsh(),
                    "--job-id", jobId, "-cp", classPath, LOOP, "20", "20")) {
                assertEquals(2, job.awaitExit(RUN_MILLIS), job.output());
                assertEquals(1, job.linesContaining("ckpt-run: host " + bare.address() + " lacks " + entry + " (").size(),
                        job.output());
                assertTrue(job.linesContaining("more host problem").isEmpty(), "the other hosts have it: " + job.output());
                assertTrue(job.linesContaining("[rank").isEmpty(), job.output());
                jobs.assertNothingLeft(jobId);
                for (TestHost h : hosts.hosts()) {
                    String ps = h.run("ps -eo comm=").check("ps on " + h);
                    assertTrue(ps.lines().noneMatch(c -> c.strip().equals("java")), h + " runs a JVM: " + ps);
                }
            }
        } finally {
            TestHosts.deleteTree(entry);
        }
    }

    private static TestHost host(String address) {
        return hosts.hosts().stream().filter(h -> h.address().equals(address)).findFirst()
                .orElseThrow(() -> new AssertionError("no test host " + address));
    }

    /** The job's {@code hosts: A: ranks 0,1; B: ranks 2} line as rank -> host. */
    private static Map<Integer, String> hostsLine(LaunchedJob job) {
        String line = job.linesContaining("hosts: ").get(0);
        Map<Integer, String> hostOfRank = new HashMap<>();
        Matcher m = Pattern.compile("(127\\.0\\.0\\.\\d+): ranks ([0-9,]+)").matcher(line);
        while (m.find()) {
            for (String r : m.group(2).split(",")) {
                hostOfRank.put(Integer.parseInt(r), m.group(1));
            }
        }
        return hostOfRank;
    }

    /** The ring of the job's {@code copies:} line. */
    private static int[] ringOf(LaunchedJob job) {
        Matcher m = Pattern.compile("copies: .*, ring ([0-9,]+);").matcher(job.linesContaining("copies: ").get(0));
        assertTrue(m.find(), job.output());
        return java.util.Arrays.stream(m.group(1).split(",")).mapToInt(Integer::parseInt).toArray();
    }
}
