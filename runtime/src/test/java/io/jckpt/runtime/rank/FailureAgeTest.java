package io.jckpt.runtime.rank;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.runtime.control.RecoverFrame;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The failure's age the launcher sends with its order to recover (and to a re-spawned rank in its
 * environment), from which a rank counts its restart; the end-to-end figure is checked in
 * {@code HeatRecoveryTest}, the survivor's path in {@link RankControlTest}.
 */
class FailureAgeTest {
    @Test
    void aRespawnedRankReadsTheFailuresAgeFromItsEnvironment() {
        assertEquals(1500, age(" 1500"));
        assertEquals(0, new RankEnvironment(Map.of()).failureAgeMicros(), "a launcher that sent none: from the JVM's start");
        assertEquals(0, age("-3"));
        assertEquals(0, age("soon"));
    }

    @Test
    void aRecoverFrameKeepsTheFailuresAgeAndRefusesANegativeOne() throws Exception {
        RecoverFrame frame = new RecoverFrame(4, "conf", new int[] {1, 2}, 0);
        RecoverFrame aged = frame.agedAt(1_000_000_000L, 1_250_000_000L);
        assertEquals(250_000, aged.failureAgeMicros());
        RecoverFrame decoded = RecoverFrame.decode(aged.encode());
        assertEquals(4, decoded.epoch());
        assertEquals("conf", decoded.mpjConf());
        assertArrayEquals(new int[] {1, 2}, decoded.failedRanks());
        assertEquals(250_000, decoded.failureAgeMicros());
        assertEquals(0, frame.agedAt(5, 4).failureAgeMicros(), "a clock read before the detection: age 0");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new RecoverFrame(1, "conf", new int[0], -1));
        assertTrue(e.getMessage().contains("failure age"), e.getMessage());
    }

    private static long age(String value) {
        return new RankEnvironment(Map.of(RankEnvironment.FAILURE_AGE_MICROS, value)).failureAgeMicros();
    }
}
