package io.jckpt.runtime.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * A job's report page: one self-contained HTML file (inline CSS and SVG, nothing fetched) drawn from
 * the job's events file ({@code docs/events.md}, schema 1): a timeline with a time axis in seconds and
 * one lane per rank (every reported checkpoint round, disk commits, injected kills, failures, the work
 * lost to each failure shaded, the recovery phases labelled, each rank's rollback), a legend, the
 * end-of-job summary table and here()'s blocking time per reported round.
 *
 * <p>The launcher writes {@code report.html} next to the events file when a job ends;
 * {@code bin/ckpt-report EVENTS [OUT]} (this class's {@link #main}) writes one again from any events file.
 *
 * <p><b>Size</b> (past 600 lines): most of it is the page's markup and style, written inline so that the
 * page stays one self-contained file; the reading of the events and the layout of the lanes are short.
 */
public final class JobReport {
    /** The events schema this page reads. */
    static final int SCHEMA_VERSION = 1;
    private static final int LEFT = 80;
    private static final int PLOT = 1060;
    private static final int LANE = 34;
    private static final int LANE_GAP = 8;
    private static final int PHASES = 3 * 16;
    private static final String[] RANK_COLOURS = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

    private final List<JsonNode> events;
    private final String source;
    private final int ranks;
    private final double end;
    private final List<List<StartUp.Phase>> startUp;
    private final List<Recoveries.Recovery> recoveries;

    private JobReport(List<JsonNode> events, String source) {
        this.events = events;
        this.source = source;
        int n = 0;
        double last = 0;
        for (JsonNode e : events) {
            if (type(e).equals("start")) {
                n = Math.max(n, e.path("ranks").asInt());
            }
            if (e.has("rank")) {
                n = Math.max(n, e.path("rank").asInt() + 1);
            }
            last = Math.max(last, e.path("t").asDouble());
        }
        this.ranks = Math.max(1, n);
        this.end = Math.max(last, 1e-3);
        this.startUp = StartUp.of(events, ranks, end);
        this.recoveries = Recoveries.of(events);
    }

    /**
     * {@code EVENTS [OUT]}: writes the report page of an events file (default OUT: {@code report.html}
     * next to it). Exit status 0 written, 1 the file could not be read or written, 2 bad arguments.
     *
     * @param args the events file and, optionally, the page to write
     */
    public static void main(String[] args) {
        if (args.length < 1 || args.length > 2 || args[0].startsWith("-")) {
            System.err.println("ckpt-report: usage: ckpt-report EVENTS.jsonl [OUT.html] (default OUT: report.html"
                    + " next to the events file)");
            System.exit(2);
            return;
        }
        Path events = Path.of(args[0]);
        Path out = args.length == 2 ? Path.of(args[1]) : besideEvents(events);
        try {
            write(events, out);
            System.out.println("report page: " + out.toAbsolutePath());
        } catch (java.nio.file.NoSuchFileException e) {
            System.err.println("ckpt-report: no such file: " + e.getFile());
            System.exit(1);
        } catch (IOException e) {
            System.err.println("ckpt-report: " + e.getMessage());
            System.exit(1);
        } catch (RuntimeException e) {
            System.err.println("ckpt-report: " + e);
            System.exit(1);
        }
    }

    /**
     * @param events an events file
     * @return {@code report.html} in the events file's directory
     */
    public static Path besideEvents(Path events) {
        return events.toAbsolutePath().resolveSibling("report.html");
    }

    /**
     * Reads an events file and writes its report page.
     *
     * @param events the job's events file (JSON Lines, schema 1); a last line cut short (a job still
     *               writing) is left out
     * @param html   the page to write (its directory must exist)
     * @throws IOException when the events cannot be read, a line other than the last is not a JSON
     *                     object (the message names the line), or the page cannot be written
     */
    public static void write(Path events, Path html) throws IOException {
        List<JsonNode> read = read(events);
        Files.writeString(html, new JobReport(read, events.toString()).html(), StandardCharsets.UTF_8);
    }

    /**
     * @param events an events file
     * @return its events in order
     * @throws IOException when it cannot be read, or a line other than the last is not a JSON object
     */
    static List<JsonNode> read(Path events) throws IOException {
        ObjectMapper json = new ObjectMapper();
        List<String> lines = Files.readAllLines(events, StandardCharsets.UTF_8);
        List<JsonNode> out = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank()) {
                continue;
            }
            JsonNode e;
            try {
                e = json.readTree(line);
            } catch (JsonProcessingException bad) {
                if (i == lines.size() - 1) {
                    break; // a line still being written
                }
                throw new IOException(events + " line " + (i + 1) + " is not JSON: " + bad.getOriginalMessage());
            }
            if (e == null || !e.isObject() || !e.has("type")) {
                throw new IOException(events + " line " + (i + 1) + " is not an event (a JSON object with a type)");
            }
            out.add(e);
        }
        return out;
    }

    /**
     * @param events a job's events
     * @param source where they came from (shown on the page)
     * @return the page
     */
    static String render(List<JsonNode> events, String source) {
        return new JobReport(events, source).html();
    }

    private String html() {
        JsonNode start = first("start");
        JsonNode endEvent = first("end");
        StringBuilder h = new StringBuilder(64 * 1024);
        String job = start == null ? "?" : start.path("job").asText("?");
        h.append("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>jckpt job ")
                .append(esc(job)).append("</title>\n<style>\n")
                .append("body{font-family:sans-serif;margin:16px 24px;color:#222;background:#fff}\n")
                .append("h1{font-size:20px;margin:0 0 6px}h2{font-size:16px;margin:22px 0 6px}\n")
                .append(".facts{color:#444;margin:0 0 10px}\n")
                .append("table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:3px 8px;"
                        + "text-align:left}th{background:#f0f0f0}td.num{text-align:right}\n")
                .append("ul.legend{list-style:none;padding:0;margin:6px 0;display:flex;flex-wrap:wrap;gap:6px 18px;"
                        + "font-size:13px}\n")
                .append(".swatch{display:inline-block;width:14px;height:14px;border:1px solid #555;"
                        + "vertical-align:middle;margin-right:5px}\n")
                .append("svg text{font-family:sans-serif}\n</style></head>\n<body>\n");
        h.append("<h1>jckpt job ").append(esc(job)).append("</h1>\n<p class=\"facts\">");
        if (start != null) {
            h.append(esc(start.path("main").asText())).append(" on ").append(ranks).append(" ranks (")
                    .append(esc(start.path("device").asText())).append("), on failure: ")
                    .append(esc(start.path("on_failure").asText())).append(". ");
        }
        if (endEvent != null) {
            h.append("Ended <b id=\"status\">").append(esc(endEvent.path("status").asText())).append("</b> after ")
                    .append(fmt("%.2f", endEvent.path("t").asDouble())).append(" s, exit status ")
                    .append(endEvent.path("exit").asInt()).append(", recoveries: ")
                    .append(endEvent.path("recoveries").asInt());
            if (endEvent.has("reason")) {
                h.append(" (").append(esc(endEvent.path("reason").asText())).append(')');
            }
            h.append('.');
        } else {
            h.append("<b id=\"status\">no end event</b> (the job was still running or its launcher died).");
        }
        h.append(" Events: ").append(esc(source)).append(" (").append(events.size()).append(").</p>\n");
        h.append("<h2>Timeline</h2>\n");
        timeline(h);
        legend(h);
        startUpZoom(h);
        startUpTable(h);
        recoveryTable(h);
        h.append("<h2>Summary</h2>\n");
        summary(h);
        h.append("<h2>here() blocking time per round</h2>\n");
        hereTimes(h);
        h.append("</body></html>\n");
        return h.toString();
    }

    // ---- the timeline

    private double x(double t) {
        return LEFT + PLOT * Math.max(0, Math.min(t, end)) / end;
    }

    private int laneY(int rank) {
        return 30 + PHASES + rank * (LANE + LANE_GAP);
    }

    private void timeline(StringBuilder h) {
        int lanesBottom = laneY(ranks) - LANE_GAP;
        int height = lanesBottom + 40;
        h.append(fmt("<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-size=\"12\">\n", LEFT + PLOT + 30, height, LEFT + PLOT + 30, height));
        for (int r = 0; r < ranks; r++) {
            int y = laneY(r);
            h.append(fmt("<g class=\"lane\" id=\"lane-%d\" data-rank=\"%d\"><text x=\"8\" y=\"%d\">rank %d</text>"
                    + "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#dde8f3\"/></g>\n",
                    r, r, y + LANE / 2 + 4, r, LEFT, y, PLOT, LANE));
        }
        startUp(h);
        axis(h, lanesBottom, end, this::x);
        h.append(fmt("<g class=\"grid\">"));
        for (int k = 0; k * step(end) <= end + 1e-9; k++) {
            double xt = x(k * step(end));
            h.append(fmt("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" stroke-opacity=\"0.08\"/>",
                    xt, 30, xt, lanesBottom + 6));
        }
        h.append("</g>\n");
        recoveries(h, lanesBottom);
        for (JsonNode e : events) {
            double t = e.path("t").asDouble();
            double xe = x(t);
            switch (type(e)) {
                case "checkpoint" -> {
                    int y = laneY(e.path("rank").asInt());
                    h.append(fmt("<line class=\"ckpt\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#2b6cb0\">"
                            + "<title>rank %d: checkpoint round %d at %.3f s, %s, here() %.3f ms</title></line>\n",
                            xe, y + 4, xe, y + LANE - 4, e.path("rank").asInt(), e.path("round").asLong(), t,
                            bytes(e.path("bytes").asLong()), e.path("here_ms").asDouble()));
                }
                case "disk_commit" -> {
                    for (int r = 0; r < ranks; r++) {
                        int yc = laneY(r) + LANE / 2;
                        h.append(fmt("<path class=\"disk\" d=\"M%.1f %d l6 6 l-6 6 l-6 -6 z\" fill=\"#6b46c1\">"
                                + "<title>disk generation of round %d committed at %.3f s (by rank %d)</title></path>\n",
                                xe, yc - 6, e.path("round").asLong(), t, e.path("rank").asInt()));
                    }
                }
                case "injection" -> {
                    for (JsonNode rank : e.path("ranks")) {
                        int y = laneY(rank.asInt());
                        h.append(fmt("<path class=\"injection\" d=\"M%.1f %d l-7 -10 h14 z\" fill=\"#dd6b20\">"
                                + "<title>injected kill %s at %.3f s (round %d%s)</title></path>\n", xe, y + 2,
                                esc(e.path("spec").asText()), t, e.path("round").asLong(),
                                e.path("wipe").asBoolean() ? ", node-local store wiped" : ""));
                    }
                }
                case "failure" -> {
                    for (JsonNode rank : e.path("ranks")) {
                        int y = laneY(rank.asInt());
                        h.append(fmt("<text class=\"failure\" x=\"%.1f\" y=\"%d\" fill=\"#c53030\" font-size=\"20\" "
                                + "text-anchor=\"middle\">&#x2716;<title>%.3f s: %s</title></text>\n", xe,
                                y + LANE / 2 + 7, t, esc(e.path("reason").asText())));
                    }
                    if (e.path("fatal").asBoolean()) {
                        h.append(fmt("<line class=\"failure\" x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" "
                                + "stroke=\"#c53030\" stroke-width=\"2\"><title>%s</title></line>\n", xe, laneY(0), xe,
                                lanesBottom, esc(e.path("reason").asText())));
                    }
                }
                case "rollback" -> {
                    int y = laneY(e.path("rank").asInt());
                    boolean disk = e.path("source").asText().equals("disk");
                    h.append(fmt("<circle class=\"rollback\" cx=\"%.1f\" cy=\"%d\" r=\"6\" fill=\"%s\" stroke=\"#fff\">"
                            + "<title>rank %d restored round %d from %s%s at %.3f s</title></circle>\n", xe,
                            y + LANE / 2, disk ? "#975a16" : "#2f855a", e.path("rank").asInt(),
                            e.path("round").asLong(), esc(e.path("source").asText()),
                            e.path("how").asText().isEmpty() ? "" : " (" + esc(e.path("how").asText()) + ")", t));
                }
                case "standby_takeover" -> {
                    int y = laneY(e.path("rank").asInt());
                    h.append(fmt("<rect class=\"standby\" x=\"%.1f\" y=\"%d\" width=\"8\" height=\"8\" fill=\"#0987a0\">"
                            + "<title>standby %d took over rank %d at %.3f s</title></rect>\n", xe - 4, y + LANE - 9,
                            e.path("standby").asInt(), e.path("rank").asInt(), t));
                }
                case "rank_finished" -> {
                    int y = laneY(e.path("rank").asInt());
                    h.append(fmt("<rect class=\"finished\" x=\"%.1f\" y=\"%d\" width=\"3\" height=\"%d\" fill=\"#222\">"
                            + "<title>rank %d completed at %.3f s</title></rect>\n", xe - 1.5, y, LANE,
                            e.path("rank").asInt(), t));
                }
                default -> {
                }
            }
        }
        h.append("</svg>\n");
    }

    /** Each rank's start-up phases on its lane, named inside where the name fits (always on hover). */
    private void startUp(StringBuilder h) {
        for (int r = 0; r < ranks; r++) {
            startUpLane(h, startUp.get(r), laneY(r), this::x);
        }
    }

    private static void startUpLane(StringBuilder h, List<StartUp.Phase> phases, int y,
                                     java.util.function.DoubleUnaryOperator x) {
        for (StartUp.Phase p : phases) {
            double x0 = x.applyAsDouble(p.from());
            double w = Math.max(0, x.applyAsDouble(p.to()) - x0);
            h.append(fmt("<g class=\"startup\" data-phase=\"%s\"><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" "
                    + "height=\"%d\" fill=\"%s\"><title>%s</title></rect>", p.kind().name().toLowerCase(Locale.ROOT),
                    x0, y, w, LANE, p.kind().colour, esc(p.title())));
            for (String label : List.of(p.label(), p.kind().shortLabel)) {
                if (LabelRow.width(label, 11) + 6 <= w) {
                    h.append(fmt("<text class=\"label\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\" font-size=\"11\" "
                            + "fill=\"#333\">%s<title>%s</title></text>", x0 + w / 2, y + LANE / 2 + 4, esc(label),
                            esc(p.title())));
                    break;
                }
            }
            h.append("</g>\n");
        }
    }

    /**
     * The start-up of the rank that reported its first checkpoint last, stretched over the timeline's
     * width: on a long job's timeline its phases are too short to be named.
     */
    private void startUpZoom(StringBuilder h) {
        int slowest = -1;
        double last = 0;
        for (int r = 0; r < ranks; r++) {
            List<StartUp.Phase> phases = startUp.get(r);
            if (phases.size() >= 2 && phases.get(phases.size() - 1).to() > last) {
                slowest = r;
                last = phases.get(phases.size() - 1).to();
            }
        }
        if (slowest < 0) {
            return;
        }
        double span = last;
        java.util.function.DoubleUnaryOperator x = t -> LEFT + PLOT * Math.max(0, Math.min(t, span)) / span;
        h.append(fmt("<h2>Start-up, zoomed: rank %d (the last to report its first checkpoint, at %.3f s)</h2>\n",
                slowest, last));
        int height = LANE + 34;
        h.append(fmt("<svg id=\"startup-zoom\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "viewBox=\"0 0 %d %d\" font-size=\"12\">\n", LEFT + PLOT + 30, height, LEFT + PLOT + 30, height));
        h.append(fmt("<text x=\"8\" y=\"%d\">rank %d</text>\n", 4 + LANE / 2 + 4, slowest));
        startUpLane(h, startUp.get(slowest), 4, x);
        axis(h, 4 + LANE, span, x);
        h.append("</svg>\n");
    }

    /**
     * Per recovery: the work lost (shaded on every lane) and its phases (bars above the lanes, labelled
     * where a label fits without touching another: the recoveries table under the timeline has them all).
     */
    private static double step(double span) {
        return niceStep(span / 10);
    }

    /** A time axis in seconds below {@code bottom}, from 0 to {@code span}, ticks 1, 2 or 5 x 10^n s apart. */
    private static void axis(StringBuilder h, int bottom, double span, java.util.function.DoubleUnaryOperator x) {
        double step = step(span);
        h.append(fmt("<g class=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT,
                bottom + 6, LEFT + PLOT, bottom + 6));
        String format = step >= 1 ? "%.0f s" : step >= 0.1 ? "%.1f s" : "%.2f s";
        for (int k = 0; k * step <= span + 1e-9; k++) {
            double xt = x.applyAsDouble(k * step);
            h.append(fmt("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>"
                    + "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                    xt, bottom + 6, xt, bottom + 11, xt, bottom + 24, fmt(format, k * step)));
        }
        h.append("</g>\n");
    }

    private void recoveries(StringBuilder h, int lanesBottom) {
        LabelRow[] rows = new LabelRow[3];
        for (int row = 0; row < rows.length; row++) {
            rows[row] = new LabelRow(LEFT, LEFT + PLOT + 28);
        }
        List<Runnable> labels = new ArrayList<>();
        for (Recoveries.Recovery r : recoveries) {
            if (r.restored() >= 0) {
                for (int rank = 0; rank < ranks; rank++) {
                    h.append(fmt("<rect class=\"lost\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#e53e3e\" "
                            + "fill-opacity=\"0.28\"><title>work lost to the failure before epoch %d: from round %d "
                            + "(%.3f s) to the failure (%.3f s, round %d), recomputed</title></rect>\n", x(r.lostFrom()),
                            laneY(rank), Math.max(1.5, x(r.lostUntil()) - x(r.lostFrom())), LANE, r.epoch(),
                            r.restored(), r.lostFrom(), r.lostUntil(), r.failedAt()));
                }
            }
            if (!Double.isNaN(r.killed())) {
                labels.add(phase(h, rows, 0, r.epoch(), r.killed(), r.detected(), "#dd6b20", "detection", lanesBottom));
            }
            double recovered = Double.isNaN(r.recovered()) ? r.start() : r.recovered();
            labels.add(phase(h, rows, 1, r.epoch(), r.start(), recovered, "#d69e2e",
                    "recovery (new world " + r.epoch() + ")", lanesBottom));
            if (!Double.isNaN(r.recovered()) && !Double.isNaN(r.rolledBack())) {
                labels.add(phase(h, rows, 2, r.epoch(), r.recovered(), r.rolledBack(), "#38a169", "rollbacks",
                        lanesBottom));
            }
        }
        labels.forEach(Runnable::run); // once every bar took its space
    }

    /**
     * Draws one phase's bar (and its shade over the lanes); returns what draws its label, to be run once
     * every bar of the row is known: the full label, else {@code #epoch duration}, else {@code #epoch}, else
     * none (the bar's hover text has it).
     */
    private Runnable phase(StringBuilder h, LabelRow[] rows, int row, int epoch, double from, double to, String colour,
                           String label, int lanesBottom) {
        double x0 = x(from);
        double w = Math.max(2, x(to) - x0);
        int y = 30 + row * 16;
        String text = fmt("%s %.3f s to %.3f s (%.0f ms)", label, from, to, (to - from) * 1000);
        h.append(fmt("<g class=\"phase\" data-phase=\"%s\"><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" "
                + "fill=\"%s\"><title>%s</title></rect><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                + "fill=\"%s\" fill-opacity=\"0.18\"/></g>\n",
                esc(label.split(" ")[0]), x0, y, w, colour, esc(text), x0, laneY(0), w, lanesBottom - laneY(0), colour));
        rows[row].occupy(x0, x0 + w);
        double ms = (to - from) * 1000;
        return () -> {
            LabelRow.Placed placed = rows[row].place(x0, x0 + w, 11, fmt("%s (%.0f ms)", label, ms),
                    fmt("#%d %.0f ms", epoch, ms), fmt("#%d", epoch));
            if (placed != null) {
                h.append(fmt("<text class=\"label phase-label\" data-epoch=\"%d\" x=\"%.1f\" y=\"%d\" "
                        + "text-anchor=\"%s\" font-size=\"11\">%s<title>%s</title></text>\n", epoch, placed.x(), y + 11,
                        placed.anchor(), esc(placed.text()), esc(text)));
            }
        };
    }

    private static void legend(StringBuilder h) {
        h.append("<ul class=\"legend\" id=\"legend\">\n");
        for (StartUp.Kind kind : StartUp.Kind.values()) {
            item(h, kind.colour, kind.legend);
        }
        item(h, "#dde8f3", "rank lane (running)");
        item(h, "#2b6cb0", "checkpoint round reported (hover: round, bytes, here())");
        item(h, "#6b46c1", "disk generation committed");
        item(h, "#dd6b20", "injected kill / detection phase");
        item(h, "#c53030", "failure detected");
        item(h, "#e53e3e80", "work lost (restored round to failure)");
        item(h, "#d69e2e", "recovery: new world");
        item(h, "#38a169", "rollbacks phase");
        item(h, "#2f855a", "rollback from memory");
        item(h, "#975a16", "rollback from disk");
        item(h, "#0987a0", "standby takeover");
        h.append("</ul>\n");
    }

    private static void item(StringBuilder h, String colour, String label) {
        h.append("<li><span class=\"swatch\" style=\"background:").append(colour).append("\"></span>")
                .append(esc(label)).append("</li>\n");
    }

    // ---- the tables under the timeline

    /** The start-up's phases: each from the first rank's start to the last rank's end. */
    private void startUpTable(StringBuilder h) {
        if (startUp.isEmpty() || startUp.get(0).size() < 2) {
            return;
        }
        h.append("<h2>Start-up</h2>\n<table id=\"startup\"><tr><th>phase</th><th>from (s)</th><th>to (s)</th>"
                + "<th>took (ms, slowest rank)</th></tr>\n");
        for (StartUp.Kind kind : StartUp.Kind.values()) {
            double from = Double.POSITIVE_INFINITY;
            double to = Double.NEGATIVE_INFINITY;
            double longest = 0;
            String label = null;
            for (List<StartUp.Phase> rank : startUp) {
                for (StartUp.Phase p : rank) {
                    if (p.kind() == kind) {
                        from = Math.min(from, p.from());
                        to = Math.max(to, p.to());
                        longest = Math.max(longest, p.to() - p.from());
                        label = label == null ? p.label() : label;
                    }
                }
            }
            if (label != null) {
                h.append(fmt("<tr><td>%s</td><td class=\"num\">%.3f</td><td class=\"num\">%.3f</td>"
                        + "<td class=\"num\">%.0f</td></tr>\n", esc(label.equals(kind.label) ? kind.legend : label),
                        from, to, longest * 1000));
            }
        }
        h.append("</table>\n");
    }

    /** One row per recovery: what failed and when, each phase's duration, what was restored and lost. */
    private void recoveryTable(StringBuilder h) {
        if (recoveries.isEmpty()) {
            return;
        }
        Map<Integer, JsonNode> summarised = new TreeMap<>();
        JsonNode s = first("summary");
        if (s != null) {
            s.path("recoveries").forEach(r -> summarised.put(r.path("epoch").asInt(), r));
        }
        h.append("<h2>Recoveries</h2>\n<table id=\"recoveries\"><tr><th>#: new world (epoch)</th>"
                + "<th>failed rank(s)</th><th>killed at (s)</th><th>detected at (s)</th><th>detection (ms)</th>"
                + "<th>detection to new world (ms)</th><th>rollbacks (ms)</th><th>failed at round</th>"
                + "<th>restored round (from)</th><th>work redone (s)</th><th>rounds recomputed</th></tr>\n");
        for (Recoveries.Recovery r : recoveries) {
            JsonNode sum = summarised.get(r.epoch());
            long failedAt = sum != null ? sum.path("failed_at_round").asLong() : r.failedAt();
            double worldMs = !Double.isNaN(r.worldMs()) ? r.worldMs() : (r.recovered() - r.detected()) * 1000;
            h.append(fmt("<tr data-epoch=\"%d\"><td class=\"num\">%d</td><td>%s</td><td class=\"num\">%s</td>"
                    + "<td class=\"num\">%.3f</td><td class=\"num\">%s</td><td class=\"num\">%s</td>"
                    + "<td class=\"num\">%s</td><td class=\"num\">%d</td><td class=\"num\">%s</td>"
                    + "<td class=\"num\">%s</td><td class=\"num\">%s</td></tr>\n", r.epoch(), r.epoch(),
                    esc(r.failed().stream().map(String::valueOf).collect(java.util.stream.Collectors.joining(", "))),
                    orDash("%.3f", r.killed()), r.detected(), orDash("%.0f", (r.detected() - r.killed()) * 1000),
                    orDash("%.1f", worldMs), orDash("%.0f", (r.rolledBack() - r.recovered()) * 1000), failedAt,
                    r.restored() < 0 ? "&#x2014;" : r.restored() == 0 ? "the beginning"
                            : r.restored() + " (" + esc(r.sources()) + ")",
                    orDash("%.3f", r.lostUntil() - r.lostFrom()),
                    r.restored() < 0 ? "&#x2014;" : String.valueOf(Math.max(0, failedAt - r.restored()))));
        }
        h.append("</table>\n");
    }

    private static String orDash(String format, double v) {
        return Double.isNaN(v) ? "&#x2014;" : fmt(format, v);
    }

    // ---- the summary

    private static final Map<String, String> LABELS = Map.ofEntries(
            Map.entry("run_s", "run time (s)"), Map.entry("newest_round", "newest round"),
            Map.entry("last_world_s", "newest world's run time (s)"), Map.entry("ranks_reported", "ranks reported"),
            Map.entry("checkpoints_min", "checkpoints per rank, min (newest world)"),
            Map.entry("checkpoints_max", "checkpoints per rank, max (newest world)"),
            Map.entry("image_bytes_max", "checkpoint image, largest rank (bytes)"),
            Map.entry("disk_commits", "disk generations committed"), Map.entry("disk_written", "disk rounds written"),
            Map.entry("disk_failed", "disk rounds failed"), Map.entry("here_p50_ms", "here() p50 (ms, slowest rank)"),
            Map.entry("here_p99_ms", "here() p99 (ms, slowest rank)"),
            Map.entry("blocking_ms_max", "here() total blocking (ms, slowest rank)"),
            Map.entry("overhead_percent", "checkpoint overhead (% of the newest world's run time)"));

    private void summary(StringBuilder h) {
        JsonNode s = first("summary");
        if (s == null) {
            h.append("<p id=\"summary-missing\">No summary event: the job did not reach its end.</p>\n");
            return;
        }
        h.append("<table id=\"summary\"><tr><th>what</th><th>value</th></tr>\n");
        for (Map.Entry<String, JsonNode> f : s.properties()) {
            String name = f.getKey();
            if (name.equals("v") || name.equals("t") || name.equals("type") || name.equals("recoveries")) {
                continue;
            }
            h.append("<tr><td>").append(esc(LABELS.getOrDefault(name, name))).append("</td><td class=\"num\">")
                    .append(esc(value(f.getValue()))).append("</td></tr>\n");
        }
        h.append("</table>\n");
    }

    private static String value(JsonNode v) {
        if (v.isDouble() || v.isFloat()) {
            return fmt("%.3f", v.asDouble());
        }
        return v.isValueNode() ? v.asText() : v.toString();
    }

    // ---- here() per round

    private void hereTimes(StringBuilder h) {
        // round -> rank -> ms (a rank reports its newest round at most every 20 ms: not every round)
        TreeMap<Long, Map<Integer, Double>> byRound = new TreeMap<>();
        double max = 0;
        for (JsonNode e : events) {
            if (type(e).equals("checkpoint")) {
                double ms = e.path("here_ms").asDouble();
                byRound.computeIfAbsent(e.path("round").asLong(), k -> new TreeMap<>()).put(e.path("rank").asInt(), ms);
                max = Math.max(max, ms);
            }
        }
        if (byRound.isEmpty()) {
            h.append("<p id=\"here-missing\">No checkpoint was reported.</p>\n");
            return;
        }
        int w = 760;
        int ht = 220;
        int left = 60;
        int top = 10;
        long firstRound = byRound.firstKey();
        long lastRound = Math.max(byRound.lastKey(), firstRound + 1);
        double yMax = niceStep(Math.max(max, 1e-3) / 4) * 4;
        while (yMax < max) {
            yMax += niceStep(max / 4);
        }
        h.append(fmt("<svg id=\"here-chart\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" "
                + "font-size=\"11\">\n", left + w + 20, top + ht + 40));
        h.append(fmt("<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" fill=\"#fafafa\" stroke=\"#999\"/>\n", left, top,
                w, ht));
        for (int k = 0; k <= 4; k++) {
            double v = yMax * k / 4;
            double y = top + ht - ht * v / yMax;
            h.append(fmt("<text class=\"tick\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s ms</text>"
                    + "<line x1=\"%d\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/>\n", left - 4, y + 4,
                    fmt(yMax >= 4 ? "%.0f" : "%.2f", v), left, y, left + w, y));
        }
        double roundStep = Math.max(1, niceStep((lastRound - firstRound) / 8.0));
        for (double r = Math.ceil(firstRound / roundStep) * roundStep; r <= lastRound; r += roundStep) {
            double xr = left + w * (r - firstRound) / (lastRound - firstRound);
            h.append(fmt("<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%.0f</text>\n", xr,
                    top + ht + 14, r));
        }
        h.append(fmt("<text x=\"%d\" y=\"%d\" text-anchor=\"middle\">checkpoint round</text>\n", left + w / 2,
                top + ht + 32));
        for (Map.Entry<Long, Map<Integer, Double>> round : byRound.entrySet()) {
            double xr = left + w * (round.getKey() - firstRound) / (double) (lastRound - firstRound);
            for (Map.Entry<Integer, Double> rank : round.getValue().entrySet()) {
                double y = top + ht - ht * Math.min(rank.getValue(), yMax) / yMax;
                h.append(fmt("<circle class=\"here\" cx=\"%.1f\" cy=\"%.1f\" r=\"3\" fill=\"%s\"><title>round %d, "
                        + "rank %d: %.3f ms</title></circle>\n", xr, y, colour(rank.getKey()), round.getKey(),
                        rank.getKey(), rank.getValue()));
            }
        }
        h.append("</svg>\n<ul class=\"legend\">\n");
        for (int r = 0; r < ranks; r++) {
            item(h, colour(r), "rank " + r);
        }
        h.append("</ul>\n<details><summary>the figures (rounds as reported: each rank reports its newest round at "
                + "most every 20 ms)</summary>\n<table id=\"here-table\"><tr><th>round</th>");
        for (int r = 0; r < ranks; r++) {
            h.append("<th>rank ").append(r).append(" (ms)</th>");
        }
        h.append("</tr>\n");
        for (Map.Entry<Long, Map<Integer, Double>> round : byRound.entrySet()) {
            h.append("<tr><td class=\"num\">").append(round.getKey()).append("</td>");
            for (int r = 0; r < ranks; r++) {
                Double ms = round.getValue().get(r);
                h.append("<td class=\"num\">").append(ms == null ? "" : fmt("%.3f", ms)).append("</td>");
            }
            h.append("</tr>\n");
        }
        h.append("</table></details>\n");
    }

    // ---- helpers

    private JsonNode first(String type) {
        for (JsonNode e : events) {
            if (type(e).equals(type)) {
                return e;
            }
        }
        return null;
    }

    private static String type(JsonNode e) {
        return e.path("type").asText();
    }

    private static String colour(int rank) {
        return RANK_COLOURS[rank % RANK_COLOURS.length];
    }

    /** 1, 2 or 5 times a power of ten, at least {@code rough}. */
    static double niceStep(double rough) {
        if (!(rough > 0)) {
            return 1;
        }
        double p = Math.pow(10, Math.floor(Math.log10(rough)));
        for (double m : new double[] {1, 2, 5, 10}) {
            if (m * p >= rough - 1e-12) {
                return m * p;
            }
        }
        return 10 * p;
    }

    private static String bytes(long b) {
        if (b >= 1 << 20) {
            return fmt("%.1f MiB", b / 1048576.0);
        }
        return b >= 1 << 10 ? fmt("%.1f KiB", b / 1024.0) : b + " B";
    }

    private static String fmt(String format, Object... args) {
        return String.format(Locale.ROOT, format, args);
    }

    private static String esc(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;")
                .replace("'", "&#39;");
    }
}
