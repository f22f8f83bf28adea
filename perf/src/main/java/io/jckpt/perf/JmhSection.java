package io.jckpt.perf;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.commons.math3.stat.descriptive.StatisticalSummary;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * Runs {@link JmhBenchmarks} with short settings (one forked JVM per benchmark and size, with this
 * JVM's flags) and folds the scores into the report, each beside its baseline as a ratio.
 */
final class JmhSection {
    /** One benchmark at one size: JMH's per-iteration scores (ns/op). */
    record Score(double median, double min, double max, long n, double error) {
        String cell() {
            return Samples.time(median) + " [" + Samples.time(min) + "–" + Samples.time(max) + "]";
        }
    }

    private JmhSection() {
    }

    /** size → benchmark name (memcpy, crc32c, here) → score. */
    static Map<Integer, Map<String, Score>> run(int[] sizes, boolean quick) throws Exception {
        String[] params = new String[sizes.length];
        for (int i = 0; i < sizes.length; i++) {
            params[i] = Integer.toString(sizes[i]);
        }
        List<String> jvmArgs = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
        jvmArgs.removeIf(a -> a.startsWith("-Xmx") || a.startsWith("-agentlib") || a.startsWith("-javaagent"));
        jvmArgs.add("-Xmx1g");
        Options options = new OptionsBuilder()
                .include(JmhBenchmarks.class.getName() + "\\.")
                .param("size", params)
                .forks(1)
                .jvmArgs(jvmArgs.toArray(new String[0]))
                .warmupIterations(quick ? 1 : 3)
                .warmupTime(TimeValue.milliseconds(quick ? 100 : 200))
                .measurementIterations(quick ? 3 : 5)
                .measurementTime(TimeValue.milliseconds(quick ? 100 : 200))
                .timeout(TimeValue.seconds(60)) // bounded: an iteration that hangs is interrupted
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        return scores(new Runner(options).run());
    }

    /** @return JMH's results by their {@code size} parameter and benchmark name */
    static Map<Integer, Map<String, Score>> scores(Collection<RunResult> results) {
        Map<Integer, Map<String, Score>> out = new TreeMap<>();
        for (RunResult r : results) {
            String label = r.getParams().getBenchmark();
            String name = label.substring(label.lastIndexOf('.') + 1);
            int size = Integer.parseInt(r.getParams().getParam("size"));
            StatisticalSummary s = r.getPrimaryResult().getStatistics();
            double median = r.getPrimaryResult().getStatistics().getPercentile(50);
            out.computeIfAbsent(size, k -> new TreeMap<>()).put(name, new Score(median, s.getMin(), s.getMax(), s.getN(),
                    r.getPrimaryResult().getScoreError()));
        }
        return out;
    }

    static void report(Report report, Map<Integer, Map<String, Score>> scores, boolean quick) {
        report.paragraph("JMH 1.37, average time per call, one forked JVM per benchmark and size (this suite's JVM flags), "
                + (quick ? "1 x 100 ms warm-up, 3 x 100 ms measurement" : "3 x 200 ms warm-up, 5 x 200 ms measurement")
                + " iterations; each cell: median [min–max] of the iteration scores. here() is one rank alone (n = 1, "
                + "m = 0: its node-local store under /dev/shm, no replication agent): the copy into the store with the "
                + "image header and tag table, then the hand-off of the round to the store's sealing agent, which "
                + "computes its MAC (HMAC-SHA256) and CRC32C and marks it complete. \"here()\" is measured with the "
                + "previous round sealed (awaited outside the measured call, as in a program that computes between its "
                + "checkpoints): what a program blocks for. \"back to back\" calls here() without a pause, so each "
                + "call also waits for the previous round's seal: the throughput of checkpointing. The data changes by "
                + "one byte per call. Baselines: memcpy of the same bytes into a pre-touched direct buffer; CRC32C of "
                + "the same bytes.");
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<Integer, Map<String, Score>> e : scores.entrySet()) {
            Map<String, Score> s = e.getValue();
            Score memcpy = s.get("memcpy");
            Score crc = s.get("crc32c");
            Score here = s.get("here");
            Score backToBack = s.get("hereBackToBack");
            rows.add(List.of(Samples.size(e.getKey()), memcpy.cell() + " (" + Samples.gbps(e.getKey(), memcpy.median()) + ")",
                    crc.cell() + " (" + Samples.gbps(e.getKey(), crc.median()) + ")", Samples.ratio(crc.median(), memcpy.median()),
                    here.cell(), "**" + Samples.ratio(here.median(), memcpy.median()) + "**",
                    backToBack.cell(), Samples.ratio(backToBack.median(), memcpy.median())));
        }
        report.table(List.of("size", "memcpy (baseline)", "CRC32C", "CRC32C / memcpy", "here(), n = 1, m = 0",
                "here() / memcpy (target ≤ 1.25x)", "here() back to back (seal included)", "back to back / memcpy"), rows);
        Score need = needCheckpoint(scores);
        if (need != null) {
            report.paragraph("`Checkpointer.needCheckpoint()` (`JmhBenchmarks.needCheckpoint`: one rank whose policy is "
                    + "adaptive, `seconds:3600`, past its warm-up so that the schedule holds a decided interval; called "
                    + "back to back, never due within a trial: the counter compare a program pays every iteration; "
                    + "target ≤ 50 ns): **" + need.cell() + "** per call (" + (need.median() <= 50 ? "meets" : "misses")
                    + " the target).");
        }
    }

    /**
     * @param scores the JMH scores by size
     * @return needCheckpoint()'s score (it does not depend on the size: the first one run), or null
     */
    static Score needCheckpoint(Map<Integer, Map<String, Score>> scores) {
        for (Map<String, Score> bySize : scores.values()) {
            Score need = bySize.get("needCheckpoint");
            if (need != null) {
                return need;
            }
        }
        return null;
    }
}
