package io.jckpt.spi;

import io.jckpt.CkptException;
import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class RankContextTest {

    private static Map<String, String> env() {
        Map<String, String> env = new HashMap<>();
        env.put("JCKPT_RANK", "2");
        env.put("JCKPT_SIZE", "4");
        env.put("JCKPT_JOB_ID", "job-42");
        env.put("JCKPT_EPOCH", "3");
        env.put("JCKPT_NEW_RANK", "true");
        env.put("JCKPT_RECOVERY", "TRUE");
        return env;
    }

    private static void assertFails(Map<String, String> env, String... fragments) {
        CkptException e = assertThrows(CkptException.class, () -> RankContext.fromEnvironment(env));
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "'" + f + "' not in: " + e.getMessage());
        }
    }

    @Test
    void readsTheLauncherVariables() {
        RankContext c = RankContext.fromEnvironment(env());
        assertEquals(2, c.rank());
        assertEquals(4, c.size());
        assertEquals("job-42", c.jobId());
        assertEquals(3, c.epoch());
        assertTrue(c.isNewRank());
        assertTrue(c.isRecovery());
        assertEquals(3, c.next());
        assertEquals(1, c.previous());
        assertEquals(c, RankContext.builder().rank(2).size(4).jobId("job-42").epoch(3).newRank(true).recovery(true).build());
    }

    @Test
    void optionalVariablesDefault() {
        Map<String, String> env = env();
        env.remove("JCKPT_EPOCH");
        env.remove("JCKPT_NEW_RANK");
        env.remove("JCKPT_RECOVERY");
        RankContext c = RankContext.fromEnvironment(env);
        assertEquals(0, c.epoch());
        assertFalse(c.isNewRank());
        assertFalse(c.isRecovery());
        assertEquals(RingOrder.identity(4), c.ring());
        assertEquals(0, RankContext.builder().rank(0).size(1).jobId("j").build().next());
    }

    @Test
    void theRingOrderComesFromTheLauncher() {
        Map<String, String> env = env();
        env.put("JCKPT_RING_ORDER", "0,2,1,3");
        RankContext c = RankContext.fromEnvironment(env);
        assertEquals(RingOrder.of(0, 2, 1, 3), c.ring());
        assertEquals(1, c.next()); // on 0,2,1,3 rank 2 sends its copies to rank 1, not 3
        assertEquals(0, c.previous());
        assertEquals(c, RankContext.builder().rank(2).size(4).jobId("job-42").epoch(3).newRank(true).recovery(true)
                .ring(RingOrder.parse("0,2,1,3")).build());
        assertNotEquals(c, RankContext.fromEnvironment(env()));
        assertEquals(RingOrder.identity(4), new RankContext(2, 4, "j", 0, false, false).ring());
    }

    @Test
    void aBadRingOrderIsNamed() {
        Map<String, String> env = env();
        env.put("JCKPT_RING_ORDER", "0,2,2,3");
        assertFails(env, "JCKPT_RING_ORDER='0,2,2,3'", "rank 2 appears");
        env.put("JCKPT_RING_ORDER", "0,2,1");
        assertFails(env, "JCKPT_RING_ORDER", "3 ranks", "JCKPT_SIZE", "=4");
        CkptException e = assertThrows(CkptException.class,
                () -> RankContext.builder().rank(0).size(2).jobId("j").ring(RingOrder.identity(3)).build());
        assertTrue(e.getMessage().contains("orders 3 ranks"), e.getMessage());
    }

    @Test
    void missingOrMalformedVariablesAreNamed() {
        Map<String, String> env = env();
        env.remove("JCKPT_RANK");
        assertFails(env, "JCKPT_RANK", "not set", "launcher");
        env = env();
        env.remove("JCKPT_JOB_ID");
        assertFails(env, "JCKPT_JOB_ID", "not set");
        env = env();
        env.put("JCKPT_SIZE", "four");
        assertFails(env, "JCKPT_SIZE='four'", "not an integer");
        env = env();
        env.put("JCKPT_NEW_RANK", "yes");
        assertFails(env, "JCKPT_NEW_RANK='yes'", "true or false");
        env = env();
        env.put("JCKPT_RANK", "4");
        assertFails(env, "JCKPT_RANK", "=4", "0..3");
        env = env();
        env.put("JCKPT_RECOVERY", "false");
        assertFails(env, "JCKPT_NEW_RANK", "JCKPT_RECOVERY");
        env = env();
        env.put("JCKPT_JOB_ID", "a/b");
        assertFails(env, "JCKPT_JOB_ID", "a/b");
        env = env();
        env.put("JCKPT_EPOCH", "-1");
        assertFails(env, "JCKPT_EPOCH", "-1");
    }
}
