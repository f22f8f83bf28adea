package io.jckpt.image;

import io.jckpt.CorruptImageException;
import net.openhft.chronicle.bytes.BytesStore;

import static io.jckpt.image.CheckpointImageDescriptor.*;

/**
 * The structural checks of an image header (magic, version, flags, byte order, lengths against the
 * bytes available), each failure said precisely. The integrity of a copy is the store's business:
 * every slot carries a CRC32C verified before the copy is trusted, so images are not sealed
 * themselves (the header's CRC field and sealed flag stay 0).
 */
final class ImageHeaders {
    private ImageHeaders() {
    }

    static long available(BytesStore<?, ?> store, long offset) {
        return Math.max(0, store.realCapacity() - offset);
    }

    /** @return the header length of a known format version */
    static int headerLength(short version) {
        return version == FORMAT_VERSION_1 ? HEADER_LENGTH_V1 : HEADER_LENGTH;
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
        if (version != FORMAT_VERSION && version != FORMAT_VERSION_1) {
            throw new CorruptImageException(at(offset) + "format version " + version + " is not supported (this library"
                    + " reads versions " + FORMAT_VERSION_1 + " and " + FORMAT_VERSION + ")");
        }
        int expectedHeader = headerLength(version);
        short flags = store.readShort(offset + FLAGS_OFFSET);
        if ((flags & ~KNOWN_FLAGS) != 0) {
            throw new CorruptImageException(at(offset) + "unknown flags 0x" + Integer.toHexString(flags & 0xffff));
        }
        if ((flags & FLAG_BIG_ENDIAN) != nativeOrderFlags()) {
            throw new CorruptImageException(at(offset) + "written in the other byte order than this machine's");
        }
        int headerLength = store.readInt(offset + HEADER_LENGTH_OFFSET);
        if (headerLength != expectedHeader) {
            throw new CorruptImageException(at(offset) + "header length " + headerLength + ", expected " + expectedHeader
                    + " (format version " + version + ")");
        }
        long total = store.readLong(offset + TOTAL_LENGTH_OFFSET);
        if (total < expectedHeader || (total & (ALIGNMENT - 1)) != 0) {
            throw new CorruptImageException(at(offset) + "total length " + total + " is invalid (must be >= "
                    + expectedHeader + " and a multiple of " + ALIGNMENT + ")");
        }
        if (total > available) {
            throw new CorruptImageException(at(offset) + "total length " + total + " exceeds the " + available
                    + " bytes available (truncated image?)");
        }
        return total;
    }
}
