package io.jckpt.runtime.control;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/** An exchange result on the wire: runs of equal slots sent once, every slot back as it was. */
class ExchangeFramesTest {
    private static final int HEADER = 4 + 8 + 4;

    @Test
    void equalContributionsCrossTheWireOnceAndComeBackAsOwnArrays() throws IOException {
        byte[][] all = new byte[10_000][];
        for (int r = 0; r < all.length; r++) {
            all[r] = ByteBuffer.allocate(24).putLong(0).putLong(-1).putLong(7).array();
        }
        all[0] = ByteBuffer.allocate(24).putLong(0).putLong(1_000).putLong(7).array(); // rank 0's decision
        byte[] wire = new ExchangeFrames.Result(2, 5, all).encode();
        assertEquals(HEADER + (4 + 24) + (4 + 4 + 24), wire.length, "two runs: rank 0, then ranks 1-9999");
        ExchangeFrames.Result back = ExchangeFrames.Result.decode(wire);
        assertEquals(2, back.epoch());
        assertEquals(5, back.sequence());
        assertEquals(all.length, back.all().length);
        for (int r = 0; r < all.length; r++) {
            assertArrayEquals(all[r], back.all()[r], "slot " + r);
        }
        assertNotSame(back.all()[1], back.all()[2], "each rank's slot its own array");
    }

    @Test
    void distinctContributionsCostWhatTheyDidAndMixedRunsRoundTrip() throws IOException {
        byte[][] distinct = {{1}, {2, 2}, {}, {3}};
        byte[] wire = new ExchangeFrames.Result(0, 1, distinct).encode();
        assertEquals(HEADER + 4 * 4 + 4, wire.length, "no run: int length and bytes per slot, as before");
        byte[][] mixed = {{}, {}, {9}, {9}, {9}, {1}, {}, {}};
        for (byte[][] all : new byte[][][] {distinct, mixed}) {
            ExchangeFrames.Result back = ExchangeFrames.Result.decode(new ExchangeFrames.Result(0, 1, all).encode());
            for (int r = 0; r < all.length; r++) {
                assertArrayEquals(all[r], back.all()[r], "slot " + r);
            }
        }
    }

    @Test
    void aRunPastTheLastRankOrTrailingBytesAreRefusedNamingTheProblem() {
        byte[] overrun = ByteBuffer.allocate(HEADER + 4 + 4 + 1).putInt(0).putLong(1).putInt(3)
                .putInt(-4).putInt(1).put((byte) 7).array();
        IOException e = assertThrows(IOException.class, () -> ExchangeFrames.Result.decode(overrun));
        assertTrue(e.getMessage().contains("exchange result of 3 ranks repeats slot 0 4 times"), e.getMessage());
        byte[] trailing = ByteBuffer.allocate(HEADER + 4 + 4 + 1 + 2).putInt(0).putLong(1).putInt(3)
                .putInt(-3).putInt(1).put((byte) 7).putShort((short) 0).array();
        e = assertThrows(IOException.class, () -> ExchangeFrames.Result.decode(trailing));
        assertTrue(e.getMessage().contains("2 bytes too many"), e.getMessage());
    }
}
