package io.jckpt.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.policy.interval.FailureModel;
import io.jckpt.policy.interval.FailureModel.Scheme;
import io.jckpt.policy.interval.SlowProfile;
import org.junit.jupiter.api.Test;

/**
 * The discrete-event simulator against the closed forms of {@link FailureModel}, seeded. Tolerances:
 * 1 % (relative, on the overhead-inclusive wall time per computation) for one level, where Daly's
 * formula is exact and only the Monte Carlo error remains; 2 % for two levels, where the closed form
 * treats the disk period as its expected length; 0.02 absolute on a loss probability.
 */
class SimulatorTest {
    /** A pace measured after a restart (half-second phases), as SlowProfileTest's. */
    private static final SlowProfile MEASURED = SlowProfile.everySeconds(0.5, 0.31, 0.51, 0.58, 0.75, 0.80, 0.80,
            0.84, 0.87, 0.93, 0.91, 0.82, 0.81, 0.87, 0.92, 0.96, 0.99);


    @Test
    void oneLevelMatchesDalysExactFormula() {
        // MTBF 1 h, checkpoint 10 s, restart 30 s, at Daly's interval, at half and at twice of it
        double mtbf = 3600;
        double tau = FailureModel.dalyInterval(10, mtbf);
        for (double t : new double[] {tau / 2, tau, 2 * tau}) {
            Scheme s = new Scheme(t, 10, 0, 0, 30, 0, 1 / mtbf, 0);
            Simulator.Result r = Simulator.run(s, 200 * t, 4000, 7);
            double closed = FailureModel.wallPerWork(s);
            assertEquals(closed, r.wallPerWork(), 0.01 * closed, "tau " + t);
        }
    }

    @Test
    void slowdownAfterRestartsMatchesTheClosedForm() {
        // MTBF 1 h, checkpoint 10 s, restart 30 s, 60 s of slowdown over 120 s of computation after each restart
        double mtbf = 3600;
        double tau = FailureModel.dalyInterval(10, mtbf);
        Scheme s = new Scheme(tau, 10, 0, 0, 30, 0, 1 / mtbf, 0, 60, 120);
        double closed = FailureModel.wallPerWork(s);
        assertTrue(closed > FailureModel.wallPerWork(new Scheme(tau, 10, 0, 0, 30, 0, 1 / mtbf, 0)) + 0.01,
                "the slowdown costs");
        Simulator.Result r = Simulator.run(s, 200 * tau, 4000, 5);
        assertEquals(closed, r.wallPerWork(), 0.01 * closed);
        // no progress at all for the slowdown (window 0): an extra restart that a failure cuts short
        Scheme still = new Scheme(tau, 10, 0, 0, 30, 0, 1 / mtbf, 0, 60, 0);
        assertEquals(FailureModel.wallPerWork(still), Simulator.run(still, 200 * tau, 4000, 6).wallPerWork(),
                0.01 * FailureModel.wallPerWork(still));
    }

