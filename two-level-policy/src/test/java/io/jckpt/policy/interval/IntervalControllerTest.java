package io.jckpt.policy.interval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.IntervalPolicy;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Rank 0's decisions and the schedule, driven by a synthetic meter (a known computation per call, a
 * known blocking time and background CPU per checkpoint) in the order here() runs them on one rank: the
 * interval converges to what each policy's formula gives for those costs.
 */
class IntervalControllerTest {
    private static final long MS = 1_000_000;

    @TempDir
    Path dir;

    /** A job of one rank: calls of needCheckpoint(), here() when due, a synthetic clock and CPU. */
    private static final class Job implements IntervalMeter {
        final CheckpointSchedule schedule = new CheckpointSchedule();
        final IntervalController controller;
        final long perCall;
        final long blocking;
        final long background;
        final long flush;
        final int diskRatio;
        long clock;
        long cpu;
        long flushCpu;
        long round;
        long own;
        long ownRound = -1;
        final List<Long> intervals = new ArrayList<>();
        /** The computation per call from this clock on (a slow start after a recovery), else perCall. */
        long slowUntil;
        long slowPerCall;
        long slowCalls;
        /** here()'s blocking while slow (0: as usual), and how many such here()s after the first. */
        long slowBlocking;
        long slowHeres;
        /** The program thread's CPU per call (-1: the meter does not know it). */
        long programCpuPerCall = -1;
        long programCpu;
        /** The first here()'s blocking (it re-joins the ring after a recovery). */
        long firstBlocking = -1;

        Job(IntervalPolicy policy, Duration nodeMtbf, int nodes, long perCall, long blocking, long background,
            long flush, int diskRatio, FailureHistory history) {
            this.perCall = perCall;
            this.blocking = blocking;
            this.background = background;
            this.flush = flush;
            this.diskRatio = diskRatio;
            this.controller = new IntervalController(policy, diskRatio > 0, Math.max(1, diskRatio), nodeMtbf, nodes,
                    nodes, this, history);
            schedule.restart(policy, 0);
        }

        void run(int heres) {
            while (round < heres) {
                slowCalls += clock < slowUntil ? 1 : 0;
                clock += clock < slowUntil ? slowPerCall : perCall;
                programCpu += Math.max(0, programCpuPerCall);
                if (schedule.due()) {
                    here();
                }
            }
        }

        void here() {
            schedule.atHere(round, ownRound == round ? own : IntervalDecision.NONE);
            intervals.add(schedule.interval());
            own = controller.decide(schedule.calls(), 1, 1000);
            ownRound = round + 1;
            round++;
            long blocked = round == 1 && firstBlocking >= 0 ? firstBlocking : blocking;
            if (round > 1 && slowBlocking > 0 && clock < slowUntil) {
                blocked = slowBlocking;
                slowHeres++;
            }
            clock += blocked;
            cpu += background;
            boolean diskRound = diskRatio > 0 && round % diskRatio == 0;
            if (diskRound) {
                flushCpu += flush;
            }
            controller.hereEnded(schedule.calls(), blocked, diskRound, round > 1);
        }

        /** Runs until the synthetic clock passes {@code seconds}. */
        void runFor(double seconds) {
            while (clock < seconds * 1e9) {
                run((int) round + 1);
            }
        }

        @Override
        public long programCpuNanos() {
            return programCpuPerCall < 0 ? -1 : programCpu;
        }

        @Override
        public long nanoTime() {
            return clock;
        }

        @Override
        public long backgroundCpuNanos() {
            return cpu;
        }

        @Override
        public long flushCpuNanos() {
            return flushCpu;
        }
    }

    @Test
    void autoConvergesToDalysIntervalForTheMeasuredCost() {
        // 1 ms per call; C = 20 ms blocking + 30 ms of background CPU; node MTBF 100 s on 4 nodes: M = 25 s
        Job job = new Job(IntervalPolicy.auto(), Duration.ofSeconds(100), 4, MS, 20 * MS, 30 * MS, 0, 0, null);
        job.run(40);
        assertEquals(List.of(1L, 2L, 4L), job.intervals.subList(0, 3), "the warm-up: calls 1, 2, 4, 8");
        double tau = FailureModel.dalyInterval(0.050, 25);
        assertEquals(Math.round(tau / 0.001), job.schedule.interval(), 1, "Daly's interval in calls");
        assertEquals(0.050, job.controller.costSeconds(), 1e-9, "C = blocking + background CPU, both measured");
        assertTrue(Math.abs(tau - FailureModel.youngInterval(0.05, 25)) > 0.01, "Daly differs from Young here");
    }

