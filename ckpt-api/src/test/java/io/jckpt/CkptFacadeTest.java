package io.jckpt;

import io.jckpt.spi.CheckpointerProviders;
import io.jckpt.spi.RankContext;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.net.URL;
import java.net.URLClassLoader;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.*;

class CkptFacadeTest {
    private static final RankContext RANK0 = RankContext.builder().rank(0).size(2).jobId("t").build();

    /** Kryo-checkpointed state. */
    static final class Counter {
        int value;
    }

    @AfterEach
    void close() {
        Ckpt.close();
    }

    @Test
    void useBeforeOpen() {
        CkptStateException e = assertThrows(CkptStateException.class, Ckpt::here);
        assertTrue(e.getMessage().contains("not open") && e.getMessage().contains("Ckpt.open"), e.getMessage());
        assertThrows(CkptStateException.class, () -> Ckpt.register("u", new int[1]));
        assertThrows(CkptStateException.class, () -> Ckpt.rollback("u", new int[1]));
        assertThrows(CkptStateException.class, Ckpt::isRecovery);
        assertFalse(Ckpt.isOpen());
        Ckpt.close(); // nothing open: no-op
    }

    @Test
    void noProvider() {
        try (URLClassLoader empty = new URLClassLoader(new URL[0], null)) {
            CkptException e = assertThrows(CkptException.class, () -> CheckpointerProviders.load(empty));
            assertTrue(e.getMessage().contains("no checkpoint implementation found"), e.getMessage());
            assertTrue(e.getMessage().contains("io.jckpt:two-level-policy"), e.getMessage());
        } catch (java.io.IOException e) {
            fail(e);
        }
    }

    @Test
    void providerChosenByProperty() {
        System.setProperty(CheckpointerProviders.PROVIDER_PROPERTY, "no.such.Provider");
        try {
            CkptException e = assertThrows(CkptException.class,
                    () -> CheckpointerProviders.load(getClass().getClassLoader()));
            assertTrue(e.getMessage().contains("no.such.Provider") && e.getMessage().contains("InMemoryProvider"), e.getMessage());
        } finally {
            System.clearProperty(CheckpointerProviders.PROVIDER_PROPERTY);
        }
        assertInstanceOf(InMemoryProvider.class, CheckpointerProviders.load(getClass().getClassLoader()));
    }

    @Test
    void theFacadeAsksTheCheckpointerWhetherACheckpointIsDue() {
        Ckpt.open(CkptOptions.builder().interval(IntervalPolicy.everyCalls(4)).build(), RANK0);
        Ckpt.register("x", new int[1]);
        int taken = 0;
        for (int i = 0; i < 20; i++) {
            taken += Ckpt.hereIfDue() ? 1 : 0;
        }
        assertEquals(5, taken);
        assertEquals(5, Ckpt.round());
        assertFalse(Ckpt.needCheckpoint(), "call 21: the next is due at call 24");
    }

    @Test
    void figureOnePattern() {
        CkptOptions options = CkptOptions.builder().kryoConfigurer(k -> k.register(Counter.class)).build();
        Checkpointer c = Ckpt.open(options, RANK0);
        assertSame(c, Ckpt.instance());
        javax.management.ObjectName bean = CkptMBeans.nameOf(RANK0);
        // registered on a thread of its own (the platform MBean server's set-up stays off open()'s path)
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!java.lang.management.ManagementFactory.getPlatformMBeanServer().isRegistered(bean)
                && System.nanoTime() < deadline) {
            java.util.concurrent.locks.LockSupport.parkNanos(10_000_000L);
        }
        assertTrue(java.lang.management.ManagementFactory.getPlatformMBeanServer().isRegistered(bean),
                "open registers the rank's MXBean");
        assertFalse(Ckpt.isRecovery());
        assertFalse(Ckpt.isNewRank());
        double[] u = {1, 2, 3};
        ByteBuffer buf = ByteBuffer.allocateDirect(16);
        Counter counter = new Counter();
        Ckpt.register("u", u);
        Ckpt.register(7, buf);
        Ckpt.register("counter", counter);
        buf.putLong(0, 99);
        counter.value = 5;
        Ckpt.here();
        assertEquals(1, Ckpt.round());
        assertThrows(NotRecoverableException.class, () -> Ckpt.rollback("u", u), "no recovery: nothing to roll back to");

        Ckpt.remove(7);
        Ckpt.here();
        assertThrows(UnknownTagException.class, () -> Ckpt.remove("7"));
        assertEquals(2, Ckpt.stats().round());
        Ckpt.ctrl(CtrlOptions.builder().replicas(0).build());
        assertEquals(0, Ckpt.instance().options().replicas());
        assertThrows(InvalidOptionException.class, () -> Ckpt.ctrl(CtrlOptions.builder().replicas(2).build()));

