package io.jckpt.data;

import java.util.Objects;

/**
 * The one-byte code an image stores for each tag's data type, with what rollback needs to check a
 * target: the element size, and whether the element count must match ({@link #fixedSize()}: arrays and
 * ByteBuffers, atomics) or may differ (Chronicle Bytes, object graphs, Kryo objects, arrays of arrays,
 * whose adapter checks the shape). Codes 1-63 are the built-in types below (12-18 came later within the
 * same image format version: images written before stay readable);
 * codes 64-127 are for application adapters ({@link #custom(int, String, int, boolean)}).
 */
public final class TypeCode {
    /** Smallest code an application adapter may use. */
    public static final int FIRST_CUSTOM_CODE = 64;
    /** Largest code an application adapter may use. */
    public static final int LAST_CUSTOM_CODE = 127;

    /** {@code byte[]}. */
    public static final TypeCode BYTE_ARRAY = new TypeCode(1, "byte[]", 1, true);
    /** {@code short[]}. */
    public static final TypeCode SHORT_ARRAY = new TypeCode(2, "short[]", 2, true);
    /** {@code char[]}. */
    public static final TypeCode CHAR_ARRAY = new TypeCode(3, "char[]", 2, true);
    /** {@code int[]}. */
    public static final TypeCode INT_ARRAY = new TypeCode(4, "int[]", 4, true);
    /** {@code long[]}. */
    public static final TypeCode LONG_ARRAY = new TypeCode(5, "long[]", 8, true);
    /** {@code float[]}. */
    public static final TypeCode FLOAT_ARRAY = new TypeCode(6, "float[]", 4, true);
    /** {@code double[]}. */
    public static final TypeCode DOUBLE_ARRAY = new TypeCode(7, "double[]", 8, true);
    /** {@code boolean[]} (one byte per element, 0 or 1). */
    public static final TypeCode BOOLEAN_ARRAY = new TypeCode(8, "boolean[]", 1, true);
    /** {@link java.nio.ByteBuffer}, heap or direct: bytes 0..capacity. */
    public static final TypeCode BYTE_BUFFER = new TypeCode(9, "ByteBuffer", 1, true);
    /** Chronicle {@code Bytes}: bytes readPosition..readLimit. */
    public static final TypeCode CHRONICLE_BYTES = new TypeCode(10, "Bytes", 1, false);
    /** Any object, serialized with Kryo (class and reference graph). */
    public static final TypeCode KRYO_OBJECT = new TypeCode(11, "object (Kryo)", 0, false);
    /**
     * An array of primitive arrays, any depth ({@code double[][]}, {@code int[][][]}, jagged, null rows):
     * the payload holds the leaf type, the shape and the leaves' memory; element count = leaf elements.
     */
    public static final TypeCode NESTED_ARRAY = new TypeCode(12, "array of primitive arrays", 0, false);
    /** {@link java.util.concurrent.atomic.AtomicInteger}. */
    public static final TypeCode ATOMIC_INTEGER = new TypeCode(13, "AtomicInteger", 4, true);
    /** {@link java.util.concurrent.atomic.AtomicLong}. */
    public static final TypeCode ATOMIC_LONG = new TypeCode(14, "AtomicLong", 8, true);
    /** {@link java.util.concurrent.atomic.AtomicBoolean} (one byte, 0 or 1). */
    public static final TypeCode ATOMIC_BOOLEAN = new TypeCode(15, "AtomicBoolean", 1, true);
    /** {@link java.util.concurrent.atomic.AtomicIntegerArray}. */
    public static final TypeCode ATOMIC_INTEGER_ARRAY = new TypeCode(16, "AtomicIntegerArray", 4, true);
    /** {@link java.util.concurrent.atomic.AtomicLongArray}. */
    public static final TypeCode ATOMIC_LONG_ARRAY = new TypeCode(17, "AtomicLongArray", 8, true);
    /**
     * An object graph saved by {@link StateGraphAdapter} (layout: {@link StateGraphDescriptor}), restored
     * into the program's objects all the way down.
     */
    public static final TypeCode STATE_GRAPH = new TypeCode(18, "object graph", 0, false);

    private static final TypeCode[] BUILT_IN = {null, BYTE_ARRAY, SHORT_ARRAY, CHAR_ARRAY, INT_ARRAY, LONG_ARRAY,
            FLOAT_ARRAY, DOUBLE_ARRAY, BOOLEAN_ARRAY, BYTE_BUFFER, CHRONICLE_BYTES, KRYO_OBJECT, NESTED_ARRAY,
            ATOMIC_INTEGER, ATOMIC_LONG, ATOMIC_BOOLEAN, ATOMIC_INTEGER_ARRAY, ATOMIC_LONG_ARRAY, STATE_GRAPH};

    private final byte code;
    private final String name;
    private final int elementSize;
    private final boolean fixedSize;

    private TypeCode(int code, String name, int elementSize, boolean fixedSize) {
        this.code = (byte) code;
        this.name = name;
        this.elementSize = elementSize;
        this.fixedSize = fixedSize;
    }

    /**
     * A code for an application adapter.
     *
     * @param code        64..127
     * @param name        a short type name for messages
     * @param elementSize bytes per element (1 when counted in bytes; 0 when variable)
     * @param fixedSize   whether rollback requires the saved element count
     * @return the code
     */
    public static TypeCode custom(int code, String name, int elementSize, boolean fixedSize) {
        if (code < FIRST_CUSTOM_CODE || code > LAST_CUSTOM_CODE) {
            throw new IllegalArgumentException("custom type code " + code + " must be in " + FIRST_CUSTOM_CODE + ".."
                    + LAST_CUSTOM_CODE + " (1.." + (FIRST_CUSTOM_CODE - 1) + " are built-in)");
        }
        if (elementSize < 0) {
            throw new IllegalArgumentException("elementSize " + elementSize + " must be >= 0");
        }
        return new TypeCode(code, Objects.requireNonNull(name, "name"), elementSize, fixedSize);
    }

    /**
     * @param code a stored code
     * @return the built-in type with that code, or null
     */
    public static TypeCode builtIn(byte code) {
        return code > 0 && code < BUILT_IN.length ? BUILT_IN[code] : null;
    }

    /** @return the stored byte */
    public byte code() {
        return code;
    }

    /** @return the type's name for messages */
    public String typeName() {
        return name;
    }

    /** @return bytes per element; 0 when variable (Kryo) */
    public int elementSize() {
        return elementSize;
    }

    /** @return whether rollback requires the target to have the saved element count */
    public boolean fixedSize() {
        return fixedSize;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TypeCode && ((TypeCode) o).code == code;
    }

    @Override
    public int hashCode() {
        return code;
    }

    @Override
    public String toString() {
        return name + "#" + code;
    }
}