    @Test
    void backgroundCpuCostsTheComputationOverItsShareOfACore() {
        // the program's thread gets half a core while computing (cores shared by twice as many threads): a CPU
        // second of background work costs it 2 s: C = 20 ms + 2 x 30 ms
        Job job = new Job(IntervalPolicy.auto(), Duration.ofSeconds(100), 4, MS, 20 * MS, 30 * MS, 0, 0, null);
        job.programCpuPerCall = MS / 2;
        job.run(40);
        assertEquals(0.080, job.controller.costSeconds(), 1e-9);
        assertTrue(job.controller.summary(1, 1000).contains("--cost 0.0800 ") && job.controller.summary(1, 1000)
                .contains("program CPU share 0.50,"), job.controller.summary(1, 1000));
        assertEquals(Math.round(FailureModel.dalyInterval(0.080, 25) / 0.001), job.schedule.interval(), 1);
    }

    /** One world of a job id (auto, 1 ms per call, 5 ms here() blocking) that starts from the history in {@code file}. */
    private static Job world(Path file) {
        return new Job(IntervalPolicy.auto(), Duration.ofSeconds(100), 4, MS, 5 * MS, 0, 0, 0, FailureHistory.load(file));
    }

    @Test
    void restartAndSlowdownAfterARecoveryAreMeasuredAndKeptAcrossRecoveries() throws Exception {
        Path file = dir.resolve(FailureHistory.FILE_NAME);
        // the first world: 1 ms per call throughout; what it measured past its first 3 s is the steady pace
        Job first = world(file);
        first.runFor(6);
        assertEquals(0.001, first.controller.steadyPerCallSeconds(), 1e-12);
        assertTrue(Double.isNaN(first.controller.slowdownSeconds()), "no recovery, no slowdown");
        first.controller.save(1, 1000);
        // a recovery: restart 0.7 s; then 2 ms per call for 1.5 s (each call 1 ms more than at the steady pace),
        // a first here() of 50 ms instead of 5 ms (45 ms more), the others meanwhile 8 ms (3 ms more)
        Job second = world(file);
        second.controller.afterRecovery(700 * MS);
        second.slowUntil = 1_500 * MS;
        second.slowPerCall = 2 * MS;
        second.firstBlocking = 50 * MS;
        second.slowBlocking = 8 * MS;
        second.runFor(12);
        assertTrue(second.slowCalls > 650, "slow calls " + second.slowCalls);
        assertTrue(second.slowHeres >= 2, "here()s in the slow phase: " + second.slowHeres);
        // every slow call counts, the one before the first here() too (the period from the end of open())
        assertEquals(second.slowCalls * 0.001 + 0.045 + second.slowHeres * 0.003,
                second.controller.slowdownSeconds(), 1e-6);
        double w = second.controller.slowWindowSeconds();
        // an even phase with the same centre: about 1.5 s at half the speed, 0.75 s of computation
        assertTrue(w > 0.55 && w < 0.95, "the computation done in the slow phase: " + w);
        assertEquals(0.7, second.controller.restartSeconds(), 1e-9);
        String line = second.controller.summary(1, 1000);
        assertTrue(line.contains(String.format(java.util.Locale.ROOT, "--slowdown %.3g", second.controller.slowdownSeconds()))
                && line.contains("--restart 0.700 ")
                && line.contains("(1 recoveries measured)"), line);
        // the same slowdown second by second, for bin/ckpt-advisor --slow-pace: the first second slowest
        java.util.regex.Matcher pace = java.util.regex.Pattern.compile("--slow-pace 1\\.00((?::[0-9.]+)+) ").matcher(line);
        assertTrue(pace.find(), line);
        String[] speeds = pace.group(1).substring(1).split(":");
        double extra = 0;
        for (String v : speeds) {
            extra += 1 - Double.parseDouble(v);
        }
        assertEquals(second.controller.slowdownSeconds(), extra, 0.01 * speeds.length, line);
        assertTrue(Double.parseDouble(speeds[0]) < Double.parseDouble(speeds[speeds.length - 1]), line);
        assertEquals(0.001, second.controller.steadyPerCallSeconds(), 1e-12, "the slow start is not the steady pace");
        double calls = FailureModel.dalyInterval(second.controller.costSeconds(), second.controller.jobMtbfSeconds())
                / 0.001;
        assertEquals(calls, second.schedule.interval(), 0.01 * calls, "auto's interval in calls from the steady pace");
        second.controller.save(1, 1000);
        // another recovery, the same slow start without the long here()s, cut by the next failure at 2.5 s: its
        // first two seconds count (two recoveries measured there), its later seconds are not known
        Job third = world(file);
        third.controller.afterRecovery(900 * MS);
        third.slowUntil = 1_500 * MS;
        third.slowPerCall = 2 * MS;
        third.runFor(2.5);
        assertEquals(0.8, third.controller.restartSeconds(), 1e-9, "the mean of 0.7 s and 0.9 s");
        double s3 = third.controller.slowdownSeconds();
        assertTrue(s3 < second.controller.slowdownSeconds() && s3 > second.controller.slowdownSeconds() - 0.045,
                "the second's seconds averaged with the third's first two, which lack only the 45 ms here(): " + s3);
        assertTrue(third.controller.summary(1, 1000).contains("(2 recoveries measured)"));
        // nothing saved by hand: the history was written when the third's seconds were complete
        FailureHistory kept = FailureHistory.load(file);
        assertEquals(0.8, kept.number(IntervalController.RECOVERY, Double.NaN), 1e-9);
        assertEquals(2, kept.number(IntervalController.RECOVERY_SAMPLES, Double.NaN));
        assertEquals(s3, kept.number(IntervalController.SLOWDOWN, Double.NaN), 1e-12);
    }

