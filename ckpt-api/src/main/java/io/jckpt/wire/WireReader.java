package io.jckpt.wire;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.zip.CRC32C;

/**
 * Reads one message's fields as {@link WireWriter} wrote them, checking every length against what is
 * left: a field cut short, a count or length that cannot fit, bad UTF-8 or a checksum that does not
 * match is a {@link Malformed} saying which field and where, never a value read from the wrong bytes.
 * Package-private; {@link Exchange#decode} turns a {@link Malformed} into a {@link WireFormatException}
 * naming the exchange and the rank.
 */
final class WireReader {
    private final ByteBuffer buffer;

    WireReader(byte[] bytes) {
        this.buffer = ByteBuffer.wrap(bytes);
    }

    int u8(String field) {
        return need(field, 1).get() & 0xFF;
    }

    boolean bool(String field) {
        int b = u8(field);
        if (b > 1) {
            throw new Malformed(field + " is " + b + " at offset " + (buffer.position() - 1) + ", not a boolean (0 or 1)");
        }
        return b == 1;
    }

    int i16(String field) {
        return need(field, Short.BYTES).getShort();
    }

    int i32(String field) {
        return need(field, Integer.BYTES).getInt();
    }

    long i64(String field) {
        return need(field, Long.BYTES).getLong();
    }

    /**
     * @param field    the list, for the error
     * @param minBytes the fewest bytes one element takes
     * @return the element count read, checked to fit in what is left
     */
    int count(String field, int minBytes) {
        int at = buffer.position();
        int n = i32(field + " count");
        if (n < 0 || (long) n * minBytes > buffer.remaining()) {
            throw new Malformed(field + " count " + n + " at offset " + at + " does not fit in the "
                    + buffer.remaining() + " bytes left");
        }
        return n;
    }

    byte[] bytes(String field) {
        int at = buffer.position();
        int n = i32(field + " length");
        if (n < 0 || n > buffer.remaining()) {
            throw new Malformed(field + " length " + n + " at offset " + at + ", " + buffer.remaining() + " bytes left");
        }
        byte[] out = new byte[n];
        buffer.get(out);
        return out;
    }

    String string(String field) {
        byte[] utf8 = bytes(field);
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(utf8)).toString();
        } catch (CharacterCodingException e) {
            throw new Malformed(field + " is not UTF-8");
        }
    }

    InetSocketAddress address(String field) {
        int port = i32(field + " port");
        if (port < 0 || port > 0xFFFF) {
            throw new Malformed(field + " port " + port);
        }
        byte[] ip = bytes(field + " IP address");
        if (ip.length != 4 && ip.length != 16) {
            throw new Malformed(field + " IP address of " + ip.length + " bytes (4 or 16)");
        }
        try {
            return new InetSocketAddress(InetAddress.getByAddress(ip), port);
        } catch (UnknownHostException e) {
            throw new Malformed(field + ": " + e.getMessage());
        }
    }

    /** Checks the CRC32C of the bytes read since {@code from} against the one that follows them. */
    void crc32cFrom(int from, String what) {
        CRC32C crc = new CRC32C();
        crc.update(buffer.array(), from, buffer.position() - from);
        int expected = (int) crc.getValue();
        if (i32(what + " checksum") != expected) {
            throw new Malformed(what + " checksum mismatch (CRC32C of bytes " + from + ".." + (buffer.position() - 4) + ")");
        }
    }

    int position() {
        return buffer.position();
    }

    int remaining() {
        return buffer.remaining();
    }

    private ByteBuffer need(String field, int bytes) {
        if (buffer.remaining() < bytes) {
            throw new Malformed("truncated: " + field + " needs " + bytes + " bytes at offset " + buffer.position()
                    + ", " + buffer.remaining() + " left");
        }
        return buffer;
    }

    /** What a reader found wrong, before the exchange and rank are known. */
    static final class Malformed extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Malformed(String detail) {
            super(detail, null, false, false);
        }
    }
}
