package io.jckpt.perf;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;

/**
 * Section 11's text: the method ({@link #setup}), the tables ({@link #report}) and the key figures
 * ({@link #keyFigures}) of an {@link IntervalBench.Result}, whether its jobs ran now or were read back from
 * their kept logs ({@link IntervalLogs}).
 */
final class IntervalReport {
    private IntervalReport() {
    }

    private static String pct(double fraction) {
        return Double.isNaN(fraction) ? "n/a" : String.format(Locale.ROOT, "%.1f %%", fraction * 100);
    }

    /** "mean [min–max]" of fractions, as percentages. */
    private static String pctCell(Samples s) {
        if (s.count() == 0) {
            return "n/a";
        }
        return pct(s.mean()) + " [" + pct(s.min()) + "–" + pct(s.max()) + "]";
    }

    /** The program thread's CPU share rank 0 measured, median of the auto runs, as " (share 0.45)". */
    private static String shareCell(IntervalBench.Result r) {
        double u = r.jobFigure(IntervalBench.JobFigures::cpuShare);
        return Double.isNaN(u) ? "" : String.format(Locale.ROOT, " (CPU share %.2f)", u);
    }

    /** The launcher's hold H within R, as " (H 376 ms)", or "" when no run reported one. */
    private static String heldCell(IntervalBench.Result r) {
        double h = r.held();
        return Double.isNaN(h) ? "" : " (H " + Samples.time(h * 1e9) + ")";
    }

    /**
     * The standard error of the runs' mean over {@code scale}, as " ±12.3 %" (a fraction, {@code scale} 1) or
     * " ±0.15" (a ratio to {@code scale}); "" with fewer than two runs.
     */
    private static String seCell(Samples s, double scale) {
        double se = s.standardError() / scale;
        if (Double.isNaN(se)) {
            return "";
        }
        return scale == 1 ? " ±" + pct(se) : String.format(Locale.ROOT, " ±%.2f", se);
    }

    /** The seed of the model's draws: the same kept run, the same range. */
    private static final long SPREAD_SEED = 20261127L;

    /** "0.78–1.25x; 40 runs" (the model's 90 % range; the runs its range needs to fit 0.80-1.20x), or "n/a". */
    private static String rangeCell(ModelSpread.Pool p) {
        if (Double.isNaN(p.low())) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2f–%.2fx; %d runs", p.low(), p.high(), p.runsFor20());
    }

    /** "1.05x ±0.13 [0.78–1.25x]" of a pool, the ratio bold when outside the model's range. */
    private static String poolCell(ModelSpread.Pool p) {
        String ratio = Samples.ratio(p.measured(), p.predicted());
        return (p.withinChance() || Double.isNaN(p.low()) ? ratio : "**" + ratio + "**")
                + String.format(Locale.ROOT, " ±%.2f", p.standardError() / p.predicted())
                + (Double.isNaN(p.low()) ? "" : String.format(Locale.ROOT, " [%.2f–%.2fx]", p.low(), p.high()));
    }

