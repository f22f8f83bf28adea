package io.jckpt.samples.mandelbrot;

import io.jckpt.cli.CommandLines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;


import org.junit.jupiter.api.Test;

/** The Mandelbrot tiler's command line: defaults, both value forms, the checks, typos and --help. */
class TilerOptionsTest {
    @Test
    void defaultsAndBothValueForms() {
        TilerOptions d = TilerOptions.parse(new String[0]);
        assertEquals(320, d.width());
        assertEquals(32, d.tile());
        assertTrue(d.preallocate());
        TilerOptions o = TilerOptions.parse(new String[] {"--width=64", "--preallocate=false", "--batch", "3"});
        assertEquals(64, o.width());
        assertEquals(3, o.batch());
        assertFalse(o.preallocate());
    }

    @Test
    void mistakesAreOneLineNamingTheOptionAndTheHelp() {
        assertEquals("unknown option --tiles (did you mean --tile?); see io.jckpt.samples.mandelbrot.MandelbrotTiler"
                        + " --help",
                assertThrows(IllegalArgumentException.class, () -> TilerOptions.parse(new String[] {"--tiles", "8"}))
                        .getMessage());
        assertEquals("--preallocate must be true or false, got 'yes'", assertThrows(IllegalArgumentException.class,
                () -> TilerOptions.parse(new String[] {"--preallocate", "yes"})).getMessage());
        assertEquals("--sleep-ms and --ckpt-every must not be negative", assertThrows(IllegalArgumentException.class,
                () -> TilerOptions.parse(new String[] {"--sleep-ms=-1"})).getMessage());
    }

    @Test
    void helpListsTheOptions() {
        String usage = assertThrows(CommandLines.HelpRequested.class,
                () -> TilerOptions.parse(new String[] {"--help"})).usage();
        assertTrue(usage.contains("--preallocate=true|false") && usage.contains("(default: 240)"), usage);
    }
}
