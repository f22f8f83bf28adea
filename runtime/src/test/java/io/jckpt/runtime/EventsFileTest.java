package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The events file of a job with a disk level, a failure and a recovery: every line is a JSON object of
 * schema 1 with its time and type, every event type of {@code docs/events.md} that such a job has
 * appears, and the fields say what the console lines say (the ranks killed, the rollback sources, the
 * end).
 */
class EventsFileTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";

    @Test
    void aJobWithADiskRoundAndAFailureWritesEveryEventType(@TempDir Path tmp) throws Exception {
        Path events = tmp.resolve("job/events.jsonl");
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--standby", "0",
                "--kill", "1@round=4:wipe", "--events", events.toString(), "-cp", LaunchedJob.testClasses().toString(),
                LOOP, "12", "30", tmp.resolve("disk").toString(), "2")) {
            assertEquals(0, job.awaitExit(180_000), job.output());
        }
        ObjectMapper json = new ObjectMapper();
        List<JsonNode> all = new ArrayList<>();
        double lastTime = 0;
        for (String line : Files.readAllLines(events)) {
            JsonNode e = json.readTree(line);
            assertEquals(1, e.get("v").asInt(), line);
            assertTrue(e.get("t").asDouble() >= lastTime, "times in order: " + line);
            lastTime = e.get("t").asDouble();
            all.add(e);
        }
        Set<String> types = new LinkedHashSet<>();
        all.forEach(e -> types.add(e.get("type").asText()));
        for (String expected : List.of("start", "settings", "ranks_running", "checkpoint", "progress", "disk_commit",
                "injection", "failure", "recovery_start", "recovered", "rollback", "end")) {
            assertTrue(types.contains(expected), "no " + expected + " event in " + types);
        }
        assertEquals("start", all.get(0).get("type").asText());
        assertEquals(3, all.get(0).get("ranks").asInt());
        JsonNode end = all.get(all.size() - 1);
        assertEquals("end", end.get("type").asText());
        assertEquals("completed", end.get("status").asText());
        assertEquals(1, end.get("recoveries").asInt());
        JsonNode injection = first(all, "injection");
        assertEquals(1, injection.get("ranks").get(0).asInt());
        assertTrue(injection.get("wipe").asBoolean());
        // after the node loss: rank 1 received its copy, the survivors restored their own
        List<JsonNode> rollbacks = all.stream().filter(e -> e.get("type").asText().equals("rollback")).toList();
        assertEquals(3, rollbacks.size(), rollbacks.toString());
        for (JsonNode r : rollbacks) {
            assertEquals("memory", r.get("source").asText(), r.toString());
            assertEquals(r.get("rank").asInt() == 1 ? "receive" : "local", r.get("how").asText(), r.toString());
        }
        assertTrue(all.stream().anyMatch(e -> e.get("type").asText().equals("checkpoint") && e.get("rank").asInt() == 2
                && e.get("bytes").asLong() > 0), "every rank's checkpoints, with their bytes");
    }

    private static JsonNode first(List<JsonNode> events, String type) {
        return events.stream().filter(e -> e.get("type").asText().equals(type)).findFirst().orElseThrow();
    }
}