    /**
     * Several kept runs judged together ({@code -Djckpt.bench.intervalLogs=DIR,DIR,...}): a row per run, then the
     * runs of the same job length pooled (their time lost summed over every job), each ratio with its standard
     * error and the model's 90 % range for as many runs of those jobs; key figures for each pool.
     *
     * @param report  the report
     * @param names   each run's name (its directory's)
     * @param results each run, read back
     */
    static void pooled(Report report, List<String> names, List<IntervalBench.Result> results) {
        double[] rates = results.get(0).config.mtbfs();
        List<String> header = new ArrayList<>(List.of("run", "job (sweeps, W)", "seeds", "H"));
        for (double mtbf : rates) {
            header.add("measured / predicted at " + IntervalBench.seconds(mtbf) + " s ±standard error [the model's 90 % range]");
        }
        header.add("for the failures injected");
        header.add("fed each job's own figures");
        header.add("with rank 0's even slow phase (the model before the pace)");
        header.add("the pace after a restart (over the reference's)");
        List<List<String>> rows = new ArrayList<>();
        java.util.TreeMap<Integer, List<IntervalBench.Result>> byLength = new java.util.TreeMap<>();
        for (int i = 0; i < results.size(); i++) {
            IntervalBench.Result r = results.get(i);
            byLength.computeIfAbsent(r.config.iterations(), k -> new ArrayList<>()).add(r);
            long[] seeds = r.config.seeds();
            List<String> row = new ArrayList<>(List.of(names.get(i), String.format(Locale.ROOT, "%,d, %.1f s",
                    r.config.iterations(), r.work()), seeds[0] + "-" + seeds[seeds.length - 1],
                    Double.isNaN(r.held()) ? "n/a" : Samples.time(r.held() * 1e9)));
            StringBuilder injected = new StringBuilder();
            StringBuilder perRun = new StringBuilder();
            StringBuilder paced = new StringBuilder();
            for (double mtbf : rates) {
                ModelSpread.Pool p = ModelSpread.pool(List.of(r.spreadPart(r.auto(mtbf))), SPREAD_SEED);
                row.add(poolCell(p));
                injected.append(injected.length() == 0 ? "" : ", ").append(Samples.ratio(p.measured(), p.forInjected()));
                perRun.append(perRun.length() == 0 ? "" : ", ").append(Samples.ratio(p.measured(), p.perRun()));
                paced.append(paced.length() == 0 ? "" : ", ").append(Samples.ratio(p.measured(), p.even()));
            }
            row.add(injected.toString());
            row.add(perRun.toString());
            row.add(paced.toString());
            row.add(r.pace.toString());
            rows.add(row);
        }
        List<List<String>> pools = new ArrayList<>();
        for (var e : byLength.entrySet()) {
            List<IntervalBench.Result> group = e.getValue();
            int seeds = group.stream().mapToInt(r -> r.config.seeds().length).sum();
            List<String> row = new ArrayList<>(List.of("pooled (" + group.size() + " runs)",
                    String.format(Locale.ROOT, "%,d", e.getKey()), seeds + " seeds", ""));
            StringBuilder injected = new StringBuilder();
            StringBuilder perRun = new StringBuilder();
            StringBuilder paced = new StringBuilder();
            for (double mtbf : rates) {
                List<ModelSpread.Part> parts = new ArrayList<>();
                group.forEach(r -> parts.add(r.spreadPart(r.auto(mtbf))));
                ModelSpread.Pool p = ModelSpread.pool(parts, SPREAD_SEED);
                row.add(poolCell(p));
                injected.append(injected.length() == 0 ? "" : ", ").append(Samples.ratio(p.measured(), p.forInjected()));
                perRun.append(perRun.length() == 0 ? "" : ", ").append(Samples.ratio(p.measured(), p.perRun()));
                paced.append(paced.length() == 0 ? "" : ", ").append(Samples.ratio(p.measured(), p.even()));
                pools.add(List.of(String.format(Locale.ROOT, "%,d", e.getKey()), IntervalBench.seconds(mtbf) + " s",
                        Integer.toString(p.runs()), Samples.time(p.measured() / p.runs() * 1e9),
                        Samples.time(p.predicted() / p.runs() * 1e9), poolCell(p),
                        p.withinChance() ? "yes" : "**no**", Long.toString(p.runsFor20()),
                        Samples.time(p.perRun() / p.runs() * 1e9), Samples.ratio(p.measured(), p.perRun()),
                        Samples.time(p.even() / p.runs() * 1e9), Samples.ratio(p.measured(), p.even())));
                BenchSuite.key(String.format(Locale.ROOT, "interval auto, jobs of %,d sweeps, job MTBF %s s: time lost to "
                        + "checkpoints and failures per job (target: within 20 %% of the advisor's; %d jobs, ±%.2f, "
                        + "the model's 90 %% range %.2f–%.2fx)", e.getKey(), IntervalBench.seconds(mtbf), p.runs(),
                        p.standardError() / p.predicted(), p.low(), p.high()),
                        p.measured() / p.runs() * 1e9, "advisor's prediction", p.predicted() / p.runs() * 1e9, "11");
            }
            row.add(injected.toString());
            row.add(perRun.toString());
            row.add(paced.toString());
            row.add("");
            rows.add(row);
        }
        report.paragraph("Runs read back from their kept logs and judged together: each run's auto jobs (measured / "
                + "predicted ± the standard error of the runs' mean, in brackets the range in which the model's own jobs, "
                + "drawn as many at a time, put that ratio 90 % of the time; a ratio in bold lies outside it), then "
                + "the runs of the same job length pooled, their time lost summed over every job. The model's range "
                + "leaves out what moves between jobs besides their failures (the machine's speed drifts: the "
                + "references' W spread by half), so the runs spread wider than it: the standard error is the error "
                + "bar to judge by.");
        report.table(header, rows);
        report.table(List.of("job (sweeps)", "job MTBF", "jobs", "time lost per job, measured", "predicted",
                "measured / predicted ±standard error [the model's 90 % range]", "within the range",
                "jobs that would put the ratio's 90 % confidence interval within ±0.20 (at the spread measured)",
                "predicted, fed each job's own figures (C, R, H, W)", "measured / that",
                "predicted with rank 0's even slow phase", "measured / that"), pools);
    }

