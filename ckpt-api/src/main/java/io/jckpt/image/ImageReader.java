package io.jckpt.image;

import io.jckpt.CorruptImageException;
import io.jckpt.DataMismatchException;
import io.jckpt.UnknownTagException;
import io.jckpt.data.DataAdapter;
import io.jckpt.data.DataAdapters;
import io.jckpt.data.SavedEntry;
import io.jckpt.data.Tags;
import io.jckpt.data.TypeCode;
import net.openhft.chronicle.bytes.BytesStore;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

import static io.jckpt.image.CheckpointImageDescriptor.*;

/**
 * Reads one image: its header, the list of its tags (type, count, length), and restores a tag into a
 * caller's object through its adapter after checking the type and the size. {@link #open} verifies the
 * image's MAC with the job's key first, so nothing of an image this job did not write reaches an
 * adapter; {@link #openTrusted} is for an image the caller verified so already (a store that checked
 * the MAC of exactly these bytes in this process). Every table entry is checked to lie inside the image.
 */
public final class ImageReader {
    private final BytesStore<?, ?> store;
    private final long offset;
    private final long totalLength;
    private final long round;
    private final int rank;
    private final int worldSize;
    private final int epoch;
    private final long timestampMillis;
    private final long step;
    private final Map<String, SavedEntry> entries;

    private ImageReader(BytesStore<?, ?> store, long offset, long totalLength) {
        this.store = store;
        this.offset = offset;
        this.totalLength = totalLength;
        this.round = store.readLong(offset + ROUND_OFFSET);
        this.rank = store.readInt(offset + RANK_OFFSET);
        this.worldSize = store.readInt(offset + WORLD_SIZE_OFFSET);
        this.epoch = store.readInt(offset + EPOCH_OFFSET);
        this.timestampMillis = store.readLong(offset + TIMESTAMP_OFFSET);
        this.step = store.readLong(offset + STEP_OFFSET);
        this.entries = Collections.unmodifiableMap(readTable());
    }

    /**
     * Verifies an image's MAC with the job's key, then opens it (its structure checked).
     *
     * @param store  the store
     * @param offset the image's offset
     * @param key    the job's image key
     * @return the reader
     * @throws CorruptImageException when the image is not this job's, was altered, or is malformed: the
     *     message says which; no byte of it was handed to an adapter
     */
    public static ImageReader open(BytesStore<?, ?> store, long offset, ImageKey key) {
        long available = ImageHeaders.available(store, offset);
        long total = available >= HEADER_LENGTH ? store.readLong(offset + TOTAL_LENGTH_OFFSET) : available;
        String problem = total < 0 || total > available ? null : key.newMac().verify(store, offset, total);
        if (problem != null) {
            throw new CorruptImageException(ImageHeaders.at(offset) + "refused before it is read: " + problem);
        }
        return openTrusted(store, offset); // the structure checks say what is wrong with a bad length
    }

    /**
     * Opens an image whose MAC the caller has verified with the job's key (see {@link #open}); checks
     * its structure only.
     *
     * @param store  the store
     * @param offset the image's offset
     * @return the reader
     * @throws CorruptImageException when the structure is invalid
     */
    public static ImageReader openTrusted(BytesStore<?, ?> store, long offset) {
        return new ImageReader(store, offset, ImageHeaders.checkHeader(store, offset, ImageHeaders.available(store, offset)));
    }

    private Map<String, SavedEntry> readTable() {
        int count = store.readInt(offset + TAG_COUNT_OFFSET);
        long payloads = store.readLong(offset + PAYLOADS_OFFSET_OFFSET);
        long payloadsEnd = macOffset(totalLength);
        if (count < 0 || payloads < HEADER_LENGTH || payloads > payloadsEnd
                || HEADER_LENGTH + (long) count * ENTRY_FIXED_LENGTH > payloads) {
            throw corrupt("tag count " + count + " / payload area at " + payloads + " do not fit an image of "
                    + totalLength + " bytes (its MAC from " + payloadsEnd + ")");
        }
        Map<String, SavedEntry> map = new LinkedHashMap<>(Math.max(4, count * 2));
        long e = offset + HEADER_LENGTH;
        long end = offset + payloads;
        long previousPayloadEnd = payloads;
        for (int i = 0; i < count; i++) {
            if (e + ENTRY_FIXED_LENGTH > end) {
                throw corrupt("tag table entry " + i + " runs past the payload area");
            }
            int tagLength = store.readUnsignedShort(e + ENTRY_TAG_LENGTH_OFFSET);
            if (tagLength < 1 || tagLength > Tags.MAX_TAG_BYTES || e + ENTRY_TAG_OFFSET + tagLength > end) {
                throw corrupt("tag table entry " + i + " has an invalid tag length " + tagLength);
            }
            byte[] tagBytes = new byte[tagLength];
            store.read(e + ENTRY_TAG_OFFSET, tagBytes, 0, tagLength);
            String tag = new String(tagBytes, StandardCharsets.UTF_8);
            byte code = store.readByte(e + ENTRY_TYPE_CODE_OFFSET);
            long elementCount = store.readLong(e + ENTRY_ELEMENT_COUNT_OFFSET);
            long byteLength = store.readLong(e + ENTRY_BYTE_LENGTH_OFFSET);
            long payloadOffset = store.readLong(e + ENTRY_PAYLOAD_OFFSET_OFFSET);
            if (elementCount < 0 || byteLength < 0 || (payloadOffset & (ALIGNMENT - 1)) != 0
                    || payloadOffset < previousPayloadEnd || payloadOffset + byteLength > payloadsEnd
                    || payloadOffset + byteLength < payloadOffset) {
                throw corrupt("tag '" + tag + "': payload [" + payloadOffset + ", +" + byteLength
                        + ") is not inside the payload area [" + payloads + ", " + payloadsEnd + ")");
            }
            TypeCode t = TypeCode.builtIn(code);
            if (t != null && t.elementSize() > 0 && elementCount > byteLength / t.elementSize()
                    || t != null && t.fixedSize() && elementCount * t.elementSize() != byteLength) {
                throw corrupt("tag '" + tag + "': " + elementCount + " elements of " + t.typeName() + " cannot take "
                        + byteLength + " bytes");
            }
            if (map.put(tag, new SavedEntry(tag, rank, code, elementCount, byteLength, offset + payloadOffset)) != null) {
                throw corrupt("tag '" + tag + "' appears twice");
            }
            previousPayloadEnd = payloadOffset + byteLength;
            e += entryLength(tagLength);
        }
        return map;
    }

