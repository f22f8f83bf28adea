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
        List<String> recoveryLines;
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--standby", "0",
                "--kill", "1@round=4:wipe", "--events", events.toString(), "-cp", LaunchedJob.testClasses().toString(),
                LOOP, "12", "30", tmp.resolve("disk").toString(), "2")) {
            assertEquals(0, job.awaitExit(180_000), job.output());
            recoveryLines = job.linesContaining("] recovery ");
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
                "injection", "failure", "recovery_start", "recovered", "rollback", "recovery", "rank_totals", "summary",
                "end")) {
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
        // the recovery end to end, on the events' own clock: injected, detected, new world, last rollback
        JsonNode recovery = first(all, "recovery");
        double us = 1e-6; // the file's times are rounded to the microsecond
        assertEquals(injection.get("t").asDouble(), recovery.get("failed_s").asDouble(), us, recovery.toString());
        assertEquals(first(all, "failure").get("t").asDouble(), recovery.get("detected_s").asDouble(), us);
        assertEquals(first(all, "recovered").get("t").asDouble(), recovery.get("world_s").asDouble(), us);
        double lastRollback = rollbacks.stream().mapToDouble(r -> r.get("t").asDouble()).max().orElseThrow();
        assertEquals(lastRollback, recovery.get("computing_s").asDouble(), us);
        assertEquals(lastRollback, recovery.get("t").asDouble(), us, "reported as the last rank rolled back");
        assertEquals(rollbacks.get(0).get("round").asLong(), recovery.get("round").asLong());
        // the work redone: from the restored round's first report to the injection
        double roundAt = all.stream().filter(e -> (e.get("type").asText().equals("checkpoint")
                || e.get("type").asText().equals("progress")) && e.get("round").asLong() == recovery.get("round").asLong())
                .mapToDouble(e -> e.get("t").asDouble()).min().orElseThrow();
        assertEquals(Math.max(0, injection.get("t").asDouble() - roundAt), recovery.get("redone_s").asDouble(), 2 * us);
        // and the one line the console showed says the same, rounded
        double failed = recovery.get("failed_s").asDouble();
        double detected = recovery.get("detected_s").asDouble();
        double world = recovery.get("world_s").asDouble();
        double computing = recovery.get("computing_s").asDouble();
        assertEquals(1, recoveryLines.size(), recoveryLines.toString());
        assertTrue(recoveryLines.get(0).endsWith(String.format(java.util.Locale.ROOT, "recovery 1: %s, at %.2f s;"
                        + " computing again at %.2f s, %.2f s later (detect %.2f, new world %.2f, restore %.2f s); restored"
                        + " round %d from memory; redone: %.2f s of work", first(all, "failure").get("reason").asText(),
                failed, computing, computing - failed, detected - failed, world - detected, computing - world,
                recovery.get("round").asLong(), recovery.get("redone_s").asDouble())), recoveryLines.get(0));
    }

    @Test
    void theSummaryAddsUpEveryRanksTotalsAndTheRecovery(@TempDir Path tmp) throws Exception {
        Path events = tmp.resolve("events.jsonl");
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--on-failure", "respawn", "--standby", "0",
                "--kill", "2@round=5", "--events", events.toString(), "-cp", LaunchedJob.testClasses().toString(),
                LOOP, "10", "30")) {
            assertEquals(0, job.awaitExit(180_000), job.output());
            List<String> lines = job.linesContaining("summary: ");
            assertEquals(4, lines.size(), job.output());
            assertTrue(lines.get(0).matches(".*summary: newest round 10; [0-9-]+ checkpoints per rank in the job, [0-9-]+ in the"
                    + " last world \\(3 ranks reported\\).*"), lines.get(0));
            assertTrue(lines.get(1).matches(".*summary: checkpoints cost [0-9.]+ s = [0-9.]+ % of the [0-9.]+ s run \\(the"
                    + " slowest rank's here\\(\\) time, every world\\)"), lines.get(1));
            assertTrue(lines.get(2).contains("here() blocked p50 ") && lines.get(2).contains("checkpoint overhead "), lines.get(2));
            assertTrue(lines.get(3).matches(".*summary: failures cost [0-9.]+ s = [0-9.]+ % of the [0-9.]+ s run: 1 recovery"
                    + " \\([0-9.]+ s from the failures to computing again, [0-9.]+ s of work redone\\)"), lines.get(3));
        }
        ObjectMapper json = new ObjectMapper();
        JsonNode summary = null;
        List<JsonNode> totals = new ArrayList<>();
        for (String line : Files.readAllLines(events)) {
            JsonNode e = json.readTree(line);
            if (e.get("type").asText().equals("summary")) {
                summary = e;
            } else if (e.get("type").asText().equals("rank_totals")) {
                totals.add(e);
            }
        }
        assertEquals(3, totals.size(), "one per rank at close");
        for (JsonNode t : totals) {
            assertTrue(t.get("checkpoints").asLong() >= 1, "the rounds after the restored one, in the new world: " + t);
            assertTrue(t.get("here_p99_ms").asDouble() >= t.get("here_p50_ms").asDouble(), t.toString());
        }
        assertTrue(summary != null, "a summary event");
        assertEquals(3, summary.get("ranks_reported").asInt());
        assertEquals(1, summary.get("recoveries").size());
        long restored = summary.get("recoveries").get(0).get("restored_round").asLong();
        // killed when it reported round 5; the others may have gone a round or two further meanwhile
        assertTrue(restored >= 4 && restored < 10, "rank 2 was killed at round 5: " + summary);
        assertTrue(summary.get("overhead_percent").asDouble() > 0, summary.toString());
        // every world's checkpoints: each rank passed here() for all 10 rounds and redid the ones after the
        // restored round, in the last world fewer
        assertTrue(summary.get("checkpoints_job_min").asLong() >= 10
                && summary.get("checkpoints_job_min").asLong() > summary.get("checkpoints_min").asLong(), summary.toString());
        assertTrue(summary.get("blocking_ms_job_max").asDouble() >= summary.get("blocking_ms_max").asDouble() - 1e-6
                && summary.get("checkpoint_cost_percent").asDouble() > 0, summary.toString());
        JsonNode one = summary.get("recoveries").get(0);
        assertEquals(one.get("computing_s").asDouble() - one.get("failed_s").asDouble(), one.get("recovering_s").asDouble(), 1e-9);
        assertEquals(one.get("recovering_s").asDouble() + one.get("redone_s").asDouble(),
                summary.get("failures_lost_s").asDouble(), 1e-9, summary.toString());
    }

    private static JsonNode first(List<JsonNode> events, String type) {
        return events.stream().filter(e -> e.get("type").asText().equals(type)).findFirst().orElseThrow();
    }
}
