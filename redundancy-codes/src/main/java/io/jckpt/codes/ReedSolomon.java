package io.jckpt.codes;

import java.nio.ByteBuffer;
import java.util.Arrays;

/**
 * A systematic Reed-Solomon erasure code over GF(2^8) with k data symbols and p parity symbols per
 * stripe (k + p ≤ 256): the data symbols are stored as they are, parity row r is Σ_c A[r][c] · data_c,
 * and [I; A] is MDS (any k of the k + p symbols determine the stripe). Row 0 is all ones in both
 * matrices below: the first parity symbol is the plain XOR of the data, so rs:(K−1)+1 is xor:K bit for
 * bit and xor runs at the XOR kernel's speed.
 * <ul>
 * <li>p ≤ 2: RAID-6's rows, ones and 2^c: every 2 × 2 minor 2^i + 2^j is non-zero for distinct i, j &lt; 255.
 * Row 1 is evaluated by Horner's rule (q = 2 · q + d_c from the last column to the first), eight bytes
 * at a time with a shift and a mask, without tables.
 * <li>p ≥ 3: a Cauchy matrix 1 / (x_r + y_c) (x_r = k + r, y_c = c), its columns and then its rows scaled
 * so that row 0 and column 0 are all ones: every square sub-matrix of a Cauchy matrix is invertible and
 * scaling rows and columns by non-zero constants keeps it so. Rows past 0 multiply through the 64 KiB
 * table.
 * </ul>
 *
 * <p>A symbol is a chunk of {@code chunk} bytes in a caller's buffer at a caller's offset; a data symbol
 * may hold fewer valid bytes (an image shorter than the set's largest): the bytes past them count as
 * zeros and are never read. {@link #encode} allocates nothing; {@link #reconstruct} inverts a k × k
 * matrix (small allocations per call) and refuses more than p erasures.
 */
public final class ReedSolomon {
    /** Bytes per block: a block of each data symbol is read once from cache for all p parity rows. */
    static final int BLOCK = 16 << 10;

    private final int k;
    private final int p;
    private final int[][] matrix;

    private ReedSolomon(int k, int p) {
        this.k = k;
        this.p = p;
        this.matrix = p <= 2 ? raid6(k, p) : cauchy(k, p);
    }

    /**
     * @param k data symbols per stripe (≥ 1)
     * @param p parity symbols per stripe (≥ 1)
     * @return the code
     * @throws IllegalArgumentException when k or p is out of range
     */
    public static ReedSolomon of(int k, int p) {
        if (k < 1 || p < 1 || k + p > 256) {
            throw new IllegalArgumentException("Reed-Solomon over GF(2^8) needs k >= 1 data and p >= 1 parity symbols with "
                    + "k + p <= 256, not k = " + k + ", p = " + p);
        }
        return new ReedSolomon(k, p);
    }

    private static int[][] raid6(int k, int p) {
        int[][] a = new int[p][k];
        for (int c = 0; c < k; c++) {
            a[0][c] = 1;
            if (p == 2) {
                a[1][c] = pow2(c);
            }
        }
        return a;
    }

    private static int pow2(int c) {
        int x = 1;
        for (int i = 0; i < c; i++) {
            x = Gf256.mul(x, 2);
        }
        return x;
    }

    private static int[][] cauchy(int k, int p) {
        int[][] a = new int[p][k];
        for (int r = 0; r < p; r++) {
            for (int c = 0; c < k; c++) {
                a[r][c] = Gf256.inv((k + r) ^ c);
            }
        }
        for (int c = 0; c < k; c++) {
            int s = Gf256.inv(a[0][c]);
            for (int r = 0; r < p; r++) {
                a[r][c] = Gf256.mul(a[r][c], s);
            }
        }
        for (int r = 0; r < p; r++) {
            int s = Gf256.inv(a[r][0]);
            for (int c = 0; c < k; c++) {
                a[r][c] = Gf256.mul(a[r][c], s);
            }
        }
        return a;
    }

    /** @return data symbols per stripe */
    public int dataSymbols() {
        return k;
    }

    /** @return parity symbols per stripe */
    public int paritySymbols() {
        return p;
    }

    /**
     * @param row a parity row
     * @param column a data column
     * @return A[row][column]
     */
    public int coefficient(int row, int column) {
        return matrix[row][column];
    }

    /**
     * Computes the p parity symbols of one stripe.
     *
     * @param data the k data symbols' buffers
     * @param dataOffset where each data symbol starts
     * @param dataLength each data symbol's valid bytes (≤ chunk; zeros beyond)
     * @param parity the p parity symbols' buffers (written: chunk bytes each)
     * @param parityOffset where each parity symbol starts
     * @param chunk bytes per symbol
     */
    public void encode(ByteBuffer[] data, int[] dataOffset, int[] dataLength, ByteBuffer[] parity, int[] parityOffset,
            int chunk) {
        if (p <= 2) {
            encodeRaid6(data, dataOffset, dataLength, parity, parityOffset, chunk);
        } else {
            encodeRows(data, dataOffset, dataLength, parity, parityOffset, chunk, null);
        }
    }

