package io.jckpt.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.policy.interval.FailureModel;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Section 11's analysis of launched jobs: restarts paired with their failures, the best fixed interval, the prediction. */
class IntervalBenchTest {
    private static final double S = 1e9;

    @Test
    void aRollbackOvertakenByTheNextFailureIsNotTakenForTheNextFailuresRestart() {
        // from a loaded run: failure A, its world, failure B during A's rollback, A's rollback line,
        // B's world, B's rollback line
        List<Double> restarts = IntervalBench.restarts(List.of(34.215, 37.436), List.of(35.376, 40.483),
                List.of(37.590, 42.451));
        assertEquals(1, restarts.size(), restarts.toString());
        assertEquals(42.451 - 37.436, restarts.get(0), 1e-9);
    }

    @Test
    void aFailureBeforeTheFirstCheckpointHasNoRestartAndEveryOtherHasItsOwn() {
        // 1: before any checkpoint (recovered, clean start: no rollback line); 2 and 3: rolled back
        List<Double> restarts = IntervalBench.restarts(List.of(5.0, 20.0, 30.0), List.of(6.0, 20.5, 30.4),
                List.of(21.0, 31.2));
        assertEquals(2, restarts.size(), restarts.toString());
        assertEquals(1.0, restarts.get(0), 1e-9);
        assertEquals(1.2, restarts.get(1), 1e-9);
    }

    @Test
    void theBestFixedIntervalHasTheLowestMeanOfThoseWhoseRunsAllCompleted() {
        IntervalBench.Result r = result(4);
        List<IntervalBench.Point> points = r.byRate.get(4.0);
        add(points.get(0), 0, 20, 0.005); // auto
        add(points.get(1), 0, 30, Double.NaN); // every 4 calls
        add(points.get(1), 0, 32, Double.NaN);
        add(points.get(2), 0, 21, Double.NaN); // every 32 calls: lowest mean
        add(points.get(2), 0, 23, Double.NaN);
        add(points.get(3), 0, 19, Double.NaN); // every 256 calls: lower, but one run failed
        add(points.get(3), 1, 25, Double.NaN);
        assertSame(points.get(2), r.bestFixed(4));
        assertEquals(22 * S, r.bestFixed(4).wall().mean(), 1e-3);
        assertEquals(21 * S, r.bestFixed(4).wall().min(), 1e-3);
        IntervalBench.Result none = result(4);
        add(none.byRate.get(4.0).get(1), 1, 30, Double.NaN);
        assertNull(none.bestFixed(4));
    }

    @Test
    void thePredictionIsTheAdvisorModelsForTheMeasuredCostRestartAndTheInjectedMtbf() {
        IntervalBench.Result r = result(4);
        List<IntervalBench.Point> points = r.byRate.get(4.0);
        add(points.get(0), 0, 20, 0.004); // auto: C = median 0.005 s
        add(points.get(0), 0, 21, 0.005);
        add(points.get(0), 0, 22, 0.009);
        add(points.get(2), 0, 21, Double.NaN);
        double c = 0.005;
        double restart = 1.0; // every run's restarts are 0.5, 1.0, 1.5 s: median 1 s
        double tau = FailureModel.dalyInterval(c, 4);
        assertEquals(tau, r.dalyTau(4), 1e-12);
        // failures due during a restart strike at its end, as the launcher injects them
        assertEquals(FailureModel.wallPerWork(new FailureModel.Scheme(tau, c, 0, 0, restart, restart, 0.25, 0), true) - 1,
                r.predicted(points.get(0)), 1e-12);
        assertEquals(FailureModel.wallPerWork(new FailureModel.Scheme(tau, c, 0, 0, restart, restart, 0.25, 0)) - 1,
                r.predictedDaly(points.get(0)), 1e-12);
        assertTrue(r.predicted(points.get(0)) > r.predictedDaly(points.get(0)));
        double perCall = 10.0 / 5000; // W = 10 s over 10000 sweeps, a call per pair
        assertEquals(FailureModel.wallPerWork(new FailureModel.Scheme(32 * perCall, c, 0, 0, restart, restart, 0.25, 0),
                true) - 1, r.predicted(points.get(2)), 1e-12);
        assertTrue(r.predicted(points.get(2)) > r.predicted(points.get(0)), "Daly's interval is the model's best");
    }

