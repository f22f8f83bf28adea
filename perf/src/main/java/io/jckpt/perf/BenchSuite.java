package io.jckpt.perf;

import io.jckpt.cli.CommandLines;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.testkit.Baselines;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;

/**
 * The benchmark suite (a plain harness, not a test): measures jckpt against the physical
 * baselines of this machine in the same run and writes a Markdown report.
 *
 * <pre>
 * bin/bench [--quick] [--only baselines,jmh,micro,scaling,table2,table1,diskrounds,heat,handwritten,recovery,interval,hosts,objects]
 *           [--out FILE] [--help]        (options: {@link BenchOptions})
 * </pre>
 *
 * <p><b>Size</b> (past 600 lines): it is the report's table of contents: each section's run, its prose and
 * its key figures in order; the measurements live in the section classes it calls.
 */
public final class BenchSuite {
    static final int B400 = 400;
    static final int KB40 = 40_000;
    static final int MB4 = 4 << 20;
    static final int MB32 = 32 << 20;
    static final int MB64 = 64 << 20;
    static final List<String> ALL = List.of("baselines", "jmh", "micro", "scaling", "table2", "table1",
            "diskrounds", "heat", "handwritten", "recovery", "interval", "hosts", "objects");

    static final String TABLE_SETUP = "4 ranks as threads of one JVM through the real `TwoLevelCheckpointer` "
            + "(own node-local store under /dev/shm per rank, real loopback sockets, in-process status exchange); "
            + "each rank registers one byte[] of the size shown; a few checkpoint rounds, then the failure, then a "
            + "new world (epoch 1) in which every rank opens and rolls back; repeated, medians over ranks x rounds "
            + "x repetitions. The restored data is compared with what was checkpointed.";
    static final String ROLLBACK_NOTE = "Our rollback is split differently from the paper's: the status exchanges, "
            + "the rollback plan, the transfer to the new rank(s) and the CRC32C verification all happen inside the "
            + "recovery `open()` (the paper's MPI_Ckpt_open), and `rollback(tag)` only copies the verified image into "
            + "the program's array. So our 'T rollback (level)' column is that copy, and the transfer itself is "
            + "inside 'of which open()' (step by step in the table after Table 2). The ranks are threads sharing 2 cores, "
            + "so the 4 ranks' recovery steps compete for the CPU.";

    private BenchSuite() {
    }

    /**
     * @param args see the class comment
     * @throws Exception when a benchmark fails
     */
    public static void main(String[] args) throws Exception {
        System.exit(CommandLines.run("bench", () -> BenchOptions.parse(args), null, BenchSuite::run));
    }

