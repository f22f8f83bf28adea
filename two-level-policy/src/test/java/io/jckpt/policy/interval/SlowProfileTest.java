package io.jckpt.policy.interval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.policy.interval.FailureModel.Scheme;
import org.junit.jupiter.api.Test;

class SlowProfileTest {
    /** The pace after a restart measured on this machine (interval bench, 24,000-sweep jobs), per half second. */
    private static final SlowProfile MEASURED = SlowProfile.everySeconds(0.5, 0.31, 0.51, 0.58, 0.75, 0.80, 0.80,
            0.84, 0.87, 0.93, 0.91, 0.82, 0.81, 0.87, 0.92, 0.96, 0.99);

    @Test
    void theEvenPhaseIsTheSchemesSlowdownAndItsClosedFormUnchanged() {
        SlowProfile even = SlowProfile.even(1.49, 2.70);
        assertEquals(1.49, even.slowdown(), 1e-12);
        assertEquals(2.70, even.window(), 1e-12);
        for (double rate : new double[] {0, 0.1, 0.4, 2}) {
            // the even phase's form: a failure at x into the phase of T = s + w seconds has cost x s / T
            double t = 1.49 + 2.70;
            double form = rate == 0 ? 1.49 : 1.49 * -Math.expm1(-rate * t) / (rate * t);
            assertEquals(form, even.extraPerRestart(rate), 1e-12, "rate " + rate);
        }
        Scheme s = new Scheme(0.5, 0.012, 0, 0, 0.86, 0.86, 0.4, 0, 1.49, 2.70);
        assertEquals(FailureModel.wallPerWork(s, 0.4), FailureModel.wallPerWork(s, 0.4, even), 1e-12);
        assertEquals(SlowProfile.NONE, SlowProfile.even(0, 3));
        assertEquals(0, SlowProfile.NONE.extraPerRestart(0.4));
        // w = 0: no progress for s seconds
        assertEquals(2.0 + 0.5, SlowProfile.even(2, 0).wallFor(0, 0.5), 1e-12);
    }

    @Test
    void extraPerRestartIsTheIntegralOfTheTimeLostUntilTheNextFailure() {
        // E[extra accrued until an exponential failure time X], by a fine numerical integral over X
        for (double rate : new double[] {0.1, 0.4, 1}) {
            double expected = 0;
            double dx = 1e-3;
            for (double x = dx / 2; x < 120; x += dx) {
                double accrued = x - MEASURED.wallFor(0, 0) - workDoneBy(MEASURED, x);
                expected += rate * Math.exp(-rate * x) * accrued * dx;
            }
            assertEquals(expected, MEASURED.extraPerRestart(rate), 1e-4, "rate " + rate);
        }
        assertEquals(MEASURED.slowdown(), MEASURED.extraPerRestart(0), 1e-12);
        // front-loaded: a failure every 2.5 s pays more of it than of the even phase of the same total
        SlowProfile even = SlowProfile.even(MEASURED.slowdown(), MEASURED.window());
        assertTrue(MEASURED.extraPerRestart(0.4) > 1.2 * even.extraPerRestart(0.4),
                MEASURED.extraPerRestart(0.4) + " vs " + even.extraPerRestart(0.4));
    }

    /** The computation done in the first x seconds after a restart (inverting wallFor by bisection). */
    private static double workDoneBy(SlowProfile p, double x) {
        double lo = 0;
        double hi = x;
        for (int i = 0; i < 60; i++) {
            double mid = (lo + hi) / 2;
            if (p.wallFor(0, mid) <= x) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    @Test
    void wallForWalksThePhasesFromTheAgeGiven() {
        SlowProfile p = new SlowProfile(new double[] {1, 2}, new double[] {0.25, 0.5});
        assertEquals(1.25, p.window(), 1e-12);
        assertEquals(1.75, p.slowdown(), 1e-12);
        assertEquals(0.8, p.wallFor(0, 0.2), 1e-12); // inside the first phase
        assertEquals(1 + 0.5 / 0.5, p.wallFor(0, 0.75), 1e-12); // 0.25 in the first, 0.5 in the second
        assertEquals(3 + 1, p.wallFor(0, 2.25), 1e-12); // 1.25 in the phases, 1 at the steady pace
        assertEquals(2 + 0.5, p.wallFor(1, 1.5), 1e-12); // from the second phase on
        assertEquals(0.7, p.wallFor(3, 0.7), 1e-12); // after the profile
        assertEquals(0.7, p.wallFor(Double.POSITIVE_INFINITY, 0.7), 1e-12);
    }

    @Test
    void badProfilesAreClearErrors() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new SlowProfile(new double[] {0.5, 0.5}, new double[] {0.3}));
        assertTrue(e.getMessage().contains("as many speeds as phases"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SlowProfile.everySeconds(0, 0.5));
        assertTrue(e.getMessage().contains("phase 0") && e.getMessage().contains("length"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SlowProfile.everySeconds(0.5, 0.5, -0.1));
        assertTrue(e.getMessage().contains("phase 1") && e.getMessage().contains("speed"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> SlowProfile.everySeconds(0.5, Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> SlowProfile.even(-1, 2));
        assertThrows(IllegalArgumentException.class, () -> MEASURED.extraPerRestart(-0.1));
        double[] speeds = {0.5};
        SlowProfile p = SlowProfile.everySeconds(1, speeds);
        speeds[0] = 0;
        assertEquals(0.5, p.speeds()[0], "the profile keeps its own copy");
    }
}
