package io.jckpt.perf;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoubleFunction;

/**
 * A small line chart written as SVG (no dependency): linear or logarithmic axes, several series of
 * points with their spread as error bars, a legend. Enough for the report's cost-vs-size and
 * overhead-vs-interval figures.
 */
final class SvgPlot {
    private static final String[] COLOURS = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#17becf"};
    private static final int W = 720;
    private static final int H = 440;
    private static final int LEFT = 80;
    private static final int RIGHT = 220;
    private static final int TOP = 40;
    private static final int BOTTOM = 60;

    /** One point: x, the median y and its spread (low, high; NaN when none). */
    record Point(double x, double y, double low, double high) {
    }

    private record Series(String name, List<Point> points, boolean dashed) {
    }

    private final String title;
    private final String xLabel;
    private final String yLabel;
    private final boolean logX;
    private final boolean logY;
    private DoubleFunction<String> xTick = v -> Samples.fmt(v);
    private DoubleFunction<String> yTick = v -> Samples.fmt(v);
    private final List<Series> series = new ArrayList<>();

    SvgPlot(String title, String xLabel, String yLabel, boolean logX, boolean logY) {
        this.title = title;
        this.xLabel = xLabel;
        this.yLabel = yLabel;
        this.logX = logX;
        this.logY = logY;
    }

    SvgPlot ticks(DoubleFunction<String> x, DoubleFunction<String> y) {
        this.xTick = x;
        this.yTick = y;
        return this;
    }

    SvgPlot series(String name, List<Point> points, boolean dashed) {
        List<Point> usable = new ArrayList<>();
        for (Point p : points) {
            if (Double.isFinite(p.y()) && (!logY || p.y() > 0) && (!logX || p.x() > 0)) {
                usable.add(p);
            }
        }
        if (!usable.isEmpty()) {
            series.add(new Series(name, usable, dashed));
        }
        return this;
    }

    boolean isEmpty() {
        return series.isEmpty();
    }

    private double tx(double v) {
        return logX ? Math.log10(v) : v;
    }

    private double ty(double v) {
        return logY ? Math.log10(v) : v;
    }

