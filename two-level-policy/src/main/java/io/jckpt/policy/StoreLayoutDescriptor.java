package io.jckpt.policy;

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
 * to know the m and slot capacity a surviving store was made with. Written (temporary file, then an
 * atomic rename) before the store's slot files are created, so a directory without a valid one is
 * the remains of a crash during a switch and is deleted.
 *
 * <pre>
 * offset  size  field
 *  0      4     MAGIC 'JCKL'
 *  4      4     VERSION
 *  8      8     first round
 * 16      4     replicas (effective m)
 * 20      4     requested replicas
 * 24      8     slot capacity
 * 32      4     versions kept
 * 36      4     CRC32C of bytes 0..36
 * </pre>
 * Little-endian.
 */
final class StoreLayoutDescriptor {
    static final String FILE = "layout";
    static final int MAGIC = 0x4C4B434A; // "JCKL" little-endian
    static final int VERSION = 1;
    static final int MAGIC_OFFSET = 0;
    static final int VERSION_OFFSET = 4;
    static final int FIRST_ROUND_OFFSET = 8;
    static final int REPLICAS_OFFSET = 16;
    static final int REQUESTED_REPLICAS_OFFSET = 20;
    static final int SLOT_CAPACITY_OFFSET = 24;
    static final int VERSIONS_KEPT_OFFSET = 32;
    static final int CRC_OFFSET = 36;
    static final int LENGTH = 40;

    private StoreLayoutDescriptor() {
    }

    static byte[] encode(StoreLayout layout) {
        ByteBuffer b = ByteBuffer.allocate(LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC_OFFSET, MAGIC).putInt(VERSION_OFFSET, VERSION)
                .putLong(FIRST_ROUND_OFFSET, layout.firstRound())
                .putInt(REPLICAS_OFFSET, layout.replicas())
                .putInt(REQUESTED_REPLICAS_OFFSET, layout.requestedReplicas())
                .putLong(SLOT_CAPACITY_OFFSET, layout.slotCapacity())
                .putInt(VERSIONS_KEPT_OFFSET, layout.versionsKept());
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, CRC_OFFSET);
        b.putInt(CRC_OFFSET, (int) crc.getValue());
        return b.array();
    }

    /**
     * @param bytes the file's bytes
     * @return the layout
     * @throws IllegalArgumentException naming what is wrong
     */
    static StoreLayout decode(byte[] bytes) {
        if (bytes.length != LENGTH) {
            throw new IllegalArgumentException("layout descriptor of " + bytes.length + " bytes, expected " + LENGTH);
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(MAGIC_OFFSET) != MAGIC || b.getInt(VERSION_OFFSET) != VERSION) {
            throw new IllegalArgumentException("not a layout descriptor (magic or version)");
        }
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, CRC_OFFSET);
        if ((int) crc.getValue() != b.getInt(CRC_OFFSET)) {
            throw new IllegalArgumentException("layout descriptor fails its CRC32C");
        }
        return new StoreLayout(b.getLong(FIRST_ROUND_OFFSET), b.getInt(REPLICAS_OFFSET),
                b.getInt(REQUESTED_REPLICAS_OFFSET), b.getLong(SLOT_CAPACITY_OFFSET), b.getInt(VERSIONS_KEPT_OFFSET));
    }

    /** Writes the descriptor into {@code dir} atomically, owner-only. */
    static void write(Path dir, StoreLayout layout) throws IOException {
        Path tmp = dir.resolve(FILE + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        Files.write(tmp, encode(layout));
        Files.move(tmp, dir.resolve(FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /**
     * @param dir a layout directory
     * @return its layout
     * @throws IOException              if the file cannot be read
     * @throws IllegalArgumentException if it is damaged
     */
    static StoreLayout read(Path dir) throws IOException {
        return decode(Files.readAllBytes(dir.resolve(FILE)));
    }
}
