package io.jckpt.runtime.launcher;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One launcher event: its type (a name from the events schema, {@code docs/events.md}), its fields
 * (numbers, text, booleans, lists or maps of them, in the order given) and the line a person reads on
 * the console. The console shows {@link #text()}; the events file ({@link EventLog}) gets type and
 * fields as one JSON object.
 *
 * @param type   the event type, e.g. {@code rank_up}, {@code checkpoint}, {@code failure}
 * @param fields the event's data
 * @param text   the human-readable line
 */
public record ReportedEvent(String type, Map<String, Object> fields, String text) {

    /** @throws NullPointerException for a null type or text */
    public ReportedEvent {
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(text, "text");
        fields = Collections.unmodifiableMap(new LinkedHashMap<>(fields));
    }

    /**
     * An event with fields given as name, value pairs.
     *
     * @param type          the type
     * @param text          the human-readable line
     * @param namesAndValues name1, value1, name2, value2, ...
     * @return the event
     */
    public static ReportedEvent of(String type, String text, Object... namesAndValues) {
        if (namesAndValues.length % 2 != 0) {
            throw new IllegalArgumentException("event " + type + ": fields come in name, value pairs");
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            fields.put((String) namesAndValues[i], namesAndValues[i + 1]);
        }
        return new ReportedEvent(type, fields, text);
    }

    /**
     * A line without structure of its own (a warning, a detail): type {@code message}, the text as its
     * only field.
     *
     * @param text the line
     * @return the event
     */
    public static ReportedEvent message(String text) {
        return of("message", text, "text", text);
    }
}