    @Test
    void theLaunchersHoldWithinTheRestartGoesIntoThePredictionAndTheGapBetweenFailures() {
        IntervalBench.Result r = result(4);
        IntervalBench.Point auto = r.byRate.get(4.0).get(0);
        IntervalBench.JobFigures f = new IntervalBench.JobFigures(0.8, 1.0, 2.0, 0.5);
        // the launcher rebuilt the world 0.3, 0.4 and 0.5 s after each detection: H = 0.4 s of R = 0.8 s
        auto.runs.add(new IntervalBench.Run(0, 20 * S, 1.1 * S, 100, List.of(4.0 * S, 9.0 * S), List.of(),
                List.of(0.3 * S, 0.5 * S), 0.005, f, 40, Double.NaN, "c"));
        auto.runs.add(new IntervalBench.Run(0, 16 * S, 1.1 * S, 100, List.of(7.0 * S), List.of(), List.of(0.4 * S),
                0.005, f, 40, Double.NaN, "c"));
        assertEquals(0.4, r.held(), 1e-12);
        double tau = FailureModel.dalyInterval(0.005, 4);
        FailureModel.Scheme scheme = new FailureModel.Scheme(tau, 0.005, 0, 0, 0.8, 0.8, 0.25, 0, 1.0, 2.0);
        double predicted = r.predicted(auto);
        assertEquals(FailureModel.wallPerWork(scheme, 0.4) - 1, predicted, 1e-12);
        assertEquals(FailureModel.wallPerWork(scheme) - 1, r.predictedDaly(auto), 1e-12);
        assertTrue(r.predictedDaly(auto) < predicted && predicted < FailureModel.wallPerWork(scheme, true) - 1,
                "between failures that cut any restart short and a restart held whole");
        // the next failure comes max(X, H) after one: H + M e^(-H/M) on average
        assertEquals(10 * (1 + predicted) / (0.4 + 4 * Math.exp(-0.1)), r.expectedFailures(auto, predicted), 1e-12);
        // a hold longer than R is the whole restart
        IntervalBench.Result slow = result(4);
        slow.byRate.get(4.0).get(0).runs.add(new IntervalBench.Run(0, 20 * S, 1.1 * S, 100, List.of(4.0 * S),
                List.of(), List.of(1.5 * S), 0.005, f, 40, Double.NaN, "c"));
        assertEquals(FailureModel.wallPerWork(scheme, true) - 1, slow.predicted(slow.byRate.get(4.0).get(0)), 1e-12);
    }

    @Test
    void rankZerosRestartAndSlowdownFromItsCloseLineGoIntoThePrediction() {
        String line = "rank 0: interval policy auto: computation 0.00314 s per call, checkpoint --cost 0.00535 --blocking"
                + " 0.00309, program CPU share 0.41, after a restart --slowdown 0.9 --slow-window 2.4 (2 recoveries"
                + " measured), --restart 0.7 --image 2113688 --measured-m 1 --ranks-per-node 1, --node-mtbf 18.19s (job"
                + " MTBF 4.546 s: 4 failure(s) in 17.73 s seen), interval 69 calls";
        IntervalBench.JobFigures f = IntervalBench.JobFigures.parse(line);
        assertEquals(new IntervalBench.JobFigures(0.7, 0.9, 2.4, 0.41), f);
        IntervalBench.Result r = result(4);
        List<IntervalBench.Point> points = r.byRate.get(4.0);
        add(points.get(0), 0, 20, 0.005, f);
        add(points.get(0), 0, 21, 0.005, new IntervalBench.JobFigures(0.8, 1.1, 2.6, 0.45));
        add(points.get(0), 0, 22, 0.005, IntervalBench.JobFigures.parse("interval policy auto: --restart 0.75 --image 1"));
        // medians: R of 0.7, 0.8, 0.75; S and its window of the two runs that measured one
        assertEquals(0.75, r.restart(4), 1e-12);
        assertEquals(1.0, r.slowdown(), 1e-12);
        assertEquals(2.5, r.slowWindow(), 1e-12);
        double tau = FailureModel.dalyInterval(0.005, 4);
        FailureModel.Scheme scheme = new FailureModel.Scheme(tau, 0.005, 0, 0, 0.75, 0.75, 0.25, 0, 1.0, 2.5);
        assertEquals(FailureModel.wallPerWork(scheme, true) - 1, r.predicted(points.get(0)), 1e-12);
        assertEquals(FailureModel.wallPerWork(scheme) - 1, r.predictedDaly(points.get(0)), 1e-12);
        // the slowdown counts: the same without it predicts much less
        assertTrue(r.predicted(points.get(0)) > FailureModel.wallPerWork(new FailureModel.Scheme(tau, 0.005, 0, 0, 0.75,
                0.75, 0.25, 0), true) - 1 + 0.1);
    }

