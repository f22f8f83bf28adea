package io.jckpt.data;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;

/**
 * A growable byte[] that a {@link GraphWriter} writes a payload into: scalars in native byte order
 * (as the image's), unsigned LEB128 varints, and bulk copies of primitive arrays. Kept for the
 * registration's life and reused at every checkpoint. Not thread-safe.
 */
final class GraphOutput {
    static final VarHandle SHORT = MethodHandles.byteArrayViewVarHandle(short[].class, ByteOrder.nativeOrder());
    static final VarHandle CHAR = MethodHandles.byteArrayViewVarHandle(char[].class, ByteOrder.nativeOrder());
    static final VarHandle INT = MethodHandles.byteArrayViewVarHandle(int[].class, ByteOrder.nativeOrder());
    static final VarHandle LONG = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.nativeOrder());
    static final VarHandle FLOAT = MethodHandles.byteArrayViewVarHandle(float[].class, ByteOrder.nativeOrder());
    static final VarHandle DOUBLE = MethodHandles.byteArrayViewVarHandle(double[].class, ByteOrder.nativeOrder());
    /** Largest payload: what a byte[] can hold. */
    static final int MAX_LENGTH = Integer.MAX_VALUE - 16;

    private byte[] buffer;
    private int position;

    GraphOutput(int initialCapacity) {
        buffer = new byte[initialCapacity];
    }

    byte[] buffer() {
        return buffer;
    }

    int position() {
        return position;
    }

    void reset() {
        position = 0;
    }

    private void ensure(long more) {
        long need = position + more;
        if (need > buffer.length) {
            if (need > MAX_LENGTH) {
                throw new GraphRefusal("the object graph takes more than " + MAX_LENGTH + " bytes: register its large "
                        + "arrays separately (each registered array has no such limit)");
            }
            byte[] bigger = new byte[(int) Math.min(MAX_LENGTH, Math.max(need, 2L * buffer.length))];
            System.arraycopy(buffer, 0, bigger, 0, position);
            buffer = bigger;
        }
    }

    void u8(int v) {
        ensure(1);
        buffer[position++] = (byte) v;
    }

    void i16(short v) {
        ensure(2);
        SHORT.set(buffer, position, v);
        position += 2;
    }

    void c16(char v) {
        ensure(2);
        CHAR.set(buffer, position, v);
        position += 2;
    }

    void i32(int v) {
        ensure(4);
        INT.set(buffer, position, v);
        position += 4;
    }

    void i64(long v) {
        ensure(8);
        LONG.set(buffer, position, v);
        position += 8;
    }

    void f32(float v) {
        ensure(4);
        FLOAT.set(buffer, position, v);
        position += 4;
    }

    void f64(double v) {
        ensure(8);
        DOUBLE.set(buffer, position, v);
        position += 8;
    }

    void varint(long v) {
        ensure(10);
        while ((v & ~0x7FL) != 0) {
            buffer[position++] = (byte) ((v & 0x7F) | 0x80);
            v >>>= 7;
        }
        buffer[position++] = (byte) v;
    }

    /** A string as its length and its chars, each a varint (one byte for ASCII). */
    void string(String s) {
        int n = s.length();
        varint(n);
        ensure(3L * n);
        for (int i = 0; i < n; i++) {
            int c = s.charAt(i);
            if (c < 0x80) {
                buffer[position++] = (byte) c;
            } else {
                varint(c);
            }
        }
    }

    void bytes(byte[] b) {
        varint(b.length);
        ensure(b.length);
        System.arraycopy(b, 0, buffer, position, b.length);
        position += b.length;
    }

    /**
     * Copies memory in bulk.
     *
     * @param base   an array, or null for native memory
     * @param offset the offset (see {@link MemoryCopy})
     * @param length bytes
     */
    void memory(Object base, long offset, long length) {
        ensure(length);
        MemoryCopy.copy(base, offset, buffer, MemoryCopy.BYTE_ARRAY_BASE + position, length);
        position += (int) length;
    }
}
