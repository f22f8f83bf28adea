package io.jckpt.perf;

import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * jckpt (in-place recovery) against what a Java user writes without it ({@link HandWrittenHeat}:
 * Kryo or ObjectOutputStream files in a shared directory, the whole job restarted after a failure):
 * the same heat solver, the same interval, the same failure (rank 2 SIGKILLed once rank 0 printed
 * the same sweep). Failure-free run time, checkpoint cost, time lost to one failure, and the final
 * checksum compared with the solver without checkpoints. Variants interleaved per repetition.
 */
final class HandWrittenBench {
    private static final Pattern LOOP_SECONDS = Pattern.compile("checksum [0-9a-f]+ \\(.*, ([0-9.]+) s\\)");
    private static final Pattern CHECKSUM = Pattern.compile("checksum ([0-9a-f]+)");
    private static final Pattern BLOCKED = Pattern.compile("checkpoint round ([0-9]+): .* here\\(\\) blocked ([0-9.]+) ms");
    private static final Pattern WRITES = Pattern.compile("hand-written checkpoints \\([a-z]+\\): [0-9]+, ([0-9.]+) s");
    static final String HAND = HandWrittenHeat.class.getName();
    static final List<String> VARIANTS = List.of("none", "jckpt", "kryo", "java");

    /** One variant's samples. */
    static final class Variant {
        final String name;
        final Samples loop = new Samples();
        final Samples wall = new Samples();
        final Samples writes = new Samples();
        final Samples failWall = new Samples();
        final Samples lost = new Samples();
        final Samples lostComputing = new Samples();
        final Samples backAfterKill = new Samples();
        final TreeSet<String> checksums = new TreeSet<>();
        final TreeSet<String> failChecksums = new TreeSet<>();

        Variant(String name) {
            this.name = name;
        }
    }

    /** The section's result; {@code failure} names it in the tables ("SIGKILL", "host loss"). */
    record Result(int nx, int iterations, int every, int killAt, List<Variant> variants, String failure) {
    }

    /**
     * Ranks on several hosts (section 12): the launcher's options that place them, those of a whole-job
     * restart after the failure (the hosts left), and the failure, which replaces the SIGKILL of rank 2.
     */
    record Hosts(List<String> args, List<String> restartArgs, LaunchedBench.Failure failure) {
    }

    private final Path repo;
    private final Path disk;
    private final String cp;
    private final Hosts hosts;

    HandWrittenBench(Path repo, Path disk) {
        this(repo, disk, null);
    }

    /** {@code hosts}: null for every rank on this host. */
    HandWrittenBench(Path repo, Path disk, Hosts hosts) {
        this.repo = repo;
        this.disk = disk;
        this.cp = repo.resolve("perf/target/classes") + ":" + repo.resolve("samples/target/classes");
        this.hosts = hosts;
    }

    private List<String> solver(String variant, int nx, int iterations, int every, Path dir) {
        List<String> a = new ArrayList<>(List.of("-cp", cp, variant.equals("none") || variant.equals("jckpt")
                ? LaunchedBench.MAIN : HAND, "--nx", Integer.toString(nx), "--ny", Integer.toString(nx), "--iterations",
                Integer.toString(iterations), "--report", "10"));
        if (!variant.equals("none")) {
            a.addAll(List.of("--ckpt-every", Integer.toString(every)));
        }
        if (variant.equals("kryo") || variant.equals("java")) {
            a.addAll(List.of("--format", variant, "--dir", dir.toString()));
        }
        return a;
    }

    private List<String> launch(String policy, List<String> solver, boolean restart) {
        List<String> a = new ArrayList<>(List.of("--no-report", "-np", "4", "--on-failure", policy));
        if (hosts != null) {
            a.addAll(restart ? hosts.restartArgs() : hosts.args());
        }
        a.addAll(solver);
        return a;
    }

