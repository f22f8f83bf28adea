package io.jckpt.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.Checkpointer;
import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Every rank event survives its frame as the same record; a bad frame is an error naming it, never an event. */
class RankEventCodecTest {
    private static final List<RankEvent> EVENTS = List.of(
            new RankEvent.Text("WARNING: disk level slow: é ✓"),
            new RankEvent.DiskCommitted(4_000_000_123L),
            new RankEvent.Restored(4, "memory", "LOCAL", 40),
            new RankEvent.Restored(2000, "disk", "", Checkpointer.NO_STEP),
            new RankEvent.Restarted("no round complete on every rank"),
            new RankEvent.Opened(3, 12_345_678),
            new RankEvent.Totals(77, 1_048_576, 12.345678, 0.125, 1.5, 3, 1),
            new RankEvent.Settings("replicas=2 (--replicas), disk=none (default)"));

    @Test
    void everyKindRoundTrips() throws IOException {
        for (RankEvent e : EVENTS) {
            assertEquals(e, RankEventCodec.decode(RankEventCodec.encode(e)), e.getClass().getSimpleName());
        }
    }

    @Test
    void eachSaysTheConsoleLineItStandsFor() {
        assertEquals(List.of("WARNING: disk level slow: é ✓", "disk generation of round 4000000123 committed",
                        "restored round 4 from memory (LOCAL), step 40", "restored round 2000 from disk generation of round 2000",
                        "restarted from the beginning: no round complete on every rank",
                        "checkpointer opened in epoch 3 in 12.346 ms",
                        "checkpoint totals: checkpoints=77 bytes=1048576 blocking_ms=12.346 here_p50_ms=0.125 "
                                + "here_p99_ms=1.500 disk_written=3 disk_failed=1",
                        "checkpoint settings: replicas=2 (--replicas), disk=none (default)"),
                EVENTS.stream().map(RankEvent::text).toList());
    }

    @Test
    void aLongTextIsCutToWhatAFrameHolds() throws IOException {
        RankEvent decoded = RankEventCodec.decode(RankEventCodec.encode(new RankEvent.Text("✓".repeat(40_000))));
        assertEquals("✓".repeat(RankEventCodec.MAX_TEXT_CHARS), decoded.text());
    }

    @Test
    void aTruncatedFrameOfEveryKindIsRefusedNamingIt() {
        for (RankEvent e : EVENTS) {
            byte[] whole = RankEventCodec.encode(e);
            for (int length = 1; length < whole.length; length++) {
                byte[] cut = Arrays.copyOf(whole, length);
                IOException x = assertThrows(IOException.class, () -> RankEventCodec.decode(cut), e + " cut to " + length);
                assertTrue(x.getMessage().startsWith("truncated rank event frame of kind " + whole[0]), x.getMessage());
            }
        }
        assertEquals("empty rank event frame",
                assertThrows(IOException.class, () -> RankEventCodec.decode(new byte[0])).getMessage());
    }

    @Test
    void anUnknownKindOrTrailingBytesOrABadValueIsRefused() {
        assertEquals("rank event frame of unknown kind 99 (9 bytes)", assertThrows(IOException.class,
                () -> RankEventCodec.decode(new byte[] {99, 0, 0, 0, 0, 0, 0, 0, 4})).getMessage());
        byte[] longer = Arrays.copyOf(RankEventCodec.encode(new RankEvent.DiskCommitted(4)), 10);
        assertEquals("rank event frame of kind 2 has 1 bytes after its DiskCommitted event",
                assertThrows(IOException.class, () -> RankEventCodec.decode(longer)).getMessage());
        byte[] fromTape = RankEventCodec.encode(new RankEvent.Restored(4, "disk", "", 1));
        fromTape[11] = 't'; // "disk" -> "tisk"
        assertTrue(assertThrows(IOException.class, () -> RankEventCodec.decode(fromTape)).getMessage()
                .startsWith("invalid rank event frame of kind 3: restored round 4: source must be memory or disk"));
    }
}
