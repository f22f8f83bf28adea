package io.jckpt.chaos.corpus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * Issue 28's probe table, each row launched as the probe ran it: {@link Probe} on 4 ranks under
 * {@code bin/ckpt-run --on-failure respawn --replicas 1}, {@code Ckpt.open()} with the job's settings,
 * no Kryo configurer, no JVM option, rank 2 SIGKILLed after round 4 where the row has a failure. Every
 * ordinary row is one job (its state is all in the probe, the recovery branch written the old way with
 * {@code register} instead of {@code rollback} for one tag): the result equals the failure-free value
 * computed without MPJ or the library. Every mistake is a non-zero exit with one FAILURE naming the
 * mistake, the rank and the tag or step, as the program's mistake (not retried), with no wrong result
 * printed, in far less than the 30 s an exchange waiting for a missing rank would take. Covered
 * elsewhere: a skipped {@code here(step)} followed by a failure ({@code CollectiveMistakeLaunchTest} in
 * runtime), the library's side of each mistake with ranks as threads ({@code RecoveryContractTest},
 * {@code StepMismatchTest}). A skipped {@code here()} without a step followed by a failure ends in the
 * launcher's deadlock watch, late but clear ({@code DeadlockLaunchTest}; docs/api.md, "here(step)").
 */
class ProbeTableTest {
    private static final int RANKS = 4;
    private static final long STEPS = 40;
    private static final int CELLS = 256;
    private static final long SEED = 3;
    /** The ranks hold at this step until their world is abandoned: the kill after round 4 always lands first. */
    private static final long HOLD = 12;
    private static final long JOB_MILLIS = 120_000;
    /** Far below the 30 s exchange timeout that a wait for a rank that never calls would end in. */
    private static final long MISTAKE_MILLIS = 25_000;

    /** One launched probe: its exit status, output, and the time from its world's opening to the exit. */
    private record Run(int exit, String output, List<String> failures, List<String> results, long millis) {
    }

    private static Run probe(boolean kill, String mistake, String step, long hold) throws Exception {
        List<String> args = new ArrayList<>(List.of("-np", Integer.toString(RANKS), "--on-failure", "respawn",
                "--replicas", "1"));
        if (kill) {
            args.addAll(List.of("--kill", "2@round=4"));
        }
        args.addAll(List.of("-cp", LaunchedJob.repoRoot().resolve("chaos/target/classes").toString(),
                Probe.class.getName(), Long.toString(STEPS), Integer.toString(CELLS), Long.toString(SEED), mistake, step,
                Long.toString(hold)));
        try (LaunchedJob job = LaunchedJob.start(args.toArray(String[]::new))) {
            // the mistake shows at the first here() of the recovered world, or of the first one once open
            long from = kill ? job.awaitLine("recovered: all " + RANKS + " ranks in a new MPJ world", JOB_MILLIS).nanos()
                    : job.nanos(job.awaitEvent("rank_open", e -> e.number("rank") == 0, JOB_MILLIS));
            int exit = job.awaitExit(JOB_MILLIS);
            long millis = (System.nanoTime() - from) / 1_000_000L;
            assertTrue(LaunchedJob.processesLeft(job.jobId(), 5_000).isEmpty(), "processes left:\n" + job.output());
            assertTrue(job.linesContaining("add-opens").isEmpty(), "no flag asked of the user:\n" + job.output());
            return new Run(exit, job.output(), job.linesContaining("FAILURE: "), job.linesContaining("probe result "),
                    millis);
        }
    }

    private static String expected() {
        return String.format(Locale.ROOT, "[rank 0] probe result %016x (%d steps, %d ranks)",
                Probe.expected(RANKS, STEPS, CELLS, SEED), STEPS, RANKS);
    }

    /** The one FAILURE line that is not rank 2's injected kill, reported as the program's mistake. */
    private static String mistake(Run run) {
        List<String> named = run.failures().stream().filter(l -> !l.contains("killed by the injected failure")).toList();
        assertEquals(1, named.size(), run.output());
        String failure = named.get(0);
        assertTrue(failure.contains("a mistake in the program's checkpoint calls, not retried"), failure);
        assertTrue(!run.output().contains("timed out") && !run.output().contains("a program error"), run.output());
        assertTrue(run.millis() < MISTAKE_MILLIS, "the job ended " + run.millis() + " ms after its world opened:\n"
                + run.output());
        return failure;
    }

    @Test
    void everyOrdinaryRowIsIdenticalAfterAKillAndRegisterInsteadOfRollbackRestoresToo() throws Exception {
        // rows: long[] + double[], a Random, a SplittableRandom, a HashMap<String, Double>, an own object, a Random
        // in its field, the alias taken before the rollback; register() instead of rollback() in the old branch
        Run run = probe(true, "none", "step", HOLD);
        assertEquals(0, run.exit(), run.output());
        assertEquals(1, run.output().lines().filter(l -> l.contains("] recovering: epoch 1")).count(), run.output());
        assertEquals(List.of(expected()), run.results(), run.output());
    }

    @Test
    void aTagForgottenInTheRecoveryBranchFailsEveryRankBeforeAnyResult() throws Exception {
        Run run = probe(true, "forget", "step", HOLD);
        assertEquals(1, run.exit(), run.output());
        String failure = mistake(run);
        assertTrue(failure.contains("holds tags that were neither restored nor removed before the first here(), ctrl()"
                + " or close() after the recovery (rank 0: 'split'; rank 1: 'split'; rank 2: 'split'; rank 3: 'split')"),
                failure);
        assertTrue(failure.contains("reported by ranks 0,1,2,3"), failure);
        assertEquals(List.of(), run.results(), run.output());
    }

    @Test
    void aSkippedHereWithAStepFailsAtTheNextHereBeforeAnyResult() throws Exception {
        Run run = probe(false, "skip", "step", 0);
        assertEquals(1, run.exit(), run.output());
        String failure = mistake(run);
        assertTrue(failure.contains("the ranks' steps differ at checkpoint round 5: rank 1 called here(6) while ranks"
                + " 0,2,3 called here(5)"), failure);
        assertEquals(List.of(), run.results(), run.output());
    }

    @Test
    void aSkippedHereWithoutAStepFailsAtCloseAfterTheUnchangedResult() throws Exception {
        // named at close(), as documented (the library cannot tell a skip from a slow rank before): the program
        // printed its result before close(), and that result is the failure-free one: no wrong value
        Run run = probe(false, "skip", "nostep", 0);
        assertEquals(1, run.exit(), run.output());
        String failure = mistake(run);
        assertTrue(failure.contains("rank 1 called close() at round " + (STEPS - 1)), failure);
        assertTrue(failure.contains("the ranks are at different checkpoint rounds (did a rank skip a here()?)"), failure);
        assertEquals(List.of(expected()), run.results(), run.output());
    }
}
