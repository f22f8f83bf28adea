package io.jckpt.codes;

import java.nio.ByteBuffer;

/**
 * GF(2^8) with the polynomial x^8 + x^4 + x^3 + x^2 + 1 (0x11D, generator 2), and the byte-range kernels
 * the codes are made of: XOR of a range into another, and the multiply-accumulate of a range by a
 * constant through one 256-byte row of a full multiplication table (64 KiB, built once). The kernels
 * work on any {@link ByteBuffer} (heap or direct, e.g. a mapped store file) at absolute indexes, eight
 * bytes at a time, and allocate nothing: the buffers' positions and limits are not used or changed, and
 * two buffers of different byte orders are reconciled with a byte swap.
 */
public final class Gf256 {
    /** The reduction polynomial's low byte (x^8 = x^4 + x^3 + x^2 + 1). */
    public static final int POLYNOMIAL = 0x1D;

    private static final byte[] EXP = new byte[512];
    private static final int[] LOG = new int[256];
    /** MUL[c][x] = c · x. */
    private static final byte[][] MUL = new byte[256][256];

    static {
        int x = 1;
        for (int i = 0; i < 255; i++) {
            EXP[i] = (byte) x;
            EXP[i + 255] = (byte) x;
            LOG[x] = i;
            x <<= 1;
            if (x > 0xFF) {
                x = (x ^ POLYNOMIAL) & 0xFF;
            }
        }
        EXP[510] = EXP[0];
        EXP[511] = EXP[1];
        for (int c = 1; c < 256; c++) {
            for (int v = 1; v < 256; v++) {
                MUL[c][v] = EXP[LOG[c] + LOG[v]];
            }
        }
    }

    private Gf256() {
    }

    /**
     * @param a a field element (0..255)
     * @param b a field element (0..255)
     * @return a · b
     */
    public static int mul(int a, int b) {
        return MUL[a & 0xFF][b & 0xFF] & 0xFF;
    }

    /**
     * @param a a non-zero field element
     * @return a⁻¹
     * @throws ArithmeticException for 0
     */
    public static int inv(int a) {
        if ((a & 0xFF) == 0) {
            throw new ArithmeticException("0 has no inverse in GF(2^8)");
        }
        return EXP[255 - LOG[a & 0xFF]] & 0xFF;
    }

    /**
     * @param a a field element
     * @param b a non-zero field element
     * @return a / b
     */
    public static int div(int a, int b) {
        return mul(a, inv(b));
    }

    /**
     * dst[d..d+len) ^= src[s..s+len).
     *
     * @param src the source
     * @param s its first index
     * @param dst the destination
     * @param d its first index
     * @param len bytes
     */
    public static void xorInto(ByteBuffer src, int s, ByteBuffer dst, int d, int len) {
        ByteBuffer in = src;
        ByteBuffer out = dst;
        int i = 0;
        if (in.order() == out.order()) {
            for (int end = len - 7; i < end; i += 8) {
                out.putLong(d + i, out.getLong(d + i) ^ in.getLong(s + i));
            }
        } else {
            for (int end = len - 7; i < end; i += 8) {
                out.putLong(d + i, out.getLong(d + i) ^ Long.reverseBytes(in.getLong(s + i)));
            }
        }
        for (; i < len; i++) {
            out.put(d + i, (byte) (out.get(d + i) ^ in.get(s + i)));
        }
    }

    /**
     * dst[d..d+len) ^= c · src[s..s+len) (a plain XOR for c = 1, nothing for c = 0).
     *
     * @param c the constant
     * @param src the source
     * @param s its first index
     * @param dst the destination
     * @param d its first index
     * @param len bytes
     */
    public static void mulAddInto(int c, ByteBuffer src, int s, ByteBuffer dst, int d, int len) {
        c &= 0xFF;
        if (c == 0) {
            return;
        }
        if (c == 1) {
            xorInto(src, s, dst, d, len);
            return;
        }
        byte[] t = MUL[c];
        ByteBuffer in = src;
        ByteBuffer out = dst;
        boolean swap = in.order() != out.order();
        int i = 0;
        for (int end = len - 7; i < end; i += 8) {
            long v = in.getLong(s + i);
            long r = (t[(int) v & 0xFF] & 0xFFL)
                    | (t[(int) (v >>> 8) & 0xFF] & 0xFFL) << 8
                    | (t[(int) (v >>> 16) & 0xFF] & 0xFFL) << 16
                    | (t[(int) (v >>> 24) & 0xFF] & 0xFFL) << 24
                    | (t[(int) (v >>> 32) & 0xFF] & 0xFFL) << 32
                    | (t[(int) (v >>> 40) & 0xFF] & 0xFFL) << 40
                    | (t[(int) (v >>> 48) & 0xFF] & 0xFFL) << 48
                    | (t[(int) (v >>> 56) & 0xFF] & 0xFFL) << 56;
            out.putLong(d + i, out.getLong(d + i) ^ (swap ? Long.reverseBytes(r) : r));
        }
        for (; i < len; i++) {
            out.put(d + i, (byte) (out.get(d + i) ^ t[in.get(s + i) & 0xFF]));
        }
    }

