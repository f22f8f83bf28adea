package io.jckpt.data;

/**
 * Reads what {@link GraphOutput} wrote, straight from where the payload lies (the image's store, native
 * memory or a heap array: a location as in {@link MemoryCopy}, base and offset), without copying it
 * first. Every read is checked against the payload's end: a length is checked against the bytes left
 * before anything is allocated for it, so a malformed payload is a {@link GraphRefusal} naming the
 * offset, never a huge allocation or a read past the end.
 */
final class GraphInput {
    private static final sun.misc.Unsafe U = net.openhft.chronicle.core.UnsafeMemory.UNSAFE;
    private final Object base;
    private final long start;
    private final int limit;
    private int position;

    /**
     * @param base   an array, or null for native memory
     * @param start  the payload's offset or address
     * @param limit  its length
     */
    GraphInput(Object base, long start, int limit) {
        this.base = base;
        this.start = start;
        this.limit = limit;
    }

    int position() {
        return position;
    }

    int remaining() {
        return limit - position;
    }

    GraphRefusal malformed(String what) {
        return new GraphRefusal("the saved object graph is malformed at byte " + position + " of " + limit + ": " + what);
    }

    private long need(long n) {
        if (n < 0 || n > limit - position) {
            throw malformed("needs " + n + " more bytes, " + (limit - position) + " left");
        }
        long at = start + position;
        position += (int) n;
        return at;
    }

    /** @return the next byte without reading it, or -1 at the end */
    int peek() {
        return position < limit ? U.getByte(base, start + position) & 0xFF : -1;
    }

    int u8() {
        return U.getByte(base, need(1)) & 0xFF;
    }

    short i16() {
        return U.getShort(base, need(2));
    }

    char c16() {
        return U.getChar(base, need(2));
    }

    int i32() {
        return U.getInt(base, need(4));
    }

    long i64() {
        return U.getLong(base, need(8));
    }

    float f32() {
        return U.getFloat(base, need(4));
    }

    double f64() {
        return U.getDouble(base, need(8));
    }

    long varint() {
        long v = 0;
        for (int shift = 0; shift < 64; shift += 7) {
            int b = u8();
            v |= (long) (b & 0x7F) << shift;
            if ((b & 0x80) == 0) {
                return v;
            }
        }
        throw malformed("a varint longer than 10 bytes");
    }

    /**
     * @param minBytesEach the fewest bytes one counted item takes in the stream (0: not in the stream)
     * @return a count, checked to fit the bytes left
     */
    int count(int minBytesEach) {
        long n = varint();
        if (n > Integer.MAX_VALUE || minBytesEach > 0 && n * minBytesEach > limit - position) {
            throw malformed("a count of " + n + " with " + (limit - position) + " bytes left");
        }
        return (int) n;
    }

    String string() {
        int n = count(1);
        char[] chars = new char[n];
        for (int i = 0; i < n; i++) {
            long c = varint();
            if (c > Character.MAX_VALUE) {
                throw malformed("a char of " + c);
            }
            chars[i] = (char) c;
        }
        return new String(chars);
    }

    byte[] bytes() {
        int n = count(1);
        byte[] b = new byte[n];
        copy(b, MemoryCopy.BYTE_ARRAY_BASE, n);
        return b;
    }

    /** Skips {@code length} bytes, checked to be there. */
    void skip(long length) {
        need(length);
    }

    /**
     * Copies the next bytes in bulk.
     *
     * @param dstBase   an array, or null for native memory
     * @param dstOffset the destination's offset or address
     * @param length    bytes
     */
    void copy(Object dstBase, long dstOffset, long length) {
        long at = need(length);
        if (length > 0) {
            MemoryCopy.copy(base, at, dstBase, dstOffset, length);
        }
    }
}
