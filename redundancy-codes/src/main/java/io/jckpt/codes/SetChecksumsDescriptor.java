package io.jckpt.codes;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.zip.CRC32C;

/**
 * The stored form of a set's {@link SetChecksums}, kept beside each member's parity parts and sent with
 * them: little-endian, sealed by a CRC32C of its own, so that checksums damaged in a store are refused
 * rather than trusted (they decide which parts a rebuild uses).
 *
 * <pre>
 *   0                 int    magic "JCSC"
 *   4                 short  version (1)
 *   6                 short  n, members
 *   8                 short  p, parity parts per member
 *   10                short  reserved (0)
 *   12                int    chunk
 *   16                long   image length of member 0..n−1
 *   16 + 8n           int    CRC32C of chunk 0..k−1 of member 0, of member 1, ... (k = n − p)
 *   16 + 8n + 4nk     int    CRC32C of parity part 0..p−1 of member 0, of member 1, ...
 *   16 + 8n + 4n²     int    CRC32C of all the bytes above
 *   length = 20 + 8n + 4n²
 * </pre>
 */
public final class SetChecksumsDescriptor {
    /** "JCSC". */
    public static final int MAGIC = 0x4353434A;
    /** The format's version. */
    public static final short VERSION = 1;
    /** Bytes before the image lengths. */
    public static final int HEADER_LENGTH = 16;

    private SetChecksumsDescriptor() {
    }

    /**
     * @param members n
     * @return the stored form's length for a set of n members
     */
    public static int length(int members) {
        return HEADER_LENGTH + 8 * members + 4 * members * members + 4;
    }

    /**
     * Writes the checksums.
     *
     * @param sums the checksums
     * @param dst where (its position, limit and order are not used or changed)
     * @param at the first index
     * @return bytes written
     */
    public static int write(SetChecksums sums, ByteBuffer dst, int at) {
        long[] lengths = sums.imageLengths();
        int n = lengths.length;
        int p = sums.parityRows();
        int k = n - p;
        int length = length(n);
        if (at < 0 || dst.capacity() - at < length) {
            throw new IllegalArgumentException("set checksums of " + n + " members need " + length + " bytes at " + at
                    + ", the buffer holds " + dst.capacity());
        }
        ByteBuffer b = dst.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(at, MAGIC).putShort(at + 4, VERSION).putShort(at + 6, (short) n).putShort(at + 8, (short) p)
                .putShort(at + 10, (short) 0).putInt(at + 12, sums.chunk());
        int i = at + HEADER_LENGTH;
        for (long l : lengths) {
            b.putLong(i, l);
            i += 8;
        }
        for (int m = 0; m < n; m++) {
            for (int c = 0; c < k; c++) {
                b.putInt(i, sums.dataCrc(m, c));
                i += 4;
            }
        }
        for (int m = 0; m < n; m++) {
            for (int r = 0; r < p; r++) {
                b.putInt(i, sums.parityCrc(m, r));
                i += 4;
            }
        }
        b.putInt(i, crc(b, at, i - at));
        return length;
    }

    /**
     * Reads checksums written by {@link #write}.
     *
     * @param src the buffer
     * @param at the first index
     * @param where what it is, for errors (e.g. "rank 5's parity of round 12")
     * @return the checksums
     * @throws IllegalArgumentException naming {@code where} and the problem: not set checksums, another
     *         version, truncated, or a CRC32C that does not match
     */
    public static SetChecksums read(ByteBuffer src, int at, String where) {
        ByteBuffer b = src.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        if (at < 0 || b.capacity() - at < HEADER_LENGTH) {
            throw new IllegalArgumentException(where + ": set checksums truncated (" + Math.max(0, b.capacity() - at)
                    + " bytes, the header alone is " + HEADER_LENGTH + ")");
        }
        if (b.getInt(at) != MAGIC) {
            throw new IllegalArgumentException(where + ": not set checksums (magic 0x" + Integer.toHexString(b.getInt(at)) + ")");
        }
        if (b.getShort(at + 4) != VERSION) {
            throw new IllegalArgumentException(where + ": set checksums of version " + b.getShort(at + 4) + ", this jckpt reads "
                    + VERSION);
        }
        int n = b.getShort(at + 6);
        int p = b.getShort(at + 8);
        int chunk = b.getInt(at + 12);
        if (n < 2 || n > 256 || p < 1 || p >= n || chunk < 0) {
            throw new IllegalArgumentException(where + ": set checksums with " + n + " members, " + p + " parity parts, chunk "
                    + chunk + ": damaged");
        }
        int length = length(n);
        if (b.capacity() - at < length) {
            throw new IllegalArgumentException(where + ": set checksums truncated (" + (b.capacity() - at) + " of " + length
                    + " bytes)");
        }
        int end = at + length - 4;
        if (crc(b, at, end - at) != b.getInt(end)) {
            throw new IllegalArgumentException(where + ": set checksums damaged (their CRC32C does not match)");
        }
        int k = n - p;
        long[] lengths = new long[n];
        int i = at + HEADER_LENGTH;
        for (int m = 0; m < n; m++) {
            lengths[m] = b.getLong(i);
            i += 8;
        }
        int[][] data = new int[n][k];
        for (int m = 0; m < n; m++) {
            for (int c = 0; c < k; c++) {
                data[m][c] = b.getInt(i);
                i += 4;
            }
        }
        int[][] parity = new int[n][p];
        for (int m = 0; m < n; m++) {
            for (int r = 0; r < p; r++) {
                parity[m][r] = b.getInt(i);
                i += 4;
            }
        }
        return new SetChecksums(lengths, chunk, data, parity);
    }

    private static int crc(ByteBuffer b, int at, int length) {
        CRC32C crc = new CRC32C();
        crc.update(b.duplicate().limit(at + length).position(at));
        return (int) crc.getValue();
    }
}
