package io.jckpt.data;

/**
 * Reads what {@link GraphOutput} wrote, every read checked against the payload's end: a length is
 * checked against the bytes left before anything is allocated for it, so a malformed payload is a
 * {@link GraphRefusal} naming the offset, never a huge allocation or a read past the end.
 */
final class GraphInput {
    private final byte[] buffer;
    private final int limit;
    private int position;

    GraphInput(byte[] buffer, int limit) {
        this.buffer = buffer;
        this.limit = limit;
    }

    byte[] buffer() {
        return buffer;
    }

    int position() {
        return position;
    }

    void position(int p) {
        position = p;
    }

    int remaining() {
        return limit - position;
    }

    GraphRefusal malformed(String what) {
        return new GraphRefusal("the saved object graph is malformed at byte " + position + " of " + limit + ": " + what);
    }

    private void need(long n) {
        if (n < 0 || n > limit - position) {
            throw malformed("needs " + n + " more bytes, " + (limit - position) + " left");
        }
    }

    int u8() {
        need(1);
        return buffer[position++] & 0xFF;
    }

    short i16() {
        need(2);
        short v = (short) GraphOutput.SHORT.get(buffer, position);
        position += 2;
        return v;
    }

    char c16() {
        need(2);
        char v = (char) GraphOutput.CHAR.get(buffer, position);
        position += 2;
        return v;
    }

    int i32() {
        need(4);
        int v = (int) GraphOutput.INT.get(buffer, position);
        position += 4;
        return v;
    }

    long i64() {
        need(8);
        long v = (long) GraphOutput.LONG.get(buffer, position);
        position += 8;
        return v;
    }

    float f32() {
        need(4);
        float v = (float) GraphOutput.FLOAT.get(buffer, position);
        position += 4;
        return v;
    }

    double f64() {
        need(8);
        double v = (double) GraphOutput.DOUBLE.get(buffer, position);
        position += 8;
        return v;
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
        System.arraycopy(buffer, position, b, 0, n);
        position += n;
        return b;
    }

    /** Checks that {@code length} bytes are left and returns where they start, skipping them. */
    int skip(long length) {
        need(length);
        int at = position;
        position += (int) length;
        return at;
    }
}
