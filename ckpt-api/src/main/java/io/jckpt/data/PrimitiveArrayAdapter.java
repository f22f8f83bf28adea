package io.jckpt.data;

import io.jckpt.DataMismatchException;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.UnsafeMemory;

import java.lang.reflect.Array;
import java.util.List;

/**
 * Adapter for one primitive array type: the payload is the array's memory, copied in bulk between the
 * array and the store (native byte order), with no per-element loop and no intermediate byte[].
 * Rollback requires a target of the saved length; a null target gets a new array.
 *
 * @param <T> the array type, e.g. {@code double[]}
 */
public final class PrimitiveArrayAdapter<T> implements DataAdapter<T> {
    /** {@code byte[]}. */
    public static final PrimitiveArrayAdapter<byte[]> BYTES = new PrimitiveArrayAdapter<>(byte[].class, TypeCode.BYTE_ARRAY);
    /** {@code short[]}. */
    public static final PrimitiveArrayAdapter<short[]> SHORTS = new PrimitiveArrayAdapter<>(short[].class, TypeCode.SHORT_ARRAY);
    /** {@code char[]}. */
    public static final PrimitiveArrayAdapter<char[]> CHARS = new PrimitiveArrayAdapter<>(char[].class, TypeCode.CHAR_ARRAY);
    /** {@code int[]}. */
    public static final PrimitiveArrayAdapter<int[]> INTS = new PrimitiveArrayAdapter<>(int[].class, TypeCode.INT_ARRAY);
    /** {@code long[]}. */
    public static final PrimitiveArrayAdapter<long[]> LONGS = new PrimitiveArrayAdapter<>(long[].class, TypeCode.LONG_ARRAY);
    /** {@code float[]}. */
    public static final PrimitiveArrayAdapter<float[]> FLOATS = new PrimitiveArrayAdapter<>(float[].class, TypeCode.FLOAT_ARRAY);
    /** {@code double[]}. */
    public static final PrimitiveArrayAdapter<double[]> DOUBLES = new PrimitiveArrayAdapter<>(double[].class, TypeCode.DOUBLE_ARRAY);
    /** {@code boolean[]}. */
    public static final PrimitiveArrayAdapter<boolean[]> BOOLEANS = new PrimitiveArrayAdapter<>(boolean[].class, TypeCode.BOOLEAN_ARRAY);

    private static final List<PrimitiveArrayAdapter<?>> ALL = List.of(BYTES, SHORTS, CHARS, INTS, LONGS, FLOATS, DOUBLES,
            BOOLEANS);

    private final Class<T> arrayClass;
    private final TypeCode typeCode;
    private final long baseOffset;
    private final int elementSize;

    private PrimitiveArrayAdapter(Class<T> arrayClass, TypeCode typeCode) {
        this.arrayClass = arrayClass;
        this.typeCode = typeCode;
        this.baseOffset = UnsafeMemory.MEMORY.arrayBaseOffset(arrayClass);
        this.elementSize = typeCode.elementSize();
    }

    /**
     * @param arrayClass a one-dimensional primitive array class
     * @return its adapter, or null for any other class
     */
    static PrimitiveArrayAdapter<?> of(Class<?> arrayClass) {
        for (PrimitiveArrayAdapter<?> a : ALL) {
            if (a.arrayClass == arrayClass) {
                return a;
            }
        }
        return null;
    }

    /**
     * @param code a stored type code
     * @return the adapter of that primitive array type, or null
     */
    static PrimitiveArrayAdapter<?> of(int code) {
        for (PrimitiveArrayAdapter<?> a : ALL) {
            if (a.typeCode.code() == code) {
                return a;
            }
        }
        return null;
    }

    /** @return offset of element 0 in an array of this type */
    long baseOffset() {
        return baseOffset;
    }

    /** @return bytes per element */
    int elementSize() {
        return elementSize;
    }

    @Override
    public TypeCode typeCode() {
        return typeCode;
    }

    @Override
    public Class<T> dataClass() {
        return arrayClass;
    }

    @Override
    public boolean accepts(Object data) {
        return data.getClass() == arrayClass;
    }

    @Override
    public long elementCount(T data) {
        return Array.getLength(data);
    }

    @Override
    public String describe(T data) {
        String name = typeCode.typeName();
        return name.substring(0, name.length() - 1) + Array.getLength(data) + "]";
    }

    @Override
    public DataCapture capture(String tag, int rank, T data) {
        return new Capture(data);
    }

    @Override
    public T restore(SavedEntry saved, BytesStore<?, ?> store, T target) {
        long bytes = saved.elementCount() * elementSize;
        T dst = target;
        if (dst == null) {
            if (saved.elementCount() > Integer.MAX_VALUE) {
                throw new DataMismatchException(saved.tag(), saved.rank(), saved.describe(), "a new array (too long for Java)");
            }
            @SuppressWarnings("unchecked")
            T fresh = (T) Array.newInstance(arrayClass.getComponentType(), (int) saved.elementCount());
            dst = fresh;
        } else if (Array.getLength(dst) != saved.elementCount()) {
            throw new DataMismatchException(saved.tag(), saved.rank(), saved.describe(),
                    describe(dst) + " (arrays must have the saved length)");
        }
        MemoryCopy.fromStore(store, saved.payloadOffset(), dst, baseOffset, bytes);
        return dst;
    }

    /** Capture of one array: nothing to stage, the bytes are the array's. */
    private final class Capture implements DataCapture {
        private final T data;
        private long count;

        Capture(T data) {
            this.data = data;
        }

        @Override
        public Object data() {
            return data;
        }

        @Override
        public long prepare() {
            count = Array.getLength(data);
            return count * elementSize;
        }

        @Override
        public long elementCount() {
            return count;
        }

        @Override
        public void writeTo(BytesStore<?, ?> store, long offset) {
            MemoryCopy.toStore(data, baseOffset, store, offset, count * elementSize);
        }
    }
}