    @Test
    void aSlowPhaseLongerThanSixSecondsIsCountedWholeAndEndsWhenThePaceIsSteadyAgain() throws Exception {
        Path file = dir.resolve(FailureHistory.FILE_NAME);
        Job first = world(file);
        first.runFor(6);
        first.controller.save(1, 1000);
        // a re-spawned JVM warming up on shared cores: 1.5 ms per call for 9 s of the clock (0.5 ms a call more)
        Job second = world(file);
        second.controller.afterRecovery(700 * MS);
        second.slowUntil = 9_000 * MS;
        second.slowPerCall = 3 * MS / 2;
        second.runFor(15);
        assertEquals(second.slowCalls * 0.0005, second.controller.slowdownSeconds(), 0.02, "slow calls " + second.slowCalls);
        assertTrue(second.controller.slowdownSeconds() > 2.8, "about 9 s / 1.5 ms x 0.5 ms = 3 s, not the first 6 s' 2 s: "
                + second.controller.slowdownSeconds());
        double w = second.controller.slowWindowSeconds();
        assertTrue(w > 5.5 && w < 6.5, "the computation done in the slow phase: about 9 s / 1.5 = 6 s, not " + w);
        assertEquals(0.001, second.controller.steadyPerCallSeconds(), 1e-12, "the slow phase is not the steady pace");
        // a slow phase that never ends is cut at 30 s: 15 s extra at 2 ms per call, averaged second by second
        // with the second's (whose seconds after its window count as observed with no extra time)
        Job third = world(file);
        third.controller.afterRecovery(700 * MS);
        third.slowUntil = 100_000 * MS;
        third.slowPerCall = 2 * MS;
        third.runFor(40);
        double both = third.controller.slowdownSeconds();
        assertEquals((second.controller.slowdownSeconds() + 15) / 2, both, 0.3, "(the period that crosses 30 s counts whole)");
    }

    @Test
    void theSteadyPaceIsNotTheColdStartsAndReachesTheHistoryBeforeTheFirstTenSeconds() {
        Path file = dir.resolve(FailureHistory.FILE_NAME);
        // every JVM cold at the start: 1.6 ms per call for 5 s, then 1 ms
        Job first = world(file);
        first.slowUntil = 5_000 * MS;
        first.slowPerCall = 8 * MS / 5;
        first.runFor(8);
        assertEquals(0.001, first.controller.steadyPerCallSeconds(), 0.00003, "the cold start is not the steady pace");
        // killed at 8 s, before the every-10-s save: the next world still finds the steady pace in the history
        FailureHistory kept = FailureHistory.load(file);
        assertEquals(0.001, kept.number(IntervalController.STEADY_PER_CALL, Double.NaN), 0.00006);
    }

    @Test
    void autoFollowsACostThatChanges() {
        Job job = new Job(IntervalPolicy.auto(), Duration.ofSeconds(100), 4, MS, 20 * MS, 30 * MS, 0, 0, null);
        job.run(20);
        Job slower = job;
        // the checkpoints become 4x as expensive: the interval grows by about 2x (sqrt)
        Job expensive = new Job(IntervalPolicy.auto(), Duration.ofSeconds(100), 4, MS, 80 * MS, 120 * MS, 0, 0, null);
        expensive.run(40);
        assertEquals(Math.round(FailureModel.dalyInterval(0.2, 25) / 0.001), expensive.schedule.interval(), 1);
        assertTrue(expensive.schedule.interval() > 1.8 * slower.schedule.interval());
    }

