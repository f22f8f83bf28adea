package io.jckpt.image;

import io.jckpt.CorruptImageException;
import net.openhft.chronicle.bytes.BytesStore;

import static io.jckpt.image.CheckpointImageDescriptor.*;

/**
 * The structural checks of an image header (magic, version, flags, byte order, lengths against the
 * bytes available), each failure said precisely. Whether the image is this job's, unaltered, is its
 * MAC's business ({@link ImageMac}), checked before an image is opened.
 */
final class ImageHeaders {
    private ImageHeaders() {
    }

    static long available(BytesStore<?, ?> store, long offset) {
        return Math.max(0, store.realCapacity() - offset);
    }

    /**
     * @param version a header's format version
     * @return why this library does not read it, or null for {@link CheckpointImageDescriptor#FORMAT_VERSION}
     */
    static String versionProblem(short version) {
        if (version == FORMAT_VERSION) {
            return null;
        }
        if (version == UNAUTHENTICATED_FORMAT_VERSION || version == PARTIAL_FORMAT_VERSION) {
            return "format version " + version + " was written by an earlier jckpt, before checkpoints carried "
                    + (version == UNAUTHENTICATED_FORMAT_VERSION ? "a MAC" : "both a MAC and the program's step")
                    + "; this library reads version " + FORMAT_VERSION + " only, so it is not read (start the job afresh,"
                    + " or finish it with the jckpt that wrote it)";
        }
        return "format version " + version + " is not supported (this library reads version " + FORMAT_VERSION + ")";
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
        String version = versionProblem(store.readShort(offset + VERSION_OFFSET));
        if (version != null) {
            throw new CorruptImageException(at(offset) + version);
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
        if (total < MIN_IMAGE_LENGTH || (total & (ALIGNMENT - 1)) != 0) {
            throw new CorruptImageException(at(offset) + "total length " + total + " is invalid (must be >= "
                    + MIN_IMAGE_LENGTH + " and a multiple of " + ALIGNMENT + ")");
        }
        if (total > available) {
            throw new CorruptImageException(at(offset) + "total length " + total + " exceeds the " + available
                    + " bytes available (truncated image?)");
        }
        return total;
    }
}
