package io.jckpt.policy.interval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The slow phase after restarts, second by second: worlds cut short by the next failure add the seconds they
 * lived, so the estimate is the whole phase's (a mean of each world's total would take a cut world's part for a
 * whole phase); the ordinary periods' excess over the steady pace is not counted as slowdown; the sums survive
 * in the history.
 */
class SlowPhaseTest {
    private static final double STEADY = 0.001;

    @TempDir
    Path dir;

    /** Runs a window of 0.25 s periods at {@code slowFactor} x the steady pace until {@code slowUntil}, else at {@code factor}, for {@code lived} s. */
    private static void world(SlowPhase p, double slowUntil, double slowFactor, double factor, double lived) {
        p.open();
        for (double t = 0; t + 0.25 <= lived + 1e-9 && p.isOpen(); t += 0.25) {
            double f = t < slowUntil ? slowFactor : factor;
            p.period(t, 0.25, Math.round(0.25 / (STEADY * f)), STEADY);
        }
    }

    @Test
    void aWorldCutShortAddsTheSecondsItLivedAndTheWholePhaseIsEstimated() {
        SlowPhase p = new SlowPhase(null);
        // twice the steady pace for 4 s: half of every second is extra, 2 s in all
        world(p, 4, 2, 1, 12);
        assertFalse(p.isOpen());
        assertEquals(2.0, p.slowdown(), 0.01);
        // the next recovery lives 2.5 s, as slow: its seconds 0 and 1 count, the seconds it never reached do not
        world(p, 4, 2, 1, 2.5);
        assertTrue(p.isOpen(), "cut inside its window");
        assertEquals(2, p.samples());
        assertEquals(2.0, p.slowdown(), 0.01, "not the mean of the totals (2 s and 1 s)");
    }

    @Test
    void thePaceSecondBySecondHoldsTheWholeSlowdownEarlyFirst() {
        SlowPhase p = new SlowPhase(null);
        assertEquals(io.jckpt.policy.interval.SlowProfile.NONE, p.pace(), "nothing measured yet");
        // four times the steady pace for 1 s (3/4 of it extra), twice for the next 2 s (1/2 extra), then steady
        p.open();
        for (double t = 0; t + 0.25 <= 12 + 1e-9 && p.isOpen(); t += 0.25) {
            double f = t < 1 ? 4 : t < 3 ? 2 : 1;
            p.period(t, 0.25, Math.round(0.25 / (STEADY * f)), STEADY);
        }
        io.jckpt.policy.interval.SlowProfile pace = p.pace();
        assertEquals(3, pace.speeds().length, "up to the last second with extra time: " + pace);
        assertEquals(0.25, pace.speeds()[0], 0.01);
        assertEquals(0.5, pace.speeds()[1], 0.01);
        assertEquals(0.5, pace.speeds()[2], 0.01);
        assertEquals(1.0, pace.seconds()[0]);
        assertEquals(p.slowdown(), pace.slowdown(), 0.01, "the pace holds the whole slowdown");
        assertEquals("1.00:0.25:0.50:0.50", pace.flag());
        // a second with more extra time than a second (a 3-s stall in the first period) passes the rest on
        SlowPhase stalled = new SlowPhase(null);
        stalled.open();
        stalled.extraBlocking(0.5, 1.5); // a here() blocked 1.5 s more than usual
        stalled.period(0, 1, 100, STEADY); // and 0.9 s extra computation
        for (double t = 1; t + 0.25 <= 12 + 1e-9 && stalled.isOpen(); t += 0.25) {
            stalled.period(t, 0.25, Math.round(0.25 / STEADY), STEADY);
        }
        io.jckpt.policy.interval.SlowProfile carried = stalled.pace();
        assertEquals(2.4, carried.slowdown(), 0.01, carried.toString());
        assertEquals(0, carried.speeds()[0], 1e-9);
        assertEquals(0, carried.speeds()[1], 1e-9);
        assertEquals(0.6, carried.speeds()[2], 0.01);
    }

    @Test
    void theOrdinaryExcessOverTheSteadyPaceIsNotSlowdown() {
        SlowPhase p = new SlowPhase(null);
        // ordinary periods are 5 % slower than the steady pace (it follows the fastest ones)
        for (int i = 0; i < 400; i++) {
            p.steadyPeriod(0.25, Math.round(0.25 / (STEADY * 1.05)), STEADY);
        }
        // a restart: 1.5 x the steady pace for 2 s, then the ordinary 1.05 x, for 10 s
        world(p, 2, 1.5, 1.05, 10);
        double extra = 2 * (1 - 1 / 1.5) - 2 * (1 - 1 / 1.05); // over the ordinary pace, not over the steady one
        assertEquals(extra, p.slowdown(), 0.01);
    }

    @Test
    void periodsFarFromTheSteadyPaceAreNotOrdinary() {
        SlowPhase p = new SlowPhase(null);
        // the job's own warm-up (periods 30 % faster than a steady pace that lags behind) and a slower stretch
        for (int i = 0; i < 100; i++) {
            p.steadyPeriod(0.25, Math.round(0.25 / (STEADY * 0.7)), STEADY);
            p.steadyPeriod(0.25, Math.round(0.25 / (STEADY * 1.5)), STEADY);
        }
        world(p, 2, 1.5, 1, 10);
        assertEquals(2 * (1 - 1 / 1.5), p.slowdown(), 0.01, "no share taken off: none of those periods was ordinary");
    }

    @Test
    void theSumsSurviveInTheHistoryAndTheWindowEndsOnceSteadyAfterSixSeconds() throws Exception {
        Path file = dir.resolve(FailureHistory.FILE_NAME);
        FailureHistory h = FailureHistory.load(file);
        SlowPhase p = new SlowPhase(h);
        world(p, 1, 3, 1, 12);
        assertFalse(p.isOpen(), "the window ends at the first steady period after 6 s");
        // all the extra time in the first second: the even phase with the same centre lasts 1 s
        assertEquals(2 / 3.0, p.slowdown(), 0.01);
        assertEquals(1.0, p.window() + p.slowdown(), 0.01);
        p.saveTo(h);
        h.save();
        SlowPhase again = new SlowPhase(FailureHistory.load(file));
        assertEquals(p.slowdown(), again.slowdown(), 1e-4);
        assertEquals(p.window(), again.window(), 1e-4);
        assertEquals(1, again.samples());
    }

    @Test
    void withoutASteadyPaceNothingIsMeasuredAndTheWindowStillEnds() {
        SlowPhase p = new SlowPhase(null);
        p.open();
        assertFalse(p.period(0, 3, 1000, Double.NaN));
        assertTrue(p.isOpen());
        assertFalse(p.period(3, 3.5, 1000, Double.NaN));
        assertFalse(p.isOpen());
        assertTrue(Double.isNaN(p.slowdown()));
    }
}
