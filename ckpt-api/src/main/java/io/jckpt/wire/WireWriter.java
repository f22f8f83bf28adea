package io.jckpt.wire;

import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * Writes one message's fields, big-endian, into a buffer that grows as needed. The only writer of
 * exchange payloads: every codec of this package goes through it, so that every field has one encoding
 * (a string is its UTF-8 length then bytes, an address its port, length and bytes). Package-private.
 */
final class WireWriter {
    private ByteBuffer buffer = ByteBuffer.allocate(64);

    WireWriter u8(int value) {
        room(1).put((byte) value);
        return this;
    }

    WireWriter bool(boolean value) {
        return u8(value ? 1 : 0);
    }

    WireWriter i16(int value) {
        room(Short.BYTES).putShort((short) value);
        return this;
    }

    WireWriter i32(int value) {
        room(Integer.BYTES).putInt(value);
        return this;
    }

    WireWriter i64(long value) {
        room(Long.BYTES).putLong(value);
        return this;
    }

    /** A byte array: its length, then the bytes. */
    WireWriter bytes(byte[] value) {
        i32(value.length);
        room(value.length).put(value);
        return this;
    }

    /** A string: its UTF-8 length, then the bytes. */
    WireWriter string(String value) {
        return bytes(value.getBytes(StandardCharsets.UTF_8));
    }

    /** A socket address: the port, then the IP address's length (4 or 16) and bytes. */
    WireWriter address(InetSocketAddress value) {
        return i32(value.getPort()).bytes(value.getAddress().getAddress());
    }

    /** The CRC32C of the bytes written since {@code from}, appended. */
    WireWriter crc32cFrom(int from) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), from, buffer.position() - from);
        return i32((int) crc.getValue());
    }

    /** @return how many bytes were written */
    int position() {
        return buffer.position();
    }

    /** @return the bytes written */
    byte[] toArray() {
        return Arrays.copyOf(buffer.array(), buffer.position());
    }

    private ByteBuffer room(int bytes) {
        if (buffer.remaining() < bytes) {
            ByteBuffer larger = ByteBuffer.allocate(Math.max(buffer.capacity() * 2, buffer.position() + bytes));
            larger.put(buffer.array(), 0, buffer.position());
            buffer = larger;
        }
        return buffer;
    }
}
