package io.jckpt.image;

import io.jckpt.CorruptImageException;
import io.jckpt.data.DataAdapters;
import io.jckpt.data.TagRegistry;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.jckpt.image.CheckpointImageDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

class ImageCorruptionTest {
    private BytesStore<?, ?> store;
    private long length;
    private DataAdapters adapters;

    @BeforeEach
    void writeImage() {
        adapters = DataAdapters.builder().rank(1).build();
        TagRegistry reg = new TagRegistry(adapters);
        double[] d = new double[1000];
        for (int i = 0; i < d.length; i++) {
            d[i] = i * 0.5;
        }
        reg.register("u", d);
        reg.register("it", new int[]{12});
        ImageWriter w = new ImageWriter();
        length = w.prepare(reg.entries());
        store = BytesStore.nativeStoreWithFixedCapacity(length);
        w.write(store, 0, new ImageHeader(1, 4, 9, 0));
        ImageSeals.seal(store, 0);
        ImageSeals.verify(store, 0);
    }

    @AfterEach
    void release() {
        store.releaseLast();
    }

    private String verifyFails() {
        return assertThrows(CorruptImageException.class, () -> ImageSeals.open(store, 0)).getMessage();
    }

    @Test
    void flippedPayloadByte() {
        long p = ImageSeals.open(store, 0).entry("u").payloadOffset() + 123;
        store.writeByte(p, (byte) (store.readByte(p) ^ 0x10));
        String m = verifyFails();
        assertTrue(m.contains("CRC32C mismatch over " + length + " bytes"), m);
        assertTrue(m.contains("stored 0x") && m.contains("computed 0x"), m);
    }

    @Test
    void flippedHeaderByteIsCoveredByTheCrc() {
        store.writeLong(ROUND_OFFSET, 10);
        assertTrue(verifyFails().contains("CRC32C mismatch"));
    }

    @Test
    void wrongMagic() {
        store.writeInt(MAGIC_OFFSET, 0x12345678);
        String m = verifyFails();
        assertTrue(m.contains("bad magic 0x12345678, expected 0x494b434a"), m);
        store.writeInt(MAGIC_OFFSET, Integer.reverseBytes(MAGIC));
        assertTrue(verifyFails().contains("byte-swapped"));
        store.writeInt(MAGIC_OFFSET, 0);
        assertTrue(verifyFails().contains("no image was written here"));
    }

    @Test
    void unknownVersion() {
        store.writeShort(VERSION_OFFSET, (short) 7);
        assertTrue(verifyFails().contains("format version 7 is not supported"));
    }

    @Test
    void truncated() {
        BytesStore<?, ?> half = BytesStore.nativeStoreWithFixedCapacity(length / 2);
        try {
            half.write(0, store, 0, length / 2);
            String m = assertThrows(CorruptImageException.class, () -> ImageSeals.verify(half, 0)).getMessage();
            assertTrue(m.contains("total length " + length + " exceeds the " + (length / 2) + " bytes available"), m);
            String m2 = assertThrows(CorruptImageException.class, () -> ImageSeals.verify(store, 0, 40)).getMessage();
            assertTrue(m2.contains("only 40 bytes available"), m2);
        } finally {
            half.releaseLast();
        }
    }

    @Test
    void unsealed() {
        store.writeShort(FLAGS_OFFSET, (short) (store.readShort(FLAGS_OFFSET) & ~FLAG_SEALED));
        assertTrue(verifyFails().contains("not sealed"));
        assertFalse(ImageSeals.isSealed(store, 0));
    }

    @Test
    void tableEntryOutsideTheImageIsCaughtEvenWhenTrusted() {
        long entry = HEADER_LENGTH;
        store.writeLong(entry + ENTRY_BYTE_LENGTH_OFFSET, length * 2);
        String m = assertThrows(CorruptImageException.class, () -> ImageReader.openTrusted(store, 0)).getMessage();
        assertTrue(m.contains("tag 'u'") && m.contains("not inside the payload area"), m);
        // a reseal makes the CRC fit, the structure check still refuses it
        ImageSeals.seal(store, 0);
        assertThrows(CorruptImageException.class, () -> ImageSeals.open(store, 0));
    }

    @Test
    void inconsistentCountAndLength() {
        store.writeLong(HEADER_LENGTH + ENTRY_ELEMENT_COUNT_OFFSET, 999);
        String m = assertThrows(CorruptImageException.class, () -> ImageReader.openTrusted(store, 0)).getMessage();
        assertTrue(m.contains("999 elements of double[] cannot take 8000 bytes"), m);
    }
}
