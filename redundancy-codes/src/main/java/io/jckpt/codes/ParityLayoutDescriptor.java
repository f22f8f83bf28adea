package io.jckpt.codes;

/**
 * Where every byte of a redundancy set lives: n members, each keeping its own image and p parity parts,
 * every member losing at most one symbol of every stripe. xor:K is n = K, p = 1; rs:K+P is n = K + P.
 *
 * <pre>
 *   k = n − p data columns; images padded (virtually, with zeros) to L = k · chunk,
 *   chunk = ceil(largest image / k); member m's image = chunks 0..k−1 of chunk bytes.
 *
 *   n stripes s = 0..n−1, each a Reed-Solomon stripe of k data + p parity symbols:
 *     parity row r of stripe s    is held by member (s + r) mod n, at offset r · chunk of its parity area
 *     data column c of stripe s   is chunk c of member (s + p + c) mod n
 *   so member m holds parity row r of stripe (m − r) mod n, and its chunk c is column c of stripe
 *   (m − p − c) mod n. Each member holds exactly one symbol of each stripe (a data chunk or a
 *   parity part, never both): losing any p members erases at most p symbols of every stripe.
 *
 *   xor:4 (n = 4, p = 1, k = 3):     stripe 0   stripe 1   stripe 2   stripe 3
 *                          member 0   parity     D0[2]      D0[1]      D0[0]
 *                          member 1   D1[0]      parity     D1[2]      D1[1]
 *                          member 2   D2[1]      D2[0]      parity     D2[2]
 *                          member 3   D3[2]      D3[1]      D3[0]      parity
 * </pre>
 *
 * Each member's parity area is p · chunk = p/k of the largest image. Every member sends its image once
 * (chunk c to the holder of parity row 0 of stripe (m − p − c) mod n, which computes the stripe's p rows
 * and forwards rows 1..p−1), as much as one full copy would plus (p − 1)/k of it; after a loss every stripe
 * is rebuilt by one survivor ({@link RebuildPlan}), spreading the work over the set.
 */
public final class ParityLayoutDescriptor {
    private final int members;
    private final int parityRows;

    private ParityLayoutDescriptor(int members, int parityRows) {
        this.members = members;
        this.parityRows = parityRows;
    }

    /**
     * @param members n, the members of the set (p + 1 ≤ n ≤ 256)
     * @param parityRows p, parity parts per member and losses survived per set (≥ 1)
     * @return the layout
     * @throws IllegalArgumentException when the set is too small for p or larger than GF(2^8) allows
     */
    public static ParityLayoutDescriptor of(int members, int parityRows) {
        if (parityRows < 1) {
            throw new IllegalArgumentException("a redundancy set needs at least 1 parity part per member, not " + parityRows);
        }
        if (members < parityRows + 1 || members > 256) {
            throw new IllegalArgumentException("a redundancy set with " + parityRows + " parity part(s) per member needs "
                    + (parityRows + 1) + " to 256 members, not " + members);
        }
        return new ParityLayoutDescriptor(members, parityRows);
    }

    /** @return n, the members (and stripes) */
    public int members() {
        return members;
    }

    /** @return p, the parity rows per stripe (parts per member) */
    public int parityRows() {
        return parityRows;
    }

    /** @return k = n − p, the data columns per stripe (chunks per image) */
    public int dataColumns() {
        return members - parityRows;
    }

    /**
     * @param largestImage the largest image of the set, bytes
     * @return the chunk, ceil(largest / k) bytes
     * @throws IllegalArgumentException when a chunk would not fit a buffer index (2 GiB)
     */
    public int chunkLength(long largestImage) {
        if (largestImage < 0) {
            throw new IllegalArgumentException("negative image length " + largestImage);
        }
        long chunk = (largestImage + dataColumns() - 1) / dataColumns();
        if (chunk > Integer.MAX_VALUE - 8) {
            throw new IllegalArgumentException("an image of " + largestImage + " bytes makes chunks of " + chunk
                    + " bytes, past a buffer's 2 GiB");
        }
        return (int) chunk;
    }

    /**
     * @param chunk the chunk length
     * @return bytes of a member's parity area, p · chunk
     */
    public long parityLength(int chunk) {
        return (long) parityRows * chunk;
    }

    /**
     * @param stripe a stripe
     * @param row a parity row
     * @return the member holding it
     */
    public int parityHolder(int stripe, int row) {
        return Math.floorMod(stripe + row, members);
    }

    /**
     * @param stripe a stripe
     * @param column a data column
     * @return the member whose chunk {@code column} it is
     */
    public int dataMember(int stripe, int column) {
        return Math.floorMod(stripe + parityRows + column, members);
    }

    /**
     * @param member a member
     * @param chunk one of its chunks (0..k−1)
     * @return the stripe that chunk is data column {@code chunk} of
     */
    public int stripeOfChunk(int member, int chunk) {
        return Math.floorMod(member - parityRows - chunk, members);
    }

    /**
     * @param member a member
     * @param row one of its parity parts (0..p−1)
     * @return the stripe whose row {@code row} it holds
     */
    public int stripeOfParity(int member, int row) {
        return Math.floorMod(member - row, members);
    }

    /**
     * @param member a member
     * @param stripe a stripe
     * @return the symbol of the stripe the member holds: 0..k−1 a data column, k..k+p−1 a parity row
     */
    public int symbolOf(int member, int stripe) {
        int d = Math.floorMod(member - stripe, members);
        return d < parityRows ? dataColumns() + d : d - parityRows;
    }

    /**
     * @param imageLength a member's image, bytes
     * @param chunk the chunk length
     * @param column a chunk of it
     * @return its valid bytes (the rest is padding)
     */
    public static int validBytes(long imageLength, int chunk, int column) {
        return (int) Math.max(0, Math.min(chunk, imageLength - (long) column * chunk));
    }

    @Override
    public String toString() {
        return "parity layout of " + members + " members, " + parityRows + " parity part(s) each, " + dataColumns()
                + " chunks per image";
    }
}