    /** {@code names}: some of {@link #VARIANTS}, "none" and "jckpt" first. */
    Result run(int nx, int iterations, int every, int killAt, int reps, List<String> names) throws Exception {
        Map<String, Variant> variants = new LinkedHashMap<>();
        names.forEach(v -> variants.put(v, new Variant(v)));
        for (int rep = 0; rep < reps; rep++) {
            Map<String, Double> freeWall = new LinkedHashMap<>();
            Map<String, Double> freeSpan = new LinkedHashMap<>();
            for (String name : names) { // failure-free
                Variant v = variants.get(name);
                Path dir = Files.createDirectories(disk.resolve("hand-" + name + "-" + rep));
                try (LaunchedJob job = LaunchedJob.start(repo, launch("fail", solver(name, nx, iterations, every, dir), false),
                        Map.of())) {
                    int status = job.awaitExit(180_000);
                    double wall = System.nanoTime() - job.startNanos();
                    if (status != 0) {
                        throw new IllegalStateException(name + " failed (" + status + "):\n" + job.output());
                    }
                    v.loop.add(Double.parseDouble(job.find(LOOP_SECONDS)) * 1e9);
                    v.wall.add(wall);
                    freeWall.put(name, wall);
                    freeSpan.put(name, span(job, job));
                    v.checksums.add(job.find(CHECKSUM));
                    String w = job.find(WRITES);
                    if (w != null) { // rank 0's mean per checkpoint
                        v.writes.add(Double.parseDouble(w) * 1e9 / (iterations / every));
                    }
                    for (LaunchedJob.Line line : job.lines("here() blocked")) {
                        java.util.regex.Matcher m = BLOCKED.matcher(line.text());
                        if (m.find() && Long.parseLong(m.group(1)) >= 2) { // round 1 creates the store
                            v.writes.add(Double.parseDouble(m.group(2)) * 1e6);
                        }
                    }
                } finally {
                    BenchSuite.deleteTree(dir);
                }
                System.err.printf(Locale.ROOT, "bench: hand-written %s failure-free rep %d done%n", name, rep);
            }
            for (String name : names.subList(1, names.size())) { // one failure each
                Variant v = variants.get(name);
                Path dir = Files.createDirectories(disk.resolve("hand-" + name + "-fail-" + rep));
                try {
                    List<String> solver = solver(name, nx, iterations, every, dir);
                    boolean jckpt = name.equals("jckpt");
                    double wall;
                    double back;
                    double span;
                    String checksum;
                    try (LaunchedJob job = LaunchedJob.start(repo, launch(jckpt ? "respawn" : "fail", solver, false),
                            Map.of())) {
                        long[] pids = hosts == null ? job.awaitRankPids(60_000) : null;
                        job.awaitLine("iteration " + killAt + " residual", 120_000);
                        long kill = System.nanoTime();
                        if (hosts == null) {
                            ProcessHandle.of(pids[2]).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL
                        } else {
                            hosts.failure().inject(job);
                        }
                        int status = job.awaitExit(180_000);
                        if (hosts != null) {
                            HostsBench.keep(repo, "hand-" + name + "-host-loss", job);
                        }
                        if (jckpt) {
                            if (status != 0) {
                                throw new IllegalStateException("jckpt did not recover (" + status + "):\n" + job.output());
                            }
                            wall = System.nanoTime() - job.startNanos();
                            back = job.awaitLine("rolled back to sweep", 1_000).nanos() - kill;
                            checksum = job.find(CHECKSUM);
                            span = span(job, job);
                        } else {
                            if (status == 0) {
                                throw new IllegalStateException(name + ": the job survived the SIGKILL:\n" + job.output());
                            }
                            // the whole job is started again at once, reading the files
                            try (LaunchedJob again = LaunchedJob.start(repo, launch("fail", solver, true), Map.of())) {
                                int s2 = again.awaitExit(180_000);
                                if (hosts != null) {
                                    HostsBench.keep(repo, "hand-" + name + "-restart", again);
                                }
                                if (s2 != 0) {
                                    throw new IllegalStateException(name + " restart failed (" + s2 + "):\n" + again.output());
                                }
                                wall = System.nanoTime() - job.startNanos();
                                back = again.awaitLine("restarted from sweep", 1_000).nanos() - kill;
                                checksum = again.find(CHECKSUM);
                                span = span(job, again);
                            }
                        }
                    }
                    v.failWall.add(wall);
                    v.lost.add(wall - freeWall.get(name));
                    v.lostComputing.add(span - freeSpan.get(name));
                    v.backAfterKill.add(back);
                    v.failChecksums.add(checksum);
                } finally {
                    BenchSuite.deleteTree(dir);
                    if (hosts != null) {
                        hosts.failure().repair();
                    }
                }
                System.err.printf(Locale.ROOT, "bench: hand-written %s with a failure rep %d done%n", name, rep);
            }
        }
        return new Result(nx, iterations, every, killAt, new ArrayList<>(variants.values()),
                hosts == null ? "SIGKILL" : "host loss");
    }