    /** Row 0 by XOR; row 1 (p = 2) by Horner's rule, fused with row 0 in one pass per column and block. */
    private void encodeRaid6(ByteBuffer[] data, int[] dataOffset, int[] dataLength, ByteBuffer[] parity,
            int[] parityOffset, int chunk) {
        for (int at = 0; at < chunk; at += BLOCK) {
            int n = Math.min(BLOCK, chunk - at);
            Gf256.zero(parity[0], parityOffset[0] + at, n);
            if (p == 1) {
                for (int c = 0; c < k; c++) {
                    int valid = Math.min(n, dataLength[c] - at);
                    if (valid > 0) {
                        Gf256.xorInto(data[c], dataOffset[c] + at, parity[0], parityOffset[0] + at, valid);
                    }
                }
                continue;
            }
            Gf256.zero(parity[1], parityOffset[1] + at, n);
            for (int c = k - 1; c >= 0; c--) {
                int valid = Math.max(0, Math.min(n, dataLength[c] - at));
                Gf256.hornerStep(data[c], dataOffset[c] + at, valid, parity[0], parityOffset[0] + at, parity[1],
                        parityOffset[1] + at, n);
            }
        }
    }

    /** Encodes the rows r with {@code rows == null || rows[r]}. */
    private void encodeRows(ByteBuffer[] data, int[] dataOffset, int[] dataLength, ByteBuffer[] parity,
            int[] parityOffset, int chunk, boolean[] rows) {
        for (int at = 0; at < chunk; at += BLOCK) {
            int n = Math.min(BLOCK, chunk - at);
            for (int r = 0; r < p; r++) {
                if (rows == null || rows[r]) {
                    Gf256.zero(parity[r], parityOffset[r] + at, n);
                }
            }
            for (int c = 0; c < k; c++) {
                int valid = Math.min(n, dataLength[c] - at);
                if (valid <= 0) {
                    continue;
                }
                for (int r = 0; r < p; r++) {
                    if (rows == null || rows[r]) {
                        Gf256.mulAddInto(matrix[r][c], data[c], dataOffset[c] + at, parity[r], parityOffset[r] + at, valid);
                    }
                }
            }
        }
    }

    /**
     * Rebuilds the erased symbols of one stripe from the others. Symbols 0..k−1 are the data, k..k+p−1 the
     * parity; an erased symbol's buffer receives all chunk bytes at its offset (for a data symbol shorter
     * than the chunk, the caller passes scratch and keeps the valid prefix: the rest decodes to zeros).
     *
     * @param symbols the k + p symbols' buffers
     * @param offset where each starts
     * @param length each present symbol's valid bytes (parity: chunk)
     * @param erased which are lost
     * @param chunk bytes per symbol
     * @throws IllegalArgumentException when more than p symbols are erased (nothing is written)
     */
    public void reconstruct(ByteBuffer[] symbols, int[] offset, int[] length, boolean[] erased, int chunk) {
        int n = k + p;
        int lost = 0;
        for (int i = 0; i < n; i++) {
            lost += erased[i] ? 1 : 0;
        }
        if (lost > p) {
            throw new IllegalArgumentException(lost + " of the " + n + " symbols of a stripe are erased; rs:" + k + "+" + p
                    + " rebuilds at most " + p);
        }
        if (lost == 0) {
            return;
        }
        boolean dataLost = false;
        for (int c = 0; c < k; c++) {
            dataLost |= erased[c];
        }
        int[] len = length.clone();
        if (dataLost) {
            // k survivors, data first: their generator rows form an invertible k × k matrix (MDS)
            int[] chosen = new int[k];
            int m = 0;
            for (int i = 0; i < n && m < k; i++) {
                if (!erased[i]) {
                    chosen[m++] = i;
                }
            }
            int[][] g = new int[k][];
            for (int j = 0; j < k; j++) {
                int i = chosen[j];
                if (i < k) {
                    g[j] = new int[k];
                    g[j][i] = 1;
                } else {
                    g[j] = matrix[i - k].clone();
                }
            }
            int[][] inverse = Gf256.invert(g);
            for (int c = 0; c < k; c++) {
                if (!erased[c]) {
                    continue;
                }
                Gf256.zero(symbols[c], offset[c], chunk);
                for (int j = 0; j < k; j++) {
                    int i = chosen[j];
                    int valid = Math.min(chunk, len[i]);
                    if (valid > 0) {
                        Gf256.mulAddInto(inverse[c][j], symbols[i], offset[i], symbols[c], offset[c], valid);
                    }
                }
                len[c] = chunk;
            }
        }
        boolean[] rows = new boolean[p];
        boolean parityLost = false;
        for (int r = 0; r < p; r++) {
            rows[r] = erased[k + r];
            parityLost |= rows[r];
        }
        if (parityLost) {
            encodeRows(Arrays.copyOfRange(symbols, 0, k), Arrays.copyOfRange(offset, 0, k), Arrays.copyOfRange(len, 0, k),
                    Arrays.copyOfRange(symbols, k, n), Arrays.copyOfRange(offset, k, n), chunk, rows);
        }
    }
}
