package io.jckpt.perf;

import io.jckpt.testkit.JobEvents;
import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Pattern;

/**
 * Multi-process benchmarks through {@code bin/ckpt-run}: the heat solver's overhead with
 * checkpoints at several intervals vs without, and the recovery time breakdown after a SIGKILL,
 * 4 rank JVMs (niodev over loopback).
 */
final class LaunchedBench {
    /** The launcher's start line with hosts: "N warm standby(s) per host (H hosts)". */
    private static final java.util.regex.Pattern STANDBYS_PER_HOST =
            java.util.regex.Pattern.compile("([0-9]+) warm standbys? per host \\(([0-9]+) hosts\\)");
    static final String MAIN = "io.jckpt.samples.heat.HeatSolver";
    private static final Pattern LOOP_SECONDS = Pattern.compile("checksum [0-9a-f]+ \\(.*, ([0-9.]+) s\\)");
    private static final Pattern CHECKSUM = Pattern.compile("checksum ([0-9a-f]+)");

    private final Path repo;
    private final String cp;

    LaunchedBench(Path repo) {
        this.repo = repo;
        this.cp = repo.resolve("samples/target/classes").toString();
    }

    /** One solver variant's samples: checkpoint every {@code every} sweeps (0 = none) with m = {@code m}. */
    static final class Variant {
        final int every;
        final int m;
        final Samples loop = new Samples();
        final Samples wall = new Samples();
        final TreeSet<String> checksums = new TreeSet<>();

        Variant(int every, int m) {
            this.every = every;
            this.m = m;
        }

        String key() {
            return every + "/" + m;
        }
    }

    static List<String> heatArgs(int nx, int ny, int iterations, int every, int m, int sleepMs, int report) {
        List<String> a = new ArrayList<>(List.of("--nx", Integer.toString(nx), "--ny", Integer.toString(ny),
                "--iterations", Integer.toString(iterations), "--report", Integer.toString(report)));
        if (every > 0) {
            a.addAll(List.of("--ckpt-every", Integer.toString(every), "--replicas", Integer.toString(m)));
        }
        if (sleepMs > 0) {
            a.addAll(List.of("--sleep-ms", Integer.toString(sleepMs)));
        }
        return a;
    }

    /**
     * Runs the solver (4 ranks) once per variant per repetition, variants interleaved;
     * {@code variants} holds {every, m} pairs ({0, 0} = no checkpoints).
     */
    List<Variant> overhead(int nx, int iterations, int[][] variantSpecs, int reps) throws Exception {
        Map<String, Variant> variants = new LinkedHashMap<>();
        for (int[] e : variantSpecs) {
            Variant v = new Variant(e[0], e[1]);
            variants.put(v.key(), v);
        }
        for (int rep = 0; rep < reps; rep++) {
            for (Variant v : variants.values()) {
                List<String> args = new ArrayList<>(List.of("--no-report", "-np", "4", "-cp", cp, MAIN));
                args.addAll(heatArgs(nx, nx, iterations, v.every, v.m, 0, iterations));
                try (LaunchedJob job = LaunchedJob.start(repo, args, Map.of())) {
                    int status = job.awaitExit(180_000);
                    long wall = System.nanoTime() - job.startNanos();
                    if (status != 0) {
                        throw new IllegalStateException("heat solver (ckpt-every " + v.every + ", m " + v.m + ") exited "
                                + status + ":\n" + job.output());
                    }
                    v.loop.add(Double.parseDouble(job.find(LOOP_SECONDS)) * 1e9);
                    v.wall.add(wall);
                    v.checksums.add(job.find(CHECKSUM));
                }
                System.err.printf(Locale.ROOT, "bench: heat ckpt-every %d m %d rep %d done%n", v.every, v.m, rep);
            }
        }
        return new ArrayList<>(variants.values());
    }

    /**
     * The variant with exactly one checkpoint (every = iterations) and this m; else the one with
     * m = 1 (the first checkpoint's cost hardly depends on m: one image replicated once more); or null.
     */
    private static Variant single(List<Variant> variants, int iterations, int m) {
        Variant fallback = null;
        for (Variant v : variants) {
            if (v.every == iterations && v.m == m) {
                return v;
            }
            if (v.every == iterations && v.m == 1) {
                fallback = v;
            }
        }
        return fallback;
    }

