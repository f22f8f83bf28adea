package io.jckpt.perf;

import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * How far from the advisor's prediction a benchmark of a few runs lands by chance alone, if the model is right.
 * Each run measures one job's overhead with its own failure times. A job of W seconds meets a few failures,
 * each costing what its moment costs, so one job's overhead spreads wide; near saturation (a failure costing
 * most of the time between failures) it has a long tail, since each failure lengthens the job, which then
 * meets more. The model's own jobs ({@link IntervalBench.Result#simulated}) are drawn as many at a time as the
 * runs measured, their time lost summed over the parts (runs pooled), {@value #DRAWS} times; the 5th and 95th
 * percentiles of those sums over the predicted sum bound measured / predicted in 90 % of such benchmarks. A
 * measured ratio outside that range is a disagreement that chance does not explain.
 */
final class ModelSpread {
    /** The model's jobs simulated per point. */
    static final int JOBS = 20_000;
    /** Benchmarks drawn from them. */
    static final int DRAWS = 4_000;
    private static final double Z90 = 1.6449;

    private ModelSpread() {
    }

    /**
     * One run's auto point.
     *
     * @param jobs        the model's simulated job overheads (null when a figure was missing)
     * @param measured    the overheads the run measured, one per job
     * @param work        the run's failure-free computation W (s): the weight of its overheads in the pool
     * @param predicted   the model's expected overhead
     * @param forInjected the model's overhead for the failures the run met
     * @param perRun      the mean of the model's overheads fed each run's own figures
     * @param even        the model's overhead with rank 0's even slow phase in place of the pace the logs show
     */
    record Part(double[] jobs, Samples measured, double work, double predicted, double forInjected, double perRun,
                double even) {
    }

    /**
     * Runs pooled: their time lost summed (W x overhead over every job) against the model's.
     *
     * @param runs          jobs measured
     * @param measured      time lost measured (s)
     * @param predicted     time lost the model predicts (s)
     * @param standardError the measured sum's standard error (s)
     * @param low           the model's 5th percentile of the sum over the prediction (a ratio)
     * @param high          its 95th percentile
     * @param forInjected   time lost the model predicts for the failures the runs met (s)
     * @param perRun        time lost the model predicts fed each run's own figures (s)
     * @param even          time lost the model predicts with rank 0's even slow phase (s)
     * @param runsFor20     about how many runs of the same mix, at the spread measured, would put the ratio's
     *                      90 % confidence interval within ±0.20 of it (-1 without a spread)
     */
    record Pool(int runs, double measured, double predicted, double standardError, double low, double high,
                double forInjected, double perRun, double even, long runsFor20) {
        /** Measured / predicted. */
        double ratio() {
            return measured / predicted;
        }

        /** Whether the measured ratio lies within the model's 90 % range. */
        boolean withinChance() {
            return ratio() >= low && ratio() <= high;
        }
    }

    /**
     * Pools runs and draws the model's range for them.
     *
     * @param parts the runs (at least one, each with measured jobs and the model's)
     * @param seed  the draws' seed (the same seed, the same range)
     * @return the pool; NaN figures when a part lacks the model's jobs
     */
    static Pool pool(List<Part> parts, long seed) {
        if (parts.isEmpty()) {
            throw new IllegalArgumentException("no run to pool");
        }
        int runs = 0;
        double measured = 0;
        double predicted = 0;
        double variance = 0;
        double forInjected = 0;
        double perRun = 0;
        double even = 0;
        boolean complete = true;
        for (Part p : parts) {
            int n = p.measured().count();
            runs += n;
            measured += p.work() * n * p.measured().mean();
            predicted += p.work() * n * p.predicted();
            forInjected += p.work() * n * p.forInjected();
            perRun += p.work() * n * p.perRun();
            even += p.work() * n * p.even();
            double se = n < 2 ? 0 : p.measured().standardError();
            variance += Math.pow(p.work() * n * se, 2);
            complete &= p.jobs() != null;
        }
        double low = Double.NaN;
        double high = Double.NaN;
        long runsFor20 = -1;
        if (complete && predicted > 0) {
            SplittableRandom random = new SplittableRandom(seed);
            double[] sums = new double[DRAWS];
            for (int d = 0; d < DRAWS; d++) {
                double sum = 0;
                for (Part p : parts) {
                    double[] jobs = p.jobs();
                    double drawn = 0;
                    for (int j = 0; j < p.measured().count(); j++) {
                        drawn += jobs[random.nextInt(jobs.length)];
                    }
                    sum += p.work() * drawn;
                }
                sums[d] = sum / predicted;
            }
            Arrays.sort(sums);
            low = sums[(int) (0.05 * DRAWS)];
            high = sums[(int) (0.95 * DRAWS) - 1];
        }
        if (predicted > 0 && variance > 0) {
            // the standard error shrinks as 1 / sqrt(runs): Z90 x SE / predicted <= 0.20 at the spread measured
            runsFor20 = (long) Math.ceil(runs * Math.pow(Z90 * Math.sqrt(variance) / (0.20 * predicted), 2));
        }
        return new Pool(runs, measured, predicted, Math.sqrt(variance), low, high, forInjected, perRun,
                even, runsFor20);
    }
}