    /**
     * Nanos from rank 0's first progress line in {@code first} to its checksum line in {@code last}: the
     * computation with what a failure adds to it, without the first job's start-up and the last one's end.
     */
    private static double span(LaunchedJob first, LaunchedJob last) {
        return firstLine(last, "] checksum ") - firstLine(first, " residual ");
    }

    private static long firstLine(LaunchedJob job, String text) {
        List<LaunchedJob.Line> lines = job.lines(text);
        if (lines.isEmpty()) {
            throw new IllegalStateException("no line containing '" + text + "' in the job's output:\n" + job.output());
        }
        return lines.get(0).nanos();
    }

    static void report(Report report, Result r) {
        int checkpoints = r.iterations() / r.every();
        long bytes = (long) (r.nx() / 4 + 2) * r.nx() * 8;
        report.paragraph(String.format(Locale.ROOT, "`--nx %d --ny %d --iterations %d --report 10`, checkpoint every %d "
                + "sweeps (%d checkpoints, %s per rank: the grid block with its halo rows, as jckpt registers it), 4 rank "
                + "JVMs. **jckpt**: `HeatSolver` unchanged, m = 1, memory level only, `--on-failure respawn` with the launcher's "
                + "default standby (" + io.jckpt.runtime.launcher.LaunchSpec.defaultStandbys(
                io.jckpt.runtime.launcher.LaunchSpec.FailurePolicy.RESPAWN, io.jckpt.runtime.launcher.Device.NIODEV, 4,
                Runtime.getRuntime().availableProcessors()) + " here: one only when the host has more cores than ranks). **Kryo** / "
                + "**ObjectOutputStream**: `HandWrittenHeat` (perf), the same kernel, blocks and halo exchange; each rank "
                + "writes its block and the sweep to a file in a shared directory on the local disk (temporary name, "
                + "rename, barrier, rank 0 renames a `latest` marker; no fsync), and after the failure the harness starts "
                + "the whole job again (`bin/ckpt-run --on-failure fail` exited 1; restarted at once: a batch "
                + "scheduler's requeue delay would add to it). The failure: rank 2 SIGKILLed when rank 0 prints sweep %d "
                + "(%d sweeps after the checkpoint at sweep %d). Variants interleaved; the time lost is paired per "
                + "repetition (run with the failure − failure-free run of the same variant). jckpt's cost per checkpoint "
                + "includes its first checkpoint (store creation, ring join, class loading and JIT in 4 JVMs, ~1 s: see "
                + "section 8 for it separated); the files' include Kryo's or serialization's first use.",
                r.nx(), r.nx(), r.iterations(), r.every(), checkpoints, Samples.size(bytes), r.killAt(),
                r.killAt() % r.every(), r.killAt() - r.killAt() % r.every()));
        tables(report, r);
        report.paragraph(NOISE);
    }

    /** What the time-lost columns measure, and how noisy each is. */
    static final String NOISE = "The time lost is the difference of two job wall times, each with its own JVM start-up "
            + "and end (jckpt's job wall also holds Ckpt.open and close), so on this shared machine it is noisy; the "
            + "next column leaves out the first job's start-up (until rank 0's first progress line) and the last "
            + "job's end (after its checksum line), keeping the failure, the restart with its start-up, and the "
            + "recomputed sweeps; 'failure → computing again' is the direct measure of the restart itself (the "
            + "sweeps recomputed after it are the same for all variants).";