    static void reportOverhead(Report report, List<Variant> variants, int nx, int iterations) {
        Variant none = variants.get(0);
        String reference = none.checksums.isEmpty() ? "" : none.checksums.first();
        List<List<String>> rows = new ArrayList<>();
        for (Variant v : variants) {
            int checkpoints = v.every == 0 ? 0 : iterations / v.every;
            Variant one = v.every == 0 ? null : single(variants, iterations, v.m);
            String excl = "-";
            String further = "-";
            if (one != null && v != one) {
                excl = pct((v.loop.median() - one.loop.median()) / none.loop.median());
                further = Samples.time((v.loop.median() - one.loop.median()) / (checkpoints - 1));
            } else if (v == one) {
                excl = "(the first checkpoint: " + Samples.time(v.loop.median() - none.loop.median()) + ")";
            }
            rows.add(List.of(v.every == 0 ? "none (baseline)" : "every " + v.every + " sweeps", v.every == 0 ? "-"
                    : Integer.toString(v.m), Integer.toString(checkpoints), Integer.toString(v.loop.count()),
                    v.loop.timeCell(), "**" + Samples.ratio(v.loop.median(), none.loop.median()) + "**",
                    v.every == 0 ? "-" : pct(v.loop.median() / none.loop.median() - 1), excl, further,
                    v.wall.timeCell(), Samples.ratio(v.wall.median(), none.wall.median()),
                    v.checksums.size() == 1 && v.checksums.first().equals(reference) ? "same" : "**DIFFERS: " + v.checksums + "**"));
        }
        report.table(List.of("checkpoints", "m", "here() calls per rank", "n", "solver loop time (printed by rank 0)",
                "loop / no checkpoints", "overhead including the first checkpoint", "overhead excluding it "
                        + "((loop − loop with one checkpoint) / none)", "each further checkpoint", "job wall time (launch → exit)",
                "wall / no checkpoints", "checksum"), rows);
        report.paragraph(String.format(Locale.ROOT, "The first checkpoint of a job pays for the collective store "
                + "creation, the ring join and first-use class loading and JIT in every rank JVM; the variant with one "
                + "checkpoint (at the last sweep) measures it, so 'excluding it' is what a long run pays per interval (a negative figure: below the run-to-run noise; "
                + "m = 2 rows use the one-checkpoint run of m = 1 when there is none of m = 2). "
                + "Checkpoint size: %d x %d doubles = %s per rank.", nx / 4 + 2, nx, Samples.size((long) (nx / 4 + 2) * nx * 8)));
    }

    /** The heat section's key figures: the first checkpoint and the loop time excluding it. */
    static void keyFigures(List<Variant> variants, int iterations) {
        Variant none = variants.get(0);
        for (Variant v : variants) {
            Variant one = v.every == 0 ? null : single(variants, iterations, v.m);
            if (v == one && v.m == 1) {
                BenchSuite.key("heat: loop time with one checkpoint (the first one's cost)", v.loop.median(),
                        "no checkpoints", none.loop.median(), "8");
            } else if (one != null && v != one && (v.every == 40 || v.every == 20 || v.every == 10)) {
                BenchSuite.key("heat: loop time, every " + v.every + " sweeps, m = " + v.m + ", excluding the first "
                        + "checkpoint", none.loop.median() + v.loop.median() - one.loop.median(), "no checkpoints",
                        none.loop.median(), "8");
            }
        }
    }

    private static String pct(double fraction) {
        return String.format(Locale.ROOT, "%+.1f %%", fraction * 100);
    }

