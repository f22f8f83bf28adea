package io.jckpt.advisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.cli.CommandLines;
import io.jckpt.policy.interval.FailureModel;
import io.jckpt.policy.interval.SlowProfile;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The advisor's inputs (flags, a job's stats file), its recommendations and its table. */
class AdvisorTest {
    @TempDir
    Path dir;

    @Test
    void readsAJobsMeasuredFiguresAndFlagsOverrideThem() throws Exception {
        Path stats = dir.resolve("interval-history.properties");
        Files.writeString(stats, String.join("\n", "costSeconds=0.02", "blockingSeconds=0.005", "diskCostSeconds=0.3",
                "recoverySeconds=0.9", "imageBytes=4194304", "replicas=1", "ranks=4", "failureNodes=4",
                "jobMtbfSeconds=900", "failures=3", "exposedSeconds=2400"));
        Advisor.Inputs in = Advisor.parse(new String[] {"--stats", stats.toString(), "--restart", "2"});
        assertEquals(0.02, in.cost);
        assertEquals(0.005, in.blocking);
        assertEquals(0.3, in.diskCost);
        assertEquals(2, in.restart, "the flag wins");
        assertEquals(3600, in.nodeMtbf, 1e-9, "node MTBF = the job's learned MTBF x its nodes");
        assertEquals(4194304, in.imageBytes);
    }

    @Test
    void readsTheFiguresRankZeroReportsInTheLaunchersLog() throws Exception {
        Path log = dir.resolve("job.log");
        Files.writeString(log, String.join("\n", "[ckpt-run    0.2s] job 1: 4 ranks",
                "[ckpt-run   15.9s] rank 0: interval policy auto: computation 0.0135 s per call, checkpoint --cost 0.00394"
                        + " --blocking 0.00328, --restart 1.82 --image 26624 --measured-m 1 --ranks-per-node 1, --node-mtbf 17.63s"
                        + " (job MTBF 4.407 s: 1 failure(s) in 6.815 s seen), interval 14 calls"));
        Advisor.Inputs in = Advisor.parse(new String[] {"--log", log.toString(), "--ranks-per-node", "2"});
        assertEquals(0.00394, in.cost);
        assertEquals(0.00328, in.blocking);
        assertEquals(1.82, in.restart);
        assertEquals(26624, in.imageBytes);
        assertEquals(17.63, in.nodeMtbf, 1e-9);
        assertEquals(2, in.ranksPerNode, "a flag given after --log wins");
        assertEquals(0, in.slowdown, "no slowdown measured: none");
    }

