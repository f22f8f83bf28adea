package io.jckpt.samples.demo;

import io.jckpt.cli.CommandLines;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;


import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** bin/demo's command line: defaults, both value forms, a typo and --help (bin/demo --help runs in DemoTest). */
class DemoOptionsTest {
    @Test
    void defaultsAndBothValueForms() {
        Demo.Options d = Demo.Options.parse(new String[0]);
        assertEquals(1, d.replicas);
        assertEquals(1600, d.iterations);
        assertEquals(Path.of("out"), d.out);
        assertNull(d.kill);
        Demo.Options o = Demo.Options.parse(new String[] {"--replicas=2", "--kill", "1@round=3", "--total-loss",
                "--out=/tmp/x"});
        assertEquals(2, o.replicas);
        assertEquals("1@round=3", o.kill);
        assertTrue(o.totalLoss);
        assertEquals(Path.of("/tmp/x"), o.out);
    }

    @Test
    void hostsIsTwoToEightAndExcludesTheOneHostFailures() {
        assertNull(Demo.Options.parse(new String[0]).hosts);
        assertEquals(3, Demo.Options.parse(new String[] {"--hosts", "3"}).hosts);
        assertEquals("--hosts must be 2-8, got 1; see bin/demo --help", assertThrows(IllegalArgumentException.class,
                () -> Demo.Options.parse(new String[] {"--hosts=1"})).getMessage());
        assertEquals("--kill is for the one-host demo: --hosts loses a whole host itself; see bin/demo --help",
                assertThrows(IllegalArgumentException.class,
                        () -> Demo.Options.parse(new String[] {"--hosts", "3", "--kill", "1@round=3"})).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse(new String[] {"--hosts", "3",
                "--total-loss"})).getMessage().startsWith("--total-loss is for the one-host demo"));
        assertEquals("--ny 5 is fewer rows than the 6 ranks of --hosts 3; see bin/demo --help",
                assertThrows(IllegalArgumentException.class,
                        () -> Demo.Options.parse(new String[] {"--hosts", "3", "--ny", "5"})).getMessage());
    }

    @Test
    void aTypoNamesTheClosestOptions() {
        assertEquals("unknown option --replica (did you mean --replicas?); see bin/demo --help",
                assertThrows(IllegalArgumentException.class, () -> Demo.Options.parse(new String[] {"--replica", "2"}))
                        .getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Demo.Options.parse(new String[] {"--ckpt-every", "3"})).getMessage().contains("--ckpt-every even"));
        String usage = assertThrows(CommandLines.HelpRequested.class, () -> Demo.Options.parse(new String[] {"--help"}))
                .usage();
        assertTrue(usage.contains("--total-loss") && usage.contains("--kill=RANKS@WHEN[:wipe]"), usage);
    }
}