    @Test
    void slowPhaseAtThisMachinesScaleMatchesTheClosedForm() {
        // the interval benchmark's regime (perf/REPORT.md section 11): job MTBF 2.5 s to 10 s, C 5 ms, restart
        // 0.75 s, 1 s of slowdown over 3 s of computation: failures often strike inside the slow phase
        for (double mtbf : new double[] {2.5, 5, 10}) {
            double tau = FailureModel.dalyInterval(0.005, mtbf);
            Scheme s = new Scheme(tau, 0.005, 0, 0, 0.75, 0, 1 / mtbf, 0, 1.0, 3);
            double closed = FailureModel.wallPerWork(s);
            Simulator.Result r = Simulator.run(s, 2000 * tau, 2000, 9);
            assertEquals(closed - 1, r.wallPerWork() - 1, 0.03 * (closed - 1), "overheads within 3 %, MTBF " + mtbf);
        }
        assertThrows(IllegalArgumentException.class, () -> new Scheme(1, 0, 0, 0, 0, 0, 1, 0, -1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Scheme(1, 0, 0, 0, 0, 0, 1, 0, 1, Double.NaN));
    }

    @Test
    void failuresThatWaitForTheRestartsEndMatchTheirClosedFormAndCostMore() {
        // bin/ckpt-run --mtbf kills no rank during a recovery: a failure due then strikes at its end; at a 2.5 s
        // MTBF and a 0.7 s restart a quarter of the failures fall due in a restart
        for (double mtbf : new double[] {2.5, 10}) {
            double tau = FailureModel.dalyInterval(0.008, mtbf);
            Scheme s = new Scheme(tau, 0.008, 0, 0, 0.7, 0, 1 / mtbf, 0, 1.0, 2.3);
            double deferred = FailureModel.wallPerWork(s, true);
            Simulator.Result r = Simulator.run(s, 2000 * tau, 2000, 11, true);
            assertEquals(deferred - 1, r.wallPerWork() - 1, 0.03 * (deferred - 1), "overheads within 3 %, MTBF " + mtbf);
            double daly = FailureModel.wallPerWork(s);
            assertTrue(deferred > daly, "a restart never cut short costs more: " + deferred + " vs " + daly);
            assertEquals(daly, FailureModel.wallPerWork(s, false), 0);
        }
        // two levels: the disk restart waits too
        Scheme two = new Scheme(60, 5, 10, 30, 20, 120, 1 / 3600.0, 1 / 36000.0);
        double closed = FailureModel.wallPerWork(two, true);
        assertEquals(closed - 1, Simulator.run(two, 600 * 60, 2000, 12, true).wallPerWork() - 1, 0.03 * (closed - 1));
    }

    @Test
    void failuresHeldForPartOfTheRestartMatchTheirClosedFormBetweenDalysAndTheWholeHold() {
        // bin/ckpt-run --mtbf holds failures while it rebuilds the world (0.37 s of a 0.83 s restart here), not
        // while the ranks restore their data in it: a failure due then cuts the restart short
        for (double mtbf : new double[] {2.5, 10}) {
            double tau = FailureModel.dalyInterval(0.01, mtbf);
            Scheme exact = new Scheme(tau, 0.01, 0, 0, 0.83, 0, 1 / mtbf, 0);
            double closed = FailureModel.wallPerWork(exact, 0.37);
            assertEquals(closed - 1, Simulator.run(exact, 2000 * tau, 2000, 13, 0.37).wallPerWork() - 1,
                    0.01 * (closed - 1), "without a slow phase the form is exact: overheads within 1 %, MTBF " + mtbf);
            // the slow phase's closed form is first order (a failure cutting it short): within 4 %
            Scheme s = new Scheme(tau, 0.01, 0, 0, 0.83, 0, 1 / mtbf, 0, 1.15, 1.42);
            double held = FailureModel.wallPerWork(s, 0.37);
            Simulator.Result r = Simulator.run(s, 2000 * tau, 2000, 13, 0.37);
            assertEquals(held - 1, r.wallPerWork() - 1, 0.04 * (held - 1), "overheads within 4 %, MTBF " + mtbf);
            double daly = FailureModel.wallPerWork(s);
            double whole = FailureModel.wallPerWork(s, true);
            assertTrue(daly < held && held < whole, daly + " < " + held + " < " + whole);
            assertEquals(daly, FailureModel.wallPerWork(s, 0.0), 0);
            assertEquals(whole, FailureModel.wallPerWork(s, 0.83), 0);
            assertEquals(whole, FailureModel.wallPerWork(s, 5.0), 0, "a hold longer than the restart is the whole");
        }
        // the segment: held = 0 is Daly's M e^(R/M) (e^(L/M) - 1), held = R is R e^(R/M) per failure
        double lambda = 0.4;
        double l = 0.25;
        double r = 0.83;
        assertEquals(FailureModel.expectedSegmentTime(l, r, lambda), FailureModel.expectedSegmentTime(l, 0, r, lambda),
                1e-12);
        double f = Math.expm1(lambda * l);
        assertEquals(f / lambda + f * r * Math.exp(lambda * r), FailureModel.expectedSegmentTime(l, r, r, lambda), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> FailureModel.wallPerWork(
                new Scheme(1, 0.01, 0, 0, 0.5, 0, 0.1, 0), -1));
        assertThrows(IllegalArgumentException.class, () -> Simulator.run(
                new Scheme(1, 0.01, 0, 0, 0.5, 0, 0.1, 0), 10, 1, 1, Double.NaN));
    }

    @Test
    void twoLevelsMatchTheClosedForm() {
        // survivable failures every 2 h, unsurvivable every 50 h; disk every 10th checkpoint
        Scheme s = new Scheme(300, 5, 10, 20, 20, 60, 1 / 7200.0, 1 / 180000.0);
        Simulator.Result r = Simulator.run(s, 300 * 400, 3000, 11);
        double closed = FailureModel.wallPerWork(s);
        assertEquals(closed, r.wallPerWork(), 0.02 * closed);
        assertEquals(0, r.lossFraction(), "the disk level survives everything");
    }

    @Test
    void withoutDiskAnUnsurvivableFailureEndsTheJob() {
        Scheme s = new Scheme(100, 2, 0, 0, 10, 0, 1 / 3600.0, 1 / 50000.0);
        double job = 100 * 200;
        Simulator.Result r = Simulator.run(s, job, 4000, 3);
        assertEquals(FailureModel.lossProbability(s, job), r.lossFraction(), 0.02);
    }

    @Test
    void dalysIntervalIsTheOptimumOfTheExactFormula() {
        double mtbf = 7200;
        double c = 30;
        double best = Double.MAX_VALUE;
        double bestTau = 0;
        for (double t = 10; t < 4000; t += 1) {
            double w = FailureModel.wallPerWork(new Scheme(t, c, 0, 0, 0, 0, 1 / mtbf, 0));
            if (w < best) {
                best = w;
                bestTau = t;
            }
        }
        double daly = FailureModel.dalyInterval(c, mtbf);
        assertEquals(bestTau, daly, 0.02 * bestTau);
        assertEquals(FailureModel.youngInterval(c, mtbf), Math.sqrt(2 * c * mtbf), 1e-9);
        assertTrue(Math.abs(daly - bestTau) < Math.abs(FailureModel.youngInterval(c, mtbf) - bestTau) + 1,
                "Daly is at least as close as Young");
    }

    @Test
    void placementDecidesHowManyNodesMustFail() {
        assertEquals(1, FailureModel.nodesToLoseMemory(1, 4, 100, FailureModel.Placement.RANK_ORDER),
                "m = 1 with 4 ranks per node in rank order: the copy is on the same node");
        assertEquals(2, FailureModel.nodesToLoseMemory(4, 4, 100, FailureModel.Placement.RANK_ORDER));
        assertEquals(2, FailureModel.nodesToLoseMemory(1, 4, 100, FailureModel.Placement.SPREAD));
        assertEquals(3, FailureModel.nodesToLoseMemory(5, 1, 3, FailureModel.Placement.SPREAD), "never more than the nodes");
        double oneCopy = FailureModel.unsurvivableRate(86400, 100, 1, 1, 60, FailureModel.Placement.SPREAD);
        double twoCopies = FailureModel.unsurvivableRate(86400, 100, 1, 2, 60, FailureModel.Placement.SPREAD);
        assertTrue(twoCopies < oneCopy / 100, oneCopy + " vs " + twoCopies);
        assertThrows(IllegalArgumentException.class, () -> FailureModel.unsurvivableRate(0, 1, 1, 1, 1,
                FailureModel.Placement.SPREAD));
    }

    @Test
    void theSimulatorAgreesWithTheClosedFormForAMeasuredProfile() {
        for (double mtbf : new double[] {2.5, 5, 10}) {
            double tau = FailureModel.dalyInterval(0.012, mtbf);
            Scheme s = new Scheme(tau, 0.012, 0, 0, 0.86, 0.86, 1 / mtbf, 0);
            double closed = FailureModel.wallPerWork(s, 0.4, MEASURED);
            double simulated = Simulator.run(s, 2000 * tau, 2000, 17, 0.4, MEASURED).wallPerWork();
            // the slow phase's closed form is first order (the extra time is exposed to failures as a whole)
            assertEquals(closed - 1, simulated - 1, 0.05 * (closed - 1), "overheads within 5 %, MTBF " + mtbf);
            double even = FailureModel.wallPerWork(s, 0.4, SlowProfile.even(MEASURED.slowdown(), MEASURED.window()));
            assertTrue(closed > even, "the front-loaded profile costs more than the even phase: " + closed + " vs " + even);
        }
        double[] jobs = Simulator.wallPerWorkOfJobs(new Scheme(0.5, 0.012, 0, 0, 0.86, 0.86, 0.4, 0), 36, 50, 3, 0.4,
                MEASURED);
        assertEquals(50, jobs.length);
        for (double j : jobs) {
            assertTrue(j > 1, "every job of 36 s meets failures at a 2.5-s MTBF: " + j);
        }
    }
}
