package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jckpt.disk.DiskFileDescriptor;
import io.jckpt.disk.DiskStoreConfig;
import io.jckpt.disk.GenerationStore;
import io.jckpt.disk.Integrity;
import io.jckpt.disk.RankFileHeader;
import io.jckpt.testkit.LaunchedJob;
import io.jckpt.testkit.hosts.HostedJobsExtension;
import io.jckpt.testkit.hosts.Partition;
import io.jckpt.testkit.hosts.TestHost;
import io.jckpt.testkit.hosts.TestHosts;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A host partitioned from the other hosts and from the launcher while the job runs, then healed while
 * its old ranks still live (issue 14, items 5 and 7): the launcher declares them failed by the
 * heartbeat and respawns them on the other hosts' free slots from the copies held there, without
 * waiting for the cut-off host's probe (it hangs: issue 33, item 4); the old ranks stop themselves
 * within the launcher timeout (the heartbeat timeout, 3 s by default); after the heal they neither
 * complete a round nor commit or overwrite anything, and the launcher kills them on their host once it
 * answers again, or at the job's end (issue 33, item 2); the result is the failure-free one.
 *
 * <p>The old ranks are held alive past their halt deterministically: the rank's test hook
 * ({@code -Djckpt.test.hooks=DIR}, point {@code launcher-lost}) stops them where they would halt
 * (the hook's "reached" file is the proof that they decided to halt, and when) and is never released:
 * so the rest of the job, partition healed, runs beside them until the launcher kills them. The other
 * case of item 7 with this layout, the launcher's host losing one host, is {@link MultiHostLaunchTest}'s
 * host-loss case.
 */
class PartitionLaunchTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";
    private static final long RUN_MILLIS = 120_000;
    /** The launcher's default heartbeat timeout: the bound within which a cut-off rank stops. */
    private static final long LAUNCHER_TIMEOUT_MILLIS = 3_000;
    /** What the test's own polling and a loaded machine add to that bound at most. */
    private static final long SLACK_MILLIS = 2_000;
    private static final int ROUNDS = 40;
    @RegisterExtension
    static final HostedJobsExtension jobs = new HostedJobsExtension(LaunchedJob.repoRoot().resolve("runtime/target"),
            "partition", work -> TestHosts.builder().hosts(3).share(work).enforceAddresses(true));

    @Test
    void aPartitionedHostsRanksStopWithinTheBoundAreReplacedAndAreFencedOutAfterTheHeal() throws Exception {
        // 3 slots a host, 2 ranks each by node: ranks 0 and 3 on the cut-off host (rank 0: the disk
        // level's commit coordinator), a free slot on each other host for their replacements
        TestHost cut = jobs.host(0);
        Path hostfile = jobs.hostfile("hosts", 3, jobs.hosts().hosts());
        Path disk = Files.createDirectories(jobs.work().resolve("disk"));
        Path hooks = Files.createDirectories(jobs.work().resolve("hooks"));
        Path events = jobs.work().resolve("events.jsonl");
        int[] cutRanks = {0, 3};
        for (int rank : cutRanks) {
            Files.createFile(hooks.resolve("hold-launcher-lost-rank-" + rank + "-epoch-0"));
        }
        String jobId = "partition-" + ProcessHandle.current().pid();
        try (LaunchedJob job = LaunchedJob.start("-np", "6", "--hostfile", hostfile.toString(),
                "--rsh", jobs.rsh(), "--map-by", "node", "--on-failure", "respawn",
                "--replicas", "1", "--job-id", jobId, "--events", events.toString(), "--no-report",
                "--jvm-opt", "-Djckpt.test.hooks=" + hooks,
                "-cp", LaunchedJob.testClasses().toString(), LOOP, Integer.toString(ROUNDS), "100",
                disk.toString(), "5")) {
            job.awaitLines("checkpoint round", 2, RUN_MILLIS);
            assertEquals(1, job.linesContaining(cut.address() + ": ranks 0,3").size(), job.output());
            assertTrue(job.linesContaining("recovering").isEmpty(), "a failure before the partition\n" + job.timedOutput());

            Partition partition = jobs.hosts().isolate(cut);
            long cutAt = System.nanoTime();
            try {
                // each old rank decided to halt within the bound (its hook holds it there)
                for (int rank : cutRanks) {
                    Path reached = hooks.resolve("reached-launcher-lost-rank-" + rank + "-epoch-0");
                    long deadline = cutAt + (LAUNCHER_TIMEOUT_MILLIS + SLACK_MILLIS) * 1_000_000L;
                    while (!Files.exists(reached) && System.nanoTime() < deadline) {
                        Thread.sleep(10); // polling a file the rank creates on another host
                    }
                    assertTrue(Files.exists(reached), "rank " + rank + " did not stop within "
                            + (LAUNCHER_TIMEOUT_MILLIS + SLACK_MILLIS) + " ms of the partition\n" + job.timedOutput());
                }
                long stoppedMillis = (System.nanoTime() - cutAt) / 1_000_000L;
                // the launcher declares them failed, finds their host gone and respawns them elsewhere
                for (int rank : cutRanks) {
                    job.awaitLine("rank " + rank + ": host " + cut.address() + " does not answer, restarts on 127.0.0.",
                            RUN_MILLIS);
                }
                assertTrue(job.linesContaining("silent for").size() >= 1, job.output());
                Set<Long> old = oldRanks(cut, jobId);
                assertEquals(2, old.size(), "the old ranks live on the cut-off host before the heal: " + old
                        + " (stopped after " + stoppedMillis + " ms)\n" + job.timedOutput());
            } finally {
                partition.heal();
            }
            // the rest of the job runs with the old ranks alive on a reachable host again, until the launcher
            // kills them there: once the host answers its probe again, or at the job's end
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.timedOutput());
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (!oldRanks(cut, jobId).isEmpty() && System.nanoTime() < deadline) {
                Thread.sleep(20); // a SIGKILLed JVM takes a moment to go
            }
            assertEquals(Set.of(), oldRanks(cut, jobId), "the launcher killed the old ranks on their host\n" + job.output());
            assertEquals(2, job.linesContaining("'s failed process on " + cut.address() + " (pid ").stream()
                    .filter(l -> l.endsWith(" killed")).count()
                    + job.linesContaining("host " + cut.address() + ": processes of job " + jobId + " left there killed")
                    .stream().mapToLong(l -> l.split(",").length).sum(), job.output());
            assertEquals(6, job.linesContaining("loop done at round " + ROUNDS + " sum " + 6L * ROUNDS * (ROUNDS + 1) / 2)
                    .size(), job.output());
            for (int rank : cutRanks) {
                assertEquals(1, job.rollbacks(rank, "memory", "receive"), job.output());
            }
            int recoveries = assertFencedOut(events, cutRanks, job.output());
            assertCommittedGenerationsOfOneWorld(disk, jobId, recoveries);

            // every host is up: the healed host too (the launcher's clean-up at the end tries lost hosts)
            jobs.assertNothingLeft(jobId);
        }
    }

    /** The rank JVMs of the job on {@code host} (its cgroup's processes that carry the job's id). */
    private static Set<Long> oldRanks(TestHost host, String jobId) {
        Set<Long> ofJob = new TreeSet<>(LaunchedJob.processesOfJob(jobId));
        ofJob.retainAll(host.processes());
        // the remote shell's session (sshd's child running the command) carries the id too: count JVMs
        ofJob.removeIf(pid -> !command(pid).contains("java"));
        return ofJob;
    }

    private static String command(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "cmdline")).replace('\0', ' ');
        } catch (IOException e) {
            return "";
        }
    }

    /**
     * What the launcher heard after the recovery: each rank's checkpoint rounds only go up from the
     * round its world restored (an old rank's report coming through after the heal would go back),
     * and the last world is the one that finished.
     */
    private static int assertFencedOut(Path events, int[] cutRanks, String output) throws IOException {
        ObjectMapper json = new ObjectMapper();
        Map<Integer, Long> newest = new HashMap<>();
        int recoveries = 0;
        for (String line : Files.readAllLines(events)) {
            JsonNode e = json.readTree(line);
            String type = e.path("type").asText();
            if (type.equals("recovery_start")) {
                recoveries++;
                newest.clear();
            } else if (type.equals("rollback")) {
                newest.put(e.path("rank").asInt(), e.path("round").asLong());
            } else if (type.equals("checkpoint") && recoveries > 0) {
                int rank = e.path("rank").asInt();
                long round = e.path("round").asLong();
                Long before = newest.put(rank, round);
                assertTrue(before == null || round > before, "rank " + rank + " reported round " + round + " after "
                        + before + " in the new world: a report of a fenced rank came through\n" + output);
            } else if (type.equals("end")) {
                assertEquals(0, e.path("exit").asInt(), line);
            }
        }
        assertTrue(recoveries >= 1, output);
        for (int rank : cutRanks) {
            assertTrue(newest.containsKey(rank), "rank " + rank + " reported nothing in the last world\n" + output);
        }
        assertFalse(output.contains("contributed to an exchange of epoch 0"), output);
        return recoveries;
    }

    /**
     * The generations kept on the shared disk directory were committed by the last world, each of
     * files all written in that world (epoch): none vouches for a file of a rank fenced out (the old
     * ranks' disk flusher and rank 0's old commit coordinator ran on after the heal).
     */
    private static void assertCommittedGenerationsOfOneWorld(Path disk, String jobId, int epoch) throws IOException {
        GenerationStore store = GenerationStore.open(DiskStoreConfig.of(disk, jobId, 0, 6));
        List<Long> committed = store.committedRounds();
        assertFalse(committed.isEmpty(), "no generation committed");
        for (long round : committed) {
            for (int rank = 0; rank < 6; rank++) {
                Path file = store.layout().rankFile(round, rank);
                byte[] bytes = Files.readAllBytes(file);
                RankFileHeader header = DiskFileDescriptor.decode(ByteBuffer.wrap(bytes, 0, DiskFileDescriptor.HEADER_LENGTH),
                        file, bytes.length);
                assertEquals(epoch, header.epoch(), "rank " + rank + "'s file of committed round " + round);
            }
        }
        for (int rank = 0; rank < 6; rank++) {
            GenerationStore own = GenerationStore.open(DiskStoreConfig.of(disk, jobId, rank, 6));
            assertTrue(own.inventory().generations().stream().allMatch(g -> g.integrity() == Integrity.INTACT),
                    "rank " + rank + ": " + own.inventory().generations());
        }
    }
}