    private static int run(BenchOptions options) throws Exception {
        boolean quick = options.quick;
        Set<String> only = options.sections();
        Path repo = Paths.get(System.getProperty("jckpt.repo.root", ".")).toAbsolutePath().normalize();
        Path out = options.out;
        if (out == null) {
            out = repo.resolve(quick ? "perf/REPORT-quick.md" : "perf/REPORT.md");
        }
        long started = System.nanoTime();
        Path shm = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-perf-");
        Path disk = Files.createTempDirectory(repo.resolve("perf/target").toFile().isDirectory()
                ? repo.resolve("perf/target") : Path.of(System.getProperty("java.io.tmpdir")), "bench-disk-");
        Report head = new Report();
        header(head, quick, only);
        Report report = new Report();
        String loadBefore = loadAverage();
        String stem = out.getFileName().toString().replaceFirst("\\.md$", "");
        Path plotDir = out.toAbsolutePath().getParent();
        Files.createDirectories(plotDir);
        List<String> plots = new ArrayList<>();
        ExecutorService writers = Executors.newFixedThreadPool(4, named("perf-durable-writer-"));
        try (Baselines.ThreadPair threads = new Baselines.ThreadPair(MB64);
             Baselines.TwoJvmPair jvms = new Baselines.TwoJvmPair(MB64)) {
            if (only.contains("baselines")) {
                section("baselines");
                List<BaselineBench.Result> results = new ArrayList<>();
                for (int size : new int[] {B400, KB40, MB4, MB64}) {
                    int iters = size == MB64 ? (quick ? 5 : 11) : (quick ? 11 : 31);
                    results.add(BaselineBench.run(size, iters, disk, threads, jvms));
                }
                report.heading(2, "1. Physical baselines (this run)");
                report.paragraph("Each cell: median [spread] over n runs (spread = p10–p90 with n ≥ 10, else min–max). "
                        + "400 B and 40 KB memcpy/CRC32C are averaged over 50 calls per sample. The durable write goes "
                        + "to `" + disk + "`.");
                BaselineBench.report(report, results);
            }
            if (only.contains("jmh")) {
                section("jmh");
                int[] sizes = quick ? new int[] {KB40, MB4} : new int[] {B400, KB40, MB4, MB64};
                Map<Integer, Map<String, JmhSection.Score>> scores = JmhSection.run(sizes, quick);
                report.heading(2, "2. JMH: here() without replication, memcpy, CRC32C, the image MAC");
                JmhSection.report(report, scores, quick);
                Map<String, JmhSection.Score> at4 = scores.get(MB4);
                if (at4 != null) {
                    // without an agent (m = 0) the store's sealing agent computes the MAC and CRC32C
                    key("JMH: here() alone (n = 1, m = 0, previous round sealed), 4 MiB", at4.get("here").median(),
                            "memcpy", at4.get("memcpy").median(), "2");
                    key("JMH: here() back to back (n = 1, m = 0, seal included), 4 MiB",
                            at4.get("hereBackToBack").median(), "memcpy", at4.get("memcpy").median(), "2");
                }
                Map<Integer, Map<String, JmhSection.Score>> macs = MacBenchmarks.run(quick);
                MacBenchmarks.report(report, macs);
                for (int size : new int[] {MB4, MB64}) {
                    Map<String, JmhSection.Score> m = macs.get(size);
                    if (m != null) {
                        key("JMH: image MAC (HMAC-SHA256), " + Samples.size(size), m.get("hmacSha256").median(),
                                "System.arraycopy", m.get("arraycopy").median(), "2");
                        key("JMH: image MAC (HMAC-SHA256), " + Samples.size(size), m.get("hmacSha256").median(),
                                "CRC32C", m.get("crc32c").median(), "2");
                    }
                }
                Map<Integer, Map<String, JmhSection.Score>> codes = CodecBenchmarks.run(quick);
                CodecBenchmarks.report(report, List.of(codes));
                for (int size : new int[] {MB4, MB64}) {
                    Map<String, JmhSection.Score> c = codes.get(size);
                    if (c != null) {
                        key("JMH: xor:8 encode, " + Samples.size(size), c.get("xor8Encode").median(), "memcpy",
                                c.get("memcpy").median(), "2");
                        key("JMH: rs:8+2 encode, " + Samples.size(size), c.get("rs82Encode").median(), "memcpy",
                                c.get("memcpy").median(), "2");
                    }
                }
                JmhSection.Score need = JmhSection.needCheckpoint(scores);
                if (need != null) {
                    key("JMH: needCheckpoint() per call (target ≤ 50 ns)", need.median(), "target", 50, "2");
                }
            }
            List<MicroBench.Result> micro = new ArrayList<>();
            if (only.contains("micro")) {
                section("micro");
                MicroBench bench = new MicroBench(shm, threads, jvms);
                for (int m : quick ? new int[] {1} : new int[] {1, 2}) {
                    for (int size : quick ? new int[] {B400, KB40, MB4} : new int[] {B400, KB40, MB4, MB64}) {
                        int iters = size <= KB40 ? (quick ? 300 : 1500) : size == MB4 ? (quick ? 15 : 41) : (quick ? 5 : 11);
                        // C2 compiles the here() path after ~10^4 calls: small sizes warm up that long
                        int warmup = size <= KB40 ? (quick ? 4000 : 10_000) : 3;
                        micro.add(bench.run(size, m, iters, warmup));
                        System.err.printf(Locale.ROOT, "bench: micro %s m=%d done%n", Samples.size(size), m);
                    }
                }
                report.heading(2, "3. here() and replication vs the physical baselines");
                report.paragraph("Ranks as threads of one JVM (n = m + 1), each with its own node-local store under "
                        + "/dev/shm and real loopback sockets between them, through the real `TwoLevelCheckpointer`. "
                        + "Rank 0 checkpoints one byte[] of the size shown, the other ranks 8 bytes. Per iteration, "
                        + "interleaved: memcpy of the same bytes into a pre-touched direct buffer (two such buffers used "
                        + "in turn, as the store keeps two versions: each was last written two rounds ago, as "
                        + "here()'s slot was, with the same traffic in between); here(); the wait "
                        + "until the round is replicated on every rank (`awaitReplicated`); one raw TCP transfer of the "
                        + "same bytes between two threads and one to a second JVM. here() includes the image header "
                        + "and tag table; the CRC32C runs on the replication thread. Sizes up to 40 KB are warmed up "
                        + "with 10^4 rounds (4000 with --quick) before measuring, so that the checkpoint path is "
                        + "compiled. The hand-off floor is a second baseline from the same iterations: memcpy plus one "
                        + "`Selector.wakeup()` of a thread asleep in `select` (idle about as long as the agent was), "
                        + "the least any here() pays that leaves the sending to a background thread (the paper's "
                        + "design); at 400 B and 40 KB that wake-up, not the copy, is most of here().");
                MicroBench.report(report, micro);
                report.paragraph("Throughput fraction = raw transfer time / the replication agent's own time for the same bytes (`CkptStats.lastReplicationNanos`; the wall time from here() is shown too, but it overlaps here() itself whenever here() waits). "
                        + "Replication time includes the background CRC32C of the image, the sender's framing, the "
                        + "receiver's CRC32C verification and the completion acknowledgement of every rank's round; "
                        + "with m = 2 the data crosses two hops, forwarded chunk by chunk as it arrives (cut-through). "
                        + "The checksummed transfer is the raw two-JVM transfer plus one CRC32C pass over the same "
                        + "bytes (both measured in these iterations): every copy is CRC32C-checked, by the owner and "
                        + "by each holder, and on two cores the two ends each add about one pass. The hand-off "
                        + "latency (same iterations) is the time from `Selector.wakeup()` until a thread asleep in "
                        + "`select` runs: a background sender (the paper's design, which the target is about) pays it "
                        + "once per round before it sends, on top of the raw transfer's own wake-ups; checksummed "
                        + "transfer + hand-off latency is the floor of a checksummed round handed to a background "
                        + "thread. With m = 2, three "
                        + "agents share the two cores (4 copies and 3 CRC32C passes per round). The last column counts "
                        + "what a round moves over loopback: m copies of the image, each one hop (m x size bytes), "
                        + "against the raw transfer's rate; the throughput column before it compares the round with "
                        + "one raw transfer of one copy, the stricter reading of the target.");
                plots.add(costVsSizePlot(plotDir, stem, micro));
                for (MicroBench.Result r : micro) {
                    String what = Samples.size(r.size()) + ", m = " + r.m();
                    if (r.m() == 1) {
                        key("here() blocking, " + what + " (target ≤ 1.25x)", r.here().median(), "memcpy",
                                r.memcpy().median(), "3");
                        if (r.size() <= KB40) {
                            key("here() blocking, " + what, r.here().median(), "hand-off floor (memcpy + one wake-up)",
                                    r.handOffFloor().median(), "3");
                        }
                    }
                    if (r.size() >= MB4 || r.m() == 1) {
                        key("replication of " + what + " (target: raw / ours ≥ 0.80, i.e. ≤ 1.25x here)",
                                r.replicationAgent().median(), "raw TCP two JVMs", r.tcpJvms().median(), "3");
                        if (r.m() == 1) {
                            key("replication of " + what, r.replicationAgent().median(),
                                    "raw TCP two JVMs + one CRC32C pass + one hand-off latency",
                                    r.tcpJvms().median() + r.crc().median() + r.wakeLatency().median(), "3");
                        }
                    }
                }
            }
            if (only.contains("scaling")) {
                section("scaling");
                ScalingBench scaling = new ScalingBench(shm, disk, jvms);
                List<ScalingBench.Result> bySize = new ArrayList<>();
                int[] sizes = quick ? new int[] {KB40, MB4} : new int[] {KB40, MB4, MB32};
                for (int m : quick ? new int[] {1, 2} : new int[] {1, 2, 3}) {
                    for (int size : sizes) {
                        int rounds = size <= KB40 ? (quick ? 30 : 100) : size == MB4 ? (quick ? 6 : 15) : 7;
                        bySize.add(scaling.run(size, 4, m, rounds, size <= KB40 ? rounds : 2));
                        System.err.printf(Locale.ROOT, "bench: scaling %s n=4 m=%d done%n", Samples.size(size), m);
                    }
                }
                List<ScalingBench.Result> byRanks = new ArrayList<>();
                for (int n : quick ? new int[] {2, 4} : new int[] {2, 4, 6, 8}) {
                    byRanks.add(scaling.run(MB4, n, 1, quick ? 6 : 12, 2));
                    System.err.printf(Locale.ROOT, "bench: scaling 4 MiB n=%d m=1 done%n", n);
                }
                report.heading(2, "4. Scaling: data size, m, number of ranks (every rank checkpoints)");
                report.paragraph("n ranks as threads of one JVM through the real `TwoLevelCheckpointer` (own store "
                        + "under /dev/shm, real loopback sockets); unlike section 3, **every** rank registers the size "
                        + "shown and checkpoints it each round, so the ring moves n images per round and all ranks' "
                        + "replication agents compete for the same 2 cores. Per round: a barrier, here() on every rank, "
                        + "the wait until replicated, a barrier, then rank 0 alone runs the baselines (memcpy, one raw "
                        + "TCP transfer to a second JVM) while nothing else runs. Cells pool every rank's rounds.");
                report.heading(3, "4a. Cost vs data size and m (n = 4)");
                ScalingBench.report(report, bySize);
                report.paragraph("With m copies each image crosses m links (store and forward), so m × one raw transfer "
                        + "is the ideal for the last column's denominator; 4 ranks replicating at once on 2 cores make "
                        + "even that optimistic.");
                report.heading(3, "4b. Cost vs number of ranks (4 MiB per rank, m = 1)");
                ScalingBench.report(report, byRanks);
                report.paragraph("This machine has 2 cores: beyond n = 2 the ranks (and their replication threads) "
                        + "time-share them, so growth with n here measures CPU contention more than the protocol; "
                        + "n = 8 is as far as it is meaningful. On real nodes (one rank per node) the per-rank cost "
                        + "of ring replication does not depend on n.");
                plots.add(scalingPlot(plotDir, stem, bySize));
                for (ScalingBench.Result r : bySize) {
                    if (r.size() == MB4) {
                        key("replication, every rank 4 MiB, n = 4, m = " + r.m(), r.agent().median(),
                                r.m() + " x raw TCP two JVMs", r.m() * r.tcp().median(), "4a");
                    }
                }
            }
            if (only.contains("table2")) {
                section("table2");
                PaperTables tables = new PaperTables(shm, disk, jvms, writers);
                List<PaperTables.Result> results = new ArrayList<>();
                int[] sizes = quick ? new int[] {B400, KB40, MB4} : new int[] {B400, KB40, MB4, MB64};
                for (int size : sizes) {
                    results.add(tables.run(size, false, quick ? 3 : (size == MB64 ? 3 : 9), quick ? 3 : 5));
                    System.err.printf(Locale.ROOT, "bench: table2 %s done%n", Samples.size(size));
                }
                report.heading(2, "5. The paper's Table 2: in-memory level, m = 1, 4 ranks (seconds)");
                report.paragraph(TABLE_SETUP + " The failure: rank 1's node is lost (its store wiped) and it comes "
                        + "back new: rank 1 is the Recver, rank 2 (its nearest NEXT survivor) the Sender, ranks 0 and 3 "
                        + "Normal. Our figure first, the paper's in parentheses (4 nodes, PIII 933 MHz, 100 Mb "
                        + "Ethernet: the paper's absolute times are not comparable, the shape is).");
                PaperTables.reportTable2(report, results);
                report.paragraph(ROLLBACK_NOTE + " Baselines: Normal vs a memcpy of the same bytes; Sender and "
                        + "Recver vs one raw TCP transfer of the same bytes between two JVMs.");
                report.paragraph("The recovery open() above, step by step (`CkptStats.lastRecovery()`, medians): "
                        + "store open = mapping the node-local slot files and CRC-verifying the surviving copies "
                        + "(once each); transfer = the rollback transfer (the Recver's copy verified chunk by chunk "
                        + "as it arrives); verification = checking the image used before use when it was not "
                        + "verified already; ring re-join = the end-of-transfer barrier, the ring connections and "
                        + "the agent's start, which after an in-memory rollback happen in the first here(), not in "
                        + "open() (so 0 here: this benchmark takes no checkpoint after the recovery).");
                PaperTables.reportSteps(report, results);
            }
            if (only.contains("table1")) {
                section("table1");
                PaperTables tables = new PaperTables(shm, disk, jvms, writers);
                List<PaperTables.Result> results = new ArrayList<>();
                for (int size : new int[] {B400, KB40, MB4}) {
                    results.add(tables.run(size, true, quick ? 2 : 5, quick ? 2 : 4));
                    System.err.printf(Locale.ROOT, "bench: table1 %s done%n", Samples.size(size));
                }
                report.heading(2, "6. The paper's Table 1: stable-disk level, 4 ranks (seconds)");
                report.paragraph(TABLE_SETUP + " Disk ratio 1 (every round also flushed to `" + disk + "`). The "
                        + "failure: ranks 1 and 2 (adjacent, m + 1 = 2) lose their nodes, so memory cannot restore and "
                        + "every rank restores from the newest committed disk generation: OLD = ranks 0 and 3, NEW = "
                        + "ranks 1 and 2. T_stable ckpt is the background flush of one rank (write + force + rename + "
                        + "dir fsync, `CkptStats.lastFlushNanos`); it does not block here(). The 4 ranks flush at the "
                        + "same time to one disk, so its baseline is 4 raw durable writers started together (each "
                        + "writer's time); one writer alone is shown too.");
                PaperTables.reportTable1(report, results);
                for (PaperTables.Result r : results) {
                    if (r.size() == MB4) {
                        Samples flush = new Samples();
                        r.roles().values().forEach(x -> {
                            for (double v : x.flush.values()) {
                                flush.add(v);
                            }
                        });
                        key("Table 1: background flush of 4 MiB, 4 ranks at once", flush.median(),
                                "4 raw durable writers at once, each", r.durable4().median(), "6");
                    }
                }
                report.paragraph(ROLLBACK_NOTE);
            }
            if (only.contains("diskrounds")) {
                section("diskrounds");
                ScalingBench scaling = new ScalingBench(shm, disk, jvms);
                List<ScalingBench.DiskResult> results = new ArrayList<>();
                for (int size : quick ? new int[] {MB4} : new int[] {KB40, MB4}) {
                    results.add(scaling.diskRounds(size, 2, size <= KB40 ? 60 : (quick ? 10 : 30)));
                    System.err.printf(Locale.ROOT, "bench: disk rounds %s done%n", Samples.size(size));
                }
                report.heading(2, "7. here() on disk rounds vs memory-only rounds (one run, interleaved)");
                report.paragraph("4 ranks as threads, m = 1, disk ratio 2: every other round is also flushed to `"
                        + disk + "` in the background, so disk and memory-only rounds alternate in the same run with the "
                        + "same sizes. Every rank's here() blocking time, pooled; the round is awaited (replicated) before "
                        + "the next one, the flush is not.");
                ScalingBench.reportDisk(report, results);
                for (ScalingBench.DiskResult r : results) {
                    if (r.size() == MB4) {
                        key("here() on disk rounds, 4 MiB (target: no measurable difference)", r.diskRounds().median(),
                                "here() on memory-only rounds", r.memoryRounds().median(), "7");
                    }
                }
            }
            if (only.contains("heat")) {
                section("heat");
                LaunchedBench launched = new LaunchedBench(repo);
                int nx = 1024;
                int iterations = quick ? 400 : 800;
                int[][] variants = quick
                        ? new int[][] {{0, 0}, {iterations, 1}, {20, 1}}
                        : new int[][] {{0, 0}, {iterations, 1}, {200, 1}, {40, 1}, {10, 1}, {10, 2}};
                List<LaunchedBench.Variant> results = launched.overhead(nx, iterations, variants, quick ? 1 : 3);
                report.heading(2, "8. Overhead on the heat solver (bin/ckpt-run, 4 rank JVMs, no disk level)");
                report.paragraph("`HeatSolver --nx " + nx + " --ny " + nx + " --iterations " + iterations + "` on 4 ranks "
                        + "(niodev over loopback), checkpointing every k sweeps with m = 1 or 2 vs the same solver "
                        + "without checkpoints; variants interleaved per repetition. The solver prints its own loop time "
                        + "(after Ckpt.open, before the final gather), which is the figure compared.");
                LaunchedBench.reportOverhead(report, results, nx, iterations);
                plots.add(overheadPlot(plotDir, stem, results, iterations));
                LaunchedBench.keyFigures(results, iterations);
            }
            if (only.contains("handwritten")) {
                section("handwritten");
                HandWrittenBench hand = new HandWrittenBench(repo, disk);
                HandWrittenBench.Result result = quick ? hand.run(512, 200, 20, 110, 1, List.of("none", "jckpt", "kryo"))
                        : hand.run(1024, 400, 20, 210, 3, HandWrittenBench.VARIANTS);
                report.heading(2, "9. jckpt vs hand-written checkpoints (Kryo, ObjectOutputStream) and a whole-job restart");
                HandWrittenBench.report(report, result);
                HandWrittenBench.keyFigures(result);
            }
            if (only.contains("recovery")) {
                section("recovery");
                LaunchedBench launched = new LaunchedBench(repo);
                List<LaunchedBench.Case> cases = new ArrayList<>();
                // 64 KiB, 4 MiB, 32 MiB per rank: (ny/4 + 2) * nx doubles
                int[][] grids = quick ? new int[][] {{256, 120}} : new int[][] {{256, 120}, {1024, 2040}, {2048, 8184}};
                // one warm standby (--standby 1) unless said: the launcher's default on hosts with a core to spare
                for (int[] g : grids) {
                    cases.add(new LaunchedBench.Case("process death (--kill 2@round=3)", g[0], g[1], false, false, "respawn", 1));
                    cases.add(new LaunchedBench.Case("node loss (--kill 2@round=3:wipe)", g[0], g[1], false, true, "respawn", 1));
                }
                if (!quick) {
                    cases.add(new LaunchedBench.Case("process death, no standby (--standby 0: the replacement JVM is forked)",
                            1024, 2040, false, false, "respawn", 0));
                    cases.add(new LaunchedBench.Case("bench's SIGKILL of rank 2 at sweep 30", 1024, 2040, true, false, "respawn", 1));
                    cases.add(new LaunchedBench.Case("process death, --on-failure relaunch (all 4 ranks restarted)", 1024,
                            2040, false, false, "relaunch", 1));
                }
                List<LaunchedBench.Recovery> runs = launched.recovery(cases, quick ? 1 : 2);
                report.heading(2, "10. Recovery time breakdown (bin/ckpt-run, 4 rank JVMs, m = 1)");
                report.paragraph("`HeatSolver --iterations " + LaunchedBench.RECOVERY_ITERATIONS + " --ckpt-every "
                        + LaunchedBench.RECOVERY_EVERY + " --report " + LaunchedBench.RECOVERY_EVERY + "` (with `--sleep-ms` 10, 3 and 0 "
                        + "for the three sizes, so that the small grids are still running when the failure comes) on "
                        + "grids sized for the checkpoint per rank shown; rank 2 fails after checkpoint round "
                        + LaunchedBench.RECOVERY_ROUND + ": injected by the launcher (`--kill`, times from its "
                        + "`injection` event (the launcher's events file, docs/events.md, as every launcher time here): the launcher then waits for the process to be gone, so 'detection' "
                        + "there is the kill's own delay) or SIGKILLed by the bench (times from the kill: detection is the "
                        + "launcher's process reaper). Node loss also wipes rank 2's node-local store, so rank 2 receives "
                        + "its image from its ring neighbour. `--on-failure respawn` re-spawns rank 2 (on a warm standby "
                        + "JVM, `--standby 1`, unless the row says otherwise) and the survivors "
                        + "re-enter main in a fresh MPJ world; `relaunch` restarts all 4 JVMs (restoring from their "
                        + "node-local stores). Times as seen by the bench's reader of the launcher's output. Paper: "
                        + "run-time recovery alone (T_recover loop) 0.66 s.");
                LaunchedBench.reportRecovery(report, cases, runs);
                for (Map.Entry<LaunchedBench.Case, Samples> e : LaunchedBench.totals(runs).entrySet()) {
                    LaunchedBench.Case c = e.getKey();
                    if (c.nx() == 1024 || c.nx() == grids[0][0]) {
                        key("kill → computing again, " + Samples.size(c.bytes()) + " per rank: " + c.label(),
                                e.getValue().median(), "paper's run-time recovery", 0.66e9, "10");
                    }
                }
            }
            if (only.contains("interval")) {
                section("interval");
                String kept = System.getProperty(IntervalLogs.PROPERTY);
                report.heading(2, "11. Choosing the interval: auto vs fixed intervals under injected failures "
                        + "(bin/ckpt-run --mtbf, 4 rank JVMs, m = 1)");
                if (kept != null && kept.contains(",")) {
                    // -Djckpt.bench.intervalLogs=DIR,DIR,...: earlier runs' kept jobs, judged together
                    List<String> names = new ArrayList<>();
                    List<IntervalBench.Result> results = new ArrayList<>();
                    for (String dir : kept.split(",")) {
                        names.add(Path.of(dir.strip()).getFileName().toString());
                        results.add(IntervalLogs.read(Path.of(dir.strip())));
                    }
                    report.paragraph("Every run below as this one, the first (each run's job length and seeds in "
                            + "the table): " + IntervalReport.setup(results.get(0).config));
                    IntervalReport.pooled(report, names, results);
                } else {
                    // -Djckpt.bench.intervalLogs=DIR: an earlier run's kept jobs, read again instead of run
                    IntervalBench.Result result = kept == null || kept.isBlank()
                            ? new IntervalBench(repo).run(IntervalBench.Config.of(quick))
                            : IntervalLogs.read(Path.of(kept));
                    report.paragraph(IntervalReport.setup(result.config));
                    IntervalReport.report(report, result);
                    IntervalReport.keyFigures(result);
                }
            }
            if (only.contains("hosts")) {
                section("hosts");
                report.heading(2, "12. Across hosts: replication, node loss, hand-written checkpoint (test hosts, "
                        + "bin/ckpt-run --hostfile)");
                java.util.Optional<String> unavailable = io.jckpt.testkit.hosts.TestHosts.unavailableReason();
                if (unavailable.isPresent()) {
                    String why = "Skipped: test hosts cannot be made here (root only, with unshare, nsenter, sshd, "
                            + "nft): " + unavailable.get() + ".";
                    System.err.println("bench: hosts: " + why);
                    report.paragraph(why);
                } else {
                    HostsBench.Result result = new HostsBench(repo, disk).run(quick);
                    HostsBench.report(report, result);
                    HostsBench.keyFigures(result);
                }
            }
            if (only.contains("objects")) {
                section("objects");
                int[] sizes = quick ? new int[] {10_000} : new int[] {1_000, 10_000, 100_000};
                Map<Integer, Map<String, JmhSection.Score>> scores = ObjectsSection.run(sizes, quick);
                Map<Integer, Map<String, JmhSection.Score>> interleaved = ObjectsSection.interleaved(sizes, quick);
                report.heading(2, "13. Objects: the state graph codec vs Kryo and vs primitive arrays");
                ObjectsSection.report(report, scores, quick);
                ObjectsSection.reportInterleaved(report, interleaved, quick);
                for (Map.Entry<Integer, Map<String, JmhSection.Score>> e : interleaved.entrySet()) {
                    Map<String, JmhSection.Score> at = e.getValue();
                    String graph = String.format(Locale.ROOT, "%,d", e.getKey()) + " particles + HashMap + Random, "
                            + Samples.size((long) at.get("bytes").median()) + "; p10 of calls, interleaved";
                    key("objects: write + restore in place (" + graph + ")", at.get("graphRoundTrip").min(),
                            "Kryo write + read of the same graph", at.get("kryoRoundTrip").min(), "13");
                    if (e.getKey() == 10_000) {
                        key("objects: write, what here() does (" + graph + ")", at.get("graphWrite").min(),
                                "Kryo write of the same graph", at.get("kryoWrite").min(), "13");
                        key("objects: write + restore in place (" + graph + ")", at.get("graphRoundTrip").min(),
                                "a double[] of the same bytes, write + restore", at.get("arrayRoundTrip").min(), "13");
                    }
                }
            }
            endSection();
        } finally {
            writers.shutdownNow();
            ReplicaStore.wipe(shm);
            deleteTree(disk);
        }
        if (!plots.isEmpty()) {
            report.heading(2, "Plots");
            for (String plot : plots) {
                if (plot != null) {
                    report.paragraph("![" + plot + "](" + plot + ")");
                }
            }
        }
        double minutes = (System.nanoTime() - started) / 60e9;
        report.heading(2, "Run");
        StringBuilder perSection = new StringBuilder();
        SECTION_SECONDS.forEach((name, sec) -> perSection.append(perSection.length() == 0 ? "" : ", ")
                .append(String.format(Locale.ROOT, "%s %.0f s", name, sec)));
        report.paragraph(String.format(Locale.ROOT, "Suite time %.1f min (%s). Load average before: %s; after: %s.",
                minutes, perSection, loadBefore, loadAverage()));
        Files.createDirectories(out.toAbsolutePath().getParent());
        if (!SUMMARY.isEmpty()) {
            head.heading(2, "Key figures");
            head.paragraph("Each of our figures beside its baseline from this run; details and spreads in the sections.");
            head.table(List.of("figure", "ours (median)", "baseline (median, same run)", "ours / baseline", "section"), SUMMARY);
        }
        Files.writeString(out, head.toString() + report, StandardCharsets.UTF_8);
        System.err.printf(Locale.ROOT, "bench: report written to %s (%.1f min)%n", out, minutes);
        return 0;
    }