    /** Overhead vs interval for the plot: one series per m, overhead in percent of the no-checkpoint loop. */
    static Map<Integer, List<SvgPlot.Point>> overheadPoints(List<Variant> variants, int iterations, boolean excludeFirst) {
        Variant none = variants.get(0);
        Map<Integer, List<SvgPlot.Point>> out = new java.util.TreeMap<>();
        for (Variant v : variants) {
            if (v.every == 0 || v.every == iterations) {
                continue;
            }
            double base = none.loop.median();
            if (excludeFirst) {
                Variant one = single(variants, iterations, v.m);
                if (one == null) {
                    continue;
                }
                base = none.loop.median() + (one.loop.median() - none.loop.median());
            }
            double b = base;
            out.computeIfAbsent(v.m, k -> new ArrayList<>()).add(new SvgPlot.Point(v.every,
                    (v.loop.median() - b) / none.loop.median() * 100, (v.loop.low() - b) / none.loop.median() * 100,
                    (v.loop.high() - b) / none.loop.median() * 100));
        }
        out.values().forEach(l -> l.sort(java.util.Comparator.comparingDouble(SvgPlot.Point::x)));
        return out;
    }

    /**
     * A failure the bench makes itself instead of the launcher's {@code --kill} (a whole test host lost),
     * and its repair for the next run.
     */
    interface Failure {
        /** Makes the failure now in {@code job} (whose ranks and job id it may need). */
        void inject(LaunchedJob job) throws Exception;

        /** Puts back what failed (after the job ended). */
        void repair() throws Exception;
    }

    /**
     * A node lost on this one host, made by the bench: rank 2 stopped (SIGSTOP, so it writes nothing
     * more), its node-local store deleted (where the launcher's {@code :wipe} deletes it), then killed
     * (SIGKILL). The same failure as {@code --kill 2@round=R:wipe}, at a moment the bench chooses.
     */
    record LocalNodeLoss(Path memoryDirectory) implements Failure {
        @Override
        public void inject(LaunchedJob job) throws Exception {
            long pid = job.rankPids()[2];
            new ProcessBuilder("kill", "-STOP", Long.toString(pid)).start().waitFor();
            Path store = memoryDirectory.resolve(job.jobId()).resolve("rank-2");
            if (!java.nio.file.Files.exists(store)) {
                throw new IllegalStateException("no node-local store of rank 2 at " + store);
            }
            BenchSuite.deleteTree(store);
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }

        @Override
        public void repair() {
        }
    }

    /**
     * One recovery case: a grid of {@code nx x ny} (so {@code bytes} per rank), rank 2 killed by the
     * bench's SIGKILL once rank 0 prints sweep {@code killSweep} ({@code pid}) or by the launcher's
     * {@code --kill 2@round=R[:wipe]}, recovered by {@code policy} (respawn or relaunch) with
     * {@code standbys} warm standby JVMs (negative: the launcher's default). {@code launcherArgs} place
     * the ranks (hosts); a {@code failure} replaces the kill, made by the bench at the same sweep.
     */
    record Case(String label, int nx, int ny, boolean pid, boolean wipe, String policy, int standbys,
                List<String> launcherArgs, Failure failure) {
        Case(String label, int nx, int ny, boolean pid, boolean wipe, String policy, int standbys) {
            this(label, nx, ny, pid, wipe, policy, standbys, List.of(), null);
        }

        long bytes() {
            return (long) (ny / 4 + 2) * nx * 8;
        }

        /** A pause per sweep so that small grids are still running when the failure comes. */
        int sleepMs() {
            return bytes() < (1 << 20) ? 10 : bytes() < (16 << 20) ? 3 : 0;
        }
    }

    static final int RECOVERY_ITERATIONS = 100;
    static final int RECOVERY_EVERY = 10;
    static final int RECOVERY_ROUND = 3;

    /** One recovery: the timeline after the failure, nanos relative to the SIGKILL (or the injection event). */
    record Recovery(Case c, double detected, double recoveredReported, double respawnReported, double worldLine,
                    double restoredFirst, double restoredLast, double rolledBack, String restoredFrom,
                    boolean checksumOk, int status) {
        /** Whether the job went through a recovery at all (not the case when the failure came after its end). */
        boolean recovered() {
            return !Double.isNaN(worldLine);
        }
    }

