package io.jckpt.codes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Whole sets in the striped layout, images of different sizes: every pattern of up to p lost members is
 * rebuilt bit for bit (images and parity), every pattern of p + 1 is refused naming the set and the
 * members with nothing written, and a survivor's part that fails its CRC32C counts as lost.
 */
class SetCodecTest {
    /** A set's images and parity areas as encoded, and fresh copies to lose members from. */
    private static final class Fixture {
        final SetCodec codec;
        final long[] lengths;
        final byte[][] images;
        final byte[][] parity;
        final SetChecksums sums;

        Fixture(Redundancy redundancy, int members, long seed) {
            ParityLayoutDescriptor layout = redundancy.layout(members);
            codec = new SetCodec(layout);
            Random random = new Random(seed);
            lengths = new long[members];
            images = new byte[members][];
            for (int m = 0; m < members; m++) {
                // different sizes, one empty, none a multiple of k or 8
                lengths[m] = m == 1 ? 0 : 300 + random.nextInt(900);
                images[m] = new byte[(int) lengths[m]];
                random.nextBytes(images[m]);
            }
            ByteBuffer[] in = new ByteBuffer[members];
            ByteBuffer[] out = new ByteBuffer[members];
            int chunk = codec.chunkLength(lengths);
            for (int m = 0; m < members; m++) {
                in[m] = ByteBuffer.wrap(images[m].clone());
                out[m] = ByteBuffer.allocateDirect((int) layout.parityLength(chunk));
            }
            sums = codec.encode(in, lengths, out);
            parity = new byte[members][];
            for (int m = 0; m < members; m++) {
                assertArrayEquals(images[m], in[m].array(), "encoding changed member " + m + "'s image");
                parity[m] = Gf256Test.bytes(out[m]);
            }
        }

        ByteBuffer[] images(boolean[] lost, Random random) {
            ByteBuffer[] b = new ByteBuffer[images.length];
            for (int m = 0; m < b.length; m++) {
                byte[] bytes = images[m].clone();
                if (lost[m]) {
                    random.nextBytes(bytes); // whatever a fresh buffer holds
                }
                b[m] = ByteBuffer.wrap(bytes);
            }
            return b;
        }

        ByteBuffer[] parity(boolean[] lost, Random random) {
            ByteBuffer[] b = new ByteBuffer[parity.length];
            for (int m = 0; m < b.length; m++) {
                byte[] bytes = parity[m].clone();
                if (lost[m]) {
                    random.nextBytes(bytes);
                }
                b[m] = Gf256Test.buffer(bytes, true, false);
            }
            return b;
        }
    }

    @Test
    void everyLossOfUpToPMembersIsRebuiltAndEveryLossOfPPlusOneIsRefused() {
        for (Redundancy r : List.of(Redundancy.xor(4), Redundancy.xor(8), Redundancy.rs(4, 2), Redundancy.rs(8, 2))) {
            exhaustive(r, r.setSize());
        }
        // a set smaller than asked (the ranks did not divide): rs:8+2 with 7 members is k = 5
        exhaustive(Redundancy.rs(8, 2), 7);
    }

    private static void exhaustive(Redundancy redundancy, int members) {
        Fixture f = new Fixture(redundancy, members, members * 101L + redundancy.parity());
        int p = redundancy.parity();
        Random random = new Random(members);
        String name = redundancy + " set 3";
        int rebuilt = 0;
        int refused = 0;
        for (int mask = 0; mask < 1 << members; mask++) {
            int count = Integer.bitCount(mask);
            if (count > p + 1) {
                continue;
            }
            boolean[] lost = new boolean[members];
            List<Integer> lostList = new ArrayList<>();
            for (int m = 0; m < members; m++) {
                lost[m] = (mask & (1 << m)) != 0;
                if (lost[m]) {
                    lostList.add(m);
                }
            }
            ByteBuffer[] images = f.images(lost, random);
            ByteBuffer[] parity = f.parity(lost, random);
            if (count <= p) {
                f.codec.rebuild(name, images, parity, lost, f.sums);
                for (int m = 0; m < members; m++) {
                    assertArrayEquals(f.images[m], images[m].array(), redundancy + ": member " + m + " after losing " + lostList);
                    assertArrayEquals(f.parity[m], Gf256Test.bytes(parity[m]), redundancy + ": parity of " + m + " after losing "
                            + lostList);
                }
                rebuilt++;
            } else {
                byte[][] before = new byte[members][];
                byte[][] beforeParity = new byte[members][];
                for (int m = 0; m < members; m++) {
                    before[m] = images[m].array().clone();
                    beforeParity[m] = Gf256Test.bytes(parity[m]);
                }
                SetLossException e = assertThrows(SetLossException.class,
                        () -> f.codec.rebuild(name, images, parity, lost, f.sums));
                assertEquals(name, e.set());
                assertEquals(lostList, e.lostMembers());
                assertTrue(e.getMessage().startsWith(name + ": cannot rebuild: members " + lostList + " lost; stripe "),
                        e.getMessage());
                assertTrue(e.getMessage().contains(" misses " + (p + 1) + " of its " + members + " parts, the code rebuilds at most "
                        + p + " per stripe"), e.getMessage());
                for (int m = 0; m < members; m++) {
                    assertArrayEquals(before[m], images[m].array(), "refused, yet member " + m + "'s image was written");
                    assertArrayEquals(beforeParity[m], Gf256Test.bytes(parity[m]), "refused, yet member " + m + "'s parity was written");
                }
                refused++;
            }
        }
        assertEquals(ReedSolomonTest.patterns(members, p), rebuilt);
        assertEquals(ReedSolomonTest.binomial(members, p + 1), refused);
    }

