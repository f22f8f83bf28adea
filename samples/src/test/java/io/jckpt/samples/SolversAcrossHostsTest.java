package io.jckpt.samples;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.samples.cg.CgSolver;
import io.jckpt.samples.cg.PoissonProblem;
import io.jckpt.testkit.LaunchedJob;
import io.jckpt.testkit.hosts.HostedJobs;
import io.jckpt.testkit.hosts.HostedJobsExtension;
import io.jckpt.testkit.hosts.TestHost;
import io.jckpt.testkit.hosts.TestHosts;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The CG solver on 3 real namespace hosts x 2 ranks ({@link TestHosts}: own /dev/shm, own sshd,
 * addresses enforced so that wrong peer information fails), ranks started over ssh from a hostfile, and a
 * whole host lost part-way (its init SIGKILLed: both its ranks and its memory gone at once): both ranks are
 * restored from the copies held on the other hosts, respawned on those hosts' free slots, and the job ends
 * with status 0 and exactly the failure-free result: the final checksum (and CG's final residual) of the
 * sequential reference, which the failure-free run on any number of ranks reproduces bit for bit
 * ({@code HeatSolverTest}, {@code CgSolverTest}), and any residual line printed again after the rollback
 * equal to the one printed before the loss. Skipped with the reason when the harness is unavailable.
 * About 20 s on 2 quiet cores. The heat solver's case is {@code bin/demo --hosts 3} ({@code DemoTest}):
 * the same 3 hosts x 2 ranks, a whole host lost, the failure-free checksum.
 */
class SolversAcrossHostsTest {
    private static final long RUN_MILLIS = 120_000;
    @RegisterExtension
    static final HostedJobsExtension jobs = new HostedJobsExtension(LaunchedJob.repoRoot().resolve("samples/target"),
            "across-hosts", work -> TestHosts.builder().hosts(3).enforceAddresses(true));

    @Test
    void cgSolverLosesAWholeHostAndEndsWithTheFailureFreeChecksumAndResidual() throws Exception {
        int nx = 96;
        int ny = 60;
        int iterations = 240;
        PoissonProblem.Solution reference = new PoissonProblem(nx, ny).solveSequentially(iterations, 0);
        assertEquals(iterations, reference.iterations(), "far from converged: x changes in every iteration");
        String expected = String.format(Locale.ROOT, "checksum %016x (%d x %d, %d iterations, residual %.6e,",
                PoissonProblem.checksum(reference.x()), nx, ny, iterations, reference.residualNorm());
        TestHost lost = jobs.host(2);
        try (LaunchedJob job = start("cg", CgSolver.class.getName(),
                "--nx", Integer.toString(nx), "--ny", Integer.toString(ny), "--iterations", Integer.toString(iterations),
                "--ckpt-every", "10", "--report", "10", "--tolerance", "0", "--sleep-ms", "12")) {
            assertTrue(job.awaitLine("hosts: ", RUN_MILLIS).text().contains(lost.address() + ": ranks 2,5"), job.output());
            loseHostMidRun(job, lost);
            String checksum = assertRecovered(job, lost, 2, 5);
            assertTrue(checksum.startsWith("[rank 0] " + expected), checksum + " vs " + expected);
        } finally {
            lost.restart();
        }
    }

    /**
     * {@code bin/ckpt-run -np 6} on the three hosts over ssh, m = 1, respawn; 3 slots a host mapped by node: ranks
     * r and r + 3 on host r, a free slot on each host for a respawn.
     */
    private static LaunchedJob start(String name, String main, String... program) throws Exception {
        Path hostfile = jobs.hostfile(name + ".hosts", 3, jobs.hosts().hosts());
        List<String> args = new ArrayList<>(List.of("-np", "6", "--hostfile", hostfile.toString(),
                "--rsh", jobs.rsh(), "--map-by", "node", "--on-failure", "respawn", "--replicas", "1"));
        args.addAll(List.of("-cp", LaunchedJob.repoRoot().resolve("samples/target/classes").toString(), main));
        args.addAll(List.of(program));
        return LaunchedJob.start(args.toArray(String[]::new));
    }

    /**
     * Waits until two checkpoint rounds have been reported (rounds complete with their copies on other hosts)
     * and loses {@code host} while the solver still has most of its iterations ahead.
     */
    private static void loseHostMidRun(LaunchedJob job, TestHost host) throws Exception {
        job.awaitLines("checkpoint round", 2, RUN_MILLIS);
        assertTrue(job.linesContaining("] checksum ").isEmpty(), "the job ended before the loss: " + job.output());
        host.loseNode();
    }

    /**
     * The job completed after exactly one recovery: the lost host named, its two ranks restored from memory
     * received from other hosts and restarted on other hosts, every residual line printed again after the
     * rollback equal to the first, nothing of the job left on any host; returns rank 0's checksum line.
     */
    private static String assertRecovered(LaunchedJob job, TestHost lost, int... ranks) throws Exception {
        assertEquals(0, job.awaitExit(RUN_MILLIS), job.output());
        assertTrue(job.output().contains("all 6 ranks completed after 1 recovery"), job.output());
        assertEquals(1, job.linesContaining("host " + lost.address() + " lost: it does not answer").size(), job.output());
        for (int rank : ranks) {
            assertEquals(1, job.rollbacks(rank, "memory", "receive"), job.output());
            assertEquals(1, HostedJobs.moves(job, rank, lost.address()).size(), job.output());
        }
        // the loss may fall right after a checkpoint (nothing printed twice) or later (lines printed again)
        Map<String, String> residuals = new HashMap<>();
        for (String line : job.linesContaining("] iteration ")) {
            String[] words = line.substring(line.indexOf("] iteration ") + 2).split(" ");
            String before = residuals.putIfAbsent(words[1], words[3]);
            if (before != null) {
                assertEquals(before, words[3], "iteration " + words[1] + " recomputed after the rollback\n" + job.output());
            }
        }
        List<String> checksums = job.linesContaining("] checksum ");
        assertEquals(1, checksums.size(), job.output());
        jobs.assertNothingLeft(job.jobId());
        return checksums.get(0);
    }
}
