package io.jckpt.perf;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Section 11 again from the jobs' kept output ({@code perf/target/interval-logs/} of an earlier run, one file
 * per job with each line's arrival time), without running a job: {@code -Djckpt.bench.intervalLogs=DIR}. It
 * judges a changed model on the runs already made, as they were measured; a new run then judges it on new
 * seeds. The figures come from the same lines the launched bench reads from the launcher's events file
 * and rank 0's output (the launcher prints each event), so a run's table read back matches the one it wrote
 * within the lines' arrival delays (milliseconds).
 */
final class IntervalLogs {
    /** The property naming the directory to read. */
    static final String PROPERTY = "jckpt.bench.intervalLogs";
    private static final Pattern JOB = Pattern.compile("mtbf([0-9.]+)-(auto|calls-([0-9]+))-seed([0-9]+)\\.log");
    private static final Pattern REFERENCE = Pattern.compile("reference-([0-9]+)\\.log");
    private static final Pattern ARRIVAL = Pattern.compile("^\\[\\s*([0-9.]+)\\] (.*)$");
    private static final Pattern HOLD = Pattern.compile("recovered: all .* ([0-9]+) ms after the failure was detected");
    private static final Pattern OPTION = Pattern.compile(" --(nx|iterations) ([0-9]+)");

    private IntervalLogs() {
    }

    /**
     * Reads every job of a kept run.
     *
     * @param dir the directory of {@code mtbfM-SPEC-seedS.log} and {@code reference-I.log} files
     * @return the result, as {@link IntervalBench#run} would have returned it
     */
    static IntervalBench.Result read(Path dir) {
        if (!Files.isDirectory(dir)) {
            throw new IllegalArgumentException("-D" + PROPERTY + ": " + dir + " is not a directory of kept job logs");
        }
        TreeMap<Integer, Path> references = new TreeMap<>();
        // rate (descending, as the bench runs them) -> calls (0 = auto first) -> seed -> file
        TreeMap<Double, TreeMap<Integer, TreeMap<Long, Path>>> jobs = new TreeMap<>(java.util.Comparator.reverseOrder());
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                Matcher m = JOB.matcher(name);
                Matcher r = REFERENCE.matcher(name);
                if (m.matches()) {
                    int calls = m.group(3) == null ? 0 : Integer.parseInt(m.group(3));
                    jobs.computeIfAbsent(Double.parseDouble(m.group(1)), k -> new TreeMap<>())
                            .computeIfAbsent(calls, k -> new TreeMap<>()).put(Long.parseLong(m.group(4)), f);
                } else if (r.matches()) {
                    references.put(Integer.parseInt(r.group(1)), f);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + dir, e);
        }
        if (jobs.isEmpty() || references.isEmpty()) {
            throw new IllegalArgumentException("-D" + PROPERTY + ": " + dir + " holds no mtbfM-SPEC-seedS.log and "
                    + "reference-I.log files (the kept output of bin/bench --only interval)");
        }
        TreeSet<Long> seeds = new TreeSet<>();
        TreeSet<Integer> fixed = new TreeSet<>();
        jobs.values().forEach(byCalls -> byCalls.forEach((calls, bySeed) -> {
            seeds.addAll(bySeed.keySet());
            if (calls > 0) {
                fixed.add(calls);
            }
        }));
        List<String> first = lines(references.firstEntry().getValue());
        Map<String, Integer> options = new TreeMap<>();
        Matcher o = OPTION.matcher(first.isEmpty() ? "" : first.get(0));
        while (o.find()) {
            options.put(o.group(1), Integer.parseInt(o.group(2)));
        }
        if (!options.containsKey("nx") || !options.containsKey("iterations")) {
            throw new IllegalArgumentException("-D" + PROPERTY + ": " + references.firstEntry().getValue()
                    + " does not start with the job's command line (--nx, --iterations)");
        }
        IntervalBench.Config config = new IntervalBench.Config(options.get("nx"), options.get("iterations"),
                jobs.keySet().stream().mapToDouble(Double::doubleValue).toArray(),
                fixed.stream().mapToInt(Integer::intValue).toArray(),
                seeds.stream().mapToLong(Long::longValue).toArray(), references.size(), 0);
        IntervalBench.Result result = new IntervalBench.Result(config);
        List<IntervalBench.Run> phases = new ArrayList<>();
        for (Path f : references.values()) {
            IntervalBench.Run r = run(lines(f));
            result.reference(r);
            phases.add(r);
        }
        jobs.forEach((mtbf, byCalls) -> {
            List<IntervalBench.Point> points = new ArrayList<>();
            byCalls.forEach((calls, bySeed) -> {
                IntervalBench.Point p = new IntervalBench.Point(mtbf, calls);
                bySeed.values().forEach(f -> p.runs.add(run(lines(f))));
                points.add(p);
            });
            result.byRate.put(mtbf, points);
        });
        result.references(phases);
        result.pace = RestartPace.measure(dir);
        return result;
    }

    /**
     * One job from its kept output: the command line, then each line as {@code [seconds since the launch]
     * text}.
     *
     * @param lines the file's lines
     * @return the run (status 0 when the launcher reported every rank completed, else -1)
     */
    static IntervalBench.Run run(List<String> lines) {
        List<Double> failures = new ArrayList<>();
        List<Double> recovered = new ArrayList<>();
        List<Double> rolled = new ArrayList<>();
        List<Double> holds = new ArrayList<>();
        double firstReport = Double.NaN;
        int firstSweep = 0;
        double last = Double.NaN;
        boolean completed = false;
        String close = null;
        String checksum = null;
        double loop = Double.NaN;
        for (String line : lines) {
            Matcher a = ARRIVAL.matcher(line);
            if (!a.matches()) {
                continue; // the command line
            }
            double nanos = Double.parseDouble(a.group(1)) * 1e9;
            String text = a.group(2);
            last = nanos;
            Matcher m;
            if (text.contains("] injecting failure ")) {
                failures.add(nanos);
            } else if ((m = HOLD.matcher(text)).find()) {
                recovered.add(nanos);
                holds.add(Double.parseDouble(m.group(1)) * 1e6);
            } else if (text.contains("rolled back to sweep")) {
                rolled.add(nanos);
            } else if (Double.isNaN(firstReport) && (m = IntervalBench.ITERATION.matcher(text)).find()) {
                firstReport = nanos;
                firstSweep = Integer.parseInt(m.group(1));
            } else if (text.contains("interval policy ")) {
                close = text;
            } else if (checksum == null && text.startsWith("[rank 0] ")
                    && (m = IntervalBench.CHECKSUM.matcher(text)).find()) {
                checksum = m.group(1);
                Matcher l = IntervalBench.LOOP_SECONDS.matcher(text);
                loop = l.find() ? Double.parseDouble(l.group(1)) * 1e9 : Double.NaN;
            } else if (text.contains(" finished: all ")) {
                completed = true;
            }
        }
        return IntervalBench.Run.of(completed ? 0 : -1, last, firstReport, firstSweep, failures,
                IntervalBench.restarts(failures, recovered, rolled), holds, close, loop, checksum);
    }

    /** A kept file's lines (UTF-8). */
    static List<String> lines(Path f) {
        try {
            return Files.readAllLines(f, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + f, e);
        }
    }
}
