package io.jckpt.runtime.rank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The program thread's wait from its CPU time and stack, sample by sample. */
class CommunicationWaitTest {
    private static final long S = 1_000_000_000L;

    private static StackTraceElement frame(String cls, String method, int line) {
        return new StackTraceElement(cls, method, cls.substring(cls.lastIndexOf('.') + 1) + ".java", line);
    }

    private static final StackTraceElement[] IN_RECV = {
        frame("java.lang.Object", "wait", -1), frame("xdev.niodev.NIODevice", "recv", 900),
        frame("mpjdev.javampjdev.Comm", "recv", 200), frame("mpi.Comm", "Recv", 300),
        frame("org.example.Solver", "step", 42), frame("org.example.Solver", "main", 10),
        frame("jdk.internal.reflect.DirectMethodHandleAccessor", "invoke", 100),
        frame("io.jckpt.runtime.rank.ProgramRunner", "run", 50)};

    private static final StackTraceElement[] IN_CLOSE = {
        frame("jdk.internal.misc.Unsafe", "park", -1), frame("io.jckpt.runtime.rank.RankControl", "allgather", 210),
        frame("io.jckpt.runtime.rank.RuntimeJobServices", "allgather", 140), frame("io.jckpt.policy.Closing", "close", 9),
        frame("io.jckpt.Ckpt", "close", 300), frame("io.jckpt.chaos.corpus.Graph", "main", 77)};

    private static final StackTraceElement[] SLEEPING = {
        frame("java.lang.Thread", "sleep", -1), frame("org.example.Solver", "main", 12)};

    @Test
    void aCallIsNamedWithTheProgramsFrameThatMadeIt() {
        assertEquals("mpi.Comm.Recv from Solver.step:42", CommunicationWait.call(IN_RECV));
        // the library's frames are skipped, a program in a package under io.jckpt is not
        assertEquals("the status exchange of Ckpt.close from Graph.main:77", CommunicationWait.call(IN_CLOSE));
        assertNull(CommunicationWait.call(SLEEPING));
    }

    @Test
    void aWaitCountsFromTheLastSampleAtWhichTheThreadStillRan() {
        CommunicationWait w = new CommunicationWait();
        AtomicInteger walks = new AtomicInteger();
        assertNull(w.observe(7, 10 * S, 500, () -> count(walks, IN_RECV))); // first sample: nothing to compare
        assertNull(w.observe(7, 11 * S, 800, () -> count(walks, IN_RECV))); // it ran
        CommunicationWait.Wait first = w.observe(7, 12 * S, 800, () -> count(walks, IN_RECV));
        assertEquals(11 * S, first.sinceNanos());
        assertEquals(1000, first.millis(12 * S));
        CommunicationWait.Wait later = w.observe(7, 15 * S, 800, () -> count(walks, IN_RECV));
        assertEquals(11 * S, later.sinceNanos(), "the same wait");
        assertEquals(1, walks.get(), "the stack is walked once a wait");
        assertNull(w.observe(7, 16 * S, 801, () -> count(walks, IN_RECV)), "it ran: no longer that wait");
        assertEquals(16 * S, w.observe(7, 17 * S, 801, () -> count(walks, IN_RECV)).sinceNanos());
    }

    @Test
    void aThreadStillOutsideCommunicationOrANewThreadIsNotWaiting() {
        CommunicationWait w = new CommunicationWait();
        w.observe(7, S, 500, () -> SLEEPING);
        assertNull(w.observe(7, 2 * S, 500, () -> SLEEPING), "asleep: no CPU, but not in a call");
        assertNull(w.observe(8, 3 * S, 500, () -> IN_RECV), "another world's program thread");
        assertEquals(3 * S, w.observe(8, 4 * S, 500, () -> IN_RECV).sinceNanos());
        assertNull(w.observe(8, 5 * S, -1, () -> IN_RECV), "ended");
    }

    private static StackTraceElement[] count(AtomicInteger walks, StackTraceElement[] stack) {
        walks.incrementAndGet();
        return stack;
    }
}
