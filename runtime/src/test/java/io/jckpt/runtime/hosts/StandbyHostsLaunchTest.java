package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import io.jckpt.testkit.hosts.HostedJobs;
import io.jckpt.testkit.hosts.HostedJobsExtension;
import io.jckpt.testkit.hosts.TestHost;
import io.jckpt.testkit.hosts.TestHosts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Warm standbys across real namespace hosts ({@link TestHosts}, addresses enforced): one standby per host,
 * spare host included, started there over ssh like the ranks; a rank JVM SIGKILLed on its host is taken over
 * by that host's standby, a lost host's rank by the spare host's standby, the result is the failure-free one,
 * and nothing of the job (rank, standby, store) is left on any host. Skipped with the reason when the harness is unavailable (not root, a tool missing).
 */
class StandbyHostsLaunchTest {
    private static final String PROGRAM = "io.jckpt.runtime.programs.CheckpointUntil";
    private static final long RUN_MILLIS = 120_000;
    private static final Pattern READY = Pattern.compile("standby ([0-9]+) ready \\(pid [0-9]+ on ([0-9.]+),");
    private static final Pattern DONE = Pattern.compile("loop done at round ([0-9]+) sum ([0-9]+)");
    /** Its work directory is outside /tmp: the hosts see the launcher's files there (the stop file). */
    @RegisterExtension
    static final HostedJobsExtension jobs = new HostedJobsExtension(LaunchedJob.repoRoot().resolve("runtime/target"),
            "standbyhosts", work -> TestHosts.builder().hosts(3).enforceAddresses(true));