    /** "mean [min–max]" of nanosecond samples. */
    private static String meanCell(Samples s) {
        if (s.count() == 0) {
            return "n/a";
        }
        return Samples.time(s.mean()) + " [" + Samples.time(s.min()) + "–" + Samples.time(s.max()) + "]";
    }

    /** The section's method, for the report. */
    static String setup(IntervalBench.Config c) {
        StringBuilder fixed = new StringBuilder();
        for (int calls : c.fixedCalls()) {
            fixed.append(fixed.length() == 0 ? "" : ", ").append(calls);
        }
        StringBuilder rates = new StringBuilder();
        for (double mtbf : c.mtbfs()) {
            rates.append(rates.length() == 0 ? "" : ", ").append(IntervalBench.seconds(mtbf)).append(" s");
        }
        return "`bin/ckpt-run -np 4 --on-failure respawn --standby 0 --max-recoveries 1000 --mtbf M --seed S HeatSolver "
                + "--nx " + c.nx() + " --ny " + c.nx() + " --iterations " + c.iterations() + " --report " + IntervalBench.REPORT_EVERY
                + " --replicas 1 --interval SPEC` "
                + "(`needCheckpoint()` after every pair of sweeps: " + c.calls() + " calls): the launcher SIGKILLs a "
                + "random rank after exponential times of mean M (the job's MTBF: " + rates + "), the failed rank is "
                + "re-spawned (a forked JVM: no warm standby, whose warm-up after each recovery would take CPU from the "
                + "computation) and every rank rolls back from its node-local store. SPEC is `auto` (with `--node-mtbf "
                + "4M`: the right prior, one node per rank; the job's failures refine it) " + (fixed.length() == 0 ? "alone (no fixed interval in this run)"
                : "or `calls:N` for N = " + fixed + " (too frequent to too rare)") + ". Seeds " + java.util.Arrays.toString(c.seeds()) + " for every interval "
                + "of a rate, so every interval meets the same failure times; intervals interleaved, and the references "
                + "too (one before each seed's runs). Run time = the "
                + "launcher's launch → exit: what auto is compared on. The launcher injects from its start, so some "
                + "failures hit the ranks' start-up, which the model does not cover (the same for every interval); the "
                + "measured overhead therefore takes the computation phase, from the computation's start (rank 0's first "
                + "residual line, every " + IntervalBench.REPORT_EVERY + " sweeps, less those sweeps' failure-free "
                + "time) to the exit: (phase − the reference's phase) / the reference's computation W, the reference "
                + "being the same job without checkpoints and failures that ran just before the same seed's jobs (it "
                + "met the load they met: the machine's load drifts). The advisor's "
                + "prediction is its model's (`io.jckpt.policy.interval.FailureModel`: Daly's expected time of segments that must "
                + "run without a failure, restarts included, and a slow phase after each restart; as the launcher injects "
                + "them, a failure that falls due while the launcher rebuilds the world strikes when the world is up, "
                + "and one due while the ranks restore their data in it cuts the restart short: H, the launcher's "
                + "detection → new world, mean over the auto runs' recoveries) for this job, from "
                + "what rank 0 measured and reports in its `interval policy` line at close (which `bin/ckpt-advisor "
                + "--log` reads; from the auto runs): the checkpoint cost C (here()'s blocking time plus the replication "
                + "thread's CPU divided by the program thread's share of a core), the restart R (the failure detected → "
                + "computing again); the pace after a restart as the kept logs show it (`RestartPace`: per half second "
                + "after rank 0's 'rolled back' line, the sweeps its residual lines reach over the pace of the seed's "
                + "reference, averaged over the auto runs' recoveries that lived through that half second; slowest "
                + "first, which a failure every few seconds pays almost whole: `SlowProfile.extraPerRestart`); the "
                + "injected MTBF, one level with every failure survivable "
                + "(process deaths: no store is wiped); for auto the interval is Daly's for C and M (what auto converges "
                + "to), for `calls:N` N x the computation per call. In brackets, the same model with failures that may "
                + "cut any part of a restart short (Daly's, what the advisor assumes for real failures), and with rank "
                + "0's even slow phase (`--slowdown`, `--slow-window`: its extra time spread evenly) in place of the pace. Not in the model: after a "
                + "recovery auto checkpoints at calls 1 and 2 before its learned interval. With a few failures per "
                + "run, their count alone moves the measured overhead by about 1 / sqrt(the failures of all runs); "
                + "the last columns take that out: the prediction for the failures the runs met (the model's "
                + "checkpoint share plus its failures' share x injected / expected failures), so that their ratio "
                + "judges the model's time lost per failure.";
    }

