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
        for (String bad : new String[] {"-3", "soon", "1.5"}) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> age(bad), bad);
            assertTrue(e.getMessage().contains(RankEnvironment.FAILURE_AGE_MICROS + "=" + bad)
                    && e.getMessage().contains("not a whole number >= 0"), e.getMessage());
        }
        // the launcher's other optional figures read the same way
        RankEnvironment env = new RankEnvironment(Map.of(RankEnvironment.HEARTBEAT_MILLIS, "500",
                RankEnvironment.LAUNCHER_TIMEOUT_MILLIS, ""));
        assertEquals(500, env.heartbeatMillis());
        assertEquals(0, env.launcherTimeoutMillis(), "empty: none");
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> new RankEnvironment(
                Map.of(RankEnvironment.HEARTBEAT_MILLIS, "fast")).heartbeatMillis());
        assertTrue(e.getMessage().contains(RankEnvironment.HEARTBEAT_MILLIS + "=fast"), e.getMessage());
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
