package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.UsageException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** The failure injector's schedule, without processes: --kill specs fire once when due, --mtbf from the seed. */
class FailureInjectorTest {

    private static List<String> texts(List<KillSpec> kills) {
        return kills.stream().map(KillSpec::text).toList();
    }

    @Test
    void killSpecsFireOnceWhenTheirTimeRoundOrRecoveryComes() throws UsageException {
        FailureInjector injector = new FailureInjector(List.of(KillSpec.parse("2@3.5s", 4),
                KillSpec.parse("1,3@round=40:wipe", 4), KillSpec.parse("0@recovery", 4)), 0, 1, 4);
        assertEquals(List.of(), injector.due(3.4, 39, true));
        assertEquals(List.of("2@3.5s"), texts(injector.due(3.5, 39, true)));
        assertEquals(List.of(), injector.due(10, 39, true), "fired once");
        List<KillSpec> round = injector.due(10, 40, true);
        assertEquals(List.of("1,3@round=40:wipe"), texts(round));
        assertEquals(List.of(1, 3), round.get(0).ranks());
        assertTrue(round.get(0).wipe());
        assertEquals(List.of(), injector.due(20, 100, true), "@recovery waits for a recovery's new world");
        injector.worldRebuilt();
        assertEquals(List.of("0@recovery"), texts(injector.due(20, 100, true)));
        assertEquals(Double.MAX_VALUE, injector.nextRandomSeconds(), "no --mtbf: no random failure");
    }

    @Test
    void aRecoverySpecFiresAtTheFirstCheckAfterTheNewWorldFormed() throws UsageException {
        FailureInjector injector = new FailureInjector(List.of(KillSpec.parse("1@5s", 3), KillSpec.parse("2@recovery", 3)),
                0, 1, 3);
        assertEquals(List.of(), injector.due(1, 0, true));
        injector.worldRebuilt();
        assertEquals(List.of("2@recovery"), texts(injector.due(2, 0, true)));
        assertEquals(List.of(), injector.due(3, 0, true));
        assertEquals(List.of("1@5s"), texts(injector.due(5, 0, true)));
    }

    @Test
    void randomFailuresFollowTheSeededExponentialSchedule() {
        double mtbf = 2.0;
        FailureInjector injector = new FailureInjector(List.of(), mtbf, 42, 5);
        // the same draws, in the same order: first time, then victim and next gap per failure
        SplittableRandom expected = new SplittableRandom(42);
        double next = -mtbf * Math.log(1 - expected.nextDouble());
        assertEquals(next, injector.nextRandomSeconds(), 0);
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of(), injector.due(next - 0.001, 0, true), "not before its time");
            assertEquals(List.of(), injector.due(next + 0.5, 0, false), "held while a recovery is under way");
            double at = next + 1;
            List<KillSpec> due = injector.due(at, 0, true);
            int victim = expected.nextInt(5);
            assertEquals(1, due.size());
            assertEquals(List.of(victim), due.get(0).ranks());
            assertEquals(String.format(Locale.ROOT, "%d@%.2fs (random, mtbf 2.0s)", victim, at), due.get(0).text());
            next = at - mtbf * Math.log(1 - expected.nextDouble());
            assertEquals(next, injector.nextRandomSeconds(), 0);
        }
    }

    @Test
    void theSameSeedReplaysTheSameFailuresAnotherSeedDoesNot() {
        assertEquals(schedule(7), schedule(7));
        assertNotEquals(schedule(7), schedule(8));
    }

    @Test
    void consecutiveSeedsGiveIndependentFirstFailures() {
        // bench and test runs use seeds 1, 2, 3...: their first failure times must be exponential draws of
        // their own (java.util.Random put all of them at 1.31 x the MTBF)
        int seeds = 400;
        int belowMedian = 0;
        double sum = 0;
        for (long seed = 1; seed <= seeds; seed++) {
            double first = new FailureInjector(List.of(), 1.0, seed, 4).nextRandomSeconds();
            sum += first;
            if (first < Math.log(2)) {
                belowMedian++;
            }
        }
        // binomial(400, 1/2): sd 10; the mean of 400 exponentials: sd 0.05
        assertTrue(belowMedian > 170 && belowMedian < 230, belowMedian + " of " + seeds + " first failures below the median");
        assertEquals(1.0, sum / seeds, 0.15, "mean first failure time over " + seeds + " seeds");
    }

    private static List<String> schedule(long seed) {
        FailureInjector injector = new FailureInjector(List.of(), 1.0, seed, 8);
        List<String> fired = new ArrayList<>();
        for (int tick = 0; tick <= 2_000; tick++) { // 20 s in steps of 10 ms
            fired.addAll(texts(injector.due(tick / 100.0, 0, true)));
        }
        assertTrue(fired.size() > 5, "about 20 failures in 20 s with a mean of 1 s: " + fired);
        return fired;
    }
}
