package io.jckpt.codes;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Encodes and rebuilds a whole redundancy set held in this process (the members' images and parity
 * areas as buffers), in the {@link ParityLayoutDescriptor} layout with a {@link ReedSolomon} code per
 * stripe: the reference the distributed encoding (each stripe by its parity holder) is tested against,
 * and the rebuild of a set once the survivors' parts are gathered.
 *
 * <p>Images are read at indexes 0..length of their buffers, parity areas at 0..p · chunk. A rebuild
 * first checks every surviving part's CRC32C against the {@link SetChecksums} of the encoding (a part
 * that does not match counts as lost), refuses with {@link SetLossException} before writing anything
 * when any stripe misses more than p symbols, and checks every rebuilt part against its recorded CRC32C.
 */
public final class SetCodec {
    private final ParityLayoutDescriptor layout;
    private final ReedSolomon code;

    /**
     * @param layout the set's layout
     */
    public SetCodec(ParityLayoutDescriptor layout) {
        this.layout = layout;
        this.code = ReedSolomon.of(layout.dataColumns(), layout.parityRows());
    }

    /** @return the layout */
    public ParityLayoutDescriptor layout() {
        return layout;
    }

    /**
     * @param imageLengths each member's image length
     * @return the chunk length for them
     */
    public int chunkLength(long[] imageLengths) {
        checkMembers(imageLengths.length, "image lengths");
        long largest = 0;
        for (long l : imageLengths) {
            largest = Math.max(largest, l);
        }
        return layout.chunkLength(largest);
    }

    /**
     * Computes every member's parity parts and the set's checksums.
     *
     * @param images each member's image (bytes 0..length)
     * @param imageLengths each member's image length
     * @param parity each member's parity area (written: p · chunk bytes)
     * @return the checksums
     */
    public SetChecksums encode(ByteBuffer[] images, long[] imageLengths, ByteBuffer[] parity) {
        int n = layout.members();
        checkMembers(images.length, "images");
        checkMembers(parity.length, "parity areas");
        int chunk = chunkLength(imageLengths);
        for (int m = 0; m < n; m++) {
            if (images[m].capacity() < imageLengths[m]) {
                throw new IllegalArgumentException("member " + m + "'s image buffer holds " + images[m].capacity()
                        + " bytes, less than its length " + imageLengths[m]);
            }
            if (parity[m].capacity() < layout.parityLength(chunk)) {
                throw new IllegalArgumentException("member " + m + "'s parity area holds " + parity[m].capacity()
                        + " bytes, less than p · chunk = " + layout.parityLength(chunk));
            }
        }
        int k = layout.dataColumns();
        int p = layout.parityRows();
        ByteBuffer[] data = new ByteBuffer[k];
        int[] dataOffset = new int[k];
        int[] dataLength = new int[k];
        ByteBuffer[] out = new ByteBuffer[p];
        int[] outOffset = new int[p];
        for (int s = 0; s < n; s++) {
            for (int c = 0; c < k; c++) {
                int m = layout.dataMember(s, c);
                data[c] = images[m];
                dataOffset[c] = c * chunk;
                dataLength[c] = ParityLayoutDescriptor.validBytes(imageLengths[m], chunk, c);
            }
            for (int r = 0; r < p; r++) {
                out[r] = parity[layout.parityHolder(s, r)];
                outOffset[r] = r * chunk;
            }
            code.encode(data, dataOffset, dataLength, out, outOffset, chunk);
        }
        int[][] dataCrc = new int[n][k];
        int[][] parityCrc = new int[n][p];
        for (int m = 0; m < n; m++) {
            for (int c = 0; c < k; c++) {
                dataCrc[m][c] = crc(images[m], c * chunk, ParityLayoutDescriptor.validBytes(imageLengths[m], chunk, c));
            }
            for (int r = 0; r < p; r++) {
                parityCrc[m][r] = crc(parity[m], r * chunk, chunk);
            }
        }
        return new SetChecksums(imageLengths, chunk, dataCrc, parityCrc);
    }

