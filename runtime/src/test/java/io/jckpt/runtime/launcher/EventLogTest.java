package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The events file: one JSON object per line, read back by a real JSON parser; the console line beside it. */
class EventLogTest {

    @Test
    void eventsAreJsonLinesWithVersionTimeTypeAndFieldsAndTheConsoleShowsTheText(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("out/job1/events.jsonl");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        try (JobConsole console = new JobConsole(new PrintStream(new ByteArrayOutputStream()),
                new PrintStream(err, true, StandardCharsets.UTF_8), false, null)) {
            console.recordEventsIn(new EventLog(file));
            console.event(ReportedEvent.of("checkpoint", "checkpoint round 3: 4.0 MiB per rank", "round", 3,
                    "bytes", List.of(4194304L, 4194304L), "here_ms", 1.25, "ok", true, "detail", Map.of("m", 1)));
            console.event("a line \"quoted\" with a\nbreak");
        }
        List<String> lines = Files.readAllLines(file);
        assertEquals(2, lines.size(), String.join("\n", lines));
        ObjectMapper json = new ObjectMapper();
        JsonNode first = json.readTree(lines.get(0));
        assertEquals(EventLog.SCHEMA_VERSION, first.get("v").asInt());
        assertTrue(first.get("t").asDouble() >= 0);
        assertEquals("checkpoint", first.get("type").asText());
        assertEquals(3, first.get("round").asInt());
        assertEquals(4194304L, first.get("bytes").get(1).asLong());
        assertEquals(1.25, first.get("here_ms").asDouble());
        assertTrue(first.get("ok").asBoolean());
        assertEquals(1, first.get("detail").get("m").asInt());
        JsonNode second = json.readTree(lines.get(1));
        assertEquals("message", second.get("type").asText());
        assertEquals("a line \"quoted\" with a\nbreak", second.get("text").asText());
        String console = err.toString(StandardCharsets.UTF_8);
        assertTrue(console.contains("] checkpoint round 3: 4.0 MiB per rank"), console);
    }

    @Test
    void aFullDiskIsReportedOnceAndTheJobGoesOn() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isWritable(Path.of("/dev/full")), "/dev/full writable");
        EventLog log = new EventLog(Path.of("/dev/full")); // every write: no space left on device
        String first = log.write(0.1, ReportedEvent.message("x"));
        assertTrue(first != null && first.contains("could not be written"), String.valueOf(first));
        assertNull(log.write(0.2, ReportedEvent.message("y")), "reported once");
        log.close();
    }

    @Test
    void anEventAfterCloseIsDroppedNotAnException(@TempDir Path tmp) throws Exception {
        // Ctrl-C: the launcher's shutdown thread reports its clean-up while the job's end closes the file
        Path file = tmp.resolve("events.jsonl");
        EventLog log = new EventLog(file);
        assertNull(log.write(0.1, ReportedEvent.message("before")));
        log.close();
        assertNull(log.write(0.2, ReportedEvent.message("after")));
        log.close();
        List<String> lines = Files.readAllLines(file);
        assertEquals(1, lines.size(), String.join("\n", lines));
        assertTrue(lines.get(0).contains("\"before\""), lines.get(0));
    }
}