    void write(Path file) throws IOException {
        double x0 = Double.MAX_VALUE;
        double x1 = -Double.MAX_VALUE;
        double y0 = Double.MAX_VALUE;
        double y1 = -Double.MAX_VALUE;
        for (Series s : series) {
            for (Point p : s.points()) {
                x0 = Math.min(x0, tx(p.x()));
                x1 = Math.max(x1, tx(p.x()));
                double lo = Double.isFinite(p.low()) && (!logY || p.low() > 0) ? p.low() : p.y();
                double hi = Double.isFinite(p.high()) ? p.high() : p.y();
                y0 = Math.min(y0, ty(lo));
                y1 = Math.max(y1, ty(hi));
            }
        }
        if (series.isEmpty()) {
            x0 = 0;
            x1 = 1;
            y0 = 0;
            y1 = 1;
        }
        if (logX) {
            x0 = Math.floor(x0);
            x1 = Math.ceil(x1);
        }
        if (logY) {
            y0 = Math.floor(y0);
            y1 = Math.ceil(y1);
        } else {
            y0 = Math.min(0, y0);
            y1 = y1 + (y1 - y0) * 0.08;
        }
        if (x1 <= x0) {
            x1 = x0 + 1;
        }
        if (y1 <= y0) {
            y1 = y0 + 1;
        }
        double fx0 = x0;
        double fx1 = x1;
        double fy0 = y0;
        double fy1 = y1;
        int pw = W - LEFT - RIGHT;
        int ph = H - TOP - BOTTOM;
        java.util.function.DoubleUnaryOperator px = v -> LEFT + (tx(v) - fx0) / (fx1 - fx0) * pw;
        java.util.function.DoubleUnaryOperator py = v -> TOP + ph - (ty(v) - fy0) / (fy1 - fy0) * ph;
        StringBuilder svg = new StringBuilder();
        svg.append(String.format(Locale.ROOT, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-family=\"sans-serif\" font-size=\"12\">%n", W, H, W, H));
        svg.append(String.format(Locale.ROOT, "<rect width=\"%d\" height=\"%d\" fill=\"white\"/>%n", W, H));
        svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"22\" font-size=\"15\" font-weight=\"bold\">%s</text>%n",
                LEFT, esc(title)));
        // grid and ticks
        for (double t : ticks(x0, x1, logX)) {
            double v = logX ? Math.pow(10, t) : t;
            double x = px.applyAsDouble(v);
            svg.append(line(x, TOP, x, TOP + ph, "#ddd", false));
            svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n", x,
                    TOP + ph + 16, esc(xTick.apply(v))));
        }
        for (double t : ticks(y0, y1, logY)) {
            double v = logY ? Math.pow(10, t) : t;
            double y = py.applyAsDouble(v);
            svg.append(line(LEFT, y, LEFT + pw, y, "#ddd", false));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>%n", LEFT - 6,
                    y + 4, esc(yTick.apply(v))));
        }
        svg.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"none\" "
                + "stroke=\"#333\"/>%n", LEFT, TOP, pw, ph));
        svg.append(String.format(Locale.ROOT, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>%n",
                LEFT + pw / 2.0, H - 18, esc(xLabel)));
        svg.append(String.format(Locale.ROOT, "<text transform=\"translate(18,%.1f) rotate(-90)\" text-anchor=\"middle\">"
                + "%s</text>%n", TOP + ph / 2.0, esc(yLabel)));
        int k = 0;
        for (Series s : series) {
            String colour = COLOURS[k % COLOURS.length];
            StringBuilder path = new StringBuilder();
            for (Point p : s.points()) {
                double x = px.applyAsDouble(p.x());
                double y = py.applyAsDouble(p.y());
                path.append(path.length() == 0 ? "M" : " L").append(String.format(Locale.ROOT, "%.1f %.1f", x, y));
                if (Double.isFinite(p.low()) && Double.isFinite(p.high()) && (!logY || p.low() > 0)) {
                    svg.append(line(x, py.applyAsDouble(p.low()), x, py.applyAsDouble(p.high()), colour, false));
                }
                svg.append(String.format(Locale.ROOT, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"/>%n", x, y, colour));
            }
            svg.append(String.format(Locale.ROOT, "<path d=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.8\"%s/>%n",
                    path, colour, s.dashed() ? " stroke-dasharray=\"6 4\"" : ""));
            double ly = TOP + 10 + k * 20;
            svg.append(line(LEFT + pw + 12, ly, LEFT + pw + 36, ly, colour, s.dashed()));
            svg.append(String.format(Locale.ROOT, "<text x=\"%d\" y=\"%.1f\">%s</text>%n", LEFT + pw + 42, ly + 4,
                    esc(s.name())));
            k++;
        }
        svg.append("</svg>\n");
        Files.writeString(file, svg.toString(), StandardCharsets.UTF_8);
    }

    private static List<Double> ticks(double lo, double hi, boolean log) {
        List<Double> t = new ArrayList<>();
        if (log) {
            for (double d = Math.ceil(lo); d <= hi + 1e-9; d++) {
                t.add(d);
            }
            return t;
        }
        double step = Math.pow(10, Math.floor(Math.log10((hi - lo) / 5)));
        if ((hi - lo) / step > 10) {
            step *= 2;
        }
        if ((hi - lo) / step > 10) {
            step *= 2.5;
        }
        for (double v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) {
            t.add(v);
        }
        return t;
    }

    private static String line(double x1, double y1, double x2, double y2, String colour, boolean dashed) {
        return String.format(Locale.ROOT, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                + "stroke-width=\"%s\"%s/>%n", x1, y1, x2, y2, colour, dashed ? "1.8" : "1",
                dashed ? " stroke-dasharray=\"6 4\"" : "");
    }

    private static String esc(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
    }
}
