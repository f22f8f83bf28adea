package io.jckpt.image;

import io.jckpt.CkptException;
import io.jckpt.data.MemoryCopy;
import io.jckpt.data.RegisteredData;
import net.openhft.chronicle.bytes.BytesStore;

import java.util.Arrays;
import java.util.Collection;

import static io.jckpt.image.CheckpointImageDescriptor.*;

/**
 * Writes the registered data of one rank as one image (layout: {@link CheckpointImageDescriptor}).
 * Two steps, so the caller can pick or check the space in between: {@link #prepare(Collection)}
 * captures the current sizes (and serializes Kryo objects into their staging buffers) and returns the
 * image length; {@link #write(BytesStore, long, ImageHeader)} writes the header, the tag table and the
 * payloads, each payload one bulk copy, and the key id of the job's key in the header; the MAC trailer
 * is left to be computed off the caller's critical path ({@link ImageMac#seal}) before the copy counts
 * as complete. Reusable; not thread-safe; no allocation per image once its arrays have grown to the
 * number of tags.
 */
public final class ImageWriter {
    private final int keyId;
    private RegisteredData[] entries = new RegisteredData[8];
    private long[] byteLengths = new long[8];
    private long[] elementCounts = new long[8];
    private long[] payloadOffsets = new long[8];
    private int count;
    private long payloadsOffset;
    private long totalLength;
    private boolean prepared;

    /** @param keyId the id of the job key the images will be sealed with ({@link ImageKey#id()}) */
    public ImageWriter(int keyId) {
        this.keyId = keyId;
    }

    /** @param key the job's image key the images will be sealed with */
    public ImageWriter(ImageKey key) {
        this(key.id());
    }

    /**
     * Captures the sizes of the entries' current contents and lays out the image.
     *
     * @param registered the entries, in the order they go into the table
     * @return the image length in bytes
     */
    public long prepare(Collection<RegisteredData> registered) {
        int n = registered.size();
        if (n > entries.length) {
            int size = Math.max(n, entries.length * 2);
            entries = Arrays.copyOf(entries, size);
            byteLengths = Arrays.copyOf(byteLengths, size);
            elementCounts = Arrays.copyOf(elementCounts, size);
            payloadOffsets = Arrays.copyOf(payloadOffsets, size);
        }
        Arrays.fill(entries, n, entries.length, null);
        long tableEnd = HEADER_LENGTH;
        int i = 0;
        for (RegisteredData r : registered) {
            entries[i++] = r;
            tableEnd += entryLength(r.tagUtf8().length);
        }
        count = n;
        payloadsOffset = align(tableEnd);
        long position = payloadsOffset;
        for (i = 0; i < n; i++) {
            long length = entries[i].prepare();
            byteLengths[i] = length;
            elementCounts[i] = entries[i].elementCount();
            payloadOffsets[i] = position;
            position = align(position + length);
        }
        totalLength = position + MAC_LENGTH;
        prepared = true;
        return totalLength;
    }

    /** @return the length computed by the last {@link #prepare}, 0 before */
    public long preparedLength() {
        return totalLength;
    }

    /**
     * Writes the prepared image, its MAC trailer zeroed (to be sealed).
     *
     * @param store  target
     * @param offset where the image starts (8-aligned recommended)
     * @param header whose data and which round
     * @return the image length
     * @throws CkptException when not prepared, or when the image does not fit the store
     */
    public long write(BytesStore<?, ?> store, long offset, ImageHeader header) {
        if (!prepared) {
            throw new CkptException("ImageWriter.write called without prepare (each image needs a fresh prepare)");
        }
        prepared = false;
        if (offset < 0 || offset + totalLength > store.realCapacity()) {
            throw new CkptException("an image of " + totalLength + " bytes does not fit at offset " + offset
                    + " of a store of " + store.realCapacity() + " bytes");
        }
        // the MAC is computed later: until then the image is no complete copy (its store says so)
        store.writeInt(offset + MAGIC_OFFSET, MAGIC);
        store.writeShort(offset + VERSION_OFFSET, FORMAT_VERSION);
        store.writeShort(offset + FLAGS_OFFSET, nativeOrderFlags());
        store.writeInt(offset + KEY_ID_OFFSET, keyId);
        store.writeInt(offset + HEADER_LENGTH_OFFSET, HEADER_LENGTH);
        store.writeLong(offset + TOTAL_LENGTH_OFFSET, totalLength);
        store.writeLong(offset + ROUND_OFFSET, header.round());
        store.writeInt(offset + RANK_OFFSET, header.rank());
        store.writeInt(offset + WORLD_SIZE_OFFSET, header.worldSize());
        store.writeInt(offset + EPOCH_OFFSET, header.epoch());
        store.writeInt(offset + TAG_COUNT_OFFSET, count);
        store.writeLong(offset + PAYLOADS_OFFSET_OFFSET, payloadsOffset);
        store.writeLong(offset + TIMESTAMP_OFFSET, System.currentTimeMillis());
        store.writeLong(offset + STEP_OFFSET, header.step());

        long e = offset + HEADER_LENGTH;
        for (int i = 0; i < count; i++) {
            RegisteredData r = entries[i];
            byte[] tag = r.tagUtf8();
            store.writeShort(e + ENTRY_TAG_LENGTH_OFFSET, (short) tag.length);
            store.writeByte(e + ENTRY_TYPE_CODE_OFFSET, r.typeCode().code());
            store.writeByte(e + ENTRY_FLAGS_OFFSET, (byte) 0);
            store.writeInt(e + ENTRY_RESERVED_OFFSET, 0);
            store.writeLong(e + ENTRY_ELEMENT_COUNT_OFFSET, elementCounts[i]);
            store.writeLong(e + ENTRY_BYTE_LENGTH_OFFSET, byteLengths[i]);
            store.writeLong(e + ENTRY_PAYLOAD_OFFSET_OFFSET, payloadOffsets[i]);
            store.write(e + ENTRY_TAG_OFFSET, tag, 0, tag.length);
            long end = e + entryLength(tag.length);
            zero(store, e + ENTRY_TAG_OFFSET + tag.length, end);
            e = end;
        }
        zero(store, e, offset + payloadsOffset);
        for (int i = 0; i < count; i++) {
            long start = offset + payloadOffsets[i];
            entries[i].writeTo(store, start);
            zero(store, start + byteLengths[i], offset + (i + 1 < count ? payloadOffsets[i + 1] : macOffset(totalLength)));
        }
        zero(store, offset + macOffset(totalLength), offset + totalLength);
        return totalLength;
    }

    private static void zero(BytesStore<?, ?> store, long from, long to) {
        for (long p = from; p < to; p++) {
            store.writeByte(p, (byte) 0);
        }
    }

    /**
     * Convenience for tests and tools: prepare, check the capacity, write.
     *
     * @param registered the entries
     * @param store      target
     * @param offset     where the image starts
     * @param header     whose data and which round
     * @return the image length
     */
    public long writeImage(Collection<RegisteredData> registered, BytesStore<?, ?> store, long offset, ImageHeader header) {
        prepare(registered);
        MemoryCopy.checkRange(store, offset, totalLength);
        return write(store, offset, header);
    }
}