    private static java.util.concurrent.ThreadFactory named(String prefix) {
        java.util.concurrent.atomic.AtomicInteger k = new java.util.concurrent.atomic.AtomicInteger();
        return r -> {
            Thread t = new Thread(r, prefix + k.getAndIncrement());
            t.setDaemon(true);
            return t;
        };
    }

    private static SvgPlot.Point point(double x, Samples s) {
        return new SvgPlot.Point(x, s.median(), s.low(), s.high());
    }

    /** Decades of bytes as axis labels. */
    private static String bytesTick(double v) {
        String[] units = {"B", "KB", "MB", "GB"};
        int u = 0;
        while (v >= 1000 && u < units.length - 1) {
            v /= 1000;
            u++;
        }
        return Samples.fmt(v).replaceAll("\\.0+$", "") + " " + units[u];
    }

    private static String timeTick(double nanos) {
        return Samples.time(nanos).replaceAll("\\.0+ ", " ");
    }

    private static String costVsSizePlot(Path dir, String stem, List<MicroBench.Result> results) throws IOException {
        List<SvgPlot.Point> memcpy = new ArrayList<>();
        List<SvgPlot.Point> here = new ArrayList<>();
        List<SvgPlot.Point> agent = new ArrayList<>();
        List<SvgPlot.Point> tcp = new ArrayList<>();
        List<SvgPlot.Point> here2 = new ArrayList<>();
        List<SvgPlot.Point> agent2 = new ArrayList<>();
        for (MicroBench.Result r : results) {
            if (r.m() == 1) {
                memcpy.add(point(r.size(), r.memcpy()));
                here.add(point(r.size(), r.here()));
                agent.add(point(r.size(), r.replicationAgent()));
                tcp.add(point(r.size(), r.tcpJvms()));
            } else if (r.m() == 2) {
                here2.add(point(r.size(), r.here()));
                agent2.add(point(r.size(), r.replicationAgent()));
            }
        }
        SvgPlot plot = new SvgPlot("Cost vs checkpoint size (section 3, median and spread)", "bytes checkpointed by rank 0",
                "time", true, true).ticks(BenchSuite::bytesTick, BenchSuite::timeTick);
        plot.series("memcpy (baseline)", memcpy, true).series("raw TCP 2 JVMs (baseline)", tcp, true)
                .series("here(), m = 1", here, false).series("replication, m = 1", agent, false)
                .series("here(), m = 2", here2, false).series("replication, m = 2", agent2, false);
        String name = stem + "-cost-vs-size.svg";
        plot.write(dir.resolve(name));
        return name;
    }

