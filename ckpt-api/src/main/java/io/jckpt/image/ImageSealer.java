package io.jckpt.image;

import io.jckpt.CorruptImageException;
import net.openhft.chronicle.bytes.BytesStore;

import java.util.zip.CRC32C;

import static io.jckpt.image.CheckpointImageDescriptor.*;

/**
 * Seals an image (computes and stores its CRC32C) and verifies images before they are trusted. Sealing
 * is meant for a background thread, so that here() does not pay for the CRC. The CRC covers the whole
 * image, header included, with the CRC field read as zero; verification also checks magic, version,
 * header length, total length against the bytes available, and flags, and says precisely what is wrong.
 */
public final class ImageSealer {
    private static final byte[] ZERO_CRC = new byte[CRC_LENGTH];

    private ImageSealer() {
    }

    /**
     * Sets the sealed flag, computes the CRC32C and stores it.
     *
     * @param store  the store holding a written image
     * @param offset the image's offset
     * @return the CRC32C
     * @throws CorruptImageException when the header is not a valid image header
     */
    public static int seal(BytesStore<?, ?> store, long offset) {
        long total = checkHeader(store, offset, available(store, offset));
        short flags = store.readShort(offset + FLAGS_OFFSET);
        store.writeShort(offset + FLAGS_OFFSET, (short) (flags | FLAG_SEALED));
        int crc = computeCrc(store, offset, total);
        store.writeInt(offset + CRC_OFFSET, crc);
        return crc;
    }

    /**
     * Verifies an image in a store, against the store's capacity.
     *
     * @param store  the store
     * @param offset the image's offset
     * @return the image length
     * @throws CorruptImageException saying what is wrong
     */
    public static long verify(BytesStore<?, ?> store, long offset) {
        return verify(store, offset, available(store, offset));
    }

    /**
     * Verifies an image of which only {@code available} bytes are present (e.g. what was received).
     *
     * @param store     the store
     * @param offset    the image's offset
     * @param available bytes present from {@code offset}
     * @return the image length
     * @throws CorruptImageException saying what is wrong
     */
    public static long verify(BytesStore<?, ?> store, long offset, long available) {
        long total = checkHeader(store, offset, available);
        short flags = store.readShort(offset + FLAGS_OFFSET);
        if ((flags & FLAG_SEALED) == 0) {
            throw new CorruptImageException(at(offset) + "not sealed: its CRC32C was never computed (the checkpoint"
                    + " was still being written, or its writer died)");
        }
        int stored = store.readInt(offset + CRC_OFFSET);
        int computed = computeCrc(store, offset, total);
        if (stored != computed) {
            throw new CorruptImageException(at(offset) + "CRC32C mismatch over " + total + " bytes: stored 0x"
                    + Integer.toHexString(stored) + ", computed 0x" + Integer.toHexString(computed)
                    + " (the copy is damaged; use another copy)");
        }
        return total;
    }

    /**
     * Computes the CRC32C of an image with the CRC field read as zero.
     *
     * @param store  the store
     * @param offset the image's offset
     * @param length the image length
     * @return the CRC32C
     */
    public static int computeCrc(BytesStore<?, ?> store, long offset, long length) {
        CRC32C crc = new CRC32C();
        StoreCrc32c.update(crc, store, offset, CRC_OFFSET);
        crc.update(ZERO_CRC, 0, CRC_LENGTH);
        StoreCrc32c.update(crc, store, offset + CRC_OFFSET + CRC_LENGTH, length - CRC_OFFSET - CRC_LENGTH);
        return (int) crc.getValue();
    }

    /**
     * @param store  the store
     * @param offset the image's offset
     * @return whether the image at offset is marked sealed (its CRC is not checked)
     */
    public static boolean isSealed(BytesStore<?, ?> store, long offset) {
        return (store.readShort(offset + FLAGS_OFFSET) & FLAG_SEALED) != 0;
    }

    static long available(BytesStore<?, ?> store, long offset) {
        return Math.max(0, store.realCapacity() - offset);
    }

    static String at(long offset) {
        return "checkpoint image at offset " + offset + ": ";
    }

    /**
     * Checks the header fields that do not need the CRC.
     *
     * @return the total length
     */
    static long checkHeader(BytesStore<?, ?> store, long offset, long available) {
        if (offset < 0 || available < HEADER_LENGTH) {
            throw new CorruptImageException(at(offset) + "only " + available + " bytes available, a header needs "
                    + HEADER_LENGTH + " (truncated image?)");
        }
        int magic = store.readInt(offset + MAGIC_OFFSET);
        if (magic != MAGIC) {
            String hint = Integer.reverseBytes(magic) == MAGIC
                    ? " (byte-swapped: written on a machine of the other byte order)"
                    : magic == 0 ? " (no image was written here)" : "";
            throw new CorruptImageException(at(offset) + "bad magic 0x" + Integer.toHexString(magic) + ", expected 0x"
                    + Integer.toHexString(MAGIC) + " (\"JCKI\")" + hint);
        }
        short version = store.readShort(offset + VERSION_OFFSET);
        if (version != FORMAT_VERSION) {
            throw new CorruptImageException(at(offset) + "format version " + version + " is not supported (this library"
                    + " reads version " + FORMAT_VERSION + ")");
        }
        short flags = store.readShort(offset + FLAGS_OFFSET);
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw new CorruptImageException(at(offset) + "unknown flags 0x" + Integer.toHexString(flags & 0xffff));
        }
        if ((flags & FLAG_BIG_ENDIAN) != nativeOrderFlags()) {
            throw new CorruptImageException(at(offset) + "written in the other byte order than this machine's");
        }
        int headerLength = store.readInt(offset + HEADER_LENGTH_OFFSET);
        if (headerLength != HEADER_LENGTH) {
            throw new CorruptImageException(at(offset) + "header length " + headerLength + ", expected " + HEADER_LENGTH);
        }
        long total = store.readLong(offset + TOTAL_LENGTH_OFFSET);
        if (total < HEADER_LENGTH || (total & (ALIGNMENT - 1)) != 0) {
            throw new CorruptImageException(at(offset) + "total length " + total + " is invalid (must be >= "
                    + HEADER_LENGTH + " and a multiple of " + ALIGNMENT + ")");
        }
        if (total > available) {
            throw new CorruptImageException(at(offset) + "total length " + total + " exceeds the " + available
                    + " bytes available (truncated image?)");
        }
        return total;
    }
}
