package io.jckpt.image;

import io.jckpt.CorruptImageException;
import io.jckpt.data.DataAdapters;
import io.jckpt.data.TagRegistry;
import java.util.concurrent.atomic.AtomicInteger;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.jckpt.image.CheckpointImageDescriptor.*;
import static org.junit.jupiter.api.Assertions.*;

/**
 * An image is read only after its MAC verified with the job's key: one byte altered anywhere (header,
 * tag table, payload, the MAC itself), another job's key, the format before images carried a MAC,
 * each is refused with the reason, and no byte of it reaches a data adapter: the image holds an
 * object whose construction is visible ({@link Witness}), and it is never constructed from a refused one.
 */
class ImageCorruptionTest {
    /** Counts its constructions: Kryo builds one per deserialization. */
    public static final class Witness {
        static final AtomicInteger CONSTRUCTED = new AtomicInteger();
        int value;

        public Witness() {
            CONSTRUCTED.incrementAndGet();
        }
    }

    private BytesStore<?, ?> store;
    private long length;
    private DataAdapters adapters;

    @BeforeEach
    void writeImage() {
        adapters = DataAdapters.builder().rank(1).kryoConfigurer(k -> k.register(Witness.class)).build();
        TagRegistry reg = new TagRegistry(adapters);
        double[] d = new double[1000];
        for (int i = 0; i < d.length; i++) {
            d[i] = i * 0.5;
        }
        reg.register("u", d);
        reg.register("it", new int[]{12});
        Witness w = new Witness();
        w.value = 7;
        reg.register("witness", w);
        ImageWriter writer = ImageSeals.writer();
        length = writer.prepare(reg.entries());
        store = BytesStore.nativeStoreWithFixedCapacity(length);
        writer.write(store, 0, new ImageHeader(1, 4, 9, 0));
        ImageSeals.seal(store, 0);
        ImageSeals.verify(store, 0);
    }

    @AfterEach
    void release() {
        store.releaseLast();
    }

    /** Opens the image with the job's key and reads the object: the way every restore reads. */
    private String refused() {
        int before = Witness.CONSTRUCTED.get();
        String m = assertThrows(CorruptImageException.class,
                () -> ImageSeals.open(store, 0).restoreObject("witness", Witness.class, adapters)).getMessage();
        assertEquals(before, Witness.CONSTRUCTED.get(), "an object was deserialized from a refused image: " + m);
        assertTrue(m.startsWith("checkpoint image at offset 0: refused before it is read: "), m);
        return m;
    }

    private void flip(long at) {
        store.writeByte(at, (byte) (store.readByte(at) ^ 0x10));
    }

    @Test
    void theIntactImageIsReadAndItsObjectDeserialized() {
        int before = Witness.CONSTRUCTED.get();
        assertEquals(7, ImageSeals.open(store, 0).restoreObject("witness", Witness.class, adapters).value);
        assertEquals(before + 1, Witness.CONSTRUCTED.get(), "the witness must see a deserialization");
    }

    @Test
    void oneByteAlteredAnywhereIsRefused() {
        long payload = ImageSeals.open(store, 0).entry("witness").payloadOffset();
        long[] places = {ROUND_OFFSET, RANK_OFFSET, TIMESTAMP_OFFSET, STEP_OFFSET, HEADER_LENGTH + ENTRY_TAG_OFFSET, payload,
                ImageSeals.open(store, 0).entry("u").payloadOffset() + 123, macOffset(length), length - 1};
        for (long at : places) {
            flip(at);
            String m = refused();
            assertTrue(m.contains("its MAC does not match its bytes: it was altered after it was written (key id "
                    + ImageSeals.KEY.idHex() + ")"), "byte " + at + ": " + m);
            flip(at);
            ImageSeals.verify(store, 0);
        }
    }

    @Test
    void anotherJobsKeyIsRefusedByName() {
        store.writeInt(KEY_ID_OFFSET, ImageSeals.OTHER_KEY.id());
        ImageSeals.seal(store, 0, ImageSeals.OTHER_KEY); // a sound image of another job
        String m = refused();
        assertTrue(m.contains("it was written with another key (key id " + ImageSeals.OTHER_KEY.idHex()
                + "; this job's key is " + ImageSeals.KEY.idHex() + "): not this job's checkpoint"), m);
        // the id forged to this job's: the MAC still tells
        store.writeInt(KEY_ID_OFFSET, ImageSeals.KEY.id());
        assertTrue(refused().contains("its MAC does not match"));
        assertNotEquals(ImageSeals.KEY.id(), ImageSeals.OTHER_KEY.id());
    }