    @Test
    void thePredictionForTheFailuresInjectedScalesTheFailuresShareByInjectedOverExpected() {
        IntervalBench.Result r = result(4);
        IntervalBench.Point auto = r.byRate.get(4.0).get(0);
        IntervalBench.JobFigures f = new IntervalBench.JobFigures(0.8, 1.0, 2.0, 0.5);
        // computation from 1 s (sweep 100 at 1.1 s, 1 ms a sweep): run 1 meets 3 failures in it and one in the
        // start-up, run 2 meets 1
        auto.runs.add(new IntervalBench.Run(0, 20 * S, 1.1 * S, 100, List.of(0.5 * S, 4.0 * S, 9.0 * S, 12.0 * S),
                List.of(), 0.005, f, 40, Double.NaN, "c"));
        auto.runs.add(new IntervalBench.Run(0, 16 * S, 1.1 * S, 100, List.of(7.0 * S), List.of(), 0.005, f, 40,
                Double.NaN, "c"));
        assertEquals(2.0, r.failuresInPhase(auto), 1e-12);
        assertEquals(4.0, r.failuresInPhases(auto), 1e-12);
        double predicted = r.predicted(auto);
        // W = 10 s: expected failures = W (1 + predicted) / (R + M e^(-R/M)), R = 0.8 s, M = 4 s
        double expected = 10 * (1 + predicted) / (0.8 + 4 * Math.exp(-0.2));
        assertEquals(expected, r.expectedFailures(auto, predicted), 1e-12);
        double share = 0.005 / FailureModel.dalyInterval(0.005, 4);
        assertEquals(share + (predicted - share) * 2 / expected, r.predictedForInjected(auto), 1e-12);
        // fewer failures than expected: a lower prediction; none: the checkpoints alone
        assertTrue(r.predictedForInjected(auto) < predicted);
        IntervalBench.Result quiet = result(4);
        IntervalBench.Point none = quiet.byRate.get(4.0).get(0);
        none.runs.add(new IntervalBench.Run(0, 12 * S, 1.1 * S, 100, List.of(), List.of(), 0.005, f, 40, Double.NaN, "c"));
        assertEquals(share, quiet.predictedForInjected(none), 1e-12);
    }

