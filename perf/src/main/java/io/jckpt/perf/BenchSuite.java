package io.jckpt.perf;

import io.jckpt.imem.ReplicaStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * The benchmark suite (a plain harness, not a test): measures jckpt against the physical
 * baselines of this machine in the same run and writes a Markdown report.
 *
 * <pre>
 * bin/bench [--quick] [--only baselines,micro,table2,table1,heat,recovery] [--out FILE]
 * </pre>
 */
public final class BenchSuite {
    static final int B400 = 400;
    static final int KB40 = 40_000;
    static final int MB4 = 4 << 20;
    static final int MB64 = 64 << 20;
    static final List<String> ALL = List.of("baselines", "jmh", "micro", "table2", "table1", "heat", "handwritten", "recovery");

    static final String TABLE_SETUP = "4 ranks as threads of one JVM through the real `TwoLevelCheckpointer` "
            + "(own node-local store under /dev/shm per rank, real loopback sockets, in-process status exchange); "
            + "each rank registers one byte[] of the size shown; a few checkpoint rounds, then the failure, then a "
            + "new world (epoch 1) in which every rank opens and rolls back; repeated, medians over ranks x rounds "
            + "x repetitions. The restored data is compared with what was checkpointed.";
    static final String ROLLBACK_NOTE = "Our rollback is split differently from the paper's: the status exchanges, "
            + "the rollback plan, the transfer to the new rank(s) and the CRC32C verification all happen inside the "
            + "recovery `open()` (the paper's MPI_Ckpt_open), and `rollback(tag)` only copies the verified image into "
            + "the program's array. So our 'T rollback (level)' column is that copy, and the transfer itself is "
            + "inside 'of which open()' (no per-step timing is exposed yet). The ranks are threads sharing 2 cores, "
            + "so the 4 ranks' recovery steps compete for the CPU.";

    private BenchSuite() {
    }