    @Test
    void aKilledRankTakesItsHostsStandbyAndALostHostsRanksTheSpareHostsStandby() throws Exception {
        TestHost first = jobs.host(0);
        TestHost second = jobs.host(1);
        TestHost spare = jobs.host(2);
        // by slot ranks 0,1 on the first host, 2,3 on the second; the third runs none: a spare host
        Path hostfile = jobs.hostfile("hosts", 2, first, second, spare);
        Path stop = jobs.work().resolve("stop");
        try (LaunchedJob job = LaunchedJob.start("-np", "4", "--hostfile", hostfile.toString(),
                "--rsh", jobs.rsh(), "--on-failure", "respawn", "--standby", "1",
                "-cp", LaunchedJob.testClasses().toString(), PROGRAM, stop.toString(), "20")) {
            // one standby on each host, spare included, warmed up there (its rehearsal binds its host's address)
            job.awaitLines("ready (pid", 3, RUN_MILLIS);
            assertEquals(1, job.linesContaining("1 warm standby per host (3 hosts)").size(), job.output());
            Map<String, Integer> standbyOn = new HashMap<>();
            for (String line : job.linesContaining("ready (pid")) {
                Matcher m = READY.matcher(line);
                assertTrue(m.find(), line);
                standbyOn.put(m.group(2), Integer.parseInt(m.group(1)));
            }
            assertEquals(List.of(first.address(), second.address(), spare.address()).stream().sorted().toList(),
                    standbyOn.keySet().stream().sorted().toList(), job.output());
            assertSecretOnNoCommandLine(jobJvm(second, job.jobId(), "JCKPT_STANDBY=" + standbyOn.get(second.address())));
            job.awaitLine("checkpoint round", RUN_MILLIS); // a round complete: copies on both hosts

            // 1. SIGKILL to rank 3's JVM on the second host, which lives: that host's standby takes over
            long victim = jobJvm(second, job.jobId(), "JCKPT_RANK=3");
            assertEquals(0, second.run("kill -KILL " + namespacePid(victim)).exitCode());
            int standby = standbyOn.get(second.address());
            job.awaitLine("rank 3 taken over by standby " + standby + " (pid ", 30_000);
            assertEquals(1, job.linesContaining("rank 3 taken over by standby " + standby).stream()
                    .filter(l -> l.endsWith(" on " + second.address())).count(), job.output());
            job.awaitLine("recovered: all 4 ranks", 30_000);
            assertTrue(job.linesContaining("restarts on").isEmpty(), "rank 3's host lives: " + job.output());
            // rank 3 is that standby's JVM, on the second host
            long takenOver = jobJvm(second, job.jobId(), "JCKPT_STANDBY=" + standby);
            assertTrue(ProcessHandle.of(takenOver).map(ProcessHandle::isAlive).orElse(false), job.output());
            assertFalse(ProcessHandle.of(victim).map(ProcessHandle::isAlive).orElse(false), job.output());
            // the host is lost as soon as the recovery's first round is taken, its copies perhaps still in flight:
            // the recovery refilled the restored round's copies the first failure interrupted, so it is restorable
            job.awaitLines("checkpoint round", job.linesContaining("checkpoint round").size() + 1, RUN_MILLIS);

            // 2. the second host lost: ranks 2 and 3 restart on the spare host (the first has no free slot),
            // the first of them in the spare host's standby, the other forked there
            second.loseNode();
            job.awaitLines("recovered: all 4 ranks", 2, 60_000);
            assertEquals(1, job.linesContaining("host " + second.address() + " lost: it does not answer").size(),
                    job.output());
            for (int rank : new int[] {2, 3}) {
                List<String> moved = HostedJobs.moves(job, rank, second.address());
                assertEquals(1, moved.size(), job.output());
                assertTrue(moved.get(0).endsWith(", restarts on spare host " + spare.address()), moved.get(0));
            }
            int spareStandby = standbyOn.get(spare.address());
            assertEquals(1, job.linesContaining("rank 2 taken over by standby " + spareStandby + " (pid ").stream()
                    .filter(l -> l.endsWith(" on " + spare.address())).count(), job.output());
            job.awaitLines("checkpoint round", job.linesContaining("checkpoint round").size() + 1, RUN_MILLIS);
            Files.createFile(stop);
            assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());

            List<String> done = job.linesContaining("loop done at round");
            assertEquals(4, done.size(), job.output());
            String result = null;
            for (String line : done) {
                Matcher m = DONE.matcher(line);
                assertTrue(m.find(), line);
                long rounds = Long.parseLong(m.group(1));
                assertEquals(4 * rounds * (rounds + 1) / 2, Long.parseLong(m.group(2)), "the failure-free sum: " + line);
                assertTrue(result == null || result.equals(m.group()), job.output());
                result = m.group();
            }
            for (int rank : new int[] {2, 3}) {
                assertTrue(job.rollbacks(rank, "memory", "receive") > 0, "from the first host: " + job.output());
            }
            assertEquals(1, job.linesContaining("finished: all 4 ranks completed after 2 recoveries").size(), job.output());
            jobs.assertNothingLeft(job.jobId());
        } finally {
            Files.deleteIfExists(stop);
        }
    }

    /** The pid (machine namespace) of the job's JVM on {@code host} whose environment has {@code variable}. */
    private static long jobJvm(TestHost host, String jobId, String variable) throws IOException {
        for (long pid : host.processes()) {
            List<String> env;
            try {
                env = environment(pid);
            } catch (IOException e) {
                continue; // gone meanwhile
            }
            if (env.contains("JCKPT_JOB_ID=" + jobId) && env.contains(variable)) {
                return pid;
            }
        }
        throw new AssertionError("no JVM of job " + jobId + " with " + variable + " on " + host);
    }

    /**
     * The job secret and the job key a standby JVM got (on its agent's stdin) appear on no command line of
     * the machine.
     */
    private static void assertSecretOnNoCommandLine(long standbyJvm) throws IOException {
        for (String variable : List.of("JCKPT_SECRET=", "JCKPT_JOB_KEY=")) {
            String secret = environment(standbyJvm).stream().filter(v -> v.startsWith(variable)).findFirst()
                    .orElseThrow(() -> new AssertionError("standby " + standbyJvm + " has no " + variable))
                    .substring(variable.length());
            assertTrue(secret.length() >= 32, secret);
            try (var procs = Files.list(Path.of("/proc"))) {
                for (Path proc : (Iterable<Path>) procs::iterator) {
                    if (proc.getFileName().toString().chars().allMatch(Character::isDigit)) {
                        try {
                            String line = new String(Files.readAllBytes(proc.resolve("cmdline")), StandardCharsets.UTF_8);
                            assertFalse(line.contains(secret), variable + " on the command line of " + proc);
                        } catch (IOException e) {
                            // gone meanwhile
                        }
                    }
                }
            }
        }
    }

    private static List<String> environment(long pid) throws IOException {
        return List.of(new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ")),
                StandardCharsets.UTF_8).split("\0"));
    }

    /** The pid of a process inside its host's PID namespace (the last NSpid field). */
    private static long namespacePid(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
            if (line.startsWith("NSpid:")) {
                String[] ids = line.substring(6).trim().split("\\s+");
                return Long.parseLong(ids[ids.length - 1]);
            }
        }
        throw new AssertionError("no NSpid for " + pid);
    }
}
