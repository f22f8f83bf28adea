package io.jckpt.imem;

import io.jckpt.data.DataAdapters;
import io.jckpt.data.TagRegistry;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageKey;
import io.jckpt.image.ImageWriter;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Random;
import java.util.zip.CRC32C;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Real checkpoint images for the authentication tests (a byte[] payload that depends on rank and round),
 * the two keys of two jobs, and what an attacker does to a copy: alter a byte and keep its CRC32C (a
 * linear code: four other bytes fix it), which only the MAC then tells.
 */
final class CheckpointImages {
    static final ImageKey KEY = ImageKey.derive("this test job's key, 32 bytes..".getBytes(StandardCharsets.US_ASCII));
    static final ImageKey OTHER = ImageKey.derive("another job's key, not this one!".getBytes(StandardCharsets.US_ASCII));

    private CheckpointImages() {
    }

    /**
     * @param seal with the key's MAC (as a remote owner sends it), or with its trailer zero (as here() writes
     *             it, for the agent or store to seal)
     * @return rank {@code rank}'s image of {@code round}, written with {@code key}'s id
     */
    static byte[] image(int rank, long round, int payload, ImageKey key, boolean seal) {
        byte[] data = new byte[payload];
        new Random(rank * 1000L + round).nextBytes(data);
        TagRegistry reg = new TagRegistry(DataAdapters.builder().rank(rank).build());
        reg.register("data", data);
        ImageWriter w = new ImageWriter(key);
        byte[] image = new byte[Math.toIntExact(w.prepare(reg.entries()))];
        BytesStore<?, byte[]> store = BytesStore.wrap(image);
        w.write(store, 0, new ImageHeader(rank, Math.max(rank + 1, 4), round, 0));
        if (seal) {
            key.newMac().seal(store, 0, image.length);
        }
        return image;
    }

    /** @return {@code image} sealed with {@code key} (a copy) */
    static byte[] sealed(byte[] image, ImageKey key) {
        byte[] copy = image.clone();
        key.newMac().seal(BytesStore.wrap(copy), 0, copy.length);
        return copy;
    }

    static int crc(byte[] b) {
        CRC32C c = new CRC32C();
        c.update(b);
        return (int) c.getValue();
    }

    /**
     * Flips byte {@code at} of {@code image} and sets the four bytes at {@code fix} so that the CRC32C stays
     * what it was: the copy then passes every CRC check.
     */
    static void alterKeepingCrc(byte[] image, int at, int fix) {
        if (fix <= at && at < fix + 4) {
            throw new IllegalArgumentException("the fixed bytes must not be the altered one");
        }
        int target = crc(image);
        image[at] ^= 0x10;
        for (int i = 0; i < 4; i++) {
            image[fix + i] = 0;
        }
        int base = crc(image);
        int[] column = new int[32]; // the CRC change each bit of the four bytes makes (CRC32C is affine)
        for (int bit = 0; bit < 32; bit++) {
            image[fix + bit / 8] = (byte) (1 << (bit % 8));
            column[bit] = crc(image) ^ base;
            image[fix + bit / 8] = 0;
        }
        int x = solve(column, target ^ base);
        for (int bit = 0; bit < 32; bit++) {
            if ((x >>> bit & 1) != 0) {
                image[fix + bit / 8] |= (byte) (1 << (bit % 8));
            }
        }
        if (crc(image) != target) {
            throw new AssertionError("CRC32C not kept");
        }
    }

    /** Solves sum over bits b of x_b * column[b] = rhs over GF(2) (32 unknowns, 32 equations). */
    private static int solve(int[] column, int rhs) {
        long[] rows = new long[32]; // bit b (< 32): coefficient of x_b; bit 32: right-hand side
        for (int r = 0; r < 32; r++) {
            for (int b = 0; b < 32; b++) {
                rows[r] |= (long) (column[b] >>> r & 1) << b;
            }
            rows[r] |= (long) (rhs >>> r & 1) << 32;
        }
        for (int b = 0, r = 0; b < 32; b++, r++) {
            int pivot = r;
            while ((rows[pivot] >>> b & 1) == 0) {
                pivot++;
            }
            long t = rows[pivot];
            rows[pivot] = rows[r];
            rows[r] = t;
            for (int o = 0; o < 32; o++) {
                if (o != r && (rows[o] >>> b & 1) != 0) {
                    rows[o] ^= rows[r];
                }
            }
        }
        int x = 0;
        for (int b = 0; b < 32; b++) {
            x |= (int) (rows[b] >>> 32 & 1) << b;
        }
        return x;
    }

    /** @return the image held in a slot file (its header says how long) */
    static byte[] readSlotImage(Path slotFile) throws IOException {
        try (FileChannel ch = FileChannel.open(slotFile, StandardOpenOption.READ)) {
            ByteBuffer header = ByteBuffer.allocate(ReplicaSlotDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(header, 0);
            byte[] image = new byte[Math.toIntExact(header.getLong(ReplicaSlotDescriptor.LENGTH_OFFSET))];
            ch.read(ByteBuffer.wrap(image), ReplicaSlotDescriptor.HEADER_LENGTH);
            return image;
        }
    }

    /**
     * Writes {@code image} into a slot file as a COMPLETE copy of {@code owner}'s {@code round}, with a slot
     * header whose CRCs fit: what a process of the same user could leave there.
     */
    static void writeSlot(Path slotFile, int owner, long round, byte[] image) throws IOException {
        try (FileChannel ch = FileChannel.open(slotFile, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ByteBuffer header = ByteBuffer.allocate(ReplicaSlotDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
            ch.read(header, 0);
            header.putInt(ReplicaSlotDescriptor.STATE_OFFSET, ReplicaSlotDescriptor.STATE_COMPLETE)
                    .putInt(ReplicaSlotDescriptor.OWNER_OFFSET, owner).putLong(ReplicaSlotDescriptor.ROUND_OFFSET, round)
                    .putLong(ReplicaSlotDescriptor.LENGTH_OFFSET, image.length)
                    .putInt(ReplicaSlotDescriptor.CRC_OFFSET, crc(image));
            header.putInt(ReplicaSlotDescriptor.HEADER_CRC_OFFSET, ReplicaSlotDescriptor.headerCrc(header));
            ch.write(ByteBuffer.wrap(image), ReplicaSlotDescriptor.HEADER_LENGTH);
            ch.write(header.clear(), 0);
        }
    }
}
