package io.jckpt.runtime.launcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** A rank's progress report as the launcher decodes and shows it. */
class RankProgressTest {

    @Test
    void decodesTheRanksRoundFrameAndShowsItsLine() throws IOException {
        byte[] payload = ByteBuffer.allocate(48).putLong(41).putLong(12 * 1024 + 5).putLong(1_500_000).putLong(44)
                .putLong(90_000_000).putLong(-7).array();
        RankProgress progress = RankProgress.decode(payload);
        assertEquals(new RankProgress(41, 12 * 1024 + 5, 1_500_000, 44, 90_000_000, -7), progress);
        assertEquals("checkpoint round 41: 12 KiB per rank, here() blocked 1.500 ms (rank 0)", progress.line());
    }

    @Test
    void aPayloadOfAnotherSizeIsRejectedNamingTheSizes() {
        IOException e = assertThrows(IOException.class, () -> RankProgress.decode(new byte[16]));
        assertTrue(e.getMessage().contains("16 bytes, expected 48"), e.getMessage());
    }

    @Test
    void sizesAreShownInBytesKibibytesOrMebibytes() {
        assertEquals("9999 B", RankProgress.size(9_999));
        assertEquals("9 KiB", RankProgress.size(10_000));
        assertEquals("9765 KiB", RankProgress.size(9_999_999));
        assertEquals("9 MiB", RankProgress.size(10_000_000));
        assertEquals("64 MiB", RankProgress.size(64L << 20));
    }
}