    static void report(Report report, IntervalBench.Result r) {
        IntervalBench.Config c = r.config;
        List<List<String>> summary = new ArrayList<>();
        for (double mtbf : c.mtbfs()) {
            IntervalBench.Point auto = r.auto(mtbf);
            IntervalBench.Point best = r.bestFixed(mtbf);
            Samples restarts = r.restarts(mtbf);
            double tau = r.dalyTau(mtbf);
            Samples measured = r.measured(auto);
            double predicted = r.predicted(auto);
            double forInjected = r.predictedForInjected(auto);
            summary.add(List.of(IntervalBench.seconds(mtbf) + " s", r.failures(auto),
                    Samples.time(r.cost(mtbf) * 1e9) + shareCell(r),
                    Samples.time(r.restart(mtbf) * 1e9) + heldCell(r) + "; here: " + restarts.timeCell(),
                    Samples.time(r.slowdown() * 1e9) + " over " + Samples.time(r.slowWindow() * 1e9) + " of computation",
                    Double.isNaN(tau) ? "n/a" : Samples.time(tau * 1e9) + " = " + Math.round(tau / r.perCall()) + " calls",
                    meanCell(auto.wall()), best == null ? "n/a" : best.label() + ": " + meanCell(best.wall()),
                    best == null ? "n/a" : "**" + Samples.ratio(auto.wall().mean(), best.wall().mean()) + "**",
                    best == null ? "n/a" : Samples.ratio(auto.phase(r.perSweep()).mean(), best.phase(r.perSweep()).mean()),
                    pct(predicted) + " (" + pct(r.predictedDaly(auto)) + "; even phase " + pct(r.predictedEven(auto)) + ")",
                    pctCell(measured) + seCell(measured, 1),
                    "**" + Samples.ratio(measured.mean(), predicted) + "**" + seCell(measured, predicted),
                    rangeCell(ModelSpread.pool(List.of(r.spreadPart(auto)), SPREAD_SEED)),
                    String.format(Locale.ROOT, "%.1f / %.1f (±%.0f %%)", r.failuresInPhase(auto),
                            r.expectedFailures(auto, predicted), 100 / Math.sqrt(r.failuresInPhases(auto))),
                    pct(forInjected), "**" + Samples.ratio(measured.mean(), forInjected) + "**"));
        }
        report.table(List.of("job MTBF (injected)", "failures per run (auto)",
                "checkpoint cost C (auto runs, rank 0: blocking + background CPU / the program's CPU share)",
                "restart R: rank 0's (the failure detected → computing again, mean over the job's recoveries; median of the"
                        + " auto runs; H: the launcher's hold); here: injection → 'rolled back', median [min–max]",
                "slowdown after a restart (rank 0, median of the auto runs of every rate)",
                "Daly's interval for C and the MTBF (advisor)",
                "run time, auto: mean [min–max]", "best fixed interval: mean [min–max]",
                "auto / best fixed (target ≤ 1.05x)", "the same over the computation phases",
                "advisor's predicted overhead (auto; failures cutting restarts short; rank 0's even slow phase in place"
                        + " of the pace)",
                "measured overhead (auto, computation phase): mean [min–max] ±the mean's standard error (over the runs)",
                "measured / predicted (target 0.80–1.20x) ±the standard error",
                "the model's 90 % range for as many runs (chance alone: its own jobs, failures at random); runs that"
                        + " would put the ratio's 90 % confidence interval within ±0.20",
                "failures per run in the computation phase: injected / the model's expectation (the count's sampling "
                        + "error over all runs, 1 / sqrt(failures))",
                "predicted for the failures injected (checkpoints + the failures' share x injected / expected)",
                "measured / predicted for the failures injected (the model's time lost per failure)"),
                summary);
        List<List<String>> rows = new ArrayList<>();
        for (double mtbf : c.mtbfs()) {
            IntervalBench.Point best = r.bestFixed(mtbf);
            for (IntervalBench.Point p : r.byRate.get(mtbf)) {
                Samples decided = new Samples();
                p.runs.stream().filter(x -> x.decided() > 0).forEach(x -> decided.add(x.decided()));
                TreeSet<String> sums = new TreeSet<>();
                p.runs.forEach(x -> sums.add(x.checksum() == null ? "none" : x.checksum()));
                boolean same = sums.size() == 1 && sums.first().equals(r.reference);
                double predicted = r.predicted(p);
                Samples measured = r.measured(p);
                rows.add(List.of(IntervalBench.seconds(mtbf) + " s", p.label(),
                        p.calls == 0 ? (decided.count() == 0 ? "n/a" : "decided at close: " + Math.round(decided.mean())
                                + " calls (mean)") : Samples.time(p.calls * r.perCall() * 1e9) + " of computation",
                        p.okRuns() + " of " + p.runs.size(),
                        r.failures(p),
                        meanCell(p.wall()), best == null || p.okRuns() == 0 ? "n/a"
                                : (p == best ? "**" : "") + Samples.ratio(p.wall().mean(), best.wall().mean()) + (p == best ? "**" : ""),
                        pctCell(measured), pct(predicted) + " (" + pct(r.predictedDaly(p)) + ")",
                        Samples.ratio(measured.mean(), predicted),
                        same ? "same" : "**DIFFERS: " + sums + "**"));
            }
        }
        report.paragraph("Per interval (the same seeds, so the same failure times, for every interval of a rate):");
        report.table(List.of("job MTBF", "interval", "interval length", "runs completed", "failures per run (mean)",
                "run time (launch → exit): mean [min–max]", "/ best fixed",
                "measured overhead (computation phase): mean [min–max]",
                "advisor's predicted overhead (failures cutting restarts short)", "measured / predicted", "checksum = failure-free"),
                rows);
        report.paragraph(String.format(Locale.ROOT, "Reference without checkpoints and failures (n = %d): run time %s, "
                + "computation phase %s, solver loop (the computation W) %s, so %s of computation per needCheckpoint() "
                + "call; checkpoint size %s per rank. Each job's output, with arrival times, is kept in "
                + "perf/target/interval-logs/.", r.baseWall.count(), r.baseWall.timeCell(), r.basePhase.timeCell(),
                r.baseLoop.timeCell(), Samples.time(r.perCall() * 1e9), Samples.size((long) (c.nx() / 4 + 2) * c.nx() * 8)));
    }