    /**
     * Rebuilds the lost members' images and parity areas, and any surviving part whose CRC32C does not
     * match, in place.
     *
     * @param set the set's name for errors (e.g. "xor:4 set 2 (ranks 2, 6, 10, 14)")
     * @param images each member's image buffer; a lost member's receives its image (capacity ≥ its length)
     * @param parity each member's parity area; a lost member's receives its parts (capacity ≥ p · chunk)
     * @param lost which members are lost
     * @param sums the checksums of the encoding
     * @throws SetLossException when a stripe misses more than p symbols (nothing written)
     * @throws IllegalStateException when a rebuilt part does not match its checksum (never returned as good)
     */
    public void rebuild(String set, ByteBuffer[] images, ByteBuffer[] parity, boolean[] lost, SetChecksums sums) {
        int n = layout.members();
        int k = layout.dataColumns();
        int p = layout.parityRows();
        checkMembers(images.length, "images");
        checkMembers(parity.length, "parity areas");
        checkMembers(lost.length, "lost flags");
        checkMembers(sums.imageLengths().length, "checksummed images");
        int chunk = sums.chunk();
        if (chunk != chunkLength(sums.imageLengths())) {
            throw new IllegalArgumentException(set + ": checksums record chunks of " + chunk + " bytes, the layout makes "
                    + chunkLength(sums.imageLengths()));
        }
        // symbol-level erasures: lost members, and the survivors' parts that fail their CRC32C
        boolean[][] erased = new boolean[n][k + p];
        List<Integer> lostMembers = new ArrayList<>();
        List<String> corrupt = new ArrayList<>();
        for (int m = 0; m < n; m++) {
            long length = sums.imageLength(m);
            if (lost[m]) {
                lostMembers.add(m);
            }
            for (int c = 0; c < k; c++) {
                int valid = ParityLayoutDescriptor.validBytes(length, chunk, c);
                boolean bad = !lost[m] && (images[m] == null || valid > 0 && images[m].capacity() < (long) c * chunk + valid
                        || crc(images[m], c * chunk, valid) != sums.dataCrc(m, c));
                if (bad) {
                    corrupt.add("chunk " + c + " of member " + m + "'s image");
                }
                erased[layout.stripeOfChunk(m, c)][c] = lost[m] || bad;
            }
            for (int r = 0; r < p; r++) {
                boolean bad = !lost[m] && (parity[m] == null || parity[m].capacity() < layout.parityLength(chunk)
                        || crc(parity[m], r * chunk, chunk) != sums.parityCrc(m, r));
                if (bad) {
                    corrupt.add("parity part " + r + " of member " + m);
                }
                erased[layout.stripeOfParity(m, r)][k + r] = lost[m] || bad;
            }
        }
        for (int s = 0; s < n; s++) {
            int missing = 0;
            for (boolean e : erased[s]) {
                missing += e ? 1 : 0;
            }
            if (missing > p) {
                throw new SetLossException(set, lostMembers, corrupt, "stripe " + s + " misses " + missing + " of its " + (k + p)
                        + " parts, the code rebuilds at most " + p + " per stripe (" + layout + ")");
            }
        }
        for (int m = 0; m < n; m++) {
            if (images[m] == null || images[m].capacity() < sums.imageLength(m)) {
                throw new IllegalArgumentException(set + ": member " + m + "'s image buffer cannot hold its " + sums.imageLength(m)
                        + " bytes");
            }
            if (parity[m] == null || parity[m].capacity() < layout.parityLength(chunk)) {
                throw new IllegalArgumentException(set + ": member " + m + "'s parity area cannot hold p · chunk = "
                        + layout.parityLength(chunk) + " bytes");
            }
        }
        ByteBuffer[] symbols = new ByteBuffer[k + p];
        int[] offset = new int[k + p];
        int[] length = new int[k + p];
        ByteBuffer[] scratch = new ByteBuffer[k];
        for (int s = 0; s < n; s++) {
            boolean any = false;
            for (boolean e : erased[s]) {
                any |= e;
            }
            if (!any) {
                continue;
            }
            for (int c = 0; c < k; c++) {
                int m = layout.dataMember(s, c);
                if (erased[s][c]) {
                    if (scratch[c] == null) {
                        scratch[c] = ByteBuffer.allocate(chunk);
                    }
                    symbols[c] = scratch[c];
                    offset[c] = 0;
                    length[c] = chunk;
                } else {
                    symbols[c] = images[m];
                    offset[c] = c * chunk;
                    length[c] = ParityLayoutDescriptor.validBytes(sums.imageLength(m), chunk, c);
                }
            }
            for (int r = 0; r < p; r++) {
                symbols[k + r] = parity[layout.parityHolder(s, r)];
                offset[k + r] = r * chunk;
                length[k + r] = chunk;
            }
            code.reconstruct(symbols, offset, length, erased[s], chunk);
            for (int c = 0; c < k; c++) {
                if (!erased[s][c]) {
                    continue;
                }
                int m = layout.dataMember(s, c);
                int valid = ParityLayoutDescriptor.validBytes(sums.imageLength(m), chunk, c);
                for (int i = valid; i < chunk; i++) {
                    if (scratch[c].get(i) != 0) {
                        throw new IllegalStateException(set + ": stripe " + s + " rebuilt member " + m + "'s chunk " + c
                                + " with non-zero padding at byte " + i + ": the surviving parts are inconsistent; not used");
                    }
                }
                if (valid > 0) {
                    images[m].put(c * chunk, scratch[c], 0, valid);
                }
                if (crc(images[m], c * chunk, valid) != sums.dataCrc(m, c)) {
                    throw new IllegalStateException(set + ": stripe " + s + " rebuilt member " + m + "'s chunk " + c
                            + " but its CRC32C does not match the encoding's: the surviving parts are inconsistent; not used");
                }
            }
            for (int r = 0; r < p; r++) {
                int m = layout.parityHolder(s, r);
                if (erased[s][k + r] && crc(parity[m], r * chunk, chunk) != sums.parityCrc(m, r)) {
                    throw new IllegalStateException(set + ": stripe " + s + " rebuilt member " + m + "'s parity part " + r
                            + " but its CRC32C does not match the encoding's; not used");
                }
            }
        }
    }

    private void checkMembers(int count, String what) {
        if (count != layout.members()) {
            throw new IllegalArgumentException(count + " " + what + " for a set of " + layout.members() + " members");
        }
    }

    private static int crc(ByteBuffer buffer, int at, int length) {
        if (length == 0) {
            return 0; // CRC32C of no bytes (a chunk past a short image's end)
        }
        CRC32C crc = new CRC32C();
        crc.update(buffer.duplicate().limit(at + length).position(at));
        return (int) crc.getValue();
    }
}
