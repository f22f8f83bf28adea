package io.jckpt.codes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The stored checksums: a round trip, and every kind of damage refused with a message naming where. */
class SetChecksumsDescriptorTest {
    private static SetChecksums encoded(Redundancy r, int members) {
        SetCodec codec = new SetCodec(r.layout(members));
        Random random = new Random(members);
        long[] lengths = new long[members];
        ByteBuffer[] images = new ByteBuffer[members];
        ByteBuffer[] parity = new ByteBuffer[members];
        for (int m = 0; m < members; m++) {
            lengths[m] = 100 + random.nextInt(900);
            byte[] b = new byte[(int) lengths[m]];
            random.nextBytes(b);
            images[m] = ByteBuffer.wrap(b);
        }
        int chunk = codec.chunkLength(lengths);
        for (int m = 0; m < members; m++) {
            parity[m] = ByteBuffer.allocate((int) codec.layout().parityLength(chunk));
        }
        return codec.encode(images, lengths, parity);
    }

    @Test
    void roundTripsAtAnOffsetInEitherByteOrder() {
        for (Redundancy r : new Redundancy[] {Redundancy.xor(4), Redundancy.rs(8, 2), Redundancy.rs(5, 3)}) {
            SetChecksums sums = encoded(r, r.setSize());
            int n = r.setSize();
            ByteBuffer direct = ByteBuffer.allocateDirect(SetChecksumsDescriptor.length(n) + 7); // big-endian as allocated
            assertEquals(SetChecksumsDescriptor.length(n), SetChecksumsDescriptor.write(sums, direct, 7));
            assertEquals(0, direct.position());
            assertEquals(sums, SetChecksumsDescriptor.read(direct, 7, "test"));
            assertEquals(r.parity(), SetChecksumsDescriptor.read(direct, 7, "test").parityRows());
        }
        assertEquals(20 + 8 * 10 + 4 * 100, SetChecksumsDescriptor.length(10));
    }

    @Test
    void damageIsRefusedNamingWhere() {
        SetChecksums sums = encoded(Redundancy.rs(8, 2), 10);
        int length = SetChecksumsDescriptor.length(10);
        ByteBuffer b = ByteBuffer.allocate(length);
        SetChecksumsDescriptor.write(sums, b, 0);
        String where = "rank 5's parity of round 12";
        // every single flipped bit of the record is caught (by the magic, the version, the shape or the CRC32C)
        for (int i = 0; i < length; i++) {
            for (int bit = 0; bit < 8; bit += 3) {
                ByteBuffer copy = ByteBuffer.wrap(b.array().clone());
                copy.put(i, (byte) (copy.get(i) ^ (1 << bit)));
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                        () -> SetChecksumsDescriptor.read(copy, 0, where), "byte " + i + " bit " + bit);
                assertEquals(true, e.getMessage().startsWith(where + ": "), e.getMessage());
            }
        }
        ByteBuffer damaged = ByteBuffer.wrap(b.array().clone());
        damaged.put(100, (byte) (damaged.get(100) ^ 1));
        assertEquals(where + ": set checksums damaged (their CRC32C does not match)",
                assertThrows(IllegalArgumentException.class, () -> SetChecksumsDescriptor.read(damaged, 0, where)).getMessage());
        ByteBuffer shortOne = ByteBuffer.wrap(java.util.Arrays.copyOf(b.array(), length - 1));
        assertEquals(where + ": set checksums truncated (" + (length - 1) + " of " + length + " bytes)",
                assertThrows(IllegalArgumentException.class, () -> SetChecksumsDescriptor.read(shortOne, 0, where)).getMessage());
        assertEquals(where + ": not set checksums (magic 0x0)",
                assertThrows(IllegalArgumentException.class, () -> SetChecksumsDescriptor.read(ByteBuffer.allocate(64), 0, where))
                        .getMessage());
        assertThrows(IllegalArgumentException.class, () -> SetChecksumsDescriptor.write(sums, ByteBuffer.allocate(length - 1), 0));
    }
}