    @Test
    void learnedFailuresShortenTheInterval() {
        FailureHistory history = FailureHistory.load(dir.resolve(FailureHistory.FILE_NAME));
        for (int i = 0; i < 9; i++) {
            history.recordFailure();
        }
        history.addExposure(45); // 9 failures in 45 s; the prior (25 s) counts as one more
        Job job = new Job(IntervalPolicy.auto(), Duration.ofSeconds(100), 4, MS, 20 * MS, 30 * MS, 0, 0, history);
        job.run(40);
        double m = job.controller.jobMtbfSeconds();
        assertEquals((25 + history.exposedSeconds()) / 10, m, 1e-9, "M = (configured + exposed) / (1 + failures)");
        assertTrue(history.exposedSeconds() > 45, "the run time is exposure too");
        assertTrue(m < 25 / 2.0, "far below the configured MTBF: " + m);
        // decided a round earlier, with the exposure then: within 1 %
        double expected = FailureModel.dalyInterval(0.05, m) / 0.001;
        assertEquals(expected, job.schedule.interval(), 0.01 * expected);
        assertTrue(job.schedule.interval() < Math.round(FailureModel.dalyInterval(0.05, 25) / 0.001) * 0.75);
    }

    @Test
    void aFailureCountsTheRunTimeSinceTheLastSaveCapped() throws Exception {
        FailureHistory saved = FailureHistory.load(dir.resolve(FailureHistory.FILE_NAME));
        saved.addExposure(100);
        saved.save();
        double savedAt = FailureHistory.load(saved.file()).number(FailureHistory.SAVED_AT, Double.NaN);
        FailureHistory afterFailure = FailureHistory.load(saved.file());
        afterFailure.recordFailure((long) savedAt + 7_500, 40);
        assertEquals(1, afterFailure.failures());
        assertEquals(107.5, afterFailure.exposedSeconds(), 1e-9, "the 7.5 s since the save were exposed too");
        FailureHistory longAfter = FailureHistory.load(saved.file());
        longAfter.recordFailure((long) savedAt + 3_600_000, 40);
        assertEquals(140, longAfter.exposedSeconds(), 1e-9, "a restart an hour later adds at most the cap");
    }

    @Test
    void everyTSecondsOfRankZerosClock() {
        Job job = new Job(IntervalPolicy.everySeconds(0.5), null, 4, MS, 20 * MS, 30 * MS, 0, 0, null);
        job.run(30);
        assertEquals(480, job.schedule.interval(), 1, "(T - blocking) / computation per call");
    }

    @Test
    void maximumOverhead() {
        Job job = new Job(IntervalPolicy.maxOverhead(5), null, 4, MS, 20 * MS, 30 * MS, 0, 0, null);
        job.run(30);
        // C / (interval x 1 ms + C) <= 5 % with C = 50 ms: interval >= 950
        assertEquals(950, job.schedule.interval(), 1);
        double overhead = 0.05 / (job.schedule.interval() * 0.001 + 0.05);
        assertTrue(overhead <= 0.0501, "overhead " + overhead);
    }

    @Test
    void callsNeedsNoDecision() {
        CheckpointSchedule s = new CheckpointSchedule();
        s.restart(IntervalPolicy.everyCalls(3), 0);
        List<Long> due = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            if (s.due()) {
                due.add(s.calls());
                s.atHere(i, IntervalDecision.NONE);
            }
        }
        assertEquals(List.of(3L, 6L, 9L, 12L), due);
        s.restart(IntervalPolicy.manual(), 0);
        for (int i = 0; i < 1000; i++) {
            assertTrue(!s.due());
        }
    }

    @Test
    void automaticDiskRatioFollowsTheUnsurvivableFailureRate() {
        // disk round: 200 ms of flusher CPU; the ratio is bounded by the configured one (10000)
        Job reliable = new Job(IntervalPolicy.auto(), Duration.ofDays(30), 4, MS, 20 * MS, 30 * MS, 200 * MS, 10000, null);
        reliable.run(60);
        Job flaky = new Job(IntervalPolicy.auto(), Duration.ofMinutes(10), 4, MS, 20 * MS, 30 * MS, 200 * MS, 10000, null);
        flaky.run(60);
        // too few disk rounds at ratio 10000 to measure the disk cost: the ratio stays as configured
        assertEquals(0, IntervalDecision.diskRatio(reliable.controller.decision()));
        Job measured = new Job(IntervalPolicy.auto(), Duration.ofMinutes(10), 4, MS, 20 * MS, 30 * MS, 200 * MS, 2, null);
        measured.run(60);
        int k = IntervalDecision.diskRatio(measured.controller.decision());
        assertTrue(k >= 1 && k <= 2, "bounded by the configured ratio: " + k);
        Job measuredReliable = new Job(IntervalPolicy.auto(), Duration.ofDays(3), 4, MS, 20 * MS, 30 * MS, 200 * MS, 2, null);
        measuredReliable.run(60);
        assertEquals(2, IntervalDecision.diskRatio(measuredReliable.controller.decision()),
                "failures memory cannot survive are rare: the largest ratio allowed");
        assertTrue(flaky.schedule.interval() < reliable.schedule.interval());
    }
}
