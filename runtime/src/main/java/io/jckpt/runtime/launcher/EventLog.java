package io.jckpt.runtime.launcher;

import com.fasterxml.jackson.core.JsonEncoding;
import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.Map;

/**
 * The job's events as JSON Lines (one object per line, flushed as written, so a reader follows the job
 * live): {@code {"v":1,"t":<seconds since the job started>,"type":"...", <fields>}}. The schema, every
 * type and its fields, is in {@code docs/events.md}; {@link #SCHEMA_VERSION} changes when a field
 * changes meaning or goes away (new fields and types do not change it). Written with Jackson's
 * streaming generator. The file is best effort: a write that fails is reported once and the job goes on.
 */
final class EventLog implements AutoCloseable {
    /** The version of the events schema, the {@code v} of every line. */
    static final int SCHEMA_VERSION = 1;

    private final Path file;
    private final OutputStream out;
    private final JsonGenerator json;
    private boolean failed;
    /** Closed: later events are dropped (Ctrl-C: the shutdown thread's events may come after the job closed the file). */
    private boolean closed;

    /**
     * @param file where to write (created, or truncated when it exists; its directory is created)
     * @throws IOException when the file cannot be created
     */
    EventLog(Path file) throws IOException {
        this.file = file;
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        this.out = Files.newOutputStream(file, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE);
        this.json = new JsonFactory().createGenerator(out, JsonEncoding.UTF8);
        json.disable(JsonGenerator.Feature.AUTO_CLOSE_TARGET);
    }

    /** @return the file written */
    Path file() {
        return file;
    }

    /**
     * Writes one event.
     *
     * @param seconds seconds since the job started
     * @param event   the event
     * @return null, or the reason the write failed the first time it failed
     */
    synchronized String write(double seconds, ReportedEvent event) {
        if (failed || closed) {
            return null;
        }
        try {
            json.writeStartObject();
            json.writeNumberField("v", SCHEMA_VERSION);
            json.writeNumberField("t", Math.round(seconds * 1e6) / 1e6);
            json.writeStringField("type", event.type());
            for (Map.Entry<String, Object> field : event.fields().entrySet()) {
                json.writeFieldName(field.getKey());
                value(field.getValue());
            }
            json.writeEndObject();
            json.flush();
            out.write('\n');
            out.flush();
            return null;
        } catch (IOException e) {
            failed = true;
            return "events file " + file + " could not be written (" + e.getMessage() + "): no more events there";
        }
    }

    private void value(Object v) throws IOException {
        if (v == null) {
            json.writeNull();
        } else if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte) {
            json.writeNumber(((Number) v).longValue());
        } else if (v instanceof Double || v instanceof Float) {
            double d = ((Number) v).doubleValue();
            if (Double.isFinite(d)) {
                json.writeNumber(d);
            } else {
                json.writeNull();
            }
        } else if (v instanceof Boolean b) {
            json.writeBoolean(b);
        } else if (v instanceof int[] ints) {
            json.writeArray(ints, 0, ints.length);
        } else if (v instanceof long[] longs) {
            json.writeArray(longs, 0, longs.length);
        } else if (v instanceof Collection<?> items) {
            json.writeStartArray();
            for (Object item : items) {
                value(item);
            }
            json.writeEndArray();
        } else if (v instanceof Map<?, ?> map) {
            json.writeStartObject();
            for (Map.Entry<?, ?> e : map.entrySet()) {
                json.writeFieldName(String.valueOf(e.getKey()));
                value(e.getValue());
            }
            json.writeEndObject();
        } else {
            json.writeString(v.toString());
        }
    }

    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        try {
            json.close();
            out.close();
        } catch (IOException ignored) {
            // best effort, see the class comment
        }
    }
}
