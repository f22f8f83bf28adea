package io.jckpt.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jckpt.policy.interval.SlowProfile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The pace after a restart read from kept job logs, in real files, against the seed's reference. */
class RestartPaceTest {
    /** The reference's pace: 1000 sweeps per second, a residual line every 100 sweeps. */
    private static void reference(Path file) throws Exception {
        List<String> lines = new ArrayList<>(List.of("bin/ckpt-run -np 4 HeatSolver --nx 64 --iterations 20000"));
        for (int sweep = 100; sweep <= 20000; sweep += 100) {
            lines.add(String.format(Locale.ROOT, "[%9.3f] [rank 0] iteration %d residual 1.0", 1 + sweep / 1000.0, sweep));
        }
        Files.write(file, lines);
    }

    /**
     * A job with {@code recoveries} restarts, each 'rolled back' at sweep 0 of its own and then computing at a
     * quarter of the reference's pace for 1 s, half for 1 s, then the reference's pace, until the next failure
     * {@code lives} seconds after the rollback.
     */
    private static void job(Path file, int recoveries, double lives) throws Exception {
        List<String> lines = new ArrayList<>(List.of("bin/ckpt-run -np 4 --mtbf 2.5 HeatSolver --interval auto"));
        double t = 10;
        int sweep = 5000;
        for (int r = 0; r < recoveries; r++) {
            lines.add(String.format(Locale.ROOT, "[%9.3f] [rank 0] rolled back to sweep %d (round 3)", t, sweep));
            double start = t;
            for (double dt = 0.05; dt <= lives + 1e-9; dt += 0.05) {
                double done = Math.min(dt, 1) * 250 + Math.max(0, Math.min(dt, 2) - 1) * 500 + Math.max(0, dt - 2) * 1000;
                lines.add(String.format(Locale.ROOT, "[%9.3f] [rank 0] iteration %d residual 1.0", start + dt,
                        sweep + Math.round(done)));
            }
            t = start + lives;
            lines.add(String.format(Locale.ROOT, "[%9.3f] [ckpt-run %8.3fs] injecting failure 1@%.2fs (random, mtbf"
                    + " 2.5s): SIGKILL to rank 1", t, t, t));
            t += 1;
        }
        Files.write(file, lines);
    }

    @Test
    void theSweepsAfterEachRollbackOverTheReferencesPaceBinByBin(@TempDir Path dir) throws Exception {
        reference(dir.resolve("reference-0.log"));
        reference(dir.resolve("reference-1.log"));
        assertEquals(1000, RestartPace.sweepsPerSecond(dir.resolve("reference-0.log")), 1e-6);
        // seed 1: 6 recoveries that live 3 s; seed 2: 6 that live 1.2 s (their later bins are not lived through)
        job(dir.resolve("mtbf2.5-auto-seed1.log"), 6, 3);
        job(dir.resolve("mtbf5-auto-seed1.log"), 0, 3);
        job(dir.resolve("mtbf2.5-auto-seed2.log"), 6, 1.2);
        Files.writeString(dir.resolve("mtbf2.5-calls-64-seed1.log"), "a fixed interval's job is not read\n");
        SlowProfile pace = RestartPace.measure(dir);
        // bins 0-1 (12 recoveries): a quarter of the pace; 2-3 (6 recoveries, fewer than 10): not reported
        assertArrayEquals(new double[] {0.5, 0.5}, pace.seconds(), 1e-12);
        assertEquals(0.25, pace.speeds()[0], 0.01);
        assertEquals(0.25, pace.speeds()[1], 0.01);
    }

    @Test
    void aProfileEndsAtTheFirstBinWithTooFewRecoveriesAndIsNoneWithout(@TempDir Path dir) throws Exception {
        reference(dir.resolve("reference-0.log"));
        job(dir.resolve("mtbf2.5-auto-seed7.log"), 12, 6);
        SlowProfile pace = RestartPace.measure(dir);
        assertEquals(12, pace.speeds().length, "the last bin ends at the failure 6 s in: " + pace);
        assertArrayEquals(new double[] {0.25, 0.25, 0.5, 0.5, 1, 1, 1, 1, 1, 1, 1, 1}, pace.speeds(), 0.01);
        Path empty = dir.resolve("none");
        Files.createDirectories(empty);
        reference(empty.resolve("reference-0.log"));
        job(empty.resolve("mtbf2.5-auto-seed1.log"), 3, 6);
        assertEquals(SlowProfile.NONE, RestartPace.measure(empty));
    }
}