    /** Runs each case {@code reps} times (cases interleaved), each grid's checksum vs a failure-free run. */
    List<Recovery> recovery(List<Case> cases, int reps) throws Exception {
        Map<String, String> expected = new LinkedHashMap<>();
        for (Case c : cases) {
            String grid = c.nx() + "x" + c.ny();
            if (!expected.containsKey(grid)) {
                List<String> reference = new ArrayList<>(List.of("--no-report", "-np", "4", "-cp", cp, MAIN));
                reference.addAll(heatArgs(c.nx(), c.ny(), RECOVERY_ITERATIONS, 0, 1, 0, RECOVERY_ITERATIONS));
                try (LaunchedJob job = LaunchedJob.start(repo, reference, Map.of())) {
                    job.awaitExit(180_000);
                    expected.put(grid, job.find(CHECKSUM));
                }
            }
        }
        List<Recovery> out = new ArrayList<>();
        for (int rep = 0; rep < reps; rep++) {
            for (Case c : cases) {
                // a loaded machine can delay the injection until the job has finished: then one more attempt
                for (int attempt = 0; attempt < 2; attempt++) {
                    Recovery r = recoverOnce(c, expected.get(c.nx() + "x" + c.ny()));
                    out.add(r);
                    if (r.recovered()) {
                        break;
                    }
                    System.err.printf(Locale.ROOT, "bench: recovery %s rep %d: no recovery (%s)%n", c.label(), rep,
                            r.restoredFrom());
                }
                System.err.printf(Locale.ROOT, "bench: recovery %s rep %d done%n", c.label(), rep);
            }
        }
        return out;
    }

    private Recovery recoverOnce(Case c, String expected) throws Exception {
        List<String> args = new ArrayList<>(List.of("--no-report", "-np", "4", "--on-failure", c.policy()));
        if (c.standbys() >= 0) {
            args.addAll(List.of("--standby", Integer.toString(c.standbys())));
        }
        args.addAll(c.launcherArgs());
        int killSweep = RECOVERY_EVERY * RECOVERY_ROUND;
        if (!c.pid() && c.failure() == null) {
            args.addAll(List.of("--kill", "2@round=" + RECOVERY_ROUND + (c.wipe() ? ":wipe" : "")));
        }
        args.addAll(List.of("-cp", cp, MAIN));
        args.addAll(heatArgs(c.nx(), c.ny(), RECOVERY_ITERATIONS, RECOVERY_EVERY, 1, c.sleepMs(), RECOVERY_EVERY));
        try (LaunchedJob job = LaunchedJob.start(repo, args, Map.of())) {
            long kill = 0;
            if (c.failure() != null) {
                if (c.standbys() > 0) {
                    // the case measured is a failure that meets warm standbys: wait until every host has its
                    // standbys ready (their warm-up takes seconds of these two cores' CPU at the start)
                    java.util.regex.Matcher m = STANDBYS_PER_HOST.matcher(job.awaitLine("warm standby", 60_000).text());
                    int standbys = m.find() ? Integer.parseInt(m.group(1)) * Integer.parseInt(m.group(2)) : c.standbys();
                    if (job.awaitLinesOrExit(" ready (pid ", standbys, 120_000) == null) {
                        // the warm-ups compete with the job for the two cores: it can end first (one more attempt)
                        int status = job.awaitExit(60_000);
                        return new Recovery(c, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                                Double.NaN, "the job ended (status " + status + ") before its " + standbys
                                + " warm standbys were ready", false, status);
                    }
                }
                job.awaitLine("iteration " + killSweep + " residual", 120_000);
                kill = System.nanoTime();
                c.failure().inject(job);
            } else if (c.pid()) {
                long[] pids = job.awaitRankPids(60_000);
                job.awaitLine("iteration " + killSweep + " residual", 120_000);
                kill = System.nanoTime();
                ProcessHandle.of(pids[2]).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL
            }
            int status = job.awaitExit(300_000);
            // the launcher's facts and times from its events file (docs/events.md); 'rolled back to sweep'
            // and the checksum are rank 0's own output
            List<JobEvents.Event> events = job.events();
            if (!c.pid() && c.failure() == null) {
                JobEvents.Event injection = JobEvents.first(events, "injection", e -> true);
                if (injection == null) {
                    throw new IllegalStateException("no injection in the events of " + String.join(" ", args)
                            + ":\n" + job.output());
                }
                kill = job.nanos(injection);
            }
            JobEvents.Event detected = JobEvents.first(events, "failure", e -> true);
            JobEvents.Event recovered = JobEvents.first(events, "recovered", e -> true);
            List<LaunchedJob.Line> rolledLines = job.lines("rolled back to sweep");
            if (recovered == null || detected == null) {
                return new Recovery(c, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN, Double.NaN,
                        "the job ended (status " + status + ") without a recovery: the failure came after its last sweep",
                        false, status);
            }
            if (rolledLines.isEmpty()) {
                throw new IllegalStateException("recovered, but rank 0 never rolled back:\n" + job.output());
            }
            double first = Double.NaN;
            double last = Double.NaN;
            TreeSet<String> from = new TreeSet<>();
            List<JobEvents.Event> restored = JobEvents.ofType(events, "rollback");
            for (JobEvents.Event e : restored) {
                double t = job.nanos(e) - kill;
                first = Double.isNaN(first) ? t : Math.min(first, t);
                last = Double.isNaN(last) ? t : Math.max(last, t);
                String how = e.text("how");
                from.add(e.text("source") + (how.isEmpty() ? "" : " (" + how.toUpperCase(Locale.ROOT) + ")"));
            }
            String got = job.find(CHECKSUM);
            if (c.failure() != null) {
                HostsBench.keep(repo, "recovery-host-loss", job);
            }
            return new Recovery(c, job.nanos(detected) - kill, recovered.decimal("world_ms") * 1e6,
                    recovered.decimal("respawn_ms") * 1e6, job.nanos(recovered) - kill, first, last,
                    rolledLines.get(0).nanos() - kill, restored.size() + " ranks: " + String.join(", ", from),
                    expected != null && expected.equals(got), status);
        } finally {
            if (c.failure() != null) {
                c.failure().repair();
            }
        }
    }

