package io.jckpt.perf;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Section 13: the cost of saving and restoring objects (the state graph codec) against Kryo's own
 * serialization of the same graph and against a primitive array of the same byte size
 * ({@link ObjectGraphBenchmarks}): JMH, one forked JVM per benchmark and size (this JVM's flags), and the
 * same methods interleaved in this JVM so that their ratios are not those of forks minutes apart.
 */
final class ObjectsSection {
    private ObjectsSection() {
    }

    /**
     * @param sizes particles per graph
     * @param quick shorter iterations
     * @return particles → benchmark → score; the payload bytes under "bytes"
     */
    static Map<Integer, Map<String, JmhSection.Score>> run(int[] sizes, boolean quick) throws Exception {
        String[] params = new String[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            params[i] = Integer.toString(sizes[i]);
        }
        List<String> jvmArgs = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
        jvmArgs.removeIf(a -> a.startsWith("-Xmx") || a.startsWith("-agentlib") || a.startsWith("-javaagent"));
        jvmArgs.add("-Xmx1g");
        Options options = new OptionsBuilder()
                .include(ObjectGraphBenchmarks.class.getName() + "\\.")
                .param("particles", params)
                .forks(1)
                .jvmArgs(jvmArgs.toArray(new String[0]))
                .warmupIterations(quick ? 2 : 5)
                .warmupTime(TimeValue.milliseconds(quick ? 200 : 300))
                .measurementIterations(quick ? 3 : 10)
                .measurementTime(TimeValue.milliseconds(quick ? 200 : 300))
                .timeout(TimeValue.seconds(60))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        Collection<RunResult> results = new Runner(options).run();
        Map<Integer, Map<String, JmhSection.Score>> out = new TreeMap<>();
        for (RunResult r : results) {
            String label = r.getParams().getBenchmark();
            String name = label.substring(label.lastIndexOf('.') + 1);
            int n = Integer.parseInt(r.getParams().getParam("particles"));
            org.openjdk.jmh.util.Statistics s = r.getPrimaryResult().getStatistics();
            // single calls: median, and p10-p90 as the spread
            out.computeIfAbsent(n, k -> new TreeMap<>()).put(name, new JmhSection.Score(s.getPercentile(50),
                    s.getPercentile(10), s.getPercentile(90), s.getN(), r.getPrimaryResult().getScoreError()));
        }
        for (int n : sizes) {
            ObjectGraphBenchmarks b = new ObjectGraphBenchmarks();
            b.particles = n;
            b.setUp();
            try {
                double bytes = b.graphBytes();
                out.computeIfAbsent(n, k -> new TreeMap<>()).put("bytes", new JmhSection.Score(bytes, bytes, bytes, 1, 0));
            } finally {
                b.tearDown();
            }
        }
        return out;
    }

    private static String ratios(JmhSection.Score ours, JmhSection.Score baseline) {
        return "**" + Samples.ratio(ours.median(), baseline.median()) + "** (" + Samples.ratio(ours.min(), baseline.min()) + ")";
    }

    /** The benchmark methods, in the order the interleaved run calls them. */
    static final List<String> METHODS = List.of("graphWrite", "kryoWrite", "graphRoundTrip", "kryoRoundTrip", "arrayWrite",
            "arrayRoundTrip");

    /**
     * The same methods interleaved in this JVM: rounds of {@code sliceMillis} per method, every call
     * timed, the first rounds left out as warm-up; each method's calls then meet the same drift of the
     * machine's load.
     *
     * @return particles → method → single-call p50 [p10–p90], in ns
     */
    static Map<Integer, Map<String, JmhSection.Score>> interleaved(int[] sizes, boolean quick) throws Exception {
        int rounds = quick ? 8 : 25;
        int warmup = quick ? 2 : 5;
        long slice = (quick ? 100 : 200) * 1_000_000L;
        Map<Integer, Map<String, JmhSection.Score>> out = new TreeMap<>();
        for (int n : sizes) {
            ObjectGraphBenchmarks b = new ObjectGraphBenchmarks();
            b.particles = n;
            b.setUp();
            try {
                Map<String, long[]> times = new TreeMap<>();
                Map<String, Integer> counts = new TreeMap<>();
                for (int round = 0; round < rounds; round++) {
                    for (String name : METHODS) {
                        java.lang.reflect.Method m = ObjectGraphBenchmarks.class.getMethod(name);
                        long end = System.nanoTime() + slice;
                        long[] t = times.computeIfAbsent(name, k -> new long[1024]);
                        int c = counts.getOrDefault(name, 0);
                        while (System.nanoTime() < end) {
                            long start = System.nanoTime();
                            m.invoke(b);
                            long took = System.nanoTime() - start;
                            if (round >= warmup) {
                                if (c == t.length) {
                                    t = java.util.Arrays.copyOf(t, c * 2);
                                    times.put(name, t);
                                }
                                t[c++] = took;
                            }
                        }
                        counts.put(name, c);
                    }
                }
                Map<String, JmhSection.Score> scores = out.computeIfAbsent(n, k -> new TreeMap<>());
                for (String name : METHODS) {
                    int c = counts.get(name);
                    long[] t = java.util.Arrays.copyOf(times.get(name), c);
                    java.util.Arrays.sort(t);
                    scores.put(name, new JmhSection.Score(t[c / 2], t[c / 10], t[c * 9 / 10], c, 0));
                }
                scores.put("bytes", new JmhSection.Score(b.graphBytes(), b.graphBytes(), b.graphBytes(), 1, 0));
            } finally {
                b.tearDown();
            }
        }
        return out;
    }

    static void reportInterleaved(Report report, Map<Integer, Map<String, JmhSection.Score>> scores, boolean quick) {
        report.paragraph("The same methods interleaved in the suite's JVM (" + (quick ? "8 rounds of 100 ms" : "25 rounds of "
                + "200 ms") + " per method, the first " + (quick ? "2" : "5") + " rounds left out, every call timed), so that "
                + "each method's calls meet the same drift of the machine's load: each cell p10 [p50] of single calls; the "
                + "ratios are of the p10s (the calls other processes disturbed least), and in brackets of the p50s. "
                + "**These are the key figures**: the JMH forks above run one after another, minutes apart, and on this "
                + "shared machine their ratios move by 2-4x from run to run.");
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<Integer, Map<String, JmhSection.Score>> e : scores.entrySet()) {
            Map<String, JmhSection.Score> s = e.getValue();
            long bytes = (long) s.get("bytes").median();
            rows.add(List.of(e.getKey() + " particles, " + Samples.size(bytes), low(s.get("graphWrite")), low(s.get("kryoWrite")),
                    lowRatios(s.get("graphWrite"), s.get("kryoWrite")), low(s.get("graphRoundTrip")),
                    low(s.get("kryoRoundTrip")), lowRatios(s.get("graphRoundTrip"), s.get("kryoRoundTrip")),
                    low(s.get("arrayRoundTrip")), Samples.ratio(s.get("graphRoundTrip").min(), s.get("arrayRoundTrip").min())));
        }
        report.table(List.of("graph (payload)", "ours: write (here())", "Kryo: write", "ours / Kryo", "ours: write + restore",
                "Kryo: write + read", "ours / Kryo", "array of the same bytes: write + restore", "ours / array"), rows);
    }

    private static String low(JmhSection.Score s) {
        return Samples.time(s.min()) + " [" + Samples.time(s.median()) + "]";
    }

    private static String lowRatios(JmhSection.Score ours, JmhSection.Score baseline) {
        return "**" + Samples.ratio(ours.min(), baseline.min()) + "** (" + Samples.ratio(ours.median(), baseline.median()) + ")";
    }

    static void report(Report report, Map<Integer, Map<String, JmhSection.Score>> scores, boolean quick) {
        report.paragraph("JMH 1.37, sample time (every call timed), one forked JVM per benchmark and size (this suite's "
                + "JVM flags), " + (quick ? "2 x 200 ms warm-up, 3 x 200 ms measurement" : "5 x 300 ms warm-up, 10 x 300 ms "
                + "measurement") + " iterations; each cell: the median call [p10–p90]; the ratios are of the medians, and "
                + "in brackets of the p10s (the calls the machine's other load disturbed least). The graph "
                + "(`ObjectGraphBenchmarks.Simulation`): an `ArrayList` of N particles of the program's own class (7 "
                + "double and 2 int fields each), a `HashMap<String, Double>` of 100 parameters, a `Random`, a "
                + "`double[64]` and a long, registered with no configuration. **Ours**: what `here()` does for it on "
                + "the program's thread (the state graph into its staging buffer, then one copy into a native store), "
                + "and the round trip adds `rollback` in place from the store (both passes: the check, then the fill). "
                + "**Kryo** (the baseline): Kryo 5's own serialization of the same graph with the classes registered, "
                + "references on, writing into its buffer, and for the round trip reading a new graph from those bytes: "
                + "no store and no copies, and a new graph instead of an in-place fill. **Array**: a `double[]` of the "
                + "graph's payload size through jckpt's primitive array adapter (write: one copy into the store; round "
                + "trip: and one copy back).");
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<Integer, Map<String, JmhSection.Score>> e : scores.entrySet()) {
            Map<String, JmhSection.Score> s = e.getValue();
            long bytes = (long) s.get("bytes").median();
            rows.add(List.of(e.getKey() + " particles, " + Samples.size(bytes), s.get("graphWrite").cell(),
                    s.get("kryoWrite").cell(), ratios(s.get("graphWrite"), s.get("kryoWrite")),
                    s.get("graphRoundTrip").cell(), s.get("kryoRoundTrip").cell(),
                    ratios(s.get("graphRoundTrip"), s.get("kryoRoundTrip")),
                    s.get("arrayRoundTrip").cell(), Samples.ratio(s.get("graphRoundTrip").median(), s.get("arrayRoundTrip").median())));
        }
        report.table(List.of("graph (payload)", "ours: write (here())", "Kryo: write", "ours / Kryo", "ours: write + restore",
                "Kryo: write + read", "ours / Kryo", "array of the same bytes: write + restore", "ours / array"), rows);
    }
}
