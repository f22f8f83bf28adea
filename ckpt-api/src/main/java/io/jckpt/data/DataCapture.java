package io.jckpt.data;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * The per-registration state through which {@link io.jckpt.image.ImageWriter} captures one registered
 * object at each checkpoint: first {@link #prepare()} says how many bytes the payload will take (a Kryo
 * capture serializes into its reusable staging buffer here), then {@link #writeTo} copies them in bulk.
 * Not thread-safe.
 */
public interface DataCapture {

    /** @return the registered object (captured by reference) */
    Object data();

    /**
     * Measures the current contents.
     *
     * @return payload bytes {@link #writeTo} will write
     */
    long prepare();

    /** @return element count of the contents measured by the last {@link #prepare()} */
    long elementCount();

    /**
     * Copies the contents measured by the last {@link #prepare()}.
     *
     * @param store  target
     * @param offset where the payload starts (8-byte aligned)
     */
    void writeTo(BytesStore<?, ?> store, long offset);
}
