package io.jckpt.image;

import io.jckpt.CorruptImageException;
import net.openhft.chronicle.bytes.BytesStore;

import java.util.zip.CRC32C;

import static io.jckpt.image.CheckpointImageDescriptor.*;

/**
 * For tests of the image format on its own (no store around it): seals an image (sets the sealed flag,
 * stores the CRC32C of the whole image with the CRC field read as zero) and verifies and opens sealed
 * images. The library itself does not seal images: the store's slots carry the CRC32C.
 */
public final class ImageSeals {
    private static final byte[] ZERO_CRC = new byte[CRC_LENGTH];

    private ImageSeals() {
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
        long total = ImageHeaders.checkHeader(store, offset, ImageHeaders.available(store, offset));
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
        return verify(store, offset, ImageHeaders.available(store, offset));
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
        long total = ImageHeaders.checkHeader(store, offset, available);
        short flags = store.readShort(offset + FLAGS_OFFSET);
        if ((flags & FLAG_SEALED) == 0) {
            throw new CorruptImageException(ImageHeaders.at(offset) + "not sealed: its CRC32C was never computed (the checkpoint"
                    + " was still being written, or its writer died)");
        }
        int stored = store.readInt(offset + CRC_OFFSET);
        int computed = computeCrc(store, offset, total);
        if (stored != computed) {
            throw new CorruptImageException(ImageHeaders.at(offset) + "CRC32C mismatch over " + total + " bytes: stored 0x"
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

    /**
     * Verifies (structure, sealed, CRC32C) and opens an image.
     *
     * @param store  the store
     * @param offset the image's offset
     * @return the reader
     * @throws CorruptImageException saying what is wrong
     */
    public static ImageReader open(BytesStore<?, ?> store, long offset) {
        verify(store, offset);
        return ImageReader.openTrusted(store, offset);
    }
}