    private static String scalingPlot(Path dir, String stem, List<ScalingBench.Result> results) throws IOException {
        SvgPlot plot = new SvgPlot("Replication vs size and m, n = 4, every rank checkpoints (section 4a)",
                "bytes per rank", "time", true, true).ticks(BenchSuite::bytesTick, BenchSuite::timeTick);
        java.util.TreeMap<Integer, List<SvgPlot.Point>> byM = new java.util.TreeMap<>();
        List<SvgPlot.Point> tcp = new ArrayList<>();
        List<SvgPlot.Point> memcpy = new ArrayList<>();
        List<SvgPlot.Point> here = new ArrayList<>();
        for (ScalingBench.Result r : results) {
            byM.computeIfAbsent(r.m(), k -> new ArrayList<>()).add(point(r.size(), r.agent()));
            if (r.m() == 1) {
                tcp.add(point(r.size(), r.tcp()));
                memcpy.add(point(r.size(), r.memcpy()));
                here.add(point(r.size(), r.here()));
            }
        }
        plot.series("memcpy (baseline)", memcpy, true).series("raw TCP 2 JVMs (baseline)", tcp, true)
                .series("here(), m = 1", here, false);
        byM.forEach((m, points) -> plot.series("replication, m = " + m, points, false));
        String name = stem + "-scaling.svg";
        plot.write(dir.resolve(name));
        return name;
    }

