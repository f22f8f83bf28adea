package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A failed job's end says what it saved, where, and the command that resumes it; that command run as
 * printed resumes the job from there to the failure-free result.
 */
class FailedJobSummaryTest {
    private static final String LOOP = "io.jckpt.runtime.programs.CheckpointLoop";

    @Test
    void theResumeCommandItPrintsResumesFromTheDiskGeneration(@TempDir Path tmp) throws Exception {
        Path disk = tmp.resolve("disk");
        Path events = tmp.resolve("events.jsonl");
        String saved;
        String jobId;
        try (LaunchedJob job = LaunchedJob.start("-np", "3", "--disk", disk.toString(), "--disk-ratio", "2",
                "--kill", "1@round=7", "--events", events.toString(), "-cp", LaunchedJob.testClasses().toString(),
                LOOP, "12", "30")) {
            assertEquals(1, job.awaitExit(120_000), job.output());
            jobId = job.jobId();
            List<String> lines = job.linesContaining("] saved: ");
            assertEquals(1, lines.size(), job.output());
            saved = lines.get(0);
        }
        JsonNode event = null;
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(events)) {
            JsonNode e = json.readTree(line);
            if (e.get("type").asText().equals("saved")) {
                event = e;
            }
        }
        assertTrue(event != null, "a saved event");
        long round = event.get("disk_round").asLong();
        // a disk generation every 2 rounds; the kill at round 7 lands on a progress report, so round 8 may be in
        assertTrue(round >= 2 && round < 12 && round % 2 == 0, event.toString());
        String resume = event.get("resume").asText();
        assertTrue(saved.endsWith("saved: the disk generation of round " + round + ", in " + disk.resolve(jobId)
                + "; resume with: " + resume), saved);
        assertTrue(resume.startsWith("ckpt-run --job-id " + jobId + " -np 3 --disk " + disk) && !resume.contains("--kill"),
                resume);

        // run it as printed (the launcher's words after "ckpt-run"): round + 1 onwards, the failure-free sum
        List<String> words = new ArrayList<>(List.of(resume.split(" ")));
        words.remove(0);
        try (LaunchedJob job = LaunchedJob.start(words.toArray(String[]::new))) {
            assertEquals(0, job.awaitExit(120_000), job.output());
            assertEquals(3, job.linesContaining("restored at round " + (round + 1)).size(), job.output());
            assertEquals(3, job.linesContaining("loop done at round 12 sum " + 3 * (12 * 13 / 2)).size(), job.output());
        }
    }
}