    @Test
    void aCorruptSurvivingPartCountsAsLost() {
        Fixture f = new Fixture(Redundancy.rs(4, 2), 6, 77);
        Random random = new Random(3);
        int chunk = f.sums.chunk();
        ParityLayoutDescriptor layout = f.codec.layout();

        // one member lost and one byte flipped in another's chunk 1: two symbols of one stripe at most, repaired
        boolean[] lost = {false, false, false, true, false, false};
        ByteBuffer[] images = f.images(lost, random);
        ByteBuffer[] parity = f.parity(lost, random);
        images[0].put(chunk + 5, (byte) (images[0].get(chunk + 5) ^ 0x40));
        f.codec.rebuild("rs:4+2 set 0", images, parity, lost, f.sums);
        for (int m = 0; m < 6; m++) {
            assertArrayEquals(f.images[m], images[m].array(), "member " + m);
        }

        // two members lost, and a survivor's part in a stripe that already misses two: refused, naming the part
        boolean[] two = {true, false, true, false, false, false};
        int stripe = layout.stripeOfChunk(0, 0);
        int column = 0;
        int victim = -1;
        for (int m = 0; m < 6; m++) {
            int symbol = layout.symbolOf(m, stripe);
            if (!two[m] && symbol >= layout.dataColumns()) {
                victim = m;
                column = symbol - layout.dataColumns();
            }
        }
        assertTrue(victim >= 0);
        ByteBuffer[] images2 = f.images(two, random);
        ByteBuffer[] parity2 = f.parity(two, random);
        parity2[victim].put(column * chunk, (byte) (parity2[victim].get(column * chunk) ^ 1));
        byte[][] before = new byte[6][];
        for (int m = 0; m < 6; m++) {
            before[m] = images2[m].array().clone();
        }
        SetLossException e = assertThrows(SetLossException.class, () -> f.codec.rebuild("rs:4+2 set 0", images2, parity2, two, f.sums));
        assertEquals(List.of("parity part " + column + " of member " + victim), e.corruptParts());
        assertTrue(e.getMessage().startsWith("rs:4+2 set 0: cannot rebuild: members [0, 2] lost, corrupt (CRC32C mismatch): parity part "
                + column + " of member " + victim + "; stripe " + stripe + " misses 3 of its 6 parts"), e.getMessage());
        for (int m = 0; m < 6; m++) {
            assertArrayEquals(before[m], images2[m].array(), "refused, yet member " + m + " was written");
        }
    }

    @Test
    void xorOfKIsRsOfKMinusOnePlusOneBitForBit() {
        Fixture xor = new Fixture(Redundancy.xor(5), 5, 9);
        Fixture rs = new Fixture(Redundancy.rs(4, 1), 5, 9);
        for (int m = 0; m < 5; m++) {
            assertArrayEquals(xor.parity[m], rs.parity[m]);
        }
    }

    @Test
    void theParityIsTheLayoutsStripesEncodedOneByOne() {
        // what each parity holder computes alone (its stripe's k chunks) is what the whole-set encoding wrote
        Fixture f = new Fixture(Redundancy.rs(8, 2), 10, 21);
        ParityLayoutDescriptor layout = f.codec.layout();
        ReedSolomon code = ReedSolomon.of(8, 2);
        int chunk = f.sums.chunk();
        for (int s = 0; s < 10; s++) {
            ByteBuffer[] data = new ByteBuffer[8];
            int[] length = new int[8];
            for (int c = 0; c < 8; c++) {
                int m = layout.dataMember(s, c);
                assertEquals(s, layout.stripeOfChunk(m, c));
                assertEquals(c, layout.symbolOf(m, s));
                length[c] = ParityLayoutDescriptor.validBytes(f.lengths[m], chunk, c);
                byte[] piece = new byte[chunk];
                if (length[c] > 0) {
                    System.arraycopy(f.images[m], c * chunk, piece, 0, length[c]);
                }
                data[c] = ByteBuffer.wrap(piece);
            }
            ByteBuffer[] out = {ByteBuffer.allocate(chunk), ByteBuffer.allocate(chunk)};
            code.encode(data, new int[8], length, out, new int[2], chunk);
            for (int r = 0; r < 2; r++) {
                int holder = layout.parityHolder(s, r);
                assertEquals(s, layout.stripeOfParity(holder, r));
                byte[] expected = new byte[chunk];
                System.arraycopy(f.parity[holder], r * chunk, expected, 0, chunk);
                assertArrayEquals(expected, out[r].array(), "stripe " + s + " row " + r);
            }
        }
    }
}
