package io.jckpt.codes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The field against a carry-less reference multiply, and the byte-range kernels against a byte loop. */
class Gf256Test {
    /** Shift-and-add multiply modulo x^8 + x^4 + x^3 + x^2 + 1, independent of the tables. */
    static int reference(int a, int b) {
        int r = 0;
        for (int i = 0; i < 8; i++) {
            if ((b & (1 << i)) != 0) {
                r ^= a;
            }
            a <<= 1;
            if ((a & 0x100) != 0) {
                a ^= 0x11D;
            }
        }
        return r;
    }

    @Test
    void everyProductAndInverseMatchesTheReference() {
        for (int a = 0; a < 256; a++) {
            for (int b = 0; b < 256; b++) {
                assertEquals(reference(a, b), Gf256.mul(a, b), a + " * " + b);
            }
            if (a != 0) {
                assertEquals(1, reference(a, Gf256.inv(a)), "inverse of " + a);
            }
        }
        assertThrows(ArithmeticException.class, () -> Gf256.inv(0));
    }

    @Test
    void invertingARandomMatrixGivesTheIdentityAndASingularOneIsRefused() {
        Random random = new Random(7);
        int[][] m = new int[6][6];
        int[][] inv = null;
        while (inv == null) {
            for (int[] row : m) {
                for (int j = 0; j < row.length; j++) {
                    row[j] = random.nextInt(256);
                }
            }
            try {
                inv = Gf256.invert(m);
            } catch (ArithmeticException singular) {
                // a random matrix may be singular: draw another
            }
        }
        for (int i = 0; i < 6; i++) {
            for (int j = 0; j < 6; j++) {
                int s = 0;
                for (int x = 0; x < 6; x++) {
                    s ^= Gf256.mul(m[i][x], inv[x][j]);
                }
                assertEquals(i == j ? 1 : 0, s);
            }
        }
        int[][] singular = {{1, 2}, {2, 4}};
        assertThrows(ArithmeticException.class, () -> Gf256.invert(singular));
    }

    /** Every coefficient, lengths around the 8-byte step, offsets, heap and direct, both byte orders. */
    @Test
    void mulAddIntoMatchesAByteLoop() {
        Random random = new Random(11);
        for (int c = 0; c < 256; c++) {
            for (int variant = 0; variant < 4; variant++) {
                mulAddInto(random, c, random.nextInt(40), random.nextInt(10), random.nextInt(10), random.nextBoolean(),
                        random.nextBoolean(), random.nextBoolean(), random.nextBoolean());
            }
        }
    }

    private static void mulAddInto(Random random, int c, int length, int srcAt, int dstAt, boolean srcDirect,
            boolean dstDirect, boolean srcBigEndian, boolean dstBigEndian) {
        byte[] src = new byte[srcAt + length + 3];
        byte[] dst = new byte[dstAt + length + 3];
        random.nextBytes(src);
        random.nextBytes(dst);
        byte[] expected = dst.clone();
        for (int i = 0; i < length; i++) {
            expected[dstAt + i] ^= (byte) reference(c, src[srcAt + i] & 0xFF);
        }
        ByteBuffer in = buffer(src, srcDirect, srcBigEndian);
        ByteBuffer out = buffer(dst, dstDirect, dstBigEndian);
        Gf256.mulAddInto(c, in, srcAt, out, dstAt, length);
        assertArrayEquals(expected, bytes(out), "c " + c + ", length " + length + ", at " + srcAt + "/" + dstAt + ", direct "
                + srcDirect + "/" + dstDirect + ", big-endian " + srcBigEndian + "/" + dstBigEndian);
        assertEquals(0, in.position());
        assertEquals(0, out.position());
    }

    static ByteBuffer buffer(byte[] bytes, boolean direct, boolean bigEndian) {
        ByteBuffer b = direct ? ByteBuffer.allocateDirect(bytes.length) : ByteBuffer.allocate(bytes.length);
        b.put(bytes).clear();
        return b.order(bigEndian ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN);
    }

    static byte[] bytes(ByteBuffer b) {
        byte[] out = new byte[b.capacity()];
        b.duplicate().clear().get(out);
        return out;
    }
}
