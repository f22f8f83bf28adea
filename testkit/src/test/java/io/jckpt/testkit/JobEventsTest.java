package io.jckpt.testkit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Reading an events file as a running job leaves it: complete lines only, typed fields. */
class JobEventsTest {
    @Test
    void completeLinesAreReadAndALastLineCutShortIsLeftOut(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("events.jsonl");
        assertEquals(List.of(), JobEvents.read(file), "no file yet: no events yet");
        Files.writeString(file, """
                {"v":1,"t":0.012,"type":"start","job":"abc","ranks":4}
                {"v":1,"t":1.5,"type":"failure","ranks":[2],"epoch":0,"reason":"rank 2 died"}
                {"v":1,"t":1.75,"type":"recovered","epoch":1,"world_ms":212.5,"respawn_ms":40.0}
                {"v":1,"t":1.9,"type":"rollb""");
        List<JobEvents.Event> events = JobEvents.read(file);
        assertEquals(3, events.size());
        JobEvents.Event failure = JobEvents.first(events, "failure", e -> true);
        assertEquals(1.5, failure.t());
        assertEquals(List.of(2L), failure.numbers("ranks"));
        assertEquals("rank 2 died", failure.text("reason"));
        JobEvents.Event recovered = JobEvents.ofType(events, "recovered").get(0);
        assertEquals(212.5, recovered.decimal("world_ms"));
        assertEquals(1, recovered.number("epoch"));
        assertTrue(Double.isNaN(recovered.decimal("nothing")));
    }

    @Test
    void aCompleteLineThatIsNotJsonNamesItsLine(@TempDir Path tmp) throws Exception {
        Path file = tmp.resolve("events.jsonl");
        Files.writeString(file, "{\"v\":1,\"t\":0,\"type\":\"start\"}\nnot json\n");
        assertTrue(assertThrows(UncheckedIOException.class, () -> JobEvents.read(file)).getMessage()
                .contains("events.jsonl:2 is not a JSON event"));
    }
}
