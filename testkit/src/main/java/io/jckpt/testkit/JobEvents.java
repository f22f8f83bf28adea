package io.jckpt.testkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Predicate;

/**
 * A launched job's events file ({@code --events FILE}, else {@code events.jsonl} in its output
 * directory; the schema is {@code docs/events.md}), read with Jackson: what tests and benchmarks read
 * facts from instead of the launcher's human-readable lines.
 */
public final class JobEvents {
    private static final ObjectMapper JSON = new ObjectMapper();

    private JobEvents() {
    }

    /**
     * One event.
     *
     * @param t      seconds since the launcher started the job (the launcher's clock)
     * @param type   the event type, e.g. {@code failure}, {@code recovered}, {@code rollback}
     * @param fields the whole JSON object
     */
    public record Event(double t, String type, JsonNode fields) {
        /** @return the field as a long (0 when absent) */
        public long number(String name) {
            return fields.path(name).asLong();
        }

        /** @return the field as a double (NaN when absent) */
        public double decimal(String name) {
            JsonNode v = fields.get(name);
            return v == null || !v.isNumber() ? Double.NaN : v.asDouble();
        }

        /** @return the field as text ("" when absent) */
        public String text(String name) {
            return fields.path(name).asText("");
        }

        /** @return the field's numbers (a list field such as {@code ranks}, {@code pids}) */
        public List<Long> numbers(String name) {
            List<Long> out = new ArrayList<>();
            fields.path(name).forEach(n -> out.add(n.asLong()));
            return out;
        }
    }

    /**
     * Reads an events file as far as it is written: a last line without its line break (a running job's
     * file) is left out; a missing file is no events yet.
     *
     * @param file the events file
     * @return its events, in order
     * @throws UncheckedIOException when it cannot be read, or a complete line is not a JSON event
     */
    public static List<Event> read(Path file) {
        String content;
        try {
            content = Files.readString(file, StandardCharsets.UTF_8);
        } catch (NoSuchFileException e) {
            return List.of();
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the events file " + file, e);
        }
        List<Event> events = new ArrayList<>();
        int lineNumber = 0;
        for (int start = 0, end; (end = content.indexOf('\n', start)) >= 0; start = end + 1) {
            lineNumber++;
            String line = content.substring(start, end);
            if (line.isBlank()) {
                continue;
            }
            try {
                JsonNode node = JSON.readTree(line);
                events.add(new Event(node.path("t").asDouble(), node.path("type").asText(), node));
            } catch (IOException e) {
                throw new UncheckedIOException(file + ":" + lineNumber + " is not a JSON event: " + line, e);
            }
        }
        return events;
    }

    /** @return the events of {@code type}, in order */
    public static List<Event> ofType(List<Event> events, String type) {
        return events.stream().filter(e -> e.type().equals(type)).toList();
    }

    /** @return the first event of {@code type} that {@code test} accepts, or null */
    public static Event first(List<Event> events, String type, Predicate<Event> test) {
        return events.stream().filter(e -> e.type().equals(type) && test.test(e)).findFirst().orElse(null);
    }

    /**
     * Each rank's rollback of the last recovery an events file records: the {@code rollback} events after
     * the last {@code recovery_start}, a rank's last one where it rolled back twice.
     *
     * @param file the events file ({@link #read})
     * @return rank → its rollback event's JSON object
     */
    public static Map<Integer, JsonNode> lastRollbacks(Path file) {
        Map<Integer, JsonNode> last = new HashMap<>();
        for (Event e : read(file)) {
            if (e.type().equals("recovery_start")) {
                last.clear();
            } else if (e.type().equals("rollback")) {
                last.put((int) e.number("rank"), e.fields());
            }
        }
        return last;
    }
}