    private static String overheadPlot(Path dir, String stem, List<LaunchedBench.Variant> variants, int iterations)
            throws IOException {
        SvgPlot plot = new SvgPlot("Heat solver: overhead vs checkpoint interval (section 8)",
                "checkpoint interval (sweeps)", "loop time overhead vs no checkpoints (%)", true, false)
                .ticks(v -> String.format(Locale.ROOT, "%.0f", v), v -> String.format(Locale.ROOT, "%.0f %%", Math.abs(v) < 0.5 ? 0.0 : v));
        LaunchedBench.overheadPoints(variants, iterations, true)
                .forEach((m, points) -> plot.series("m = " + m + ", excl. 1st ckpt", points, false));
        LaunchedBench.overheadPoints(variants, iterations, false)
                .forEach((m, points) -> plot.series("m = " + m + ", incl. 1st ckpt", points, true));
        String name = stem + "-overhead-vs-interval.svg";
        plot.write(dir.resolve(name));
        return name;
    }

    /** The report's key-figures table, one row per figure: figure, ours, baseline, ratio, section. */
    static final List<List<String>> SUMMARY = new ArrayList<>();

    static void key(String figure, double ours, String baselineName, double baseline, String section) {
        SUMMARY.add(List.of(figure, Samples.time(ours), baselineName + " " + Samples.time(baseline),
                "**" + Samples.ratio(ours, baseline) + "**", section));
    }

