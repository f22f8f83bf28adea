package io.jckpt.perf;

import io.jckpt.testkit.JobEvents;
import io.jckpt.testkit.LaunchedJob;

import io.jckpt.policy.interval.FailureModel;
import io.jckpt.advisor.Simulator;
import io.jckpt.policy.interval.SlowProfile;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Section 11, choosing the interval: the heat solver through {@code bin/ckpt-run --mtbf} (random
 * SIGKILLs of random ranks, exponential inter-arrival times, reproducible by seed) at a few failure
 * rates; total run time with {@code --interval auto} vs a sweep of fixed intervals ({@code calls:N},
 * from too frequent to too rare), the same seeds for every interval of a rate (common random numbers:
 * the same failure times); and the advisor's model ({@link FailureModel}) fed with the job's measured
 * checkpoint cost, its measured restart and the injected MTBF, against the measured overhead.
 *
 * <p><b>Size</b> (past 600 lines): the jobs' launch and their figures ({@link Run}) stay beside the analysis
 * that reads those figures ({@link Result}: the model's predictions, the measured overhead, the failures'
 * count). The section's text is {@link IntervalReport}; reading a kept run back is {@link IntervalLogs}; the
 * pace after a restart from the kept logs, {@link RestartPace}; the model's own spread and runs pooled,
 * {@link ModelSpread}.
 */
final class IntervalBench {
    static final String MAIN = LaunchedBench.MAIN;
    /** Ranks of every job; each one is a "node" of the model (its own JVM, its own failures). */
    static final int RANKS = 4;
    static final Pattern LOOP_SECONDS = Pattern.compile("checksum [0-9a-f]+ \\(.*, ([0-9.]+) s\\)");
    static final Pattern CHECKSUM = Pattern.compile("checksum ([0-9a-f]+)");
    private static final Pattern COST = Pattern.compile("checkpoint --cost ([0-9.eE+-]+)");
    private static final Pattern RESTART = Pattern.compile(" --restart ([0-9.eE+-]+)");
    private static final Pattern SLOWDOWN = Pattern.compile(" --slowdown ([0-9.eE+-]+) --slow-window ([0-9.eE+-]+)");
    private static final Pattern SHARE = Pattern.compile("program CPU share ([0-9.]+)");
    private static final Pattern DECIDED = Pattern.compile(" interval ([0-9]+) calls");
    static final Pattern ITERATION = Pattern.compile("\\[rank 0\\] iteration ([0-9]+) residual");
    /**
     * Rank 0 prints its residual every this many sweeps (-Djckpt.bench.intervalReport, default 200): the first
     * such line dates the computation's start. Runs A, C and D of section 11 used 20, run E 200: fewer all-rank
     * reductions, which the model does not know about, in the measured job (docs/interval.md).
     */
    static final int REPORT_EVERY = reportEvery(System.getProperty("jckpt.bench.intervalReport"));

    static int reportEvery(String property) {
        return intProperty("jckpt.bench.intervalReport", property, 200, n -> n >= 1, "a whole number of sweeps >= 1");
    }