    @Test
    void aShorterSweepOfFixedIntervalsIsAPropertyAndABadOneIsAClearError() {
        assertEquals(List.of(16, 64, 256), java.util.Arrays.stream(IntervalBench.Config.fixedCalls(" 16, 64,256"))
                .boxed().toList());
        assertEquals(5, IntervalBench.Config.fixedCalls(null).length);
        assertEquals(0, IntervalBench.Config.fixedCalls("none").length);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IntervalBench.Config.fixedCalls("16,0"));
        assertTrue(e.getMessage().contains("-Djckpt.bench.intervalCalls"), e.getMessage());
    }

    @Test
    void theNumberOfSeedsIsAPropertyAndABadOneIsAClearError() {
        assertArrayEquals(new long[] {1, 2, 3, 4, 5}, IntervalBench.Config.seeds(" 5"));
        assertArrayEquals(new long[] {1, 2, 3}, IntervalBench.Config.seeds(null));
        assertArrayEquals(new long[] {11, 12, 13}, IntervalBench.Config.seeds("11-13"));
        assertThrows(IllegalArgumentException.class, () -> IntervalBench.Config.seeds("5-3"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> IntervalBench.Config.seeds("0"));
        assertTrue(e.getMessage().contains("-Djckpt.bench.intervalSeeds") && e.getMessage().contains("not 0"),
                e.getMessage());
    }

    @Test
    void howOftenTheResidualIsReportedIsAPropertyAndABadOneIsAClearError() {
        assertEquals(200, IntervalBench.reportEvery(null));
        assertEquals(20, IntervalBench.reportEvery(" 20"));
        for (String bad : new String[] {"0", "-5", "often"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> IntervalBench.reportEvery(bad));
            assertTrue(e.getMessage().contains("-Djckpt.bench.intervalReport") && e.getMessage().contains("not " + bad),
                    e.getMessage());
        }
    }

    @Test
    void theJobsLengthIsAPropertyAndABadOneIsAClearError() {
        assertEquals(9000, IntervalBench.Config.sweeps(null));
        assertEquals(24_000, IntervalBench.Config.sweeps("24000 "));
        for (String bad : new String[] {"0", "9001", "-2", "long"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                    () -> IntervalBench.Config.sweeps(bad));
            assertTrue(e.getMessage().contains("-Djckpt.bench.intervalSweeps") && e.getMessage().contains("not " + bad),
                    e.getMessage());
        }
    }

    @Test
    void theMeasuredOverheadCountsFromTheComputationsStart() {
        IntervalBench.Result r = result(4);
        IntervalBench.Point auto = r.byRate.get(4.0).get(0);
        // computation starts at 3 s (sweep 100 reported at 3.1 s, 1 ms a sweep); exit at 18 s: phase 15 s
        auto.runs.add(new IntervalBench.Run(0, 18 * S, 3.1 * S, 100, List.of(1.0 * S, 8.0 * S), List.of(), 0.005,
                IntervalBench.JobFigures.NONE, 40, Double.NaN, "c"));
        assertEquals(1, auto.runs.get(0).failuresBefore(r.perSweep()));
        // reference phase 10.5 s, W 10 s: (15 - 10.5) / 10
        assertEquals(0.45, r.measured(auto).mean(), 1e-9);
        // with each seed's own reference (run just before its jobs, at their load): that one counts
        r.seedReferences.add(new double[] {12 * S, 11 * S});
        assertEquals((15 - 12) / 11.0, r.measured(auto).mean(), 1e-9);
    }

    /** A result for one rate: W = 10 s over 10000 sweeps, reference phase 10.5 s, run time 12 s. */
    private static IntervalBench.Result result(double mtbf) {
        IntervalBench.Config c = new IntervalBench.Config(1024, 10_000, new double[] {mtbf}, new int[] {4, 32, 256},
                new long[] {1}, 1, 1000);
        IntervalBench.Result r = new IntervalBench.Result(c);
        r.baseLoop.add(10 * S);
        r.baseWall.add(12 * S);
        r.basePhase.add(10.5 * S);
        r.reference = "c";
        List<IntervalBench.Point> points = new java.util.ArrayList<>();
        points.add(new IntervalBench.Point(mtbf, 0));
        for (int calls : c.fixedCalls()) {
            points.add(new IntervalBench.Point(mtbf, calls));
        }
        r.byRate.put(mtbf, points);
        return r;
    }

    private static void add(IntervalBench.Point p, int status, double wallSeconds, double cost) {
        add(p, status, wallSeconds, cost, IntervalBench.JobFigures.NONE);
    }

    private static void add(IntervalBench.Point p, int status, double wallSeconds, double cost,
                            IntervalBench.JobFigures figures) {
        p.runs.add(new IntervalBench.Run(status, wallSeconds * S, 1.1 * S, 100, List.of(5.0 * S), List.of(0.5 * S, 1.0 * S,
                1.5 * S), cost, figures, 40, Double.NaN, status == 0 ? "c" : null));
    }
}
