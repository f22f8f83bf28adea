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
        JsonNode running = first("ranks_running");
        double started = running == null ? end : running.path("t").asDouble();
        for (int r = 0; r < ranks; r++) {
            h.append(fmt("<rect class=\"starting\" x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#e2e2e2\">"
                    + "<title>starting: every rank connected at %.3f s</title></rect>\n", LEFT, laneY(r),
                    x(started) - LEFT, LANE, started));
        }
        // the time axis
        double step = niceStep(end / 10);
        h.append(fmt("<g class=\"axis\"><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#333\"/>\n", LEFT,
                lanesBottom + 6, LEFT + PLOT, lanesBottom + 6));
        String format = step >= 1 ? "%.0f s" : step >= 0.1 ? "%.1f s" : "%.2f s";
        for (int k = 0; k * step <= end + 1e-9; k++) {
            double xt = x(k * step);
            h.append(fmt("<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#333\"/>"
                    + "<line x1=\"%.1f\" y1=\"%d\" x2=\"%.1f\" y2=\"%d\" stroke=\"#000\" stroke-opacity=\"0.08\"/>"
                    + "<text class=\"tick\" x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%s</text>\n",
                    xt, lanesBottom + 6, xt, lanesBottom + 11, xt, 30, xt, lanesBottom + 6, xt, lanesBottom + 24,
                    fmt(format, k * step)));
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

    /** Per recovery: the work lost (shaded on every lane) and its phases (labelled above the lanes). */
    private void recoveries(StringBuilder h, int lanesBottom) {
        double windowStart = 0;
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            if (!type(e).equals("recovery_start")) {
                if (type(e).equals("recovered")) {
                    windowStart = e.path("t").asDouble();
                }
                continue;
            }
            double recoveryStart = e.path("t").asDouble();
            double killed = Double.NaN;
            double detected = Double.NaN;
            long failedAt = -1;
            for (JsonNode before : events) {
                double t = before.path("t").asDouble();
                if (t < windowStart || t > recoveryStart) {
                    continue;
                }
                if (type(before).equals("injection") && Double.isNaN(killed)) {
                    killed = t;
                    failedAt = before.path("round").asLong(-1);
                } else if (type(before).equals("failure") && Double.isNaN(detected)) {
                    detected = t;
                }
            }
            if (Double.isNaN(detected)) {
                detected = recoveryStart;
            }
            double lostUntil = Double.isNaN(killed) ? detected : killed;
            double recovered = Double.NaN;
            double rolledBack = Double.NaN;
            long restored = Long.MAX_VALUE;
            for (int j = i + 1; j < events.size(); j++) {
                JsonNode after = events.get(j);
                String type = type(after);
                if (type.equals("recovery_start")) {
                    break;
                }
                if (type.equals("recovered") && Double.isNaN(recovered)) {
                    recovered = after.path("t").asDouble();
                } else if (type.equals("rollback")) {
                    rolledBack = after.path("t").asDouble();
                    restored = Math.min(restored, after.path("round").asLong());
                }
            }
            if (failedAt < 0) {
                failedAt = newestRoundBefore(lostUntil);
            }
            int epoch = e.path("epoch").asInt();
            if (restored != Long.MAX_VALUE) {
                double from = timeOfRound(restored, lostUntil);
                for (int r = 0; r < ranks; r++) {
                    h.append(fmt("<rect class=\"lost\" x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"#e53e3e\" "
                            + "fill-opacity=\"0.28\"><title>work lost to the failure before epoch %d: from round %d "
                            + "(%.3f s) to the failure (%.3f s, round %d), recomputed</title></rect>\n", x(from),
                            laneY(r), Math.max(1.5, x(lostUntil) - x(from)), LANE, epoch, restored, from, lostUntil,
                            failedAt));
                }
            }
            if (!Double.isNaN(killed)) {
                phase(h, 0, killed, detected, "#dd6b20", "detection", lanesBottom);
            }
            phase(h, 1, recoveryStart, Double.isNaN(recovered) ? recoveryStart : recovered, "#d69e2e",
                    "recovery (new world " + epoch + ")", lanesBottom);
            if (!Double.isNaN(recovered) && !Double.isNaN(rolledBack)) {
                phase(h, 2, recovered, rolledBack, "#38a169", "rollbacks", lanesBottom);
            }
        }
    }

    private void phase(StringBuilder h, int row, double from, double to, String colour, String label, int lanesBottom) {
        double x0 = x(from);
        double w = Math.max(2, x(to) - x0);
        int y = 30 + row * 16;
        String text = fmt("%s %.3f s to %.3f s (%.0f ms)", label, from, to, (to - from) * 1000);
        boolean left = x0 + w > LEFT + PLOT - 220; // near the right edge: the label goes before the bar
        double labelX = left ? x0 - 3 : x0 + w + 3;
        String anchor = left ? "end" : "start";
        h.append(fmt("<g class=\"phase\" data-phase=\"%s\"><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"14\" "
                + "fill=\"%s\"><title>%s</title></rect><rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"%d\" "
                + "fill=\"%s\" fill-opacity=\"0.18\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"%s\" font-size=\"11\">%s</text>"
                + "</g>\n",
                esc(label.split(" ")[0]), x0, y, w, colour, esc(text), x0, laneY(0), w, lanesBottom - laneY(0), colour,
                labelX, y + 11, anchor, esc(fmt("%s (%.0f ms)", label, (to - from) * 1000))));
    }

    /** The newest round any rank reported before {@code t}. */
    private long newestRoundBefore(double t) {
        long newest = 0;
        for (JsonNode e : events) {
            if (type(e).equals("checkpoint") && e.path("t").asDouble() <= t) {
                newest = Math.max(newest, e.path("round").asLong());
            }
        }
        return newest;
    }

    /**
     * When round {@code round} was taken, before {@code before}: a report of it, else interpolated between
     * the reported rounds around it (ranks report at most every 250 ms), else the first world's start.
     */
    private double timeOfRound(long round, double before) {
        double lowT = 0;
        long lowRound = 0;
        double highT = Double.NaN;
        long highRound = Long.MAX_VALUE;
        for (JsonNode e : events) {
            double t = e.path("t").asDouble();
            if (type(e).equals("ranks_running") && lowRound == 0 && lowT == 0) {
                lowT = t;
            }
            if (!type(e).equals("checkpoint") || t > before) {
                continue;
            }
            long r = e.path("round").asLong();
            if (r <= round && (r > lowRound || r == lowRound && t < lowT)) {
                lowRound = r;
                lowT = t;
            }
            if (r >= round && (r < highRound || r == highRound && t < highT)) {
                highRound = r;
                highT = t;
            }
        }
        if (lowRound == round || Double.isNaN(highT) || highRound == lowRound) {
            return lowT;
        }
        return lowT + (highT - lowT) * (round - lowRound) / (double) (highRound - lowRound);
    }

    private static void legend(StringBuilder h) {
        h.append("<ul class=\"legend\" id=\"legend\">\n");
        item(h, "#e2e2e2", "starting (until every rank connected)");
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
        JsonNode recoveries = s.path("recoveries");
        if (recoveries.isArray() && recoveries.size() > 0) {
            h.append("<h2>Recoveries</h2>\n<table id=\"recoveries\"><tr><th>new world (epoch)</th>"
                    + "<th>detection to new world (ms)</th><th>failed at round</th><th>restored round</th>"
                    + "<th>rounds recomputed</th></tr>\n");
            for (JsonNode r : recoveries) {
                h.append(fmt("<tr><td class=\"num\">%d</td><td class=\"num\">%.1f</td><td class=\"num\">%d</td>"
                        + "<td class=\"num\">%d</td><td class=\"num\">%d</td></tr>\n", r.path("epoch").asInt(),
                        r.path("world_ms").asDouble(), r.path("failed_at_round").asLong(),
                        r.path("restored_round").asLong(),
                        Math.max(0, r.path("failed_at_round").asLong() - r.path("restored_round").asLong())));
            }
            h.append("</table>\n");
        }
    }

    private static String value(JsonNode v) {
        if (v.isDouble() || v.isFloat()) {
            return fmt("%.3f", v.asDouble());
        }
        return v.isValueNode() ? v.asText() : v.toString();
    }

    // ---- here() per round

    private void hereTimes(StringBuilder h) {
        // round -> rank -> ms (a rank reports its newest round at most every 250 ms: not every round)
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
                + "most every 250 ms)</summary>\n<table id=\"here-table\"><tr><th>round</th>");
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
