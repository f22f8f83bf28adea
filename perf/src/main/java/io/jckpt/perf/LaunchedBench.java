package io.jckpt.perf;

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
    static final String MAIN = "io.jckpt.samples.heat.HeatSolver";
    private static final Pattern LOOP_SECONDS = Pattern.compile("checksum [0-9a-f]+ \\(.*, ([0-9.]+) s\\)");
    private static final Pattern CHECKSUM = Pattern.compile("checksum ([0-9a-f]+)");
    private static final Pattern RECOVERED = Pattern.compile("recovered: .* ([0-9]+) ms after the failure was detected");
    private static final Pattern RESPAWN = Pattern.compile("respawn started after ([0-9]+) ms");

    private final Path repo;
    private final String cp;

    LaunchedBench(Path repo) {
        this.repo = repo;
        this.cp = repo.resolve("samples/target/classes").toString();
    }

    /** One solver variant's samples. */
    static final class Variant {
        final int every;
        final Samples loop = new Samples();
        final Samples wall = new Samples();
        final TreeSet<String> checksums = new TreeSet<>();

        Variant(int every) {
            this.every = every;
        }
    }

    private List<String> heatArgs(int nx, int iterations, int every, int sleepMs) {
        List<String> a = new ArrayList<>(List.of("--nx", Integer.toString(nx), "--ny", Integer.toString(nx),
                "--iterations", Integer.toString(iterations), "--report", Integer.toString(iterations)));
        if (every > 0) {
            a.addAll(List.of("--ckpt-every", Integer.toString(every)));
        }
        if (sleepMs > 0) {
            a.addAll(List.of("--sleep-ms", Integer.toString(sleepMs)));
        }
        return a;
    }

    /** Runs the solver (4 ranks) once per variant per repetition, variants interleaved. */
    List<Variant> overhead(int nx, int iterations, int[] everies, int reps) throws Exception {
        Map<Integer, Variant> variants = new LinkedHashMap<>();
        for (int e : everies) {
            variants.put(e, new Variant(e));
        }
        for (int rep = 0; rep < reps; rep++) {
            for (int e : everies) {
                List<String> args = new ArrayList<>(List.of("-np", "4", "--quiet", "-cp", cp, MAIN));
                args.remove("--quiet"); // the checksum line is rank output: keep it
                args.addAll(heatArgs(nx, iterations, e, 0));
                try (JobRun job = new JobRun(repo, args)) {
                    int status = job.awaitExit(180_000);
                    long wall = System.nanoTime() - job.startNanos;
                    if (status != 0) {
                        throw new IllegalStateException("heat solver (ckpt-every " + e + ") exited " + status + ":\n"
                                + job.output());
                    }
                    Variant v = variants.get(e);
                    v.loop.add(Double.parseDouble(job.find(LOOP_SECONDS)) * 1e9);
                    v.wall.add(wall);
                    v.checksums.add(job.find(CHECKSUM));
                }
                System.err.printf(Locale.ROOT, "bench: heat ckpt-every %d rep %d done%n", e, rep);
            }
        }
        return new ArrayList<>(variants.values());
    }

    static void reportOverhead(Report report, List<Variant> variants, int nx, int iterations) {
        Variant none = variants.get(0);
        String reference = none.checksums.isEmpty() ? "" : none.checksums.first();
        List<List<String>> rows = new ArrayList<>();
        for (Variant v : variants) {
            int checkpoints = v.every == 0 ? 0 : iterations / v.every;
            rows.add(List.of(v.every == 0 ? "none (baseline)" : "every " + v.every + " sweeps", Integer.toString(checkpoints),
                    Integer.toString(v.loop.count()), v.loop.timeCell(), "**" + Samples.ratio(v.loop.median(), none.loop.median()) + "**",
                    v.wall.timeCell(), Samples.ratio(v.wall.median(), none.wall.median()),
                    v.checksums.size() == 1 && v.checksums.first().equals(reference) ? "same" : "**DIFFERS: " + v.checksums + "**"));
        }
        report.table(List.of("checkpoints", "here() calls per rank", "n", "solver loop time (printed by rank 0)",
                "loop / no checkpoints", "job wall time (launch → exit)", "wall / no checkpoints", "checksum"), rows);
        if (variants.size() >= 3) {
            Variant few = variants.get(1);
            Variant many = variants.get(variants.size() - 1);
            int cFew = iterations / few.every;
            int cMany = iterations / many.every;
            double perCheckpoint = (many.loop.median() - few.loop.median()) / Math.max(1, cMany - cFew);
            double firstCost = few.loop.median() - none.loop.median() - (cFew - 1) * Math.max(0, perCheckpoint);
            String perText = perCheckpoint > 0 ? "each further checkpoint about " + Samples.time(perCheckpoint)
                    : "the cost of each further checkpoint is below the run-to-run noise here (the median with "
                    + cMany + " checkpoints is not above the one with " + cFew + ")";
            report.paragraph(String.format(Locale.ROOT, "Derived from the medians: the first checkpoint of a job costs about "
                    + "%s of loop time (collective store creation, ring join, first-use class loading and JIT in every rank "
                    + "JVM); %s. Checkpoint size: %d x %d doubles = %s per rank.", Samples.time(firstCost), perText,
                    nx / 4 + 2, nx, Samples.size((long) (nx / 4 + 2) * nx * 8)));
        }
    }

    /** One recovery: the timeline after a SIGKILL of rank 2, nanos relative to the kill. */
    record Recovery(double detected, double recoveredReported, double respawnReported, double worldLine,
                    double restoredFirst, double restoredLast, double rolledBack, String restoredFrom,
                    boolean checksumOk, int status) {
    }

    List<Recovery> recovery(int reps, int nx) throws Exception {
        List<String> reference = new ArrayList<>(List.of("-np", "4", "-cp", cp, MAIN));
        int iterations = 400;
        reference.addAll(heatArgs(nx, iterations, 0, 0));
        String expected;
        try (JobRun job = new JobRun(repo, reference)) {
            job.awaitExit(180_000);
            expected = job.find(CHECKSUM);
        }
        List<Recovery> out = new ArrayList<>();
        for (int rep = 0; rep < reps; rep++) {
            List<String> args = new ArrayList<>(List.of("-np", "4", "--on-failure", "respawn", "-cp", cp, MAIN));
            List<String> heat = heatArgs(nx, iterations, 20, 5);
            heat.set(7, "100"); // --report 100
            args.addAll(heat);
            try (JobRun job = new JobRun(repo, args)) {
                long[] pids = job.rankPids();
                job.await("iteration 200 residual", 120_000);
                long kill = System.nanoTime();
                ProcessHandle.of(pids[2]).ifPresent(ProcessHandle::destroyForcibly); // SIGKILL
                JobRun.Line detected = job.await("FAILURE", 30_000);
                JobRun.Line recovered = job.await("recovered: all", 60_000);
                job.await("rolled back to sweep", 60_000);
                int status = job.awaitExit(180_000);
                List<JobRun.Line> restored = job.linesContaining("restored round");
                JobRun.Line rolled = job.linesContaining("rolled back to sweep").get(0);
                double first = Double.NaN;
                double last = Double.NaN;
                TreeSet<String> from = new TreeSet<>();
                for (JobRun.Line l : restored) {
                    double t = l.nanos() - kill;
                    first = Double.isNaN(first) ? t : Math.min(first, t);
                    last = Double.isNaN(last) ? t : Math.max(last, t);
                    from.add(l.text().replaceAll(".*restored round [0-9]+ from ", ""));
                }
                String got = job.find(CHECKSUM);
                out.add(new Recovery(detected.nanos() - kill, Double.parseDouble(job.find(RECOVERED)) * 1e6,
                        Double.parseDouble(job.find(RESPAWN)) * 1e6, recovered.nanos() - kill, first, last,
                        rolled.nanos() - kill, restored.size() + " ranks: " + String.join(", ", from),
                        expected != null && expected.equals(got), status));
            }
            System.err.printf(Locale.ROOT, "bench: recovery rep %d done%n", rep);
        }
        return out;
    }

    static void reportRecovery(Report report, List<Recovery> runs) {
        Samples detected = new Samples();
        Samples respawn = new Samples();
        Samples world = new Samples();
        Samples worldLine = new Samples();
        Samples restoredFirst = new Samples();
        Samples restoredLast = new Samples();
        Samples rolled = new Samples();
        TreeSet<String> from = new TreeSet<>();
        int ok = 0;
        for (Recovery r : runs) {
            detected.add(r.detected());
            respawn.add(r.respawnReported());
            world.add(r.recoveredReported());
            worldLine.add(r.worldLine());
            restoredFirst.add(r.restoredFirst());
            restoredLast.add(r.restoredLast());
            rolled.add(r.rolledBack());
            from.add(r.restoredFrom());
            ok += r.checksumOk() && r.status() == 0 ? 1 : 0;
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("SIGKILL → launcher reports the failure (detection)", detected.timeCell()));
        rows.add(List.of("detection → re-spawn started (launcher's own figure)", respawn.timeCell()));
        rows.add(List.of("detection → all 4 ranks in a new MPJ world (launcher's own figure)", world.timeCell()));
        rows.add(List.of("SIGKILL → 'recovered' line", worldLine.timeCell()));
        rows.add(List.of("SIGKILL → first rank's 'restored round R' event", restoredFirst.timeCell()));
        rows.add(List.of("SIGKILL → last rank's 'restored round R' event", restoredLast.timeCell()));
        rows.add(List.of("SIGKILL → program running again with restored data ('rolled back to sweep', rank 0)", "**" + rolled.timeCell() + "**"));
        rows.add(List.of("paper: run-time recovery alone (T_recover loop)", "0.66 s"));
        report.table(List.of("step (times from the SIGKILL, as seen by the bench's output reader)", "median [spread]"), rows);
        report.paragraph(runs.size() + " recoveries; restored from: " + String.join("; ", from) + "; final checksum equal "
                + "to a failure-free run and exit status 0 in " + ok + " of " + runs.size() + ".");
    }
}