        CkptStateException twice = assertThrows(CkptStateException.class, () -> Ckpt.open(options, RANK0));
        assertTrue(twice.getMessage().contains("already open"), twice.getMessage());

        Ckpt.close();
        assertFalse(java.lang.management.ManagementFactory.getPlatformMBeanServer().isRegistered(bean),
                "close unregisters it");
        CkptStateException after = assertThrows(CkptStateException.class, Ckpt::here);
        assertTrue(after.getMessage().contains("closed"), after.getMessage());
        assertThrows(CkptStateException.class, () -> c.here(), "the instance refuses too");
    }

    /**
     * The contract of a recovery, on the test implementation too: registering restores in place,
     * rollback is the explicit form, and the first here() names a tag left neither restored nor removed.
     */
    @Test
    void aRecoveryRestoresWhatIsRegisteredAndNamesWhatIsNot() {
        CkptOptions options = CkptOptions.builder().replicas(0).kryoConfigurer(k -> k.register(Counter.class)).build();
        RankContext fresh = RankContext.builder().rank(0).size(1).jobId("recovery-contract").build();
        Ckpt.open(options, fresh);
        double[] u = {1, 2, 3};
        long[] step = {7};
        Counter counter = new Counter();
        counter.value = 5;
        Ckpt.register("u", u);
        Ckpt.register("step", step);
        Ckpt.register("counter", counter);
        Ckpt.here();
        Ckpt.close();

        RankContext recovery = RankContext.builder().rank(0).size(1).jobId("recovery-contract").epoch(1)
                .recovery(true).build();
        Ckpt.open(options, recovery);
        double[] u2 = new double[3];
        long[] step2 = new long[1];
        Ckpt.register("u", u2); // restored in place, as rollback would
        assertArrayEquals(new double[] {1, 2, 3}, u2);
        assertThrows(DataMismatchException.class, () -> Ckpt.register("step", new long[2]), "the same checks as rollback");
        Ckpt.register("step", step2);
        assertEquals(7, step2[0]);
        assertThrows(DuplicateTagException.class, () -> Ckpt.register("u", u2));
        Ckpt.register("fresh", new int[1]); // not in the checkpoint: registered as is
        UnrestoredTagsException missed = assertThrows(UnrestoredTagsException.class, Ckpt::here);
        assertTrue(missed.getMessage().contains("rank 0: 'counter'"), missed.getMessage());
        assertEquals(java.util.Map.of(0, java.util.List.of("counter")), missed.missing());
        CkptStateException late = assertThrows(CkptStateException.class, () -> Ckpt.rollback("counter", counter));
        assertTrue(late.getMessage().contains("after the first here()"), late.getMessage());
        Ckpt.close();

        Ckpt.open(options, recovery);
        Counter counter2 = Ckpt.rollback("counter", new Counter()); // the explicit form
        assertEquals(5, counter2.value);
        Ckpt.remove("u"); // dropped: accounted for
        Ckpt.register("step", step2);
        Ckpt.here();
    }

    @Test
    void replicasBeyondTheWorldAtOpen() {
        InvalidOptionException e = assertThrows(InvalidOptionException.class,
                () -> Ckpt.open(CkptOptions.builder().replicas(2).build(), RANK0));
        assertTrue(e.getMessage().contains("replicas=2"), e.getMessage());
        assertFalse(Ckpt.isOpen());
    }

    @Test
    void openFromEnvironmentNamesTheMissingVariable() {
        Map<String, String> env = new HashMap<>(System.getenv());
        if (env.containsKey(RankContext.ENV_RANK)) {
            return; // running under the launcher
        }
        CkptException e = assertThrows(CkptException.class, () -> Ckpt.open(CkptOptions.defaults()));
        assertTrue(e.getMessage().contains("JCKPT_RANK"), e.getMessage());
    }

    @Test
    void recoveryFlagsComeFromTheContext() {
        RankContext ctx = RankContext.builder().rank(1).size(2).jobId("t").epoch(1).newRank(true).recovery(true).build();
        Ckpt.open(CkptOptions.defaults(), ctx);
        assertTrue(Ckpt.isRecovery());
        assertTrue(Ckpt.isNewRank());
        NotRecoverableException e = assertThrows(NotRecoverableException.class, () -> Ckpt.rollback("u", new int[1]));
        assertTrue(e.getMessage().contains("rank 1"), e.getMessage());
    }
}
