package io.jckpt.perf;

import java.util.Arrays;
import java.util.Locale;

/**
 * Repeated measurements of one quantity (nanoseconds, or any unit): median and spread. Numbers on
 * a shared 2-core machine are noisy, so every figure in the report is a median with its spread
 * (10th..90th percentile when there are at least 10 samples, else min..max).
 */
final class Samples {
    private double[] values = new double[16];
    private int count;

    void add(double value) {
        if (count == values.length) {
            values = Arrays.copyOf(values, count * 2);
        }
        values[count++] = value;
    }

    double[] values() {
        return Arrays.copyOf(values, count);
    }

    int count() {
        return count;
    }

    private double[] sorted() {
        double[] s = Arrays.copyOf(values, count);
        Arrays.sort(s);
        return s;
    }

    double median() {
        if (count == 0) {
            return Double.NaN;
        }
        double[] s = sorted();
        return count % 2 == 1 ? s[count / 2] : (s[count / 2 - 1] + s[count / 2]) / 2;
    }

    /** Arithmetic mean (NaN without samples). */
    double mean() {
        if (count == 0) {
            return Double.NaN;
        }
        double sum = 0;
        for (int i = 0; i < count; i++) {
            sum += values[i];
        }
        return sum / count;
    }

    /**
     * The standard error of the mean: the samples' standard deviation (n - 1) over sqrt(n); NaN with fewer than
     * two samples.
     */
    double standardError() {
        if (count < 2) {
            return Double.NaN;
        }
        double mean = mean();
        double squares = 0;
        for (int i = 0; i < count; i++) {
            squares += (values[i] - mean) * (values[i] - mean);
        }
        return Math.sqrt(squares / (count - 1) / count);
    }

    double min() {
        return count == 0 ? Double.NaN : sorted()[0];
    }

    double max() {
        return count == 0 ? Double.NaN : sorted()[count - 1];
    }

    /** Low end of the spread: p10 with 10+ samples, else the minimum. */
    double low() {
        if (count == 0) {
            return Double.NaN;
        }
        double[] s = sorted();
        return count >= 10 ? s[(int) Math.floor(0.1 * (count - 1))] : s[0];
    }

    /** High end of the spread: p90 with 10+ samples, else the maximum. */
    double high() {
        if (count == 0) {
            return Double.NaN;
        }
        double[] s = sorted();
        return count >= 10 ? s[(int) Math.ceil(0.9 * (count - 1))] : s[count - 1];
    }

    /** "median [low..high]" of nanosecond samples in a readable unit. */
    String timeCell() {
        if (count == 0) {
            return "n/a";
        }
        return time(median()) + " [" + time(low()) + "–" + time(high()) + "]";
    }

    /** A nanosecond figure in ns, us, ms or s with 3 significant digits. */
    static String time(double nanos) {
        if (Double.isNaN(nanos)) {
            return "n/a";
        }
        if (nanos < 0) {
            return "−" + time(-nanos);
        }
        if (nanos < 1e3) {
            return fmt(nanos) + " ns";
        }
        if (nanos < 1e6) {
            return fmt(nanos / 1e3) + " µs";
        }
        if (nanos < 1e9) {
            return fmt(nanos / 1e6) + " ms";
        }
        return fmt(nanos / 1e9) + " s";
    }

    /** A time given in seconds, as the paper's tables print them. */
    static String seconds(double nanos) {
        if (Double.isNaN(nanos)) {
            return "n/a";
        }
        double s = nanos / 1e9;
        if (s >= 0.01) {
            return String.format(Locale.ROOT, "%.4f", s);
        }
        return String.format(Locale.ROOT, "%.6f", s);
    }

    static String fmt(double v) {
        if (v >= 100) {
            return String.format(Locale.ROOT, "%.0f", v);
        }
        if (v >= 10) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.2f", v);
    }

    /** Throughput of {@code bytes} moved in {@code nanos}, in GB/s (10^9 bytes). */
    static String gbps(long bytes, double nanos) {
        return String.format(Locale.ROOT, "%.2f GB/s", bytes / nanos);
    }

    /** ours / baseline, e.g. "1.07x". */
    static String ratio(double ours, double baseline) {
        if (Double.isNaN(ours) || Double.isNaN(baseline) || baseline <= 0) {
            return "n/a";
        }
        return String.format(Locale.ROOT, "%.2fx", ours / baseline);
    }

    static String size(long bytes) {
        if (bytes >= 1 << 20 && bytes % (1 << 20) == 0) {
            return (bytes >> 20) + " MiB";
        }
        if (bytes >= 1000 && bytes % 1000 == 0) {
            return (bytes / 1000) + " KB";
        }
        if (bytes >= 1024 && bytes % 1024 == 0) {
            return (bytes / 1024) + " KiB";
        }
        return bytes + " B";
    }
}