    /** The section's two tables: failure-free, and with one failure. */
    static void tables(Report report, Result r) {
        Variant none = r.variants().get(0);
        String reference = none.checksums.isEmpty() ? "?" : none.checksums.first();
        int checkpoints = r.iterations() / r.every();
        List<List<String>> rows = new ArrayList<>();
        for (Variant v : r.variants()) {
            boolean ckpt = !v.name.equals("none");
            double perCkpt = ckpt ? (v.loop.median() - none.loop.median()) / checkpoints : Double.NaN;
            rows.add(List.of(label(v.name), Integer.toString(v.loop.count()), v.loop.timeCell(),
                    "**" + Samples.ratio(v.loop.median(), none.loop.median()) + "**",
                    ckpt ? Samples.time(perCkpt) : "-",
                    v.writes.count() > 0 ? v.writes.timeCell() + " (" + v.writes.count() + ")" : "-",
                    v.wall.timeCell(), same(v.checksums, reference)));
        }
        report.table(List.of("failure-free", "n", "solver loop time (rank 0)", "loop / no checkpoints",
                "cost per checkpoint ((loop − none) / checkpoints)", "rank 0 stopped per checkpoint (samples): jckpt here() blocking from the launcher's progress lines, rounds ≥ 2; hand-written: write + barrier + marker, mean of a run",
                "job wall time", "checksum vs no checkpoints"), rows);
        rows = new ArrayList<>();
        Variant jckpt = r.variants().get(1);
        for (Variant v : r.variants().subList(1, r.variants().size())) {
            rows.add(List.of(label(v.name), Integer.toString(v.lost.count()), v.failWall.timeCell(), "**" + v.lost.timeCell() + "**",
                    jckpt.lost.median() > 0 ? Samples.ratio(v.lost.median(), jckpt.lost.median())
                            : "n/a (jckpt's is within the noise)", "**" + v.lostComputing.timeCell() + "**",
                    jckpt.lostComputing.median() > 0 ? Samples.ratio(v.lostComputing.median(), jckpt.lostComputing.median())
                            : "n/a (jckpt's is within the noise)", v.backAfterKill.timeCell(),
                    "**" + Samples.ratio(v.backAfterKill.median(), jckpt.backAfterKill.median()) + "**",
                    same(v.failChecksums, reference)));
        }
        report.table(List.of("with one failure", "n", "job wall time (both jobs for a restart)",
                "time lost to the failure (paired: − failure-free wall)", "lost / jckpt's lost",
                "time lost, rank 0's first progress line → its checksum line (paired: − failure-free)", "that / jckpt's",
                r.failure() + " → computing again from the checkpoint ('rolled back' / 'restarted from' line)",
                "that / jckpt's", "final checksum vs no checkpoints"), rows);
    }

    /** Key figures: each variant's time lost to the failure beside jckpt's. */
    static void keyFigures(Result r) {
        Variant jckpt = r.variants().get(1);
        for (Variant v : r.variants().subList(2, r.variants().size())) {
            BenchSuite.key("SIGKILL → computing again: " + label(v.name), v.backAfterKill.median(), "jckpt",
                    jckpt.backAfterKill.median(), "9");
        }
        Variant none = r.variants().get(0);
        for (Variant v : r.variants().subList(1, r.variants().size())) {
            BenchSuite.key("failure-free loop time: " + label(v.name), v.loop.median(), "no checkpoints", none.loop.median(), "9");
        }
    }

    private static String label(String name) {
        return switch (name) {
            case "none" -> "no checkpoints (baseline)";
            case "jckpt" -> "jckpt (in-place recovery)";
            case "kryo" -> "hand-written, Kryo files, whole-job restart";
            default -> "hand-written, ObjectOutputStream files, whole-job restart";
        };
    }

    private static String same(TreeSet<String> got, String reference) {
        return got.size() == 1 && got.first().equals(reference) ? "bit-identical" : "**DIFFERS: " + got + "**";
    }
}
