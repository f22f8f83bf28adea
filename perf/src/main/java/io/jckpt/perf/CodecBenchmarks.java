package io.jckpt.perf;

import io.jckpt.codes.ReedSolomon;
import io.jckpt.testkit.Baselines;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The redundancy codes' encoding cost per rank and round (JMH, forked JVMs, off-heap buffers as the stores
 * hold images): one stripe's parity from its k chunks of image / k bytes, which is the work a parity
 * holder does for one member's image, for xor:8 (7 chunks, one XOR parity) and rs:8+2 (8 chunks, two
 * parity rows), and the rebuild of two lost chunks of an rs:8+2 stripe, beside memcpy of the same bytes
 * (array to array, and direct to direct) and their CRC32C. {@code bin/bench --main
 * io.jckpt.perf.CodecBenchmarks [--quick] [--runs N]} prints the table; {@code bin/bench --only jmh} puts
 * it in the report.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class CodecBenchmarks {
    /** Image bytes per rank (set by the runner). */
    @Param({"4194304"})
    public int size;

    private byte[] heapSrc;
    private byte[] heapDst;
    private ByteBuffer src;
    private ByteBuffer dst;

    private final ReedSolomon xor8 = ReedSolomon.of(7, 1);
    private final ReedSolomon rs82 = ReedSolomon.of(8, 2);
    private int xorChunk;
    private ByteBuffer[] xorData;
    private int[] xorOffset;
    private int[] xorLength;
    private ByteBuffer[] xorParity;
    private final int[] xorParityOffset = new int[1];
    private int rsChunk;
    private ByteBuffer[] rsData;
    private int[] rsOffset;
    private int[] rsLength;
    private ByteBuffer[] rsParity;
    private int[] rsParityOffset;
    private ByteBuffer[] xorDataNative;
    private ByteBuffer[] xorParityNative;
    private ByteBuffer[] rsDataNative;
    private ByteBuffer[] rsParityNative;
    private ByteBuffer[] rsSymbols;
    private int[] rsSymbolOffset;
    private int[] rsSymbolLength;
    private boolean[] rsErased;

    /** Fills the image and encodes it once (the rebuild needs valid parity). */
    @Setup(Level.Trial)
    public void setUp() {
        heapSrc = new byte[size];
        new Random(size).nextBytes(heapSrc);
        heapDst = new byte[size];
        src = Baselines.pretouched(size);
        src.put(0, heapSrc);
        dst = Baselines.pretouched(size);

        xorChunk = (size + 6) / 7;
        xorData = new ByteBuffer[7];
        xorOffset = new int[7];
        xorLength = new int[7];
        for (int c = 0; c < 7; c++) {
            xorData[c] = src;
            xorOffset[c] = c * xorChunk;
            xorLength[c] = Math.max(0, Math.min(xorChunk, size - c * xorChunk));
        }
        xorParity = new ByteBuffer[] {Baselines.pretouched(xorChunk)};

        rsChunk = (size + 7) / 8;
        rsData = new ByteBuffer[8];
        rsOffset = new int[8];
        rsLength = new int[8];
        for (int c = 0; c < 8; c++) {
            rsData[c] = src;
            rsOffset[c] = c * rsChunk;
            rsLength[c] = Math.max(0, Math.min(rsChunk, size - c * rsChunk));
        }
        ByteBuffer parity = Baselines.pretouched(2 * rsChunk);
        rsParity = new ByteBuffer[] {parity, parity};
        rsParityOffset = new int[] {0, rsChunk};
        rs82.encode(rsData, rsOffset, rsLength, rsParity, rsParityOffset, rsChunk);
        // the rebuild: chunks 0 and 1 lost, decoded into scratch from chunks 2..7 and both parity rows
        rsSymbols = new ByteBuffer[10];
        rsSymbolOffset = new int[10];
        rsSymbolLength = new int[10];
        ByteBuffer scratch = Baselines.pretouched(2 * rsChunk);
        for (int i = 0; i < 10; i++) {
            if (i < 2) {
                rsSymbols[i] = scratch;
                rsSymbolOffset[i] = i * rsChunk;
                rsSymbolLength[i] = rsChunk;
            } else if (i < 8) {
                rsSymbols[i] = src;
                rsSymbolOffset[i] = i * rsChunk;
                rsSymbolLength[i] = rsLength[i];
            } else {
                rsSymbols[i] = parity;
                rsSymbolOffset[i] = (i - 8) * rsChunk;
                rsSymbolLength[i] = rsChunk;
            }
        }
        // the same memory in the machine's byte order (direct buffers are big-endian unless told otherwise)
        xorDataNative = nativeViews(xorData);
        xorParityNative = nativeViews(xorParity);
        rsDataNative = nativeViews(rsData);
        rsParityNative = nativeViews(rsParity);
        rsErased = new boolean[10];
        rsErased[0] = true;
        rsErased[1] = true;
    }

    private static ByteBuffer[] nativeViews(ByteBuffer[] buffers) {
        ByteBuffer[] out = new ByteBuffer[buffers.length];
        for (int i = 0; i < buffers.length; i++) {
            out[i] = buffers[i].duplicate().order(java.nio.ByteOrder.nativeOrder());
        }
        return out;
    }

    /** Baseline: the image copied array to array. */
    @Benchmark
    public byte[] arraycopy() {
        System.arraycopy(heapSrc, 0, heapDst, 0, size);
        return heapDst;
    }

    /** Baseline: the image copied off-heap to off-heap (as the stores' buffers are). */
    @Benchmark
    public ByteBuffer memcpy() {
        return dst.put(0, src, 0, size);
    }

    /** CRC32C of the image (off-heap). */
    @Benchmark
    public long crc32c() {
        CRC32C crc = new CRC32C();
        crc.update(src.duplicate().clear());
        return crc.getValue();
    }

    /** xor:8: one parity part from 7 chunks of image / 7 bytes. */
    @Benchmark
    public ByteBuffer xor8Encode() {
        xor8.encode(xorData, xorOffset, xorLength, xorParity, xorParityOffset, xorChunk);
        return xorParity[0];
    }

    /** rs:8+2: two parity parts from 8 chunks of image / 8 bytes. */
    @Benchmark
    public ByteBuffer rs82Encode() {
        rs82.encode(rsData, rsOffset, rsLength, rsParity, rsParityOffset, rsChunk);
        return rsParity[0];
    }

    /** xor:8 over buffers in the machine's byte order. */
    @Benchmark
    public ByteBuffer xor8EncodeNative() {
        xor8.encode(xorDataNative, xorOffset, xorLength, xorParityNative, xorParityOffset, xorChunk);
        return xorParityNative[0];
    }

    /** rs:8+2 over buffers in the machine's byte order. */
    @Benchmark
    public ByteBuffer rs82EncodeNative() {
        rs82.encode(rsDataNative, rsOffset, rsLength, rsParityNative, rsParityOffset, rsChunk);
        return rsParityNative[0];
    }

    /** rs:8+2: two lost chunks of a stripe rebuilt from the other 6 and the 2 parity parts. */
    @Benchmark
    public ByteBuffer rs82Rebuild2() {
        rs82.reconstruct(rsSymbols, rsSymbolOffset, rsSymbolLength, rsErased, rsChunk);
        return rsSymbols[0];
    }

    /**
     * Runs the benchmarks at 4 and 64 MiB.
     *
     * @param quick shorter iterations
     * @return size → benchmark name → score
     */
    static Map<Integer, Map<String, JmhSection.Score>> run(boolean quick) throws Exception {
        List<String> jvmArgs = new ArrayList<>(ManagementFactory.getRuntimeMXBean().getInputArguments());
        jvmArgs.removeIf(a -> a.startsWith("-Xmx") || a.startsWith("-agentlib") || a.startsWith("-javaagent"));
        jvmArgs.add("-Xmx1g");
        Options options = new OptionsBuilder()
                .include(CodecBenchmarks.class.getName() + "\\.")
                .param("size", Integer.toString(4 << 20), Integer.toString(64 << 20))
                .forks(1)
                .jvmArgs(jvmArgs.toArray(new String[0]))
                .warmupIterations(quick ? 2 : 3)
                .warmupTime(TimeValue.milliseconds(quick ? 300 : 500))
                .measurementIterations(quick ? 3 : 5)
                .measurementTime(TimeValue.milliseconds(quick ? 300 : 500))
                .timeout(TimeValue.seconds(60))
                .shouldFailOnError(true)
                .verbosity(VerboseMode.SILENT)
                .build();
        return JmhSection.scores(new Runner(options).run());
    }

    private static final String[][] COLUMNS = {
        {"arraycopy", "System.arraycopy"}, {"memcpy", "memcpy off-heap (baseline)"}, {"crc32c", "CRC32C"},
        {"xor8Encode", "xor:8 encode"}, {"xor8EncodeNative", "xor:8 encode, native order"}, {"rs82Encode", "rs:8+2 encode"},
        {"rs82EncodeNative", "rs:8+2 encode, native order"}, {"rs82Rebuild2", "rs:8+2 rebuild of 2 chunks"}};

    /**
     * Adds the table: per size, each benchmark's median time over the runs (with the spread of the runs'
     * medians), its throughput per image byte, and its ratio to memcpy of the same run.
     *
     * @param report the report
     * @param runs the runs' scores
     */
    static void report(Report report, List<Map<Integer, Map<String, JmhSection.Score>>> runs) {
        report.paragraph("The redundancy codes' encoding (`CodecBenchmarks`, JMH, one forked JVM per benchmark and size, "
                + runs.size() + " run" + (runs.size() == 1 ? "" : "s") + "): the work of one parity holder for one member's "
                + "image per round, one stripe's parity from its k chunks of image / k bytes (xor:8: 7 chunks → 1 "
                + "parity part; rs:8+2: 8 chunks → 2 parity parts), and the rebuild of 2 lost chunks of an rs:8+2 stripe "
                + "(inverting the 8 × 8 matrix included), all off-heap, one thread; the codec over direct buffers as allocated "
                + "(big-endian: every 8-byte access swaps its bytes) and over views of the same memory in the machine's "
                + "order. Each cell: the median over the runs "
                + "of each run's median [the runs' min–max], its throughput in image bytes per second, and its ratio to "
                + "the off-heap memcpy of the same run (median [min–max] over the runs). Targets (issue 30): xor ≥ 1 GB/s "
                + "per core, rs:8+2 ≥ 0.3 GB/s.");
        List<List<String>> rows = new ArrayList<>();
        for (int size : runs.get(0).keySet()) {
            List<String> row = new ArrayList<>();
            row.add(Samples.size(size));
            for (String[] col : COLUMNS) {
                double[] medians = new double[runs.size()];
                double[] ratios = new double[runs.size()];
                for (int i = 0; i < runs.size(); i++) {
                    Map<String, JmhSection.Score> s = runs.get(i).get(size);
                    medians[i] = s.get(col[0]).median();
                    ratios[i] = medians[i] / s.get("memcpy").median();
                }
                double median = median(medians);
                String cell = Samples.time(median) + (runs.size() > 1 ? " [" + Samples.time(min(medians)) + "–"
                        + Samples.time(max(medians)) + "]" : "") + " (" + Samples.gbps(size, median) + ")";
                if (!col[0].equals("memcpy")) {
                    cell += ", " + String.format(java.util.Locale.ROOT, "%.2fx", median(ratios))
                            + (runs.size() > 1 ? String.format(java.util.Locale.ROOT, " [%.2f–%.2f]", min(ratios), max(ratios)) : "");
                }
                row.add(cell);
            }
            rows.add(row);
        }
        List<String> header = new ArrayList<>();
        header.add("image");
        for (String[] col : COLUMNS) {
            header.add(col[0].equals("memcpy") ? col[1] : col[1] + ", / memcpy");
        }
        report.table(header, rows);
    }

    private static double median(double[] a) {
        double[] s = a.clone();
        Arrays.sort(s);
        return s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }

    private static double min(double[] a) {
        return Arrays.stream(a).min().orElse(Double.NaN);
    }

    private static double max(double[] a) {
        return Arrays.stream(a).max().orElse(Double.NaN);
    }

    /**
     * Prints the table.
     *
     * @param args {@code --quick} for shorter iterations, {@code --runs N} for N runs (default 1)
     */
    public static void main(String[] args) throws Exception {
        List<String> a = List.of(args);
        boolean quick = a.contains("--quick");
        int n = a.indexOf("--runs") >= 0 ? Integer.parseInt(a.get(a.indexOf("--runs") + 1)) : 1;
        List<Map<Integer, Map<String, JmhSection.Score>>> runs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            runs.add(run(quick));
        }
        Report report = new Report();
        report(report, runs);
        System.out.println(report);
    }
}
