package io.jckpt.samples.heat;

import io.jckpt.cli.CommandLines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.IntervalPolicy;

import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The heat solver's command line: defaults, both value forms, the checks, typos and --help. */
class SolverOptionsTest {
    @Test
    void defaultsAndBothValueForms() {
        SolverOptions d = SolverOptions.parse(new String[0]);
        assertEquals(256, d.nx());
        assertEquals(1000, d.iterations());
        // the checkpoint settings not given are the job's: nothing the builder would set
        assertNull(d.replicas());
        assertNull(d.diskRatio());
        assertNull(d.diskDirectory());
        assertNull(d.interval());
        assertNull(d.nodeMtbf());
        assertEquals(false, d.decided());

        SolverOptions o = SolverOptions.parse(new String[] {"--nx=64", "--ny", "32", "--ckpt-every=10",
                "--disk-dir=/tmp/d", "--ctrl-replicas", "5:2", "--node-mtbf=1.5", "--nx", "96"});
        assertEquals(96, o.nx(), "the last of a repeated option wins");
        assertEquals(32, o.ny());
        assertEquals(10, o.checkpointEvery());
        assertEquals(Path.of("/tmp/d"), o.diskDirectory());
        assertEquals(5, o.ctrlRound());
        assertEquals(2, o.ctrlReplicas());
        assertEquals(Duration.ofMillis(1500), o.nodeMtbf());
        assertTrue(SolverOptions.parse(new String[] {"--interval=auto"}).decided());
    }

    @Test
    void mistakesAreOneLineNamingTheOptionAndTheHelp() {
        String typo = assertThrows(IllegalArgumentException.class,
                () -> SolverOptions.parse(new String[] {"--iteratons", "4"})).getMessage();
        assertEquals("unknown option --iteratons (did you mean --iterations?); see io.jckpt.samples.heat.HeatSolver"
                + " --help", typo);
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SolverOptions.parse(new String[] {"--nx"}))
                .getMessage().startsWith("--nx needs a value; see "));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SolverOptions.parse(new String[] {"--nx=big"}))
                .getMessage().contains("'big' is not an int"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SolverOptions.parse(new String[] {"64"}))
                .getMessage().startsWith("unexpected argument 64"));
        assertEquals("--ckpt-every must be even (the solver checkpoints after pairs of sweeps)",
                assertThrows(IllegalArgumentException.class, () -> SolverOptions.parse(new String[] {"--ckpt-every", "3"}))
                        .getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> SolverOptions.parse(new String[] {"--ckpt-every", "-2"})).getMessage().contains("not negative"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> SolverOptions.parse(new String[] {"--ctrl-replicas", "5"})).getMessage().contains("ROUND:M"));
    }

    @Test
    void helpListsEveryOptionWithItsDefault() {
        String usage = assertThrows(CommandLines.HelpRequested.class,
                () -> SolverOptions.parse(new String[] {"--nx", "8", "--help"})).usage();
        for (String option : new String[] {"--nx", "--ny", "--iterations", "--report", "--ckpt-every", "--replicas",
                "--disk-ratio", "--disk-dir", "--sleep-ms", "--ctrl-replicas", "--interval", "--node-mtbf", "--help"}) {
            assertTrue(usage.contains(option), option + " in\n" + usage);
        }
        assertTrue(usage.contains("Jacobi sweeps (default: 1000)"), usage);
        assertTrue(usage.contains("    io.jckpt.samples.heat.HeatSolver [OPTIONS]\n"), usage);
    }
}
