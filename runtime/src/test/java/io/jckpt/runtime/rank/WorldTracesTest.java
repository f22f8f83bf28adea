package io.jckpt.runtime.rank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * A respawning rank's stderr: MPJ Express's own stack traces are held until their world's fate is
 * known, dropped when it was abandoned (the echo of a failure), printed as they were when it was not;
 * the program's lines and its own traces pass at once. Real PrintStream, a test clock.
 */
class WorldTracesTest {
    private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    private final AtomicLong now = new AtomicLong();
    private final AtomicInteger current = new AtomicInteger(); // the current world's epoch
    private final AtomicInteger mine = new AtomicInteger(); // the printing thread's world
    private final PrintStream saved = System.err;
    private final WorldTraces traces = new WorldTraces(new PrintStream(bytes, true, StandardCharsets.UTF_8), 2,
            epoch -> epoch < current.get(), mine::get, now::get, 5_000);

    @AfterEach
    void restore() {
        System.setErr(saved);
    }

    private String out() {
        return bytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void mpjsTraceOfAnAbandonedWorldIsDroppedAndTheProgramsLinesPass() {
        System.setErr(traces);
        System.err.println("program line before");
        xdev.TracePrinter.print(new java.io.IOException("Broken pipe"));
        System.err.println("program line after");
        assertEquals(1, traces.heldCount());
        assertEquals("program line before\nprogram line after\n", out().replace(System.lineSeparator(), "\n"));
        current.set(1); // the launcher's RECOVER: world 0 is abandoned
        traces.release(false);
        assertEquals(0, traces.heldCount());
        assertTrue(!out().contains("Broken pipe") && !out().contains("\tat "), out());
    }

    @Test
    void mpjsTraceOfAWorldThatLivesOnIsPrintedOnceItsHoldIsOver() {
        System.setErr(traces);
        xdev.TracePrinter.print(new java.io.IOException("Connection refused", new IllegalStateException("inner")));
        now.addAndGet(4_999_000_000L);
        assertTrue(traces.release(false) > 0);
        assertEquals("", out());
        now.addAndGet(1_000_000L);
        assertEquals(-1, traces.release(false));
        String printed = out();
        assertTrue(printed.startsWith("java.io.IOException: Connection refused"), printed);
        assertEquals(1, printed.lines().filter(l -> l.startsWith("\tat " + WorldTracesTest.class.getName() + ".mpjsTraceOfAWorldThatLivesOn")).count(), printed);
        assertEquals(1, printed.lines().filter(l -> l.startsWith("Caused by: java.lang.IllegalStateException: inner"))
                .count(), printed);
    }

    @Test
    void theProgramsOwnTracePassesAtOnce() {
        System.setErr(traces);
        new IllegalArgumentException("the program's own").printStackTrace();
        assertEquals(0, traces.heldCount());
        assertTrue(out().startsWith("java.lang.IllegalArgumentException: the program's own"), out());
        assertTrue(out().contains("\tat io.jckpt.runtime.rank.WorldTracesTest."), out());
    }
}