    @Test
    void theSlowdownAfterRestartsRankZeroMeasuredCountsInThePrediction() throws Exception {
        Path log = dir.resolve("slow.log");
        String line = "[ckpt-run   20.8s] rank 0: interval policy auto: computation 0.00314 s per call, checkpoint --cost"
                + " 0.00535 --blocking 0.00309, program CPU share 0.41, after a restart --slowdown 0.9 --slow-window 2.4"
                + " (2 recoveries measured), --restart 0.7 --image 2113688 --measured-m 1 --ranks-per-node 1,"
                + " --node-mtbf 18.19s (job MTBF 4.546 s: 4 failure(s) in 17.73 s seen), interval 69 calls";
        Files.writeString(log, line + "\n");
        Advisor.Inputs in = Advisor.parse(new String[] {"--log", log.toString(), "--ranks", "4", "--max-m", "1"});
        assertEquals(0.9, in.slowdown);
        assertEquals(2.4, in.slowWindow);
        assertEquals(0.7, in.restart);
        Advisor.Row slow = Advisor.rows(in).get(2); // m = 1, no disk level: every failure survivable but a few
        assertEquals(1, slow.m());
        assertEquals(0, slow.diskRatio());
        Advisor.Inputs none = Advisor.parse(new String[] {"--log", log.toString(), "--ranks", "4", "--max-m", "1",
                "--slowdown", "0"});
        Advisor.Row fast = Advisor.rows(none).get(2);
        double rate = 4 / 18.19;
        double tau = FailureModel.dalyInterval(0.00535, 1 / rate);
        double u = FailureModel.unsurvivableRate(18.19, 4, 1, 1, 0.7 + tau + 0.00535, FailureModel.Placement.RANK_ORDER);
        assertEquals(FailureModel.wallPerWork(new FailureModel.Scheme(tau, 0.00535, 0, in.diskCost, 0.7, 0.7 + in.diskCost,
                rate - u, u, 0.9, 2.4)) - 1, slow.overhead(), 1e-9, "the model with the slowdown");
        assertTrue(slow.overhead() > fast.overhead() + 0.1, slow.overhead() + " vs " + fast.overhead());
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Advisor.parse(new String[] {"--cost", "1",
                "--node-mtbf", "1d", "--slowdown", "-1"})).getMessage().contains("--slowdown must be >= 0"));
    }

    @Test
    void thePaceAfterRestartsRankZeroReportsReplacesItsEvenPhase() throws Exception {
        Path log = dir.resolve("pace.log");
        String line = "[ckpt-run   95.0s] rank 0: interval policy auto: computation 0.00314 s per call, checkpoint --cost"
                + " 0.012 --blocking 0.006, program CPU share 0.30, after a restart --slowdown 1.49 --slow-window 2.70"
                + " --slow-pace 1:0.41:0.66:0.80:0.84:0.90:0.90 (24 recoveries measured), --restart 0.86 --image 2113688"
                + " --measured-m 1 --ranks-per-node 1, --node-mtbf 10.0s (job MTBF 2.5 s: 40 failure(s) in 100 s seen),"
                + " interval 79 calls";
        Files.writeString(log, line + "\n");
        Advisor.Inputs in = Advisor.parse(new String[] {"--log", log.toString(), "--ranks", "4", "--max-m", "1"});
        assertEquals(SlowProfile.everySeconds(1, 0.41, 0.66, 0.80, 0.84, 0.90, 0.90), in.pace);
        Advisor.Row paced = Advisor.rows(in).get(2);
        Advisor.Inputs even = Advisor.parse(new String[] {"--log", log.toString(), "--ranks", "4", "--max-m", "1",
                "--slow-pace", "0"});
        assertNull(even.pace, "0: no pace, the even phase of --slowdown and --slow-window");
        Advisor.Inputs evenExplicit = Advisor.parse(new String[] {"--log", log.toString(), "--ranks", "4", "--max-m", "1",
                "--slow-pace", "1.0:0.5"});
        assertEquals(SlowProfile.everySeconds(1, 0.5), evenExplicit.pace);
        // the model with the pace: its front-loaded extra time weighs more at a failure every 2.5 s
        double rate = 4 / 10.0;
        double tau = FailureModel.dalyInterval(0.012, 1 / rate);
        double u = FailureModel.unsurvivableRate(10, 4, 1, 1, 0.86 + tau + 0.012, FailureModel.Placement.RANK_ORDER);
        FailureModel.Scheme s = new FailureModel.Scheme(tau, 0.012, 0, in.diskCost, 0.86, 0.86 + in.diskCost, rate - u,
                u, 1.49, 2.70);
        assertEquals(FailureModel.wallPerWork(s, 0, in.pace) - 1, paced.overhead(), 1e-9, "the model with the pace");
        assertEquals(FailureModel.lostPerFailure(s, in.pace), paced.lost(), 1e-9);
        double evenOverhead = FailureModel.wallPerWork(s) - 1;
        assertEquals(evenOverhead, Advisor.rows(even).get(2).overhead(), 1e-9, "--slow-pace 0: the even phase");
        assertTrue(paced.overhead() > evenOverhead, paced.overhead() + " vs the even phase's " + evenOverhead);
        for (String bad : new String[] {"0.5", "0.5:", "x:0.5", "0:0.5", "0.5:-1", "0.5:0.3:y"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Advisor.parse(new String[] {
                    "--cost", "1", "--node-mtbf", "1d", "--slow-pace", bad}), bad);
            assertTrue(e.getMessage().contains("--slow-pace"), bad + ": " + e.getMessage());
        }
    }

    @Test
    void badInputIsAClearError() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Advisor.parse(new String[] {"--cost", "1"}))
                .getMessage().contains("--node-mtbf is needed"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Advisor.parse(new String[] {"--cost", "1", "--node-mtbf", "0"})).getMessage().contains("> 0"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Advisor.parse(new String[] {"--cost", "1", "--node-mtbf", "1d", "--max-loss", "2"}))
                .getMessage().contains("--max-loss"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> Advisor.parse(new String[] {"--bogus"}))
                .getMessage().contains("unknown option --bogus"));
        assertEquals(86400 * 30, Advisor.duration("x", "30d"));
        assertEquals(64 << 20, Advisor.bytes("x", "64M"));
    }

    @Test
    void recommendsCopiesOnceFailuresMemoryCannotSurviveBecomeLikely() throws Exception {
        Advisor.Inputs in = Advisor.parse(new String[] {"--cost", "0.05", "--blocking", "0.01", "--node-mtbf", "5y",
                "--image", "64M", "--ranks", "10,10000", "--disk-cost", "1"});
        List<Advisor.Row> rows = Advisor.rows(in);
        Advisor.Row small = rows.get(Advisor.recommended(in, rows, 10));
        Advisor.Row large = rows.get(Advisor.recommended(in, rows, 10000));
        assertTrue(small.loss() <= in.maxLoss && large.loss() <= in.maxLoss);
        assertTrue(large.m() >= 1, "10^4 nodes: a node loss every few hours; m = 0 would lose the job: " + large);
        // every row: overhead grows with the failure rate, the interval shrinks
        Advisor.Row m1small = rows.stream().filter(r -> r.ranks() == 10 && r.m() == 1 && r.diskRatio() == 0).findFirst().orElseThrow();
        Advisor.Row m1large = rows.stream().filter(r -> r.ranks() == 10000 && r.m() == 1 && r.diskRatio() == 0).findFirst().orElseThrow();
        assertTrue(m1large.tau() < m1small.tau() && m1large.overhead() > m1small.overhead());
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Advisor.print(in, rows, new PrintStream(out, true, StandardCharsets.UTF_8));
        String table = out.toString(StandardCharsets.UTF_8);
        assertEquals(2, table.lines().filter(l -> l.contains("RECOMMENDED")).count(), table);
    }

    @Test
    void codesAreComparedBesideTheCopiesAndNeverRecommendedYet() throws Exception {
        Advisor.Inputs in = Advisor.parse(new String[] {"--cost", "0.05", "--node-mtbf", "5y", "--image", "64M",
            "--ranks", "1000", "--ranks-per-node", "4", "--placement", "spread", "--codes", "xor:8,rs:8+2"});
        List<Advisor.Row> rows = Advisor.rows(in);
        Advisor.Row copy = rows.stream().filter(r -> r.redundancy().equals("1") && r.diskRatio() == 0).findFirst().orElseThrow();
        Advisor.Row xor = rows.stream().filter(r -> r.redundancy().equals("xor:8") && r.diskRatio() == 0).findFirst().orElseThrow();
        Advisor.Row rs = rows.stream().filter(r -> r.redundancy().equals("rs:8+2") && r.diskRatio() == 0).findFirst().orElseThrow();
        // memory: the own image plus 1/(K-1), or P/K, where a copy holds one more image
        assertEquals((1 + 1.0 / 7) / 2, xor.memory() / copy.memory(), 1e-9);
        assertEquals(1.25 / 2, rs.memory() / copy.memory(), 1e-9);
        // exposure: any 2 of a set of 8 nodes is more likely than a node and its holder; any 3 of 10 far less
        assertTrue(xor.loss() > copy.loss() && rs.loss() < copy.loss(), copy + "\n" + xor + "\n" + rs);
        assertTrue(rows.get(Advisor.recommended(in, rows, 1000)).available(), "the library keeps copies today");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        Advisor.print(in, rows, new PrintStream(out, true, StandardCharsets.UTF_8));
        String table = out.toString(StandardCharsets.UTF_8);
        assertTrue(table.contains("| m / code |") && table.contains("| xor:8 ") && table.contains("| rs:8+2 "), table);
        assertTrue(table.lines().filter(l -> l.contains("| xor:8 ")).allMatch(l -> l.contains("model only")), table);
        for (String bad : new String[] {"xor:1", "rs:8+0", "raid5", "xor:", "copies:2"}) {
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Advisor.parse(new String[] {
                "--cost", "0.05", "--node-mtbf", "5y", "--codes", bad}));
            assertTrue(e.getMessage().startsWith("--codes '" + bad + "': "), e.getMessage());
        }
    }

    @Test
    void bothValueFormsTyposAndHelp() throws Exception {
        Advisor.Inputs in = Advisor.parse(new String[] {"--cost=0.05", "--node-mtbf=30d", "--ranks=10,100",
                "--placement=spread", "--simulate"});
        assertEquals(0.05, in.cost);
        assertEquals(86400 * 30, in.nodeMtbf);
        assertEquals(List.of(10, 100), in.ranks);
        assertEquals(FailureModel.Placement.SPREAD, in.placement);
        assertTrue(in.simulate);
        assertEquals("unknown option --node-mtfb (did you mean --node-mtbf?); see bin/ckpt-advisor --help",
                assertThrows(IllegalArgumentException.class,
                        () -> Advisor.parse(new String[] {"--cost", "1", "--node-mtfb", "5y"})).getMessage());
        assertEquals("--cost needs a value; see bin/ckpt-advisor --help",
                assertThrows(IllegalArgumentException.class, () -> Advisor.parse(new String[] {"--cost"})).getMessage());
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Advisor.parse(new String[] {"--cost", "1", "--node-mtbf", "1d", "--placement=ring"})).getMessage()
                .contains("--placement must be rank-order or spread"));
        String usage = assertThrows(CommandLines.HelpRequested.class, () -> Advisor.parse(new String[] {"--help"}))
                .usage();
        for (String option : new String[] {"--stats", "--log", "--cost", "--blocking", "--measured-m", "--disk-cost",
                "--disk-bandwidth", "--restart", "--slowdown", "--slow-window", "--slow-pace", "--disk-restart", "--image", "--node-mtbf", "--ranks-per-node",
                "--ranks", "--max-m", "--placement", "--job-hours", "--max-loss", "--node-memory", "--max-disk-ratio",
                "--simulate"}) {
            assertTrue(usage.contains(option + (option.equals("--simulate") ? "" : "=")), option + " in\n" + usage);
        }
    }
}
