package io.jckpt.samples.demo;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The demo's timeline picture (SVG): one lane per rank with compute, checkpoint ticks, disk
 * commits, the failure, the recovery and each rank's rollback, from the launcher's events.
 */
final class Timeline {
    private static final int LEFT = 90;
    private static final int WIDTH = 900;
    private static final int LANE = 46;
    private static final Pattern ROUND = Pattern.compile("^checkpoint round (\\d+)");
    private static final Pattern RANK_EVENT = Pattern.compile("^rank (\\d+): (.*)$");
    private static final Pattern FAILED_RANK = Pattern.compile("^FAILURE: rank (\\d+)");

    private Timeline() {
    }

    static String svg(List<Demo.Event> events, int ranks, String kill) {
        double end = events.isEmpty() ? 1 : events.get(events.size() - 1).seconds();
        int height = 80 + ranks * LANE + 80;
        StringBuilder s = new StringBuilder();
        s.append(String.format(Locale.ROOT, "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
                + "font-family='sans-serif' font-size='12'>%n", LEFT + WIDTH + 30, height));
        s.append("<rect width='100%' height='100%' fill='white'/>\n");
        s.append(String.format(Locale.ROOT, "<text x='%d' y='22' font-size='15'>jckpt demo: heat solver on %d ranks, "
                + "injected failure %s</text>%n", LEFT, ranks, esc(kill)));
        double recoverFrom = -1;
        double recoverTo = -1;
        for (Demo.Event e : events) {
            if (e.text().startsWith("recovering") && recoverFrom < 0) {
                recoverFrom = e.seconds();
            }
            if (e.text().startsWith("recovered")) {
                recoverTo = e.seconds();
            }
        }
        for (int r = 0; r < ranks; r++) {
            int y = 50 + r * LANE;
            s.append(String.format(Locale.ROOT, "<text x='10' y='%d'>rank %d</text>%n", y + 20, r));
            s.append(String.format(Locale.ROOT, "<rect x='%d' y='%d' width='%d' height='24' fill='#dbe8f5'/>%n", LEFT, y + 4,
                    WIDTH));
            if (recoverFrom >= 0 && recoverTo >= recoverFrom) {
                s.append(String.format(Locale.ROOT, "<rect x='%.1f' y='%d' width='%.1f' height='24' fill='#f7c873'/>%n",
                        x(recoverFrom, end), y + 4, Math.max(2, x(recoverTo, end) - x(recoverFrom, end))));
            }
        }
        for (Demo.Event e : events) {
            double x = x(e.seconds(), end);
            Matcher round = ROUND.matcher(e.text());
            Matcher rankEvent = RANK_EVENT.matcher(e.text());
            Matcher failed = FAILED_RANK.matcher(e.text());
            if (round.find()) {
                for (int r = 0; r < ranks; r++) {
                    int y = 50 + r * LANE;
                    s.append(String.format(Locale.ROOT, "<line x1='%.1f' y1='%d' x2='%.1f' y2='%d' stroke='#2b6cb0'/>%n", x,
                            y + 4, x, y + 28));
                }
            } else if (failed.find()) {
                int y = 50 + Integer.parseInt(failed.group(1)) * LANE;
                s.append(String.format(Locale.ROOT, "<text x='%.1f' y='%d' fill='#c53030' font-size='20' "
                        + "text-anchor='middle'>&#x2716;</text>%n", x, y + 24));
            } else if (rankEvent.find() && !rankEvent.group(2).startsWith("checkpoint settings")) { // rank 0's at open
                int r = Integer.parseInt(rankEvent.group(1));
                int y = 50 + r * LANE;
                String what = rankEvent.group(2);
                String color = what.startsWith("restored") ? "#2f855a" : "#6b46c1";
                s.append(String.format(Locale.ROOT, "<circle cx='%.1f' cy='%d' r='5' fill='%s'><title>%s</title></circle>%n",
                        x, y + 16, color, esc(what)));
            }
        }
        int legend = 50 + ranks * LANE + 20;
        s.append(String.format(Locale.ROOT, "<text x='%d' y='%d'>blue lane: starting and computing; blue ticks: "
                + "checkpoint rounds (sampled once a second); red: SIGKILL detected</text>%n", LEFT, legend));
        s.append(String.format(Locale.ROOT, "<text x='%d' y='%d'>orange: recovery (re-spawn, new MPJ world); green: "
                + "rollback done (hover: from where); purple: disk commit</text>%n", LEFT, legend + 16));
        s.append(String.format(Locale.ROOT, "<text x='%d' y='%d'>0 s</text><text x='%d' y='%d' text-anchor='end'>%.2f s"
                + "</text>%n", LEFT, legend + 36, LEFT + WIDTH, legend + 36, end));
        s.append("</svg>\n");
        return s.toString();
    }

    private static double x(double seconds, double end) {
        return LEFT + WIDTH * seconds / Math.max(end, 1e-9);
    }

    private static String esc(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("'", "&apos;");
    }
}
