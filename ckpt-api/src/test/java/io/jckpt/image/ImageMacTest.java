package io.jckpt.image;

import io.jckpt.data.DataAdapters;
import io.jckpt.data.TagRegistry;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Random;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;

import static io.jckpt.image.CheckpointImageDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * The MAC engine fed in chunks of any size (mapping windows, received chunks, disk reads) gives the
 * same MAC as one pass, seals through windows, and says why an image is refused as soon as its header
 * went by.
 */
class ImageMacTest {
    private static ByteBuffer image(int doubles) {
        TagRegistry reg = new TagRegistry(DataAdapters.builder().rank(0).build());
        double[] d = new Random(doubles).doubles(doubles).toArray();
        reg.register("d", d);
        ImageWriter w = ImageSeals.writer();
        long length = w.prepare(reg.entries());
        BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(length);
        try {
            w.write(store, 0, new ImageHeader(0, 1, 3, 0));
            ImageSeals.seal(store, 0);
            ByteBuffer copy = ByteBuffer.allocateDirect((int) length).order(ByteOrder.nativeOrder());
            for (int i = 0; i < length; i++) {
                copy.put(i, store.readByte(i));
            }
            return copy;
        } finally {
            store.releaseLast();
        }
    }

    /** Regions of at most {@code window} bytes, as a slot mapped in windows gives them. */
    private static ImageMac.Regions windows(ByteBuffer b, int window) {
        return (offset, max) -> b.duplicate().position((int) offset).limit((int) (offset + Math.min(max, window
                - offset % window)));
    }

    @Test
    void anyChunkingGivesTheSameVerdictAndSealsTheSameMac() {
        ByteBuffer sealed = image(10_000);
        long length = sealed.capacity();
        ImageMac mac = ImageSeals.KEY.newMac();
        for (int window : new int[] {1, 7, 13, 64, 4096, 1 << 20}) {
            assertNull(mac.verify(windows(sealed, window), length), "window " + window);
            ByteBuffer copy = ByteBuffer.allocate((int) length);
            copy.put(sealed.duplicate().clear()).clear();
            for (int i = 0; i < ImageMac.TAG_LENGTH; i++) {
                copy.put((int) macOffset(length) + i, (byte) 0);
            }
            mac.seal(windows(copy, window), length);
            assertEquals(sealed.duplicate().clear(), copy.clear(), "sealed through windows of " + window);
        }
    }

    @Test
    void anImageOfAnotherKeyIsRefusedOnceItsHeaderWentBy() {
        ByteBuffer sealed = image(100);
        ImageMac mac = ImageSeals.OTHER_KEY.newMac().begin(sealed.capacity());
        mac.update(sealed.duplicate().clear().limit(5));
        assertNull(mac.earlyProblem(), "not enough of the header yet");
        mac.update(sealed.duplicate().clear().position(5).limit(HEADER_LENGTH));
        assertTrue(mac.earlyProblem().contains("written with another key (key id " + ImageSeals.KEY.idHex()), mac.earlyProblem());
    }

    @Test
    void misuseIsAnError() {
        ByteBuffer sealed = image(100);
        ImageMac mac = ImageSeals.KEY.newMac().begin(sealed.capacity());
        assertThrows(IllegalStateException.class, mac::tag);
        assertThrows(IllegalStateException.class, mac::problem);
        assertThrows(IllegalStateException.class, () -> mac.update(ByteBuffer.allocate(sealed.capacity() + 1)));
        assertThrows(IllegalArgumentException.class, () -> ImageKey.derive(new byte[15]));
        assertEquals("ImageKey[id " + ImageSeals.KEY.idHex() + "]", ImageSeals.KEY.toString());
    }
}
