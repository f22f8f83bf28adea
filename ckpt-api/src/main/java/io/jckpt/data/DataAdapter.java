package io.jckpt.data;

import net.openhft.chronicle.bytes.BytesStore;

/**
 * Captures and restores one kind of data. Built-ins cover the primitive arrays, ByteBuffer, Chronicle
 * Bytes, arrays of primitive arrays, the atomics, Kryo (for classes the program registers with it) and,
 * for any other object, the state graph ({@link StateGraphAdapter}); an application adds its own through
 * {@link DataAdapters.Builder#add(DataAdapter)} with a {@link TypeCode#custom custom type code}.
 * Adapters must copy in bulk (see {@link MemoryCopy}).
 *
 * @param <T> the data type
 */
public interface DataAdapter<T> {

    /** @return the code stored with the data */
    TypeCode typeCode();

    /** @return the class (or supertype) of the data this adapter handles */
    Class<T> dataClass();

    /**
     * @param data any non-null object
     * @return whether this adapter handles it
     */
    default boolean accepts(Object data) {
        return dataClass().isInstance(data);
    }

    /**
     * @param data the data
     * @return its element count, as checked on rollback when {@link TypeCode#fixedSize()}
     */
    long elementCount(T data);

    /**
     * @param data the data
     * @return a short description for messages, e.g. {@code "double[999]"}
     */
    String describe(T data);

    /**
     * Starts capturing one registered object.
     *
     * @param tag  the tag (for messages)
     * @param rank the rank (for messages)
     * @param data the object, not null, {@link #accepts accepted}
     * @return its capture state
     */
    DataCapture capture(String tag, int rank, T data);

    /**
     * Restores saved data. The type code has been checked by the caller; the adapter checks the size
     * against the target and throws {@link io.jckpt.DataMismatchException} naming both.
     *
     * @param saved  what the image says
     * @param store  the store holding the image
     * @param target the object to restore into, or null to allocate a new one
     * @return the target restored in place (built-in adapters always do), or the new object when target is null
     */
    T restore(SavedEntry saved, BytesStore<?, ?> store, T target);
}
