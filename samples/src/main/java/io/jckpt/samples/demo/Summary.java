package io.jckpt.samples.demo;

import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** The demo's closing table, from the launcher's events. */
final class Summary {
    private Summary() {
    }

    static String table(List<Demo.Event> events, String reference, String checksum, int status) {
        StringBuilder t = new StringBuilder("| what | value |\n|---|---|\n");
        row(t, "checkpoint image per rank", Demo.bytesFromEvents(events));
        double blockedSum = 0;
        int blockedCount = 0;
        Pattern here = Pattern.compile("here\\(\\) blocked ([0-9.]+) ms");
        for (Demo.Event e : events) {
            Matcher m = here.matcher(e.text());
            if (m.find() && !e.text().contains("round 1:")) {
                blockedSum += Double.parseDouble(m.group(1));
                blockedCount++;
            }
        }
        if (blockedCount > 0) {
            row(t, "here() blocking time (rank 0, mean of samples)", String.format(Locale.ROOT, "%.3f ms", blockedSum / blockedCount));
        }
        for (Demo.Event e : events) {
            String text = e.text();
            if (text.startsWith("injecting failure")) {
                row(t, String.format(Locale.ROOT, "failure injected at %.3f s", e.seconds()), text.substring("injecting failure ".length()));
            } else if (text.startsWith("FAILURE")) {
                row(t, String.format(Locale.ROOT, "failure detected at %.3f s", e.seconds()), text.substring("FAILURE: ".length()));
            } else if (text.startsWith("recovered:")) {
                row(t, String.format(Locale.ROOT, "new MPJ world at %.3f s", e.seconds()), text.substring("recovered: ".length()));
            } else if (text.contains(": restored round")) {
                row(t, String.format(Locale.ROOT, "rollback done at %.3f s", e.seconds()), text);
            } else if (text.contains("finished")) {
                row(t, String.format(Locale.ROOT, "job end at %.3f s", e.seconds()), text);
            }
        }
        row(t, "reference checksum (sequential, no failure)", reference);
        row(t, "checksum with failure and recovery", checksum == null ? "(none)" : checksum);
        row(t, "launcher exit status", Integer.toString(status));
        return t.toString();
    }

    private static void row(StringBuilder t, String what, String value) {
        t.append("| ").append(what).append(" | ").append(value.replace("|", "/")).append(" |\n");
    }
}
