package io.jckpt.policy;

import io.jckpt.spi.RingOrder;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.zip.CRC32C;

/**
 * The file {@code layout} in every layout directory of a node-local store: what a recovery open() reads
 * to know the m, slot capacity and replication ring a surviving store was made with. Written (temporary
 * file, then an atomic rename) before the store's slot files are created, so a directory without a
 * valid one is the remains of a crash during a switch and is deleted.
 *
 * <pre>
 * offset  size  field
 *  0      4     MAGIC 'JCKL'
 *  4      4     VERSION (2; version 1, without the ring, is read as the identity ring)
 *  8      8     first round
 * 16      4     replicas (effective m)
 * 20      4     requested replicas
 * 24      8     slot capacity
 * 32      4     versions kept
 * 36      4     n, the ring's ranks (version 2 only)
 * 40      4n    the ranks in ring order (version 2 only)
 * 40+4n   4     CRC32C of the bytes before it (offset 36 in version 1)
 * </pre>
 * Little-endian.
 */
final class StoreLayoutDescriptor {
    static final String FILE = "layout";
    static final int MAGIC = 0x4C4B434A; // "JCKL" little-endian
    static final int VERSION = 2;
    /** The version before the ring was recorded: its stores were made on the identity ring. */
    static final int VERSION_WITHOUT_RING = 1;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int FIRST_ROUND_OFFSET = 8;
    static final int REPLICAS_OFFSET = 16;
    static final int REQUESTED_REPLICAS_OFFSET = 20;
    static final int SLOT_CAPACITY_OFFSET = 24;
    static final int VERSIONS_KEPT_OFFSET = 32;
    static final int RING_SIZE_OFFSET = 36;
    static final int RING_OFFSET = 40;
    /** The length of a version 1 descriptor (its CRC32C at 36). */
    static final int LENGTH_WITHOUT_RING = 40;

    private StoreLayoutDescriptor() {
    }

    /** What a descriptor says: the layout and the ring its store was made on. */
    record Decoded(StoreLayout layout, RingOrder ring) {
    }

    static int length(int ranks) {
        return RING_OFFSET + 4 * ranks + 4;
    }

    static byte[] encode(StoreLayout layout, RingOrder ring) {
        int n = ring.size();
        int crcOffset = RING_OFFSET + 4 * n;
        ByteBuffer b = ByteBuffer.allocate(length(n)).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC_OFFSET, MAGIC).putInt(VERSION_OFFSET, VERSION)
                .putLong(FIRST_ROUND_OFFSET, layout.firstRound())
                .putInt(REPLICAS_OFFSET, layout.replicas())
                .putInt(REQUESTED_REPLICAS_OFFSET, layout.requestedReplicas())
                .putLong(SLOT_CAPACITY_OFFSET, layout.slotCapacity())
                .putInt(VERSIONS_KEPT_OFFSET, layout.versionsKept())
                .putInt(RING_SIZE_OFFSET, n);
        int[] ranks = ring.ranks();
        for (int p = 0; p < n; p++) {
            b.putInt(RING_OFFSET + 4 * p, ranks[p]);
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, crcOffset);
        b.putInt(crcOffset, (int) crc.getValue());
        return b.array();
    }

    /**
     * @param bytes the file's bytes
     * @param ranks n, the job's ranks (a version 1 descriptor means the identity ring of n)
     * @return the layout and its ring
     * @throws IllegalArgumentException naming what is wrong
     */
    static Decoded decode(byte[] bytes, int ranks) {
        if (bytes.length < LENGTH_WITHOUT_RING) {
            throw new IllegalArgumentException("layout descriptor of " + bytes.length + " bytes, expected at least "
                    + LENGTH_WITHOUT_RING);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        int version = b.getInt(VERSION_OFFSET);
        if (b.getInt(MAGIC_OFFSET) != MAGIC || (version != VERSION && version != VERSION_WITHOUT_RING)) {
            throw new IllegalArgumentException("not a layout descriptor (magic or version)");
        }
        int crcOffset;
        if (version == VERSION_WITHOUT_RING) {
            crcOffset = LENGTH_WITHOUT_RING - 4;
            if (bytes.length != LENGTH_WITHOUT_RING) {
                throw new IllegalArgumentException("layout descriptor of " + bytes.length + " bytes, expected "
                        + LENGTH_WITHOUT_RING);
            }
        } else {
            int n = b.getInt(RING_SIZE_OFFSET);
            if (n < 1 || bytes.length != length(n)) {
                throw new IllegalArgumentException("layout descriptor of " + bytes.length + " bytes for a ring of " + n
                        + " ranks");
            }
            crcOffset = RING_OFFSET + 4 * n;
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, crcOffset);
        if ((int) crc.getValue() != b.getInt(crcOffset)) {
            throw new IllegalArgumentException("layout descriptor fails its CRC32C");
        }
        StoreLayout layout = new StoreLayout(b.getLong(FIRST_ROUND_OFFSET), b.getInt(REPLICAS_OFFSET),
                b.getInt(REQUESTED_REPLICAS_OFFSET), b.getLong(SLOT_CAPACITY_OFFSET), b.getInt(VERSIONS_KEPT_OFFSET));
        if (version == VERSION_WITHOUT_RING) {
            return new Decoded(layout, RingOrder.identity(ranks));
        }
        int[] order = new int[b.getInt(RING_SIZE_OFFSET)];
        for (int p = 0; p < order.length; p++) {
            order[p] = b.getInt(RING_OFFSET + 4 * p);
        }
        return new Decoded(layout, RingOrder.of(order));
    }

    /** Writes the descriptor into {@code dir} atomically, owner-only. */
    static void write(Path dir, StoreLayout layout, RingOrder ring) throws IOException {
        Path tmp = dir.resolve(FILE + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(tmp, encode(layout, ring));
        Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * @param dir   a layout directory
     * @param ranks n, the job's ranks
     * @return its layout and ring
     * @throws IOException              if the file cannot be read
     * @throws IllegalArgumentException if it is damaged
     */
    static Decoded read(Path dir, int ranks) throws IOException {
        return decode(Files.readAllBytes(dir.resolve(FILE)), ranks);
    }
}
