package io.jckpt.policy.interval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.IntervalPolicy;
import io.jckpt.advisor.FailureModel;
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
                clock += perCall;
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
            clock += blocking;
            cpu += background;
            boolean diskRound = diskRatio > 0 && round % diskRatio == 0;
            if (diskRound) {
                flushCpu += flush;
            }
            controller.hereEnded(schedule.calls(), blocking, diskRound, round > 1);
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
