package io.jckpt.codes;

import java.util.Arrays;

/**
 * What a redundancy set's encoding recorded, kept beside the parity by every member: each member's image
 * length (the padding to strip), the chunk length, and the CRC32C of every data chunk and parity part.
 * Checked before decoding (a part that does not match is treated as lost) and after it (a rebuilt chunk
 * must match what was encoded: a rebuild never hands back bytes that were not checkpointed).
 *
 * @param imageLengths each member's image, bytes
 * @param chunk the chunk length
 * @param dataCrc [member][chunk] CRC32C of the chunk's valid bytes
 * @param parityCrc [member][row] CRC32C of the member's parity part
 */
public record SetChecksums(long[] imageLengths, int chunk, int[][] dataCrc, int[][] parityCrc) {
    /** Copies the arrays. */
    public SetChecksums {
        imageLengths = imageLengths.clone();
        dataCrc = deepCopy(dataCrc);
        parityCrc = deepCopy(parityCrc);
    }

    private static int[][] deepCopy(int[][] a) {
        int[][] out = new int[a.length][];
        for (int i = 0; i < a.length; i++) {
            out[i] = a[i].clone();
        }
        return out;
    }

    @Override
    public long[] imageLengths() {
        return imageLengths.clone();
    }

    /** @return p, the parity parts per member */
    public int parityRows() {
        return parityCrc.length == 0 ? 0 : parityCrc[0].length;
    }

    /**
     * @param member a member
     * @return its image length
     */
    public long imageLength(int member) {
        return imageLengths[member];
    }

    /**
     * @param member a member
     * @param chunk one of its chunks
     * @return the chunk's CRC32C
     */
    public int dataCrc(int member, int chunk) {
        return dataCrc[member][chunk];
    }

    /**
     * @param member a member
     * @param row one of its parity parts
     * @return the part's CRC32C
     */
    public int parityCrc(int member, int row) {
        return parityCrc[member][row];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SetChecksums s && chunk == s.chunk && Arrays.equals(imageLengths, s.imageLengths)
                && Arrays.deepEquals(dataCrc, s.dataCrc) && Arrays.deepEquals(parityCrc, s.parityCrc);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(imageLengths) + Arrays.deepHashCode(dataCrc) + chunk;
    }

    @Override
    public String toString() {
        return "SetChecksums[images " + Arrays.toString(imageLengths) + ", chunk " + chunk + "]";
    }
}
