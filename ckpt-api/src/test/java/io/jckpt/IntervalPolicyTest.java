package io.jckpt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.function.Executable;

/** The interval policies as values and options: text forms, and bad inputs as errors naming the option. */
class IntervalPolicyTest {

    private static void bad(String option, String contains, Executable e) {
        InvalidOptionException x = assertThrows(InvalidOptionException.class, e);
        assertEquals(option, x.option(), x.getMessage());
        assertTrue(x.getMessage().contains(contains), x.getMessage());
    }

    @Test
    void badInputsAreClearErrors() {
        bad("interval", "T > 0", () -> IntervalPolicy.everySeconds(0));
        bad("interval", "T > 0", () -> IntervalPolicy.everySeconds(-3));
        bad("interval", "T > 0", () -> IntervalPolicy.everySeconds(Double.NaN));
        bad("interval", "0 < P < 100", () -> IntervalPolicy.maxOverhead(0));
        bad("interval", "0 < P < 100", () -> IntervalPolicy.maxOverhead(-1));
        bad("interval", "0 < P < 100", () -> IntervalPolicy.maxOverhead(100));
        bad("interval", "0 < P < 100", () -> IntervalPolicy.maxOverhead(250));
        bad("interval", "N >= 1", () -> IntervalPolicy.everyCalls(0));
        bad("interval", "T > 0", () -> IntervalPolicy.parse("seconds:0"));
        bad("interval", "0 < P < 100", () -> IntervalPolicy.parse("overhead:100%"));
        bad("interval", "must be manual, calls:N", () -> IntervalPolicy.parse("sometimes"));
        bad("interval", "cannot be read", () -> IntervalPolicy.parse("calls:many"));
        bad("nodeMtbf", "must be > 0", () -> CkptOptions.builder().nodeMtbf(Duration.ZERO).build());
        bad("nodeMtbf", "must be > 0", () -> CkptOptions.builder().nodeMtbf(Duration.ofSeconds(-5)).build());
        bad("interval", "auto needs nodeMtbf", () -> CkptOptions.builder().interval(IntervalPolicy.auto()).build());
        bad("diskRatioAuto", "needs nodeMtbf", () -> CkptOptions.builder().diskRatioAuto(true).build());
        bad("diskRatioAuto", "needs the disk level", () -> CkptOptions.builder().diskRatioAuto(true)
                .nodeMtbf(Duration.ofHours(1)).build());
        bad("failureNodes", ">= 0", () -> CkptOptions.builder().failureNodes(-1).build());
        bad("failureNodes", "<= n = 4", () -> CkptOptions.builder().failureNodes(5).build().validateFor(4));
        bad("interval", "auto needs nodeMtbf", () -> CkptOptions.defaults()
                .withCtrl(CtrlOptions.builder().interval(IntervalPolicy.auto()).build()));
    }

    @Test
    void textFormsRoundTrip() {
        for (String t : new String[] {"manual", "calls:20", "seconds:1.5", "overhead:5.0", "auto"}) {
            assertEquals(t, IntervalPolicy.parse(t).toString());
            assertEquals(IntervalPolicy.parse(t), IntervalPolicy.parse(IntervalPolicy.parse(t).toString()));
        }
        assertEquals(IntervalPolicy.maxOverhead(5), IntervalPolicy.parse(" Overhead:5% "));
        assertEquals(IntervalPolicy.everySeconds(30), IntervalPolicy.parse("seconds:30s"));
        assertTrue(IntervalPolicy.auto().adaptive());
        assertFalse(IntervalPolicy.everyCalls(3).adaptive());
    }

    @Test
    void thePolicyIsAGlobalOptionAndCtrlChangesIt() {
        CkptOptions a = CkptOptions.builder().interval(IntervalPolicy.everyCalls(10)).build();
        CkptOptions b = CkptOptions.builder().interval(IntervalPolicy.everyCalls(11)).build();
        assertNotEquals(a.globalFingerprint(), b.globalFingerprint(), "ranks with different policies are told at open");
        CkptOptions c = a.withCtrl(CtrlOptions.builder().interval(IntervalPolicy.everySeconds(2)).build());
        assertEquals(IntervalPolicy.everySeconds(2), c.interval());
        CkptOptions d = CkptOptions.builder().interval(IntervalPolicy.auto()).nodeMtbf(Duration.ofHours(24))
                .failureNodes(2).diskDirectory(Path.of("/tmp/x")).diskRatioAuto(true).build();
        assertEquals(2, d.failureNodes(8));
        assertEquals(8, a.failureNodes(8), "0 = one node per rank");
        assertEquals(d, d.toBuilder().build());
    }

    @Test
    void hereIfDueTakesACheckpointOnlyWhenDue() {
        InMemoryCheckpointer c = new InMemoryCheckpointer(CkptOptions.builder().interval(IntervalPolicy.everyCalls(3))
                .build(), io.jckpt.spi.RankContext.builder().rank(0).size(1).jobId("j").build());
        int taken = 0;
        c.register("x", new int[1]);
        for (int i = 0; i < 9; i++) {
            taken += c.hereIfDue() ? 1 : 0;
        }
        assertEquals(3, taken);
        assertEquals(3, c.round());
    }
}
