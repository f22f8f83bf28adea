package io.jckpt.samples.cg;

import io.jckpt.cli.CommandLines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;


import org.junit.jupiter.api.Test;

/** The CG solver's command line: defaults, both value forms, the checks, typos and --help. */
class CgOptionsTest {
    @Test
    void defaultsAndBothValueForms() {
        CgOptions d = CgOptions.parse(new String[0]);
        assertEquals(128, d.nx());
        assertEquals(500, d.iterations());
        assertEquals(0.0, d.tolerance());
        CgOptions o = CgOptions.parse(new String[] {"--tolerance=1e-6", "--ckpt-every", "5", "--replicas=2"});
        assertEquals(1e-6, o.tolerance());
        assertEquals(5, o.checkpointEvery());
        assertEquals(2, o.replicas());
        assertTrue(o.checkpointing());
    }

    @Test
    void mistakesAreOneLineNamingTheOptionAndTheHelp() {
        assertEquals("unknown option --tolerence=0.1 (did you mean --tolerance?); see io.jckpt.samples.cg.CgSolver --help",
                assertThrows(IllegalArgumentException.class, () -> CgOptions.parse(new String[] {"--tolerence=0.1"}))
                        .getMessage());
        assertEquals("--tolerance must be in [0, 1), got 1.0",
                assertThrows(IllegalArgumentException.class, () -> CgOptions.parse(new String[] {"--tolerance", "1"}))
                        .getMessage());
        assertEquals("--nx and --ny must be positive, got 0 x 128",
                assertThrows(IllegalArgumentException.class, () -> CgOptions.parse(new String[] {"--nx", "0"}))
                        .getMessage());
    }

    @Test
    void helpListsTheOptions() {
        String usage = assertThrows(CommandLines.HelpRequested.class, () -> CgOptions.parse(new String[] {"-h"})).usage();
        assertTrue(usage.contains("--tolerance") && usage.contains("(default: 500)"), usage);
    }
}
