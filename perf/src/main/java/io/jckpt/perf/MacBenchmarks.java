package io.jckpt.perf;

import io.jckpt.image.ImageKey;
import io.jckpt.image.ImageMac;
import io.jckpt.testkit.Baselines;
import java.lang.management.ManagementFactory;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.zip.CRC32C;
import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.results.RunResult;
import org.openjdk.jmh.runner.Runner;
import org.openjdk.jmh.runner.options.Options;
import org.openjdk.jmh.runner.options.OptionsBuilder;
import org.openjdk.jmh.runner.options.TimeValue;
import org.openjdk.jmh.runner.options.VerboseMode;

/**
 * The cost of authenticating an image (JMH, forked JVMs): the image MAC as the library computes it
 * ({@link ImageMac}: HMAC-SHA256 over a direct buffer, the SHA-NI intrinsic where the CPU has it)
 * against {@code System.arraycopy} of the same bytes and their CRC32C, and against the candidate it
 * was chosen over, AES-GCM (a GMAC by encrypting into a scratch buffer, the JDK's AVX-512 GCM
 * intrinsic where the CPU has it). {@code bin/bench --main io.jckpt.perf.MacBenchmarks [--quick]}
 * prints the table; {@code bin/bench --only jmh} puts it in the report.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
public class MacBenchmarks {
    /** Bytes authenticated (set by the runner). */
    @Param({"4194304"})
    public int size;

    private byte[] src;
    private byte[] dst;
    private ByteBuffer direct;
    private ImageMac mac;
    private Cipher gcm;
    private SecretKeySpec aesKey;
    private byte[] scratch;
    private long nonce;

    /** Fills the bytes and makes the keys. */
    @Setup(Level.Trial)
    public void setUp() throws Exception {
        src = new byte[size];
        new Random(size).nextBytes(src);
        dst = new byte[size];
        direct = Baselines.pretouched(size);
        direct.put(src).clear();
        mac = ImageKey.derive(ImageKey.newJobKey()).newMac();
        gcm = Cipher.getInstance("AES/GCM/NoPadding");
        aesKey = new SecretKeySpec(ImageKey.newJobKey(), 0, 16, "AES");
        scratch = new byte[(64 << 10) + 16];
    }

    /** The baseline: the same bytes copied, array to array. */
    @Benchmark
    public byte[] arraycopy() {
        System.arraycopy(src, 0, dst, 0, size);
        return dst;
    }

    /** CRC32C of the same bytes (off-heap, as the stores compute it). */
    @Benchmark
    public long crc32c() {
        CRC32C crc = new CRC32C();
        crc.update(direct.duplicate().clear());
        return crc.getValue();
    }

    /** The image MAC: HMAC-SHA256 of the same bytes (off-heap), as the stores seal and verify images. */
    @Benchmark
    public byte[] hmacSha256() {
        mac.begin(size + ImageMac.TAG_LENGTH);
        mac.update(direct.duplicate().clear());
        return mac.tag();
    }

    /** The alternative not taken: AES-128-GCM over the same bytes, 64 KiB at a time into a scratch buffer. */
    @Benchmark
    public int aesGcm() throws Exception {
        byte[] iv = new byte[12];
        long n = ++nonce;
        for (int i = 0; i < 8; i++) {
            iv[i] = (byte) (n >>> (8 * i));
        }
        gcm.init(Cipher.ENCRYPT_MODE, aesKey, new GCMParameterSpec(128, iv));
        ByteBuffer in = direct.duplicate().clear();
        int chunk = 64 << 10;
        for (int at = 0; at < size; at += chunk) {
            int k = Math.min(chunk, size - at);
            in.get(at, scratch, 0, k);
            gcm.update(scratch, 0, k, scratch, 0);
        }
        return gcm.doFinal(scratch, 0);
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
                .include(MacBenchmarks.class.getName() + "\\.")
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
        Collection<RunResult> results = new Runner(options).run();
        return JmhSection.scores(results);
    }

    /** Adds the table: each algorithm's time, throughput and ratios to arraycopy and CRC32C. */
    static void report(Report report, Map<Integer, Map<String, JmhSection.Score>> scores) {
        report.paragraph("The image MAC (`MacBenchmarks`, JMH, one forked JVM per benchmark and size, median [min–max] of "
                + "the iteration scores): HMAC-SHA256 as `ImageMac` computes it over off-heap bytes, beside "
                + "`System.arraycopy` and CRC32C of the same bytes, and AES-128-GCM (a GMAC through the JDK's GCM "
                + "intrinsic, encrypting 64 KiB at a time into a scratch buffer), the alternative not taken: it needs a "
                + "fresh nonce per image and its intrinsic is used only once the JIT has compiled it (a cold JVM ran "
                + "the first images' GCM 10-100x slower, HMAC-SHA256 within its first image).");
        List<List<String>> rows = new ArrayList<>();
        for (Map.Entry<Integer, Map<String, JmhSection.Score>> e : scores.entrySet()) {
            Map<String, JmhSection.Score> s = e.getValue();
            JmhSection.Score copy = s.get("arraycopy");
            JmhSection.Score crc = s.get("crc32c");
            JmhSection.Score hmac = s.get("hmacSha256");
            JmhSection.Score gcm = s.get("aesGcm");
            int size = e.getKey();
            rows.add(List.of(Samples.size(size), copy.cell() + " (" + Samples.gbps(size, copy.median()) + ")",
                    crc.cell() + " (" + Samples.gbps(size, crc.median()) + ")",
                    hmac.cell() + " (" + Samples.gbps(size, hmac.median()) + ")",
                    "**" + Samples.ratio(hmac.median(), copy.median()) + "**",
                    "**" + Samples.ratio(hmac.median(), crc.median()) + "**",
                    gcm.cell() + " (" + Samples.gbps(size, gcm.median()) + ")", Samples.ratio(gcm.median(), hmac.median())));
        }
        report.table(List.of("size", "System.arraycopy (baseline)", "CRC32C", "HMAC-SHA256 (the image MAC)",
                "MAC / arraycopy", "MAC / CRC32C", "AES-GCM (not taken)", "AES-GCM / MAC"), rows);
    }

    /**
     * Prints the table.
     *
     * @param args {@code --quick} for shorter iterations
     */
    public static void main(String[] args) throws Exception {
        boolean quick = List.of(args).contains("--quick");
        Report report = new Report();
        report(report, run(quick));
        System.out.println(report);
    }
}