    /** Per rate: auto vs the best fixed interval, and the measured vs the predicted time lost. */
    static void keyFigures(IntervalBench.Result r) {
        for (double mtbf : r.config.mtbfs()) {
            IntervalBench.Point auto = r.auto(mtbf);
            IntervalBench.Point best = r.bestFixed(mtbf);
            if (best != null && auto.okRuns() > 0) {
                BenchSuite.key("interval auto, job MTBF " + IntervalBench.seconds(mtbf) + " s: run time (target ≤ 1.05x)",
                        auto.wall().mean(), "best fixed interval (" + best.label() + ")", best.wall().mean(), "11");
            }
            double predicted = r.predicted(auto);
            if (auto.okRuns() > 0 && !Double.isNaN(predicted)) {
                BenchSuite.key("interval auto, job MTBF " + IntervalBench.seconds(mtbf) + " s: time lost to checkpoints and failures "
                        + "(target: within 20 % of the advisor's)", r.measured(auto).mean() * r.baseLoop.median(),
                        "advisor's prediction", predicted * r.baseLoop.median(), "11");
                BenchSuite.key("interval auto, job MTBF " + IntervalBench.seconds(mtbf) + " s: time lost, for the failures injected "
                        + "(target: within 20 % of the advisor's)", r.measured(auto).mean() * r.baseLoop.median(),
                        "advisor's prediction for those failures", r.predictedForInjected(auto) * r.baseLoop.median(), "11");
            }
        }
    }
}
