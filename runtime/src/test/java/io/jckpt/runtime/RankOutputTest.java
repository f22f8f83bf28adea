package io.jckpt.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.LaunchedJob;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** --output-dir keeps each rank's output in its own file; --no-prefix shows rank lines untagged. */
class RankOutputTest {

    @Test
    void eachRanksOutputGoesToItsOwnFileAndTheConsoleDropsTheTag(@TempDir Path tmp) throws Exception {
        Path dir = tmp.resolve("job-out");
        try (LaunchedJob job = LaunchedJob.start("-np", "2", "--output-dir", dir.toString(), "--no-prefix", "-cp",
                LaunchedJob.testClasses().toString(), "io.jckpt.runtime.programs.CheckpointLoop", "4", "10")) {
            assertEquals(0, job.awaitExit(120_000), job.output());
            List<String> done = job.linesContaining("loop done at round 4");
            assertEquals(2, done.size(), job.output());
            done.forEach(line -> assertFalse(line.startsWith("[rank "), "untagged: " + line));
        }
        for (int rank = 0; rank < 2; rank++) {
            List<String> lines = Files.readAllLines(dir.resolve("rank-" + rank + ".out"));
            assertTrue(lines.stream().anyMatch(l -> l.startsWith("loop done at round 4")), rank + ": " + lines);
            assertTrue(lines.stream().noneMatch(l -> l.startsWith("[rank")), rank + ": " + lines);
        }
        assertTrue(Files.isRegularFile(dir.resolve("events.jsonl")), "the events go to the output directory too");
    }
}
