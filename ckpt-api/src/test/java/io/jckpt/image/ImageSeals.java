package io.jckpt.image;

import io.jckpt.CorruptImageException;
import java.nio.charset.StandardCharsets;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * For tests of the image format on its own (no store around it): a test job's key, a writer for it,
 * and sealing (the MAC trailer), verifying and opening of images in a store, as the library's stores do.
 */
public final class ImageSeals {
    /** The key of the test job's images. */
    public static final ImageKey KEY = ImageKey.derive("a test job's key, not a secret!!".getBytes(StandardCharsets.US_ASCII));
    /** Another job's key. */
    public static final ImageKey OTHER_KEY = ImageKey.derive("another job's key, not this one!".getBytes(StandardCharsets.US_ASCII));

    private ImageSeals() {
    }

    /** @return a writer of the test job's images */
    public static ImageWriter writer() {
        return new ImageWriter(KEY);
    }

    /**
     * Computes the MAC of a written image with the test job's key and writes it into the trailer.
     *
     * @param store  the store holding a written image
     * @param offset the image's offset
     * @throws CorruptImageException when the header is not a valid image header
     */
    public static void seal(BytesStore<?, ?> store, long offset) {
        seal(store, offset, KEY);
    }

    /**
     * @param store  the store holding a written image
     * @param offset the image's offset
     * @param key    the key to seal it with
     */
    public static void seal(BytesStore<?, ?> store, long offset, ImageKey key) {
        long total = ImageHeaders.checkHeader(store, offset, ImageHeaders.available(store, offset));
        key.newMac().seal(store, offset, total);
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
        String problem = KEY.newMac().verify(store, offset, total);
        if (problem != null) {
            throw new CorruptImageException(ImageHeaders.at(offset) + problem);
        }
        return total;
    }

    /**
     * Verifies (MAC with the test job's key, structure) and opens an image.
     *
     * @param store  the store
     * @param offset the image's offset
     * @return the reader
     * @throws CorruptImageException saying what is wrong
     */
    public static ImageReader open(BytesStore<?, ?> store, long offset) {
        return ImageReader.open(store, offset, KEY);
    }
}
