package io.jckpt.perf;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Section 11 read back from a run's kept job output (the lines as the launcher and rank 0 print them). */
class IntervalLogsTest {
    private static final double S = 1e9;

    @Test
    void aKeptRunReadsBackIntoTheRunsTheBenchWouldHaveMeasured(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve("reference-0.log"), String.join("\n",
                "bin/ckpt-run --no-report -np 4 -cp x io.jckpt.samples.heat.HeatSolver --nx 1024 --ny 1024"
                        + " --iterations 9000 --report 200",
                "[    0.357] [ckpt-run    0.117s] job 6057b6550fbd: 4 ranks of io.jckpt.samples.heat.HeatSolver on niodev",
                "[    2.710] [rank 0] iteration 200 residual 4.041919e+01",
                "[   11.000] [rank 0] iteration 9000 residual 1.277857e+01",
                "[   11.020] [rank 0] checksum 00000000e0f53d0f (1024 x 1024, 9000 iterations, 4 ranks, 9.000 s)",
                "[   11.100] [ckpt-run   10.900s] all 4 ranks completed",
                "[   11.200] [ckpt-run   11.000s] job 6057b6550fbd finished: all 4 ranks completed", ""));
        Files.writeString(dir.resolve("mtbf4-auto-seed1.log"), String.join("\n",
                "bin/ckpt-run --no-report -np 4 --on-failure respawn --mtbf 4 --seed 1 -cp x"
                        + " io.jckpt.samples.heat.HeatSolver --nx 1024 --ny 1024 --iterations 9000 --interval auto",
                "[    0.561] [ckpt-run    0.320s] injecting failure 2@0.31s (random, mtbf 4.0s): SIGKILL to rank 2",
                "[    0.585] [ckpt-run    0.346s] FAILURE: rank 2 (pid 11361) killed by the injected failure 2@0.31s",
                "[    1.370] [ckpt-run    1.130s] recovered: all 4 ranks in a new MPJ world (epoch 1) 765 ms after the"
                        + " failure was detected (respawn started after 66 ms)",
                "[    3.000] [rank 0] iteration 200 residual 4.041919e+01",
                "[    5.000] [ckpt-run    4.800s] injecting failure 1@4.80s (random, mtbf 4.0s): SIGKILL to rank 1"
                        + " (newest checkpoint round 8)",
                "[    5.400] [ckpt-run    5.200s] recovered: all 4 ranks in a new MPJ world (epoch 2) 350 ms after the"
                        + " failure was detected (respawn started after 33 ms)",
                "[    5.900] [rank 0] rolled back to sweep 1800 (round 8)",
                "[    7.000] [rank 0] iteration 2000 residual 3.1e+01",
                "[   15.000] [rank 0] checksum 00000000e0f53d0f (1024 x 1024, 9000 iterations, 4 ranks, 9.100 s)",
                "[   15.010] [ckpt-run   14.900s] rank 0: interval policy auto: computation 0.00357 s per call,"
                        + " checkpoint --cost 0.00845 --blocking 0.00222, program CPU share 0.32, after a restart"
                        + " --slowdown 0.9 --slow-window 2.4 (2 recoveries measured), --restart 0.881 --image 2113688,"
                        + " interval 52 calls",
                "[   15.100] [ckpt-run   15.000s] job 17eadedcc2e8 finished: all 4 ranks completed after 2 recoveries",
                ""));
        // a job that did not end within the bound: no checksum, no 'finished'
        Files.writeString(dir.resolve("mtbf4-calls-32-seed1.log"), String.join("\n",
                "bin/ckpt-run --no-report -np 4 --mtbf 4 --seed 1 --interval calls:32",
                "[    3.000] [rank 0] iteration 200 residual 4.041919e+01", ""));
        Files.writeString(dir.resolve("unrelated.txt"), "not a job");

        IntervalBench.Result r = IntervalLogs.read(dir);
        assertEquals(1024, r.config.nx());
        assertEquals(9000, r.config.iterations());
        assertArrayEquals(new double[] {4}, r.config.mtbfs());
        assertArrayEquals(new int[] {32}, r.config.fixedCalls());
        assertArrayEquals(new long[] {1}, r.config.seeds());
        assertEquals(9.0, r.work(), 1e-9);
        assertEquals("00000000e0f53d0f", r.reference);
        // the reference's computation started at 2.71 s less 200 sweeps of 1 ms; its phase ends at the exit
        assertEquals(11.2 * S - 2.51 * S, r.basePhase.median(), 1e3);

        List<IntervalBench.Point> points = r.byRate.get(4.0);
        assertEquals(2, points.size());
        IntervalBench.Run auto = points.get(0).runs.get(0);
        assertEquals(0, points.get(0).calls);
        assertTrue(auto.ok());
        assertEquals(15.1 * S, auto.wall(), 1e3);
        assertEquals(3.0 * S, auto.firstReport(), 1e3);
        assertEquals(200, auto.firstSweep());
        assertEquals(List.of(0.561 * S, 5.0 * S), auto.failures());
        assertEquals(1, auto.failuresBefore(r.perSweep()), "the first failure hit the start-up");
        // the first failure's recovery has no rollback (before the first checkpoint); the second's does
        assertEquals(1, auto.restarts().size());
        assertEquals(0.9 * S, auto.restarts().get(0), 1e3);
        assertEquals(List.of(0.765 * S, 0.35 * S), auto.holds());
        assertEquals(0.00845, auto.cost(), 1e-12);
        assertEquals(new IntervalBench.JobFigures(0.881, 0.9, 2.4, 0.32), auto.figures());
        assertEquals(52, auto.decided());
        assertEquals(9.1 * S, auto.loop(), 1e3);
        assertEquals(0.5575, r.held(), 1e-9);
        // its overhead over the computation phase, against the reference that ran before its seed
        assertEquals((15.1 - 2.8 - 8.69) / 9.0, r.measured(points.get(0)).mean(), 1e-6);

        IntervalBench.Run stuck = points.get(1).runs.get(0);
        assertEquals(32, points.get(1).calls);
        assertEquals(-1, stuck.status());
        assertNull(stuck.checksum());
        assertTrue(!stuck.ok());
    }

    @Test
    void theMeasuredMeansStandardErrorIsTheSpreadOverTheRootOfTheRuns() {
        Samples s = new Samples();
        s.add(1.0);
        assertTrue(Double.isNaN(s.standardError()), "one run: no spread");
        s.add(2.0);
        s.add(4.0);
        s.add(5.0);
        // mean 3, squares 4 + 1 + 1 + 4 = 10, variance 10 / 3, over 4 runs
        assertEquals(Math.sqrt(10.0 / 3 / 4), s.standardError(), 1e-12);
    }

    @Test
    void aDirectoryWithoutKeptJobsIsAClearError(@TempDir Path dir) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> IntervalLogs.read(dir));
        assertTrue(e.getMessage().contains(IntervalLogs.PROPERTY) && e.getMessage().contains("reference-I.log"),
                e.getMessage());
        IllegalArgumentException missing = assertThrows(IllegalArgumentException.class,
                () -> IntervalLogs.read(dir.resolve("nowhere")));
        assertTrue(missing.getMessage().contains("not a directory"), missing.getMessage());
    }
}