    @Test
    void theFormatBeforeImagesCarriedAMacIsRefusedSayingSo() {
        store.writeShort(VERSION_OFFSET, UNAUTHENTICATED_FORMAT_VERSION);
        String m = refused();
        assertTrue(m.contains("format version 1 was written by an earlier jckpt, before checkpoints carried a MAC;"
                + " this library reads version 3 only"), m);
        store.writeShort(VERSION_OFFSET, PARTIAL_FORMAT_VERSION);
        String m2 = refused();
        assertTrue(m2.contains("format version 2 was written by an earlier jckpt, before checkpoints carried both a MAC"
                + " and the program's step; this library reads version 3 only"), m2);
        store.writeShort(VERSION_OFFSET, (short) 7);
        assertTrue(refused().contains("format version 7 is not supported"));
    }

    @Test
    void wrongMagic() {
        store.writeInt(MAGIC_OFFSET, 0x12345678);
        assertTrue(refused().contains("it is not a checkpoint image (magic 0x12345678)"));
        store.writeInt(MAGIC_OFFSET, Integer.reverseBytes(MAGIC));
        assertTrue(refused().contains("other byte order"));
        String m = assertThrows(CorruptImageException.class, () -> ImageSeals.verify(store, 0)).getMessage();
        assertTrue(m.contains("byte-swapped"), m);
    }

    @Test
    void truncated() {
        BytesStore<?, ?> half = BytesStore.nativeStoreWithFixedCapacity(length / 2);
        try {
            half.write(0, store, 0, length / 2);
            String m = assertThrows(CorruptImageException.class, () -> ImageSeals.open(half, 0)).getMessage();
            assertTrue(m.contains("total length " + length + " exceeds the " + (length / 2) + " bytes available"), m);
            String m2 = assertThrows(CorruptImageException.class, () -> ImageSeals.verify(store, 0, 40)).getMessage();
            assertTrue(m2.contains("only 40 bytes available"), m2);
        } finally {
            half.releaseLast();
        }
    }

    @Test
    void aLengthShortenedToTheHeaderIsRefused() {
        store.writeLong(TOTAL_LENGTH_OFFSET, MIN_IMAGE_LENGTH - 8);
        assertTrue(refused().contains("fewer than a header and a MAC"));
        // as short as a version 1 image without tags (its 64-byte header): named by its version
        store.writeShort(VERSION_OFFSET, UNAUTHENTICATED_FORMAT_VERSION);
        store.writeLong(TOTAL_LENGTH_OFFSET, 64);
        assertTrue(refused().contains("format version 1 was written by an earlier jckpt"));
    }

    @Test
    void aMacOfZerosIsRefused() {
        for (long p = macOffset(length); p < length; p++) {
            store.writeByte(p, (byte) 0);
        }
        assertTrue(refused().contains("its MAC does not match"));
    }

    @Test
    void tableEntryOutsideTheImageIsCaughtEvenWhenTrusted() {
        long entry = HEADER_LENGTH;
        store.writeLong(entry + ENTRY_BYTE_LENGTH_OFFSET, length * 2);
        String m = assertThrows(CorruptImageException.class, () -> ImageReader.openTrusted(store, 0)).getMessage();
        assertTrue(m.contains("tag 'u'") && m.contains("not inside the payload area"), m);
        // a reseal makes the MAC fit (the job's own key: a bug, not an attack), the structure check still refuses it
        ImageSeals.seal(store, 0);
        assertThrows(CorruptImageException.class, () -> ImageSeals.open(store, 0));
    }

    @Test
    void aPayloadReachingIntoTheMacIsRefused() {
        // the last entry ("witness", after "u" and "it") made to end 8 bytes into the MAC
        long entry = HEADER_LENGTH + entryLength(1) + entryLength(2);
        long payload = store.readLong(entry + ENTRY_PAYLOAD_OFFSET_OFFSET);
        store.writeLong(entry + ENTRY_BYTE_LENGTH_OFFSET, macOffset(length) - payload + 8);
        ImageSeals.seal(store, 0);
        String m = assertThrows(CorruptImageException.class, () -> ImageSeals.open(store, 0)).getMessage();
        assertTrue(m.contains("tag 'witness'") && m.contains("not inside the payload area [")
                && m.contains(", " + macOffset(length) + ")"), m);
    }

    @Test
    void inconsistentCountAndLength() {
        store.writeLong(HEADER_LENGTH + ENTRY_ELEMENT_COUNT_OFFSET, 999);
        String m = assertThrows(CorruptImageException.class, () -> ImageReader.openTrusted(store, 0)).getMessage();
        assertTrue(m.contains("999 elements of double[] cannot take 8000 bytes"), m);
    }
}
