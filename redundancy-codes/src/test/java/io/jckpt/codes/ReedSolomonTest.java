package io.jckpt.codes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * One stripe: every erasure pattern of up to p symbols decodes to the original bytes, every pattern of
 * p + 1 is refused with nothing written (all patterns, for rs:4+2, rs:8+2, rs:5+3 and the xor codes).
 */
class ReedSolomonTest {
    private static final int CHUNK = 203; // not a multiple of 8: the kernels' byte tails run too

    @Test
    void everyPatternUpToPDecodesAndEveryPatternOfPPlusOneIsRefused() {
        int[][] codes = {{4, 2}, {8, 2}, {16, 2}, {5, 3}, {4, 4}, {3, 1}, {7, 1}};
        for (int[] kp : codes) {
            exhaustive(kp[0], kp[1]);
        }
    }

    private static void exhaustive(int k, int p) {
        ReedSolomon code = ReedSolomon.of(k, p);
        int n = k + p;
        Random random = new Random(31L * k + p);
        byte[][] original = new byte[n][CHUNK];
        int[] length = new int[n];
        for (int c = 0; c < k; c++) {
            length[c] = c == k - 1 ? CHUNK / 3 : CHUNK; // a short last image: zeros past its valid bytes
            random.nextBytes(original[c]);
            java.util.Arrays.fill(original[c], length[c], CHUNK, (byte) 0);
        }
        for (int r = 0; r < p; r++) {
            length[k + r] = CHUNK;
        }
        ByteBuffer[] data = new ByteBuffer[k];
        ByteBuffer[] parity = new ByteBuffer[p];
        for (int c = 0; c < k; c++) {
            data[c] = ByteBuffer.wrap(original[c].clone());
        }
        for (int r = 0; r < p; r++) {
            parity[r] = ByteBuffer.allocate(CHUNK + 8);
        }
        code.encode(data, new int[k], length, parity, filled(p, 8), CHUNK);
        for (int r = 0; r < p; r++) {
            parity[r].position(8);
            parity[r].get(original[k + r]);
            parity[r].clear();
        }
        int decoded = 0;
        int refused = 0;
        for (int mask = 0; mask < 1 << n; mask++) {
            int lost = Integer.bitCount(mask);
            if (lost > p + 1) {
                continue;
            }
            ByteBuffer[] symbols = new ByteBuffer[n];
            boolean[] erased = new boolean[n];
            int[] offset = new int[n];
            for (int i = 0; i < n; i++) {
                erased[i] = (mask & (1 << i)) != 0;
                offset[i] = 3;
                byte[] b = new byte[CHUNK + 3];
                if (erased[i]) {
                    random.nextBytes(b); // garbage where the lost symbol was
                } else {
                    System.arraycopy(original[i], 0, b, 3, CHUNK);
                }
                symbols[i] = ByteBuffer.wrap(b);
            }
            if (lost <= p) {
                code.reconstruct(symbols, offset, length, erased, CHUNK);
                for (int i = 0; i < n; i++) {
                    byte[] got = new byte[CHUNK];
                    symbols[i].get(3, got);
                    assertArrayEquals(original[i], got, "rs:" + k + "+" + p + " symbol " + i + " after losing mask " + mask);
                }
                decoded++;
            } else {
                byte[][] before = new byte[n][];
                for (int i = 0; i < n; i++) {
                    before[i] = symbols[i].array().clone();
                }
                int m = mask;
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> code.reconstruct(symbols, offset, length, erased, CHUNK), "mask " + m);
                assertEquals((p + 1) + " of the " + n + " symbols of a stripe are erased; rs:" + k + "+" + p
                        + " rebuilds at most " + p, e.getMessage());
                for (int i = 0; i < n; i++) {
                    assertArrayEquals(before[i], symbols[i].array(), "refused, yet symbol " + i + " was written");
                }
                refused++;
            }
        }
        assertEquals(patterns(n, p), decoded);
        assertEquals(binomial(n, p + 1), refused);
    }

    @Test
    void xorIsTheFirstParityRowAndColumnZeroIsOnes() {
        ReedSolomon code = ReedSolomon.of(8, 2);
        for (int c = 0; c < 8; c++) {
            assertEquals(1, code.coefficient(0, c));
        }
        assertEquals(1, code.coefficient(1, 0));
        Random random = new Random(5);
        ByteBuffer[] data = new ByteBuffer[7];
        byte[] xor = new byte[4099];
        for (int c = 0; c < 7; c++) {
            byte[] b = new byte[4099];
            random.nextBytes(b);
            for (int i = 0; i < b.length; i++) {
                xor[i] ^= b[i];
            }
            data[c] = ByteBuffer.wrap(b);
        }
        ByteBuffer parity = ByteBuffer.allocate(4099);
        ReedSolomon.of(7, 1).encode(data, new int[7], filled(7, 4099), new ByteBuffer[] {parity}, new int[1], 4099);
        assertArrayEquals(xor, parity.array());
    }

    /**
     * The encoders (XOR and Horner for p ≤ 2, the table for p ≥ 3) against Σ A[r][c] · d_c byte by byte with
     * the reference multiply, over data of ragged valid lengths, heap and direct buffers of both byte orders.
     */
    @Test
    void parityIsTheMatrixTimesTheDataByteByByte() {
        Random random = new Random(17);
        int[][] codes = {{1, 1}, {7, 1}, {1, 2}, {8, 2}, {13, 2}, {8, 3}, {6, 5}};
        for (int[] kp : codes) {
            int k = kp[0];
            int p = kp[1];
            ReedSolomon code = ReedSolomon.of(k, p);
            if (p == 2) {
                for (int c = 0; c < k; c++) {
                    int pow = 1;
                    for (int i = 0; i < c; i++) {
                        pow = Gf256Test.reference(pow, 2);
                    }
                    assertEquals(pow, code.coefficient(1, c), "RAID-6 row 1 is 2^c");
                }
            }
            for (int trial = 0; trial < 5; trial++) {
                // small ones, and one past a 16 KiB block
                int chunk = trial < 4 ? 1 + random.nextInt(40) : ReedSolomon.BLOCK + 1 + random.nextInt(100);
                ByteBuffer[] data = new ByteBuffer[k];
                int[] offset = new int[k];
                int[] length = new int[k];
                byte[][] bytes = new byte[k][];
                for (int c = 0; c < k; c++) {
                    offset[c] = random.nextInt(5);
                    length[c] = random.nextInt(4) == 0 ? random.nextInt(chunk + 1) : chunk;
                    bytes[c] = new byte[offset[c] + length[c]];
                    random.nextBytes(bytes[c]);
                    data[c] = Gf256Test.buffer(bytes[c], random.nextBoolean(), random.nextBoolean());
                }
                ByteBuffer[] parity = new ByteBuffer[p];
                int[] parityOffset = new int[p];
                for (int r = 0; r < p; r++) {
                    parityOffset[r] = random.nextInt(5);
                    byte[] junk = new byte[parityOffset[r] + chunk];
                    random.nextBytes(junk); // encode overwrites what was there
                    parity[r] = Gf256Test.buffer(junk, random.nextBoolean(), random.nextBoolean());
                }
                code.encode(data, offset, length, parity, parityOffset, chunk);
                for (int r = 0; r < p; r++) {
                    byte[] expected = new byte[chunk];
                    for (int c = 0; c < k; c++) {
                        int a = code.coefficient(r, c);
                        for (int i = 0; i < length[c]; i++) {
                            expected[i] ^= (byte) Gf256Test.reference(a, bytes[c][offset[c] + i] & 0xFF);
                        }
                    }
                    byte[] got = new byte[chunk];
                    parity[r].get(parityOffset[r], got);
                    assertArrayEquals(expected, got, "rs:" + k + "+" + p + " row " + r + ", chunk " + chunk);
                }
            }
        }
    }

    /** Encoding into the caller's buffers allocates nothing (the thread's allocation counter, over 200 calls). */
    @Test
    void encodeAllocatesNothing() {
        com.sun.management.ThreadMXBean threads = (com.sun.management.ThreadMXBean) java.lang.management.ManagementFactory
                .getThreadMXBean();
        long id = Thread.currentThread().getId();
        for (int[] kp : new int[][] {{7, 1}, {8, 2}, {6, 3}}) {
            int k = kp[0];
            int p = kp[1];
            ReedSolomon code = ReedSolomon.of(k, p);
            int chunk = 3000;
            ByteBuffer[] data = new ByteBuffer[k];
            for (int c = 0; c < k; c++) {
                data[c] = ByteBuffer.allocateDirect(chunk);
            }
            ByteBuffer[] parity = {ByteBuffer.allocate(chunk), ByteBuffer.allocate(chunk), ByteBuffer.allocateDirect(chunk)};
            int[] offset = new int[k];
            int[] length = filled(k, chunk);
            length[k - 1] = chunk / 2;
            int[] parityOffset = new int[p];
            code.encode(data, offset, length, parity, parityOffset, chunk);
            long before = threads.getThreadAllocatedBytes(id);
            for (int i = 0; i < 200; i++) {
                code.encode(data, offset, length, parity, parityOffset, chunk);
            }
            long allocated = threads.getThreadAllocatedBytes(id) - before;
            // fewer bytes than one object per call: the counter's own reading may allocate a little
            assertTrue(allocated < 200 * 16, "rs:" + k + "+" + p + " encode allocated " + allocated + " bytes in 200 calls");
        }
    }

    @Test
    void outOfRangeCodesAreRefused() {
        assertEquals("Reed-Solomon over GF(2^8) needs k >= 1 data and p >= 1 parity symbols with k + p <= 256, not k = 250, p = 7",
                assertThrows(IllegalArgumentException.class, () -> ReedSolomon.of(250, 7)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> ReedSolomon.of(8, 0));
        ReedSolomon.of(255, 1);
        ReedSolomon.of(128, 128);
    }

    static int[] filled(int n, int v) {
        int[] a = new int[n];
        java.util.Arrays.fill(a, v);
        return a;
    }

    static long patterns(int n, int upTo) {
        long s = 0;
        for (int i = 0; i <= upTo; i++) {
            s += binomial(n, i);
        }
        return s;
    }

    static long binomial(int n, int r) {
        long b = 1;
        for (int i = 1; i <= r; i++) {
            b = b * (n - r + i) / i;
        }
        return b;
    }
}