    /** A whole-number -D property: its default when unset, else its value if {@code valid}, else a clear error. */
    static int intProperty(String name, String property, int unset, java.util.function.IntPredicate valid,
                           String what) {
        if (property == null || property.isBlank()) {
            return unset;
        }
        try {
            int n = Integer.parseInt(property.trim());
            if (valid.test(n)) {
                return n;
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new IllegalArgumentException("-D" + name + " must be " + what + ", not " + property);
    }

    /**
     * What to run.
     *
     * @param nx            grid of nx x nx points (4 ranks: (nx/4 + 2) x nx doubles checkpointed per rank)
     * @param iterations    sweeps; needCheckpoint() is called after every pair of sweeps
     * @param mtbfs         the injected MTBFs of the job (s), one table block each
     * @param fixedCalls    the fixed intervals, in needCheckpoint() calls
     * @param seeds         the launcher's --seed values, the same for every interval of a rate
     * @param baselineReps  runs without checkpoints and failures (the reference)
     * @param timeoutMillis bound of one job
     */
    record Config(int nx, int iterations, double[] mtbfs, int[] fixedCalls, long[] seeds, int baselineReps,
                  long timeoutMillis) {
        static Config of(boolean quick) {
            return quick
                    ? new Config(1024, 3000, new double[] {4}, new int[] {4, 32, 256}, new long[] {1}, 1, 300_000)
                    : of(seeds(System.getProperty(SEEDS_PROPERTY)));
        }

        private static Config of(long[] seeds) {
            return new Config(1024, sweeps(System.getProperty(SWEEPS_PROPERTY)), new double[] {10, 5, 2.5},
                    fixedCalls(System.getProperty(FIXED_PROPERTY)), seeds, seeds.length, 600_000);
        }

        /** The jobs' length in sweeps, e.g. -Djckpt.bench.intervalSweeps=24000 (longer jobs reach a steadier pace). */
        static final String SWEEPS_PROPERTY = "jckpt.bench.intervalSweeps";

        static int sweeps(String property) {
            return intProperty(SWEEPS_PROPERTY, property, 9000, n -> n >= 2 && n % 2 == 0,
                    "an even whole number of sweeps >= 2 (needCheckpoint() is called after every pair)");
        }

        /**
         * The seeds every interval of a rate runs with: N (seeds 1 to N) or A-B (seeds A to B, e.g. a second run
         * that adds seeds 11-20 to a first one's 1-10), e.g. -Djckpt.bench.intervalSeeds=10.
         */
        static final String SEEDS_PROPERTY = "jckpt.bench.intervalSeeds";

        static long[] seeds(String property) {
            if (property == null || property.isBlank()) {
                return new long[] {1, 2, 3};
            }
            try {
                String[] range = property.trim().split("-", 2);
                long first = range.length == 2 ? Long.parseLong(range[0].trim()) : 1;
                long last = Long.parseLong(range[range.length - 1].trim());
                if (first < 1 || last < first) {
                    throw new NumberFormatException("empty or < 1");
                }
                return java.util.stream.LongStream.rangeClosed(first, last).toArray();
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + SEEDS_PROPERTY + " must be N (seeds 1 to N) or A-B (seeds A to B),"
                        + " whole numbers >= 1, e.g. 10 or 11-20, not " + property);
            }
        }

        /**
         * A shorter sweep of fixed intervals, e.g. -Djckpt.bench.intervalCalls=16,64,256 (in JCKPT_BENCH_OPTS), or
         * none (auto alone).
         */
        static final String FIXED_PROPERTY = "jckpt.bench.intervalCalls";

        static int[] fixedCalls(String property) {
            if (property == null || property.isBlank()) {
                return new int[] {4, 16, 64, 256, 1024};
            }
            if (property.trim().equals("none")) {
                return new int[0]; // auto alone: the advisor's prediction against the measured overhead
            }
            try {
                int[] calls = java.util.Arrays.stream(property.split(",")).map(String::trim).mapToInt(Integer::parseInt)
                        .toArray();
                if (calls.length == 0 || java.util.Arrays.stream(calls).anyMatch(c -> c < 1)) {
                    throw new NumberFormatException("empty or < 1");
                }
                return calls;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("-D" + FIXED_PROPERTY + " must be whole numbers >= 1 separated by"
                        + " commas, e.g. 16,64,256, or none, not " + property);
            }
        }

        long calls() {
            return iterations / 2;
        }
    }

    /**
     * One launched job (under injected failures, or the reference).
     *
     * @param status         the launcher's exit status (-1: did not end within the bound)
     * @param wall           launch → exit (ns)
     * @param firstReport    launch → rank 0's first residual line (ns; NaN without one)
     * @param firstSweep     the sweep that line reports
     * @param failures       launch → each injected failure (ns)
     * @param restarts       per failure followed by a rollback: injection → rank 0's 'rolled back to sweep' (ns)
     * @param holds          per recovery: the launcher's detection → the new world (ns), while it injects no failure
     * @param cost           rank 0's measured checkpoint cost at close (s; auto only, else NaN)
     * @param figures        rank 0's other figures at close (auto only, else {@link JobFigures#NONE})
     * @param decided        the interval in calls auto held at close (0 when not reported)
     * @param loop           the solver loop time rank 0 printed (ns; of its last start only when there were failures)
     * @param checksum       the final grid's checksum, or null
     */
    record Run(int status, double wall, double firstReport, int firstSweep, List<Double> failures, List<Double> restarts,
               List<Double> holds, double cost, JobFigures figures, long decided, double loop, String checksum) {
        /**
         * A run whose figures at close come from rank 0's {@code interval policy} line: the checkpoint cost, the
         * other figures and the interval it held (none without the line: a fixed interval).
         */
        static Run of(int status, double wall, double firstReport, int firstSweep, List<Double> failures,
                      List<Double> restarts, List<Double> holds, String close, double loop, String checksum) {
            if (close == null) {
                return new Run(status, wall, firstReport, firstSweep, failures, restarts, holds, Double.NaN,
                        JobFigures.NONE, 0, loop, checksum);
            }
            Matcher cost = COST.matcher(close);
            Matcher decided = DECIDED.matcher(close);
            return new Run(status, wall, firstReport, firstSweep, failures, restarts, holds,
                    cost.find() ? Double.parseDouble(cost.group(1)) : Double.NaN, JobFigures.parse(close),
                    decided.find() ? Long.parseLong(decided.group(1)) : 0, loop, checksum);
        }

        /** A run whose recoveries' holds are not known (the model then holds failures for the whole restart). */
        Run(int status, double wall, double firstReport, int firstSweep, List<Double> failures, List<Double> restarts,
            double cost, JobFigures figures, long decided, double loop, String checksum) {
            this(status, wall, firstReport, firstSweep, failures, restarts, List.of(), cost, figures, decided, loop,
                    checksum);
        }

        boolean ok() {
            return status == 0 && checksum != null;
        }

        /** Completed with a residual line: its computation phase is known. */
        boolean phaseKnown() {
            return ok() && !Double.isNaN(firstReport);
        }

        /** When the computation started (ns after the launch): the first residual line less its sweeps. */
        double computeStart(double perSweep) {
            return firstReport - firstSweep * perSweep;
        }

        /** Failures injected before the computation started (during the ranks' start-up). */
        long failuresBefore(double perSweep) {
            double start = computeStart(perSweep);
            return failures.stream().filter(f -> f < start).count();
        }
    }

    /**
     * What rank 0 measured besides C ({@code interval policy} line at close; NaN when not reported): the
     * restart (the failure detected → computing again, mean over the job's recoveries), the slowdown after a
     * restart and the computation done meanwhile, the program thread's share of a core.
     */
    record JobFigures(double restart, double slowdown, double slowWindow, double cpuShare) {
        static final JobFigures NONE = new JobFigures(Double.NaN, Double.NaN, Double.NaN, Double.NaN);

        static JobFigures parse(String line) {
            Matcher r = RESTART.matcher(line);
            Matcher s = SLOWDOWN.matcher(line);
            Matcher u = SHARE.matcher(line);
            boolean slow = s.find();
            return new JobFigures(r.find() ? Double.parseDouble(r.group(1)) : Double.NaN,
                    slow ? Double.parseDouble(s.group(1)) : Double.NaN, slow ? Double.parseDouble(s.group(2)) : Double.NaN,
                    u.find() ? Double.parseDouble(u.group(1)) : Double.NaN);
        }
    }

    /** One interval at one rate: {@code calls} = 0 is {@code auto}. */
    static final class Point {
        final double mtbf;
        final int calls;
        final List<Run> runs = new ArrayList<>();

        Point(double mtbf, int calls) {
            this.mtbf = mtbf;
            this.calls = calls;
        }

        String label() {
            return calls == 0 ? "auto" : "every " + calls + " calls";
        }

        String spec() {
            return calls == 0 ? "auto" : "calls:" + calls;
        }

        Samples wall() {
            Samples s = new Samples();
            runs.stream().filter(Run::ok).forEach(r -> s.add(r.wall()));
            return s;
        }

        /** The computation phase (computation start → exit) of the completed runs, ns. */
        Samples phase(double perSweep) {
            Samples s = new Samples();
            runs.stream().filter(Run::phaseKnown)
                    .forEach(r -> s.add(r.wall() - r.computeStart(perSweep)));
            return s;
        }

        int okRuns() {
            return (int) runs.stream().filter(Run::ok).count();
        }

        boolean allOk() {
            return !runs.isEmpty() && okRuns() == runs.size();
        }
    }

    /** Everything measured. */
    static final class Result {
        final Config config;
        final Samples baseWall = new Samples();
        final Samples baseLoop = new Samples();
        /** The references' computation phase: computation start → exit (ns). */
        final Samples basePhase = new Samples();
        /** Each seed's own reference (run just before that seed's jobs), phase and loop (ns), in seed order. */
        final List<double[]> seedReferences = new ArrayList<>();
        String reference;
        final Map<Double, List<Point>> byRate = new LinkedHashMap<>();
        /** The pace after a restart read from the run's kept logs ({@link RestartPace}), NONE when not read. */
        SlowProfile pace = SlowProfile.NONE;

        Result(Config config) {
            this.config = config;
        }

        /** The failure-free computation W (s): the solver's loop time without checkpoints. */
        double work() {
            return baseLoop.median() / 1e9;
        }

        /** Computation per needCheckpoint() call (s), without checkpoints. */
        double perCall() {
            return work() / config.calls();
        }

        /** Computation per sweep (ns), without checkpoints. */
        double perSweep() {
            return baseLoop.median() / config.iterations();
        }

        Point auto(double mtbf) {
            return byRate.get(mtbf).get(0);
        }

        /** One reference run's loop, wall time and checksum. */
        void reference(Run r) {
            baseWall.add(r.wall());
            baseLoop.add(r.loop());
            reference = r.checksum();
        }

        /** The references' phases, in the order they ran: the i-th ran just before seed i's jobs. */
        void references(List<Run> inOrder) {
            for (int i = 0; i < inOrder.size(); i++) {
                Run r = inOrder.get(i);
                basePhase.add(r.wall() - r.computeStart(perSweep()));
                if (i < config.seeds().length) {
                    seedReferences.add(new double[] {r.wall() - r.computeStart(perSweep()), r.loop()});
                }
            }
        }

        /** The fixed interval with the lowest mean run time (all its runs completed), or null. */
        Point bestFixed(double mtbf) {
            Point best = null;
            for (Point p : byRate.get(mtbf)) {
                if (p.calls > 0 && p.allOk() && (best == null || p.wall().mean() < best.wall().mean())) {
                    best = p;
                }
            }
            return best;
        }

        /** The job's checkpoint cost C (s): the median of rank 0's figure at close over the auto runs of this rate. */
        double cost(double mtbf) {
            Samples c = new Samples();
            auto(mtbf).runs.stream().filter(r -> !Double.isNaN(r.cost())).forEach(r -> c.add(r.cost()));
            return c.median();
        }

        /** A figure rank 0 reported at close, median over the auto runs of every rate (a property of the machine). */
        double jobFigure(java.util.function.ToDoubleFunction<JobFigures> figure) {
            Samples f = new Samples();
            for (double mtbf : config.mtbfs()) {
                auto(mtbf).runs.stream().map(Run::figures).mapToDouble(figure).filter(v -> !Double.isNaN(v))
                        .forEach(f::add);
            }
            return f.median();
        }

        /** The restart of the model: rank 0's (the failure detected → computing again), else the one measured here. */
        double restart(double mtbf) {
            double r = jobFigure(JobFigures::restart);
            return Double.isNaN(r) ? restarts(mtbf).median() / 1e9 : r;
        }

        /**
         * The part of a restart during which the launcher injects no failure (s): its detection → the new world,
         * mean over the recoveries of the auto runs of every rate (a property of the machine, as R); a failure
         * that falls due then strikes when the world is up, while the ranks restore their data. NaN when no run
         * reported one (the model then holds failures for the whole restart).
         */
        double held() {
            Samples h = new Samples();
            for (double mtbf : config.mtbfs()) {
                auto(mtbf).runs.forEach(r -> r.holds().forEach(h::add));
            }
            return h.count() == 0 ? Double.NaN : h.mean() / 1e9;
        }

        /** {@link #held()} as the model takes it: within 0..R, the whole restart when unknown. */
        private double heldIn(double restart) {
            double h = held();
            return Double.isNaN(h) ? restart : Math.min(h, restart);
        }

        /** The slowdown after a restart rank 0 measured (s), 0 when none was. */
        double slowdown() {
            double s = jobFigure(JobFigures::slowdown);
            return Double.isNaN(s) ? 0 : s;
        }

        /** The computation done while it runs slower (s), 0 when not measured. */
        double slowWindow() {
            double w = jobFigure(JobFigures::slowWindow);
            return Double.isNaN(w) ? 0 : w;
        }

        /** The restart R: injection → computing again, over every failure of this rate (ns). */
        Samples restarts(double mtbf) {
            Samples s = new Samples();
            for (Point p : byRate.get(mtbf)) {
                p.runs.forEach(r -> r.restarts().forEach(s::add));
            }
            return s;
        }

        /** The interval the advisor's model says auto picks (s): Daly's, for the measured C and the injected MTBF. */
        double dalyTau(double mtbf) {
            double c = cost(mtbf);
            return Double.isNaN(c) ? Double.NaN : FailureModel.dalyInterval(c, mtbf);
        }

        /**
         * The advisor model's expected overhead (expected run time / failure-free run time - 1) of this
         * interval: every injected failure is a process death that the memory level survives (no store is
         * wiped), so one level, all failures survivable, no disk level.
         */
        double predicted(Point p) {
            // the launcher kills no rank while it rebuilds the world: a failure due then strikes when the world
            // is up, and one due while the ranks restore their data cuts the restart short
            return predicted(p, true);
        }

        private double predicted(Point p, boolean failuresWaitForTheWorld) {
            FailureModel.Scheme s = scheme(p);
            return s == null ? Double.NaN
                    : FailureModel.wallPerWork(s, failuresWaitForTheWorld ? heldIn(s.restart()) : 0, paceOf(s)) - 1;
        }

        /** The pace after a restart the model takes: the logs' ({@link #pace}) when read, else rank 0's even phase. */
        private SlowProfile paceOf(FailureModel.Scheme s) {
            return pace.seconds().length > 0 ? pace : SlowProfile.even(s.slowdown(), s.slowWindow());
        }

        /** The advisor model's scheme for this point's interval (one level, every failure survivable), or null. */
        private FailureModel.Scheme scheme(Point p) {
            double c = cost(p.mtbf);
            double r = restart(p.mtbf);
            double tau = tau(p);
            if (Double.isNaN(c) || Double.isNaN(r) || Double.isNaN(tau)) {
                return null;
            }
            return new FailureModel.Scheme(tau, c, 0, 0, r, r, 1 / p.mtbf, 0, slowdown(), slowWindow());
        }

        /**
         * The overheads of {@link ModelSpread#JOBS} finite jobs of this run's W as the model's simulator runs them
         * (the scheme and hold of {@link #predicted(Point)}, failures drawn at random): what a single run may
         * measure if the model is right. Null when a figure is missing.
         */
        double[] simulated(Point p) {
            FailureModel.Scheme s = scheme(p);
            if (s == null) {
                return null;
            }
            double[] jobs = Simulator.wallPerWorkOfJobs(s, work(), ModelSpread.JOBS,
                    Math.round(p.mtbf * 1000) * 31 + p.calls, heldIn(s.restart()), paceOf(s));
            for (int i = 0; i < jobs.length; i++) {
                jobs[i] -= 1;
            }
            return jobs;
        }

        /**
         * The model fed each run's own figures, one prediction per run with its phase known (the runs of
         * {@link #measured(Point)}, in order; NaN where a figure is missing): its C, R and H (rank 0's means over
         * the run's own checkpoints and recoveries), its seed's reference W, the injected MTBF; the pace after a
         * restart of the whole run (one run measures it over too few recoveries). The machine's speed drifts
         * between jobs (the references' W spread by half), a slower job pays more per failure in the same
         * wall-clock MTBF,
         * and near saturation the overhead grows faster than the cost per failure: the mean of these
         * predictions is the model's expectation over the machine's drift, where {@link #predicted(Point)} is its
         * expectation at the medians.
         */
        Samples predictedPerRun(Point p) {
            Samples s = new Samples();
            for (int i = 0; i < p.runs.size(); i++) {
                Run r = p.runs.get(i);
                if (!r.phaseKnown()) {
                    continue;
                }
                double c = Double.isNaN(r.cost()) ? cost(p.mtbf) : r.cost();
                double restart = Double.isNaN(r.figures().restart()) ? restart(p.mtbf) : r.figures().restart();
                double h = r.holds().isEmpty() ? heldIn(restart)
                        : Math.min(restart, r.holds().stream().mapToDouble(Double::doubleValue).average().orElseThrow() / 1e9);
                double w = i < seedReferences.size() ? seedReferences.get(i)[1] / 1e9 : work();
                double tau = p.calls == 0 ? FailureModel.dalyInterval(c, p.mtbf) : p.calls * w / config.calls();
                if (Double.isNaN(c) || Double.isNaN(restart) || Double.isNaN(tau)) {
                    s.add(Double.NaN);
                    continue;
                }
                FailureModel.Scheme own = new FailureModel.Scheme(tau, c, 0, 0, restart, restart, 1 / p.mtbf, 0,
                        slowdown(), slowWindow());
                s.add(FailureModel.wallPerWork(own, h, paceOf(own)) - 1);
            }
            return s;
        }

        /**
         * {@link #predicted(Point)} with rank 0's even slow phase ({@code --slowdown}, {@code --slow-window}) in
         * place of the pace the logs show: the model before the pace's shape was in it.
         */
        double predictedEven(Point p) {
            FailureModel.Scheme s = scheme(p);
            return s == null ? Double.NaN : FailureModel.wallPerWork(s, heldIn(s.restart())) - 1;
        }

        /** This point's runs as a part of {@link ModelSpread}: the model's jobs, the runs measured, W, the predictions. */
        ModelSpread.Part spreadPart(Point p) {
            return new ModelSpread.Part(simulated(p), measured(p), work(), predicted(p), predictedForInjected(p),
                    predictedPerRun(p).mean(), predictedEven(p));
        }

        /**
         * The prediction for the failures the runs met: the model's checkpoint share (c / tau) plus its
         * failures' share scaled by the failures injected in the computation phases over the failures the model
         * expects there. With a few failures per run, their count alone moves the measured overhead by
         * 1 / sqrt(failures of all runs) (20 % for 25 failures): this ratio takes that sampling out and
         * leaves the model's time lost per failure.
         */
        double predictedForInjected(Point p) {
            double predicted = predicted(p);
            double c = cost(p.mtbf);
            double tau = tau(p);
            double injected = failuresInPhase(p);
            double expected = expectedFailures(p, predicted);
            if (Double.isNaN(predicted) || Double.isNaN(injected) || !(expected > 0)) {
                return Double.NaN;
            }
            return c / tau + (predicted - c / tau) * injected / expected;
        }

        /**
         * The failures the model expects in one run's computation phase: its expected length over the mean gap
         * between injected failures. The launcher draws the next failure when one fires and holds a failure
         * that falls due while it rebuilds the world until the world is up: gap = max(X, H), X exponential of
         * mean M, H {@link #held()}, whose mean is H + M e^(-H/M).
         */
        double expectedFailures(Point p, double predicted) {
            double h = heldIn(restart(p.mtbf));
            return work() * (1 + predicted) / (h + p.mtbf * Math.exp(-h / p.mtbf));
        }

        /** Failures per completed run injected after the computation started (mean). */
        double failuresInPhase(Point p) {
            return p.runs.stream().filter(Run::phaseKnown).mapToDouble(this::failuresInPhase).average()
                    .orElse(Double.NaN);
        }

        /** Failures in the computation phases of all completed runs. */
        double failuresInPhases(Point p) {
            return p.runs.stream().filter(Run::phaseKnown).mapToDouble(this::failuresInPhase).sum();
        }

        private double failuresInPhase(Run r) {
            return r.failures().size() - r.failuresBefore(perSweep());
        }

        /** The compute time between checkpoints (s): Daly's interval for auto, N x the computation per call. */
        double tau(Point p) {
            return p.calls == 0 ? dalyTau(p.mtbf) : p.calls * perCall();
        }

        /**
         * The same model with failures that may cut a restart short, as the advisor assumes for real failures
         * (Daly's segments), for comparison.
         */
        double predictedDaly(Point p) {
            return predicted(p, false);
        }

        /**
         * Measured overhead of each completed run, over its computation phase (from the computation's start
         * to the exit, so that failures during the ranks' start-up, which the model does not cover, are left
         * out): (phase - the reference's phase) / the failure-free computation, the reference being the one
         * run just before the same seed's jobs (the machine's load drifts: it met the load they met), else
         * the references' medians.
         */
        Samples measured(Point p) {
            Samples s = new Samples();
            for (int i = 0; i < p.runs.size(); i++) {
                Run r = p.runs.get(i);
                if (r.phaseKnown()) {
                    double[] ref = i < seedReferences.size() ? seedReferences.get(i)
                            : new double[] {basePhase.median(), baseLoop.median()};
                    s.add((r.wall() - r.computeStart(perSweep()) - ref[0]) / ref[1]);
                }
            }
            return s;
        }

        /** Failures per run, mean: all, and those before the computation started, e.g. "6.0 (1.0 in the start-up)". */
        String failures(Point p) {
            double all = p.runs.stream().mapToInt(r -> r.failures().size()).average().orElse(Double.NaN);
            double before = p.runs.stream().filter(r -> !Double.isNaN(r.firstReport()))
                    .mapToLong(r -> r.failuresBefore(perSweep())).average().orElse(Double.NaN);
            return String.format(Locale.ROOT, "%.1f (%.1f in the start-up)", all, before);
        }
    }

    private final Path repo;
    private final String cp;
    /** Each job's output with arrival times (perf/target/interval-logs: the method's raw data). */
    private final Path logs;

    IntervalBench(Path repo) {
        this.repo = repo;
        this.cp = repo.resolve("samples/target/classes").toString();
        this.logs = repo.resolve("perf/target/interval-logs");
    }

    /** Runs the baseline, then for each seed each rate each interval (intervals interleaved). */
    Result run(Config c) throws Exception {
        Result result = new Result(c);
        BenchSuite.deleteTree(logs);
        java.nio.file.Files.createDirectories(logs);
        List<Run> phases = new ArrayList<>();
        for (double mtbf : c.mtbfs()) {
            List<Point> points = new ArrayList<>();
            points.add(new Point(mtbf, 0));
            for (int calls : c.fixedCalls()) {
                points.add(new Point(mtbf, calls));
            }
            result.byRate.put(mtbf, points);
        }
        // the references interleaved with the runs (one before each seed's, the rest at the end): the machine's
        // load drifts over the section's 20-odd minutes, and every run is compared with them
        int references = 0;
        for (long seed : c.seeds()) {
            if (references < c.baselineReps()) {
                phases.add(reference(c, result, references++));
            }
            for (double mtbf : c.mtbfs()) {
                for (Point p : result.byRate.get(mtbf)) {
                    Run r = once(c, p, seed);
                    p.runs.add(r);
                    System.err.printf(Locale.ROOT, "bench: interval mtbf %s s %s seed %d: %s, %d failures%n",
                            seconds(mtbf), p.label(), seed, r.ok() ? Samples.time(r.wall()) : "status " + r.status(),
                            r.failures().size());
                }
            }
        }
        while (references < c.baselineReps()) {
            phases.add(reference(c, result, references++));
        }
        result.references(phases);
        result.pace = RestartPace.measure(logs);
        return result;
    }

    /** One reference: the same job without checkpoints and failures. */
    private Run reference(Config c, Result result, int rep) throws Exception {
        List<String> args = new ArrayList<>(List.of("--no-report", "-np", Integer.toString(RANKS), "-cp", cp, MAIN));
        args.addAll(LaunchedBench.heatArgs(c.nx(), c.nx(), c.iterations(), 0, 0, 0, REPORT_EVERY));
        Run r = launch(args, c.timeoutMillis(), "reference-" + rep);
        if (!r.ok()) {
            throw new IllegalStateException("heat solver without checkpoints exited " + r.status() + " (output in "
                    + logs + ")");
        }
        result.reference(r);
        System.err.printf(Locale.ROOT, "bench: interval reference rep %d done%n", rep);
        return r;
    }

    private Run once(Config c, Point p, long seed) throws Exception {
        List<String> args = new ArrayList<>(List.of("--no-report", "-np", Integer.toString(RANKS), "--on-failure", "respawn",
                // no warm standby: a standby's warm-up after each recovery would take CPU from the computation
                "--standby", "0", "--max-recoveries", "1000", "--mtbf", seconds(p.mtbf), "--seed", Long.toString(seed),
                "-cp", cp, MAIN));
        args.addAll(LaunchedBench.heatArgs(c.nx(), c.nx(), c.iterations(), 0, 0, 0, REPORT_EVERY));
        args.addAll(List.of("--replicas", "1", "--interval", p.spec()));
        if (p.calls == 0) {
            // auto's prior: the MTBF of one node; the job's is that / nodes (one node per rank)
            args.addAll(List.of("--node-mtbf", seconds(p.mtbf * RANKS)));
        }
        return launch(args, c.timeoutMillis(), "mtbf" + seconds(p.mtbf) + "-" + p.spec().replace(':', '-') + "-seed" + seed);
    }

    /** One job: its figures from the launcher's and rank 0's lines; its output with arrival times kept in {@link #logs}. */
    private Run launch(List<String> args, long timeoutMillis, String name) throws Exception {
        try (LaunchedJob job = LaunchedJob.start(repo, args, java.util.Map.of())) {
            int status;
            try {
                status = job.awaitExit(timeoutMillis);
            } catch (AssertionError timedOut) {
                status = -1;
            }
            double wall = System.nanoTime() - job.startNanos();
            java.nio.file.Files.writeString(logs.resolve(name + ".log"), "bin/ckpt-run " + String.join(" ", args) + "\n"
                    + job.timedOutput(), java.nio.charset.StandardCharsets.UTF_8);
            // the launcher's facts from its events file (docs/events.md); rank 0's sweeps, rollbacks and
            // checksum are its own output
            List<JobEvents.Event> events = job.events();
            List<Double> failures = times(job, JobEvents.ofType(events, "injection"));
            List<JobEvents.Event> recovered = JobEvents.ofType(events, "recovered");
            List<Double> restarts = restarts(failures, times(job, recovered), times(job, "rolled back to sweep"));
            List<Double> holds = recovered.stream().mapToDouble(e -> e.decimal("world_ms")).filter(v -> !Double.isNaN(v))
                    .mapToObj(v -> v * 1e6).toList();
            double firstReport = Double.NaN;
            int firstSweep = 0;
            for (LaunchedJob.Line l : job.lines("iteration ")) {
                Matcher m = ITERATION.matcher(l.text());
                if (m.find()) {
                    firstReport = l.nanos() - job.startNanos();
                    firstSweep = Integer.parseInt(m.group(1));
                    break;
                }
            }
            List<String> close = JobEvents.ofType(events, "rank_event").stream().map(e -> e.text("text"))
                    .filter(t -> t.contains("interval policy ")).toList();
            String loop = job.find(LOOP_SECONDS);
            return Run.of(status, wall, firstReport, firstSweep, failures, restarts, holds,
                    close.isEmpty() ? null : close.get(close.size() - 1),
                    loop == null ? Double.NaN : Double.parseDouble(loop) * 1e9, job.find(CHECKSUM));
        }
    }

    /** @return the events' times, nanos since the launcher process was started (as {@link #times(LaunchedJob, String)}) */
    private static List<Double> times(LaunchedJob job, List<JobEvents.Event> events) {
        List<Double> out = new ArrayList<>();
        events.forEach(e -> out.add((double) (job.nanos(e) - job.startNanos())));
        return out;
    }

    private static List<Double> times(LaunchedJob job, String text) {
        List<Double> out = new ArrayList<>();
        job.lines(text).forEach(l -> out.add((double) (l.nanos() - job.startNanos())));
        return out;
    }

    /**
     * The restart of each failure: injection → rank 0's 'rolled back to sweep' of the recovery it started.
     * A rollback line belongs to the newest injection before it only if a recovery (the launcher's
     * {@code recovered} event) lies between them; otherwise it ends an older recovery that a new failure overtook
     * (then that older failure has no sample). A failure before the first checkpoint restarts clean: no
     * rollback line, no sample.
     *
     * @param injections the injection times
     * @param recovered  the times of the launcher's {@code recovered} events
     * @param rolled     the times of rank 0's 'rolled back to sweep' lines
     * @return one restart per failure that has one (same unit as the times)
     */
    static List<Double> restarts(List<Double> injections, List<Double> recovered, List<Double> rolled) {
        List<Double> out = new ArrayList<>();
        double used = Double.NaN;
        for (double r : rolled) {
            double injection = Double.NaN;
            for (double i : injections) {
                if (i < r) {
                    injection = i;
                }
            }
            if (Double.isNaN(injection) || injection == used) {
                continue;
            }
            double from = injection;
            if (recovered.stream().anyMatch(t -> t > from && t < r)) {
                out.add(r - injection);
                used = injection;
            }
        }
        return out;
    }

    static String seconds(double s) {
        return String.format(Locale.ROOT, "%.4g", s).replaceAll("\\.?0+$", "");
    }
}
