package io.jckpt.samples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.List;
import java.util.Locale;

/** The demo's closing table, from the launcher's events file (schema 1, {@code docs/events.md}). */
final class Summary {
    private Summary() {
    }

    static String table(List<JsonNode> events, String reference, String checksum, int status) {
        StringBuilder t = new StringBuilder("| what | value |\n|---|---|\n");
        JsonNode summary = null;
        long firstBytes = -1;
        for (JsonNode e : events) {
            if (type(e).equals("summary")) {
                summary = e;
            } else if (type(e).equals("checkpoint") && firstBytes < 0) {
                firstBytes = e.path("bytes").asLong();
            }
        }
        long bytes = summary != null ? summary.path("image_bytes_max").asLong() : firstBytes;
        row(t, "checkpoint image per rank", bytes < 0 ? "?" : bytes + " bytes");
        if (summary != null) {
            row(t, "here() blocking time p50 / p99 (slowest rank)", String.format(Locale.ROOT, "%.3f ms / %.3f ms",
                    summary.path("here_p50_ms").asDouble(), summary.path("here_p99_ms").asDouble()));
            row(t, "checkpoint overhead (newest world)", String.format(Locale.ROOT, "%.2f %%",
                    summary.path("overhead_percent").asDouble()));
            row(t, "disk generations committed", summary.path("disk_commits").asText());
        }
        for (JsonNode e : events) {
            double at = e.path("t").asDouble();
            switch (type(e)) {
                case "injection" -> row(t, when("failure injected", at), e.path("spec").asText() + ": ranks "
                        + e.path("ranks") + (e.path("wipe").asBoolean() ? ", node-local store wiped" : "")
                        + " (newest round " + e.path("round").asLong() + ")");
                case "failure" -> row(t, when("failure detected", at), e.path("reason").asText());
                case "recovered" -> row(t, when("new MPJ world", at), String.format(Locale.ROOT,
                        "epoch %d, %.0f ms from detection", e.path("epoch").asInt(), e.path("world_ms").asDouble()));
                case "rollback" -> row(t, when("rollback done", at), String.format(Locale.ROOT,
                        "rank %d restored round %d from %s%s", e.path("rank").asInt(), e.path("round").asLong(),
                        e.path("source").asText(), e.path("how").asText().isEmpty() ? ""
                                : " (" + e.path("how").asText() + ")"));
                case "message" -> { // with hosts: a host found lost at a recovery, where its ranks restart
                    String text = e.path("text").asText();
                    if (text.startsWith("host ") && text.contains(" lost: ")) {
                        row(t, when("host lost", at), text.substring(0, text.indexOf(" lost: ")));
                    } else if (text.contains(" lost, restarts on ") || text.contains(" does not answer, restarts on ")) {
                        row(t, when("rank moved", at), text);
                    }
                }
                case "end" -> row(t, when("job end", at), e.path("status").asText() + ", "
                        + e.path("recoveries").asInt() + " recoveries");
                default -> {
                }
            }
        }
        row(t, "reference checksum (sequential, no failure)", reference);
        row(t, "checksum with failure and recovery", checksum == null ? "(none)" : checksum);
        row(t, "launcher exit status", Integer.toString(status));
        return t.toString();
    }

    private static String type(JsonNode e) {
        return e.path("type").asText();
    }

    private static String when(String what, double seconds) {
        return String.format(Locale.ROOT, "%s at %.3f s", what, seconds);
    }

    private static void row(StringBuilder t, String what, String value) {
        t.append("| ").append(what).append(" | ").append(value.replace("|", "/")).append(" |\n");
    }
}
