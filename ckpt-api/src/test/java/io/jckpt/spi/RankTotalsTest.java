package io.jckpt.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The totals line a rank sends and the launcher reads back. */
class RankTotalsTest {
    @Test
    void theLineReadsBackAsTheSameTotals() {
        RankTotals t = new RankTotals(77, 1_048_576, 12.345, 0.125, 1.5, 3, 1);
        assertEquals("checkpoint totals: checkpoints=77 bytes=1048576 blocking_ms=12.345 here_p50_ms=0.125"
                + " here_p99_ms=1.500 disk_written=3 disk_failed=1", t.line());
        assertEquals(t, RankTotals.parse(t.line()));
    }

    @Test
    void otherLinesAreNotTotals() {
        assertNull(RankTotals.parse("disk generation of round 4 committed"));
        assertNull(RankTotals.parse("checkpoint totals: checkpoints=1"));
        assertNull(RankTotals.parse("checkpoint totals: checkpoints=x bytes=1 blocking_ms=1 here_p50_ms=1 here_p99_ms=1"
                + " disk_written=0 disk_failed=0"));
    }
}