    /**
     * @param args see the class comment
     * @throws Exception when a benchmark fails
     */
    public static void main(String[] args) throws Exception {
        boolean quick = false;
        Set<String> only = new LinkedHashSet<>(ALL);
        Path repo = Paths.get(System.getProperty("jckpt.repo.root", ".")).toAbsolutePath().normalize();
        Path out = null;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--quick" -> quick = true;
                case "--only" -> {
                    only = new LinkedHashSet<>(Arrays.asList(args[++i].split(",")));
                    if (!ALL.containsAll(only)) {
                        throw new IllegalArgumentException("--only takes some of " + ALL + ", got " + only);
                    }
                }
                case "--out" -> out = Paths.get(args[++i]);
                default -> throw new IllegalArgumentException("usage: bench [--quick] [--only " + String.join(",", ALL)
                        + "] [--out FILE]; got '" + args[i] + "'");
            }
        }
        if (out == null) {
            out = repo.resolve(quick ? "perf/REPORT-quick.md" : "perf/REPORT.md");
        }
        long started = System.nanoTime();
        Path shm = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-perf-");
        Path disk = Files.createTempDirectory(repo.resolve("perf/target").toFile().isDirectory()
                ? repo.resolve("perf/target") : Path.of(System.getProperty("java.io.tmpdir")), "bench-disk-");
        Report report = new Report();
        header(report, quick, only);
        String loadBefore = loadAverage();
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
                java.util.Map<Integer, java.util.Map<String, JmhSection.Score>> scores = JmhSection.run(sizes, quick);
                report.heading(2, "1b. JMH: here() without replication, memcpy, CRC32C");
                JmhSection.report(report, scores, quick);
            }
            if (only.contains("micro")) {
                section("micro");
                MicroBench micro = new MicroBench(shm, threads, jvms);
                List<MicroBench.Result> results = new ArrayList<>();
                for (int m : quick ? new int[] {1} : new int[] {1, 2}) {
                    for (int size : new int[] {B400, KB40, MB4, MB64}) {
                        int iters = size <= KB40 ? (quick ? 300 : 1500) : size == MB4 ? (quick ? 15 : 41) : (quick ? 5 : 11);
                        int warmup = size <= KB40 ? iters : 3;
                        results.add(micro.run(size, m, iters, warmup));
                        System.err.printf(Locale.ROOT, "bench: micro %s m=%d done%n", Samples.size(size), m);
                    }
                }
                report.heading(2, "2. here() and replication vs the physical baselines");
                report.paragraph("Ranks as threads of one JVM (n = m + 1), each with its own node-local store under "
                        + "/dev/shm and real loopback sockets between them, through the real `TwoLevelCheckpointer`. "
                        + "Rank 0 checkpoints one byte[] of the size shown, the other ranks 8 bytes. Per iteration, "
                        + "interleaved: memcpy of the same bytes into a pre-touched direct buffer; here(); the wait "
                        + "until the round is replicated on every rank (`awaitReplicated`); one raw TCP transfer of the "
                        + "same bytes between two threads and one to a second JVM. here() includes the image header "
                        + "and tag table; the CRC32C runs on the replication thread.");
                MicroBench.report(report, results);
                report.paragraph("Throughput fraction = raw transfer time / the replication agent's own time for the same bytes (`CkptStats.lastReplicationNanos`; the wall time from here() is shown too, but it overlaps here() itself whenever here() waits). "
                        + "Replication time includes the background CRC32C of the image, the sender's framing, the "
                        + "receiver's CRC32C verification and the completion acknowledgement of every rank's round; "
                        + "with m = 2 the data crosses two hops (store and forward), so 0.5 of one raw transfer is "
                        + "the ideal there.");
            }
            if (only.contains("table2")) {
                section("table2");
                PaperTables tables = new PaperTables(shm, disk, jvms);
                List<PaperTables.Result> results = new ArrayList<>();
                int[] sizes = quick ? new int[] {B400, KB40, MB4} : new int[] {B400, KB40, MB4, MB64};
                for (int size : sizes) {
                    results.add(tables.run(size, false, quick ? 3 : (size == MB64 ? 5 : 9), quick ? 3 : 5));
                    System.err.printf(Locale.ROOT, "bench: table2 %s done%n", Samples.size(size));
                }
                report.heading(2, "3. The paper's Table 2: in-memory level, m = 1, 4 ranks (seconds)");
                report.paragraph(TABLE_SETUP + " The failure: rank 1's node is lost (its store wiped) and it comes "
                        + "back new: rank 1 is the Recver, rank 2 (its nearest NEXT survivor) the Sender, ranks 0 and 3 "
                        + "Normal. Our figure first, the paper's in parentheses (4 nodes, PIII 933 MHz, 100 Mb "
                        + "Ethernet: the paper's absolute times are not comparable, the shape is).");
                PaperTables.reportTable2(report, results);
                report.paragraph(ROLLBACK_NOTE + " Baselines: Normal vs a memcpy of the same bytes; Sender and "
                        + "Recver vs one raw TCP transfer of the same bytes between two JVMs.");
            }
            if (only.contains("table1")) {
                section("table1");
                PaperTables tables = new PaperTables(shm, disk, jvms);
                List<PaperTables.Result> results = new ArrayList<>();
                for (int size : new int[] {B400, KB40, MB4}) {
                    results.add(tables.run(size, true, quick ? 2 : 5, quick ? 2 : 4));
                    System.err.printf(Locale.ROOT, "bench: table1 %s done%n", Samples.size(size));
                }
                report.heading(2, "4. The paper's Table 1: stable-disk level, 4 ranks (seconds)");
                report.paragraph(TABLE_SETUP + " Disk ratio 1 (every round also flushed to `" + disk + "`). The "
                        + "failure: ranks 1 and 2 (adjacent, m + 1 = 2) lose their nodes, so memory cannot restore and "
                        + "every rank restores from the newest committed disk generation: OLD = ranks 0 and 3, NEW = "
                        + "ranks 1 and 2. T_stable ckpt is the background flush of one rank (write + force + rename + "
                        + "dir fsync, `CkptStats.lastFlushNanos`); it does not block here().");
                PaperTables.reportTable1(report, results);
                report.paragraph(ROLLBACK_NOTE);
            }
            if (only.contains("heat")) {
                section("heat");
                LaunchedBench launched = new LaunchedBench(repo);
                int nx = 1024;
                int iterations = 400;
                int[] everies = quick ? new int[] {0, 200, 20} : new int[] {0, 200, 100, 40, 20, 10};
                List<LaunchedBench.Variant> variants = launched.overhead(nx, iterations, everies, quick ? 1 : 3);
                report.heading(2, "5. Overhead on the heat solver (bin/ckpt-run, 4 rank JVMs, m = 1, no disk level)");
                report.paragraph("`HeatSolver --nx " + nx + " --ny " + nx + " --iterations " + iterations + "` on 4 ranks "
                        + "(niodev over loopback), checkpointing every k sweeps vs the same solver without checkpoints; "
                        + "variants interleaved per repetition. The solver prints its own loop time (after Ckpt.open, "
                        + "before the final gather), which is the figure compared.");
                LaunchedBench.reportOverhead(report, variants, nx, iterations);
            }
            if (only.contains("handwritten")) {
                section("handwritten");
                HandWrittenBench hand = new HandWrittenBench(repo, disk);
                HandWrittenBench.Result result = hand.run(1024, 400, 20, 210, quick ? 1 : 3);
                report.heading(2, "6. jckpt vs hand-written checkpoints (Kryo, ObjectOutputStream) and a whole-job restart");
                HandWrittenBench.report(report, result);
            }
            if (only.contains("recovery")) {
                section("recovery");
                LaunchedBench launched = new LaunchedBench(repo);
                List<LaunchedBench.Recovery> runs = launched.recovery(quick ? 1 : 3, 512);
                report.heading(2, "6. Recovery time breakdown (bin/ckpt-run --on-failure respawn, 4 rank JVMs)");
                report.paragraph("`HeatSolver --nx 512 --ny 512 --iterations 400 --ckpt-every 20 --sleep-ms 5` "
                        + "(128 x 512 doubles = 512 KiB per rank, m = 1); once rank 0 prints iteration 200 the bench "
                        + "SIGKILLs rank 2 and follows the launcher's events and the ranks' output.");
                LaunchedBench.reportRecovery(report, runs);
            }
        } finally {
            ReplicaStore.wipe(shm);
            deleteTree(disk);
        }
        double minutes = (System.nanoTime() - started) / 60e9;
        report.heading(2, "Run");
        report.paragraph(String.format(Locale.ROOT, "Suite time %.1f min. Load average before: %s; after: %s.",
                minutes, loadBefore, loadAverage()));
        Files.createDirectories(out.toAbsolutePath().getParent());
        Files.writeString(out, report.toString(), StandardCharsets.UTF_8);
        System.err.printf(Locale.ROOT, "bench: report written to %s (%.1f min)%n", out, minutes);
    }

    private static void section(String name) {
        System.err.println("bench: " + name + " ...");
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
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : (Iterable<Path>) walk.sorted(java.util.Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(p);
            }
        }
    }
}