    static void reportRecovery(Report report, List<Case> cases, List<Recovery> runs) {
        List<List<String>> rows = new ArrayList<>();
        Map<Case, Double> totals = new LinkedHashMap<>();
        for (Case c : cases) {
            Samples detected = new Samples();
            Samples respawn = new Samples();
            Samples world = new Samples();
            Samples worldLine = new Samples();
            Samples restoredLast = new Samples();
            Samples rolled = new Samples();
            TreeSet<String> from = new TreeSet<>();
            int ok = 0;
            int n = 0;
            int late = 0;
            for (Recovery r : runs) {
                if (!r.c().equals(c)) {
                    continue;
                }
                if (!r.recovered()) {
                    late++;
                    continue;
                }
                n++;
                detected.add(r.detected());
                respawn.add(r.respawnReported());
                world.add(r.recoveredReported());
                worldLine.add(r.worldLine());
                restoredLast.add(r.restoredLast());
                rolled.add(r.rolledBack());
                from.add(r.restoredFrom());
                ok += r.checksumOk() && r.status() == 0 ? 1 : 0;
            }
            totals.put(c, rolled.median());
            rows.add(List.of(c.label(), Samples.size(c.bytes()), Integer.toString(n), detected.timeCell(), respawn.timeCell(),
                    world.timeCell(), worldLine.timeCell(), restoredLast.timeCell(), "**" + rolled.timeCell() + "**",
                    String.join("; ", from) + (late > 0 ? "; " + late + " more run(s) ended before the failure came, "
                            + "not counted" : ""), ok + " of " + n));
        }
        report.table(List.of("failure", "checkpoint per rank", "n", "kill → launcher's `failure` event (detection)",
                "detection → re-spawn started (launcher)", "detection → all 4 ranks in a new MPJ world (launcher)",
                "kill → `recovered` event", "kill → last rank's `rollback` event (rollback done)",
                "kill → computing again ('rolled back to sweep', rank 0)", "restored from", "checksum = failure-free, exit 0"),
                rows);
    }

    /** Kill → running again, per case (medians), for the ratio column the suite adds. */
    static Map<Case, Samples> totals(List<Recovery> runs) {
        Map<Case, Samples> out = new LinkedHashMap<>();
        for (Recovery r : runs) {
            if (r.recovered()) {
                out.computeIfAbsent(r.c(), k -> new Samples()).add(r.rolledBack());
            }
        }
        return out;
    }
}
