package io.jckpt.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.CommandLines;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** bin/bench's command line: both value forms, the defaults, a mistyped section or option, --help. */
class BenchOptionsTest {
    @Test
    void bothValueFormsAndTheDefaults() {
        BenchOptions o = BenchOptions.parse(new String[] {"--quick", "--only=recovery,interval", "--out", "/tmp/r.md"});
        assertTrue(o.quick);
        assertEquals(Set.of("recovery", "interval"), o.sections());
        assertEquals(Path.of("/tmp/r.md"), o.out);
        BenchOptions none = BenchOptions.parse(new String[0]);
        assertEquals(List.copyOf(BenchSuite.ALL), List.copyOf(none.sections()));
        assertEquals(null, none.out);
    }

    @Test
    void mistakesAreOneLineNamingTheFix() {
        assertEquals("--only: unknown section 'recovry' (did you mean recovery?); the sections are "
                + String.join(",", BenchSuite.ALL), assertThrows(IllegalArgumentException.class,
                () -> BenchOptions.parse(new String[] {"--only", "heat,recovry"})).getMessage());
        assertEquals("unknown option --qiuck (did you mean --quick?); see bin/bench --help",
                assertThrows(IllegalArgumentException.class, () -> BenchOptions.parse(new String[] {"--qiuck"})).getMessage());
        assertTrue(assertThrows(CommandLines.HelpRequested.class, () -> BenchOptions.parse(new String[] {"--help"}))
                .usage().contains("--only=SECTIONS"));
    }
}