    /**
     * @param v eight field elements, one per byte
     * @return each times 2 (x), byte by byte: the step of a Horner evaluation
     */
    public static long times2(long v) {
        return ((v & 0x7F7F7F7F7F7F7F7FL) << 1) ^ (((v >>> 7) & 0x0101010101010101L) * POLYNOMIAL);
    }

    /**
     * One column of the RAID-6 pair of parity rows by Horner's rule, on one block: p ^= d and q = 2 · q ^ d
     * over the source's valid bytes, and q = 2 · q over the rest of the block (where the source is padding).
     * Taking the columns from the last to the first leaves p = Σ d_c and q = Σ 2^c · d_c.
     *
     * @param src the column's data
     * @param s its first index
     * @param valid its valid bytes in the block (≤ len)
     * @param p the XOR row, or null for the q row alone
     * @param pAt its first index
     * @param q the Horner row
     * @param qAt its first index
     * @param len bytes of the block
     */
    public static void hornerStep(ByteBuffer src, int s, int valid, ByteBuffer p, int pAt, ByteBuffer q, int qAt, int len) {
        boolean swapP = p != null && p.order() != src.order();
        boolean swapQ = q.order() != src.order();
        int i = 0;
        for (int end = valid - 7; i < end; i += 8) {
            long d = src.getLong(s + i);
            if (p != null) {
                p.putLong(pAt + i, p.getLong(pAt + i) ^ (swapP ? Long.reverseBytes(d) : d));
            }
            q.putLong(qAt + i, times2(q.getLong(qAt + i)) ^ (swapQ ? Long.reverseBytes(d) : d));
        }
        for (; i < valid; i++) {
            byte d = src.get(s + i);
            if (p != null) {
                p.put(pAt + i, (byte) (p.get(pAt + i) ^ d));
            }
            q.put(qAt + i, (byte) (MUL[2][q.get(qAt + i) & 0xFF] ^ d));
        }
        for (int end = len - 7; i < end; i += 8) {
            q.putLong(qAt + i, times2(q.getLong(qAt + i)));
        }
        for (; i < len; i++) {
            q.put(qAt + i, MUL[2][q.get(qAt + i) & 0xFF]);
        }
    }

    /**
     * dst[d..d+len) = 0.
     *
     * @param dst the destination
     * @param d its first index
     * @param len bytes
     */
    public static void zero(ByteBuffer dst, int d, int len) {
        int i = 0;
        for (int end = len - 7; i < end; i += 8) {
            dst.putLong(d + i, 0L);
        }
        for (; i < len; i++) {
            dst.put(d + i, (byte) 0);
        }
    }

    /**
     * Inverts a square matrix over GF(2^8) (Gauss-Jordan).
     *
     * @param m the matrix, rows of equal length (not changed)
     * @return its inverse
     * @throws ArithmeticException when it is singular
     */
    public static int[][] invert(int[][] m) {
        int n = m.length;
        int[][] a = new int[n][2 * n];
        for (int i = 0; i < n; i++) {
            if (m[i].length != n) {
                throw new IllegalArgumentException("not a square matrix: row " + i + " has " + m[i].length + " columns, not " + n);
            }
            System.arraycopy(m[i], 0, a[i], 0, n);
            a[i][n + i] = 1;
        }
        for (int col = 0; col < n; col++) {
            int pivot = col;
            while (pivot < n && a[pivot][col] == 0) {
                pivot++;
            }
            if (pivot == n) {
                throw new ArithmeticException("singular matrix (column " + col + ")");
            }
            int[] tmp = a[pivot];
            a[pivot] = a[col];
            a[col] = tmp;
            int scale = inv(a[col][col]);
            for (int j = 0; j < 2 * n; j++) {
                a[col][j] = mul(a[col][j], scale);
            }
            for (int r = 0; r < n; r++) {
                int f = a[r][col];
                if (r != col && f != 0) {
                    for (int j = 0; j < 2 * n; j++) {
                        a[r][j] ^= mul(f, a[col][j]);
                    }
                }
            }
        }
        int[][] out = new int[n][n];
        for (int i = 0; i < n; i++) {
            System.arraycopy(a[i], n, out[i], 0, n);
        }
        return out;
    }
}
