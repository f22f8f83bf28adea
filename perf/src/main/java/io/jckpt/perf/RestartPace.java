package io.jckpt.perf;

import io.jckpt.policy.interval.SlowProfile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The computation's pace after a restart, half second by half second, read from a kept run's job logs
 * ({@code perf/target/interval-logs/}): after each {@code rolled back to sweep S} line of rank 0, the sweeps
 * its {@code iteration N residual} lines reach (interpolated at the bins' edges) until the next failure is
 * injected, over the pace of the seed's reference (the same job without checkpoints or failures, run just
 * before that seed's jobs), averaged over the recoveries of every auto job that lived through each bin.
 * The bins end at the first with fewer than {@value #MIN_RECOVERIES} recoveries, or at {@value #BINS}.
 *
 * <p>What rank 0 reports at close is the even phase of the same extra time ({@code --slowdown S
 * --slow-window W}); the logs show the shape: a third of the pace in the first half second, half in the
 * next, nine tenths after some 4 s. With failures every few seconds the shape matters
 * ({@link SlowProfile#extraPerRestart}).
 */
final class RestartPace {
    /** A bin's length (s). */
    static final double BIN_SECONDS = 0.5;
    /** Bins measured at most. */
    static final int BINS = 16;
    /** A bin needs this many recoveries that lived through it. */
    static final int MIN_RECOVERIES = 10;
    private static final Pattern ARRIVAL = Pattern.compile("^\\[\\s*([0-9.]+)\\] (.*)$");
    private static final Pattern ROLLED = Pattern.compile("\\[rank 0\\] rolled back to sweep ([0-9]+)");
    private static final Pattern AUTO_JOB = Pattern.compile("mtbf[0-9.]+-auto-seed([0-9]+)\\.log");
    private static final Pattern REFERENCE = Pattern.compile("reference-([0-9]+)\\.log");

    private RestartPace() {
    }

    /**
     * The profile over every auto job of a kept run.
     *
     * @param dir the run's kept job logs
     * @return the profile, or {@link SlowProfile#NONE} when no recovery lived through a first bin
     */
    static SlowProfile measure(Path dir) {
        TreeMap<Integer, Path> references = new TreeMap<>();
        TreeMap<Long, List<Path>> bySeed = new TreeMap<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                Matcher j = AUTO_JOB.matcher(f.getFileName().toString());
                Matcher r = REFERENCE.matcher(f.getFileName().toString());
                if (j.matches()) {
                    bySeed.computeIfAbsent(Long.parseLong(j.group(1)), k -> new ArrayList<>()).add(f);
                } else if (r.matches()) {
                    references.put(Integer.parseInt(r.group(1)), f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + dir, e);
        }
        double[] pace = new double[BINS];
        int[] lived = new int[BINS];
        List<Path> refs = new ArrayList<>(references.values());
        int i = 0;
        for (List<Path> jobs : bySeed.values()) {
            // the i-th seed's jobs ran just after the i-th reference
            double steady = i < refs.size() ? sweepsPerSecond(refs.get(i)) : Double.NaN;
            i++;
            if (!(steady > 0)) {
                continue;
            }
            for (Path job : jobs) {
                add(IntervalLogs.lines(job), steady, pace, lived);
            }
        }
        int bins = 0;
        while (bins < BINS && lived[bins] >= MIN_RECOVERIES) {
            bins++;
        }
        double[] speeds = new double[bins];
        for (int b = 0; b < bins; b++) {
            speeds[b] = pace[b] / lived[b];
        }
        return bins == 0 ? SlowProfile.NONE : SlowProfile.everySeconds(BIN_SECONDS, speeds);
    }

    /** A reference's pace: sweeps per second between its second and last residual lines. */
    static double sweepsPerSecond(Path reference) {
        List<double[]> points = new ArrayList<>();
        for (String line : IntervalLogs.lines(reference)) {
            Matcher a = ARRIVAL.matcher(line);
            Matcher m;
            if (a.matches() && (m = IntervalBench.ITERATION.matcher(a.group(2))).find()) {
                points.add(new double[] {Double.parseDouble(a.group(1)), Integer.parseInt(m.group(1))});
            }
        }
        if (points.size() < 3) {
            return Double.NaN;
        }
        double[] from = points.get(1);
        double[] to = points.get(points.size() - 1);
        return (to[1] - from[1]) / (to[0] - from[0]);
    }

    /** Adds one job's recoveries: per bin, the sweeps done over the steady pace's, and one more recovery. */
    static void add(List<String> lines, double steady, double[] pace, int[] lived) {
        List<double[]> progress = new ArrayList<>(); // (seconds, sweep): rank 0's residual lines
        List<double[]> rolled = new ArrayList<>();
        List<Double> failures = new ArrayList<>();
        for (String line : lines) {
            Matcher a = ARRIVAL.matcher(line);
            if (!a.matches()) {
                continue;
            }
            double t = Double.parseDouble(a.group(1));
            String text = a.group(2);
            Matcher m;
            if ((m = IntervalBench.ITERATION.matcher(text)).find()) {
                progress.add(new double[] {t, Integer.parseInt(m.group(1))});
            } else if ((m = ROLLED.matcher(text)).find()) {
                rolled.add(new double[] {t, Integer.parseInt(m.group(1))});
            } else if (text.contains("] injecting failure ")) {
                failures.add(t);
            }
        }
        for (double[] start : rolled) {
            double until = failures.stream().filter(f -> f > start[0]).findFirst().orElse(Double.POSITIVE_INFINITY);
            List<double[]> points = new ArrayList<>();
            points.add(start);
            progress.stream().filter(p -> p[0] > start[0] && p[0] <= until).forEach(points::add);
            double last = points.get(points.size() - 1)[0];
            for (int b = 0; b < BINS; b++) {
                double from = start[0] + b * BIN_SECONDS;
                double to = from + BIN_SECONDS;
                if (to > last) {
                    break; // the recovery did not live through this bin (or rank 0 reported nothing after it)
                }
                pace[b] += (sweepAt(points, to) - sweepAt(points, from)) / (steady * BIN_SECONDS);
                lived[b]++;
            }
        }
    }

    /** The sweep reached at time t, interpolated between the points around it. */
    private static double sweepAt(List<double[]> points, double t) {
        for (int k = 1; k < points.size(); k++) {
            double[] a = points.get(k - 1);
            double[] b = points.get(k);
            if (t <= b[0]) {
                return b[0] > a[0] ? a[1] + (b[1] - a[1]) * (t - a[0]) / (b[0] - a[0]) : b[1];
            }
        }
        return points.get(points.size() - 1)[1];
    }
}
