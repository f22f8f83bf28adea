package io.jckpt.data;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * One registered tag: its name (and UTF-8 bytes, encoded once), its adapter, and the capture of the
 * registered object. What {@link io.jckpt.image.ImageWriter} writes at each checkpoint.
 */
public final class RegisteredData {
    private final String tag;
    private final byte[] tagUtf8;
    private final DataAdapter<Object> adapter;
    private final DataCapture capture;

    RegisteredData(String tag, byte[] tagUtf8, DataAdapter<Object> adapter, DataCapture capture) {
        this.tag = tag;
        this.tagUtf8 = tagUtf8;
        this.adapter = adapter;
        this.capture = capture;
    }

    /** @return the tag */
    public String tag() {
        return tag;
    }

    /** @return the tag's UTF-8 bytes (do not modify) */
    public byte[] tagUtf8() {
        return tagUtf8;
    }

    /** @return the adapter */
    public DataAdapter<Object> adapter() {
        return adapter;
    }

    /** @return the type code */
    public TypeCode typeCode() {
        return adapter.typeCode();
    }

    /** @return the registered object */
    public Object data() {
        return capture.data();
    }

    /** @return payload bytes of the current contents; see {@link DataCapture#prepare()} */
    public long prepare() {
        return capture.prepare();
    }

    /** @return element count measured by the last {@link #prepare()} */
    public long elementCount() {
        return capture.elementCount();
    }

    /**
     * @param store  target
     * @param offset payload offset
     */
    public void writeTo(BytesStore<?, ?> store, long offset) {
        capture.writeTo(store, offset);
    }

    /** @return e.g. {@code "double[1000]"} */
    public String describe() {
        return adapter.describe(capture.data());
    }

    @Override
    public String toString() {
        return "'" + tag + "': " + describe();
    }
}