    private CorruptImageException corrupt(String what) {
        return new CorruptImageException(ImageHeaders.at(offset) + "(rank " + rank + ", round " + round + ") " + what);
    }

    /** @return the image length */
    public long totalLength() {
        return totalLength;
    }

    /** @return the round */
    public long round() {
        return round;
    }

    /** @return whose data */
    public int rank() {
        return rank;
    }

    /** @return ranks in the job when written */
    public int worldSize() {
        return worldSize;
    }

    /** @return recovery count when written */
    public int epoch() {
        return epoch;
    }

    /** @return wall clock when written */
    public long timestampMillis() {
        return timestampMillis;
    }

    /** @return the program's step at this round, {@link io.jckpt.Checkpointer#NO_STEP} when it gave none */
    public long step() {
        return step;
    }

    /** @return the entries in table order */
    public Collection<SavedEntry> entries() {
        return entries.values();
    }

    /**
     * @param tag the tag
     * @return its entry, or null
     */
    public SavedEntry entry(String tag) {
        return entries.get(tag);
    }

    /**
     * @param tag the tag
     * @return whether the image holds it
     */
    public boolean contains(String tag) {
        return entries.containsKey(tag);
    }

    /**
     * Restores one tag into the caller's object.
     *
     * @param tag      the tag
     * @param target   the object to restore into (arrays and buffers: the saved length)
     * @param adapters chooses the adapter for the target
     * @param <T>      the target's type
     * @return the target (restored in place by every built-in adapter)
     * @throws UnknownTagException   when the image does not hold the tag
     * @throws DataMismatchException when the type or size differs
     */
    @SuppressWarnings("unchecked")
    public <T> T restore(String tag, T target, DataAdapters adapters) {
        SavedEntry saved = require(tag);
        DataAdapter<Object> adapter = adapters.adapterFor(tag, target);
        if (adapter.typeCode().code() != saved.typeCode()) {
            throw new DataMismatchException(tag, rank, saved.describe(), adapter.describe(target));
        }
        return (T) adapter.restore(saved, store, target);
    }

    /**
     * Restores one tag into a new object (a rank with nothing to restore into).
     *
     * @param tag      the tag
     * @param type     the expected class
     * @param adapters knows the adapter of the saved type code
     * @param <T>      the expected type
     * @return the new object
     * @throws UnknownTagException   when the image does not hold the tag
     * @throws DataMismatchException when the saved object is not a {@code type}
     */
    public <T> T restoreObject(String tag, Class<T> type, DataAdapters adapters) {
        SavedEntry saved = require(tag);
        @SuppressWarnings("unchecked")
        DataAdapter<Object> adapter = (DataAdapter<Object>) adapters.adapterFor(saved.typeCode());
        if (adapter == null) {
            throw new DataMismatchException(tag, rank, saved.describe(), "a " + type.getName() + " (no adapter for type code "
                    + saved.typeCode() + " is registered)");
        }
        adapters.useClassLoaderOf(type);
        Object restored = adapter.restore(saved, store, null);
        if (!type.isInstance(restored)) {
            throw new DataMismatchException(tag, rank, saved.describe() + " restored as "
                    + (restored == null ? "null" : restored.getClass().getName()), "a " + type.getName());
        }
        return type.cast(restored);
    }

    private SavedEntry require(String tag) {
        SavedEntry saved = entries.get(tag);
        if (saved == null) {
            throw new UnknownTagException(tag, rank, "rollback (round " + round + ")", entries.keySet());
        }
        return saved;
    }
}