    /** Seconds each section took, in order (for the report's Run section and docs/benchmarks.md). */
    private static final Map<String, Double> SECTION_SECONDS = new java.util.LinkedHashMap<>();
    private static String current;
    private static long currentStart;

    private static void section(String name) {
        endSection();
        current = name;
        currentStart = System.nanoTime();
        System.err.println("bench: " + name + " ...");
    }

    private static void endSection() {
        if (current != null) {
            double seconds = (System.nanoTime() - currentStart) / 1e9;
            SECTION_SECONDS.put(current, seconds);
            System.err.printf(Locale.ROOT, "bench: %s took %.0f s%n", current, seconds);
            current = null;
        }
    }

    private static void header(Report report, boolean quick, Set<String> only) throws IOException {
        report.raw("# jckpt benchmark report" + (quick ? " (--quick)" : "") + "\n\n");
        report.paragraph("Written by `bin/bench" + (quick ? " --quick" : "") + "` (module `perf`, `io.jckpt.perf.BenchSuite`). "
                + "Every figure of ours stands next to its physical baseline measured in the same run, as a ratio: "
                + "absolute times on this shared machine drift from run to run, ratios much less.");
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("date", ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME)));
        rows.add(List.of("CPU", cpuModel() + ", nproc = " + Runtime.getRuntime().availableProcessors()));
        rows.add(List.of("memory", memTotal()));
        rows.add(List.of("JDK", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version")));
        rows.add(List.of("OS", System.getProperty("os.name") + " " + System.getProperty("os.version")));
        rows.add(List.of("sections", String.join(", ", only)));
        report.table(List.of("machine", ""), rows);
    }

    private static String cpuModel() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    return line.substring(line.indexOf(':') + 1).trim();
                }
            }
        } catch (IOException ignored) {
            // not Linux
        }
        return "unknown CPU";
    }

    private static String memTotal() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/meminfo"))) {
                if (line.startsWith("MemTotal")) {
                    long kb = Long.parseLong(line.replaceAll("[^0-9]", ""));
                    return String.format(Locale.ROOT, "%.1f GiB", kb / 1024.0 / 1024.0);
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // not Linux
        }
        return "unknown";
    }

    static String loadAverage() {
        try {
            String[] f = Files.readString(Path.of("/proc/loadavg")).trim().split(" ");
            return f[0] + " " + f[1] + " " + f[2];
        } catch (IOException e) {
            return "unknown";
        }
    }

    static void deleteTree(Path dir) throws IOException {
        io.jckpt.imem.ReplicaStore.wipe(dir);
    }
}
