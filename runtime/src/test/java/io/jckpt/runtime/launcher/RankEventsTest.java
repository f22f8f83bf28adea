package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.jckpt.Checkpointer;
import io.jckpt.spi.RankEvent;
import io.jckpt.spi.RankEventCodec;
import java.io.IOException;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Each rank event, through its control frame, becomes the launcher's event of its type with the fields
 * {@code docs/events.md} gives and its console line: typed by the record, never by the text.
 */
class RankEventsTest {
    private static final String JOB_SETTINGS = "replicas=1 (--replicas), disk=none (default)";

    /** What the launcher records for an event rank {@code rank} sent, decoded from its frame as the launcher does. */
    private static ReportedEvent received(int rank, RankEvent sent) throws IOException {
        return LauncherEvents.rankEvent(rank, RankEventCodec.decode(RankEventCodec.encode(sent)), JOB_SETTINGS);
    }

    @Test
    void aRestoreIsARollbackWithItsSourceAndStep() throws IOException {
        ReportedEvent memory = received(2, new RankEvent.Restored(4, "memory", "LOCAL", 40));
        assertEquals("rollback", memory.type());
        assertEquals("", memory.text(), "the events file only: the recovery line says it for every rank");
        assertEquals(Map.of("rank", 2, "round", 4L, "source", "memory", "how", "local", "step", 40L), memory.fields());
        ReportedEvent disk = received(1, new RankEvent.Restored(2000, "disk", "", Checkpointer.NO_STEP));
        assertEquals("", disk.text());
        assertEquals(Map.of("rank", 1, "round", 2000L, "source", "disk", "how", ""), disk.fields(), "no step: none given");
    }

    @Test
    void aRestartIsARollbackToTheStart() throws IOException {
        ReportedEvent e = received(0, new RankEvent.Restarted("no rank holds a checkpoint"));
        assertEquals("rollback", e.type());
        assertEquals("", e.text(), "the events file only");
        assertEquals(Map.of("rank", 0, "round", 0L, "source", "start", "how", "", "reason", "no rank holds a checkpoint"),
                e.fields());
    }

    @Test
    void aCommitTotalsAnOpenAndALineKeepTheirTypes() throws IOException {
        ReportedEvent commit = received(0, new RankEvent.DiskCommitted(12));
        assertEquals("disk_commit", commit.type());
        assertEquals("rank 0: disk generation of round 12 committed", commit.text());
        assertEquals(Map.of("rank", 0, "round", 12L), commit.fields());

        ReportedEvent totals = received(3, new RankEvent.Totals(77, 1_048_576, 12.5, 0.125, 1.5, 3, 1));
        assertEquals("rank_totals", totals.type());
        assertEquals("", totals.text(), "the events file only: the summary lines say them for the job");
        assertEquals(Map.of("rank", 3, "checkpoints", 77L, "bytes", 1_048_576L, "blocking_ms", 12.5, "here_p50_ms", 0.125,
                "here_p99_ms", 1.5, "disk_written", 3L, "disk_failed", 1L), totals.fields());

        ReportedEvent open = received(1, new RankEvent.Opened(2, 12_345_678));
        assertEquals("rank_open", open.type());
        assertEquals("", open.text(), "the events file only");
        assertEquals(Map.of("rank", 1, "epoch", 2, "open_ms", 12.346), open.fields());

        // rank 0's settings: the events file only when they are the launcher's line, else shown
        ReportedEvent same = received(0, new RankEvent.Settings(JOB_SETTINGS));
        assertEquals("rank_event", same.type());
        assertEquals("", same.text(), "said once, by the launcher");
        assertEquals(Map.of("rank", 0, "text", "checkpoint settings: " + JOB_SETTINGS), same.fields());
        String overridden = "replicas=2 (program, over --replicas 1), disk=none (default)";
        ReportedEvent differs = received(0, new RankEvent.Settings(overridden));
        assertEquals("rank 0: checkpoint settings: " + overridden, differs.text());

        // a line that reads like a typed event stays a line: nothing is typed by its text
        ReportedEvent line = received(1, new RankEvent.Text("restored round 4 from memory (LOCAL)"));
        assertEquals("rank_event", line.type());
        assertEquals("rank 1: restored round 4 from memory (LOCAL)", line.text());
        assertEquals(Map.of("rank", 1, "text", "restored round 4 from memory (LOCAL)"), line.fields());
    }
}
