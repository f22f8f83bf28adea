package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.*;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads and writes the 40-byte header of a data-channel frame ({@link ReplicationFrameDescriptor})
 * in place: wrap a little-endian buffer at an offset, then get or set each field at its named offset
 * with absolute accesses. Wrapping and every field access allocate nothing and leave the buffer's
 * position and limit alone, so one flyweight and one buffer serve every frame of a connection.
 *
 * <pre>
 *   flyweight.wrap(buffer, 0).frame(TYPE_ACK).owner(owner).hop(hop).round(round).length(0).crc(0).flags(0);
 * </pre>
 */
public final class ReplicationFrameFlyweight {
    private ByteBuffer buffer;
    private int offset;

    /**
     * Points this flyweight at a header.
     *
     * @param buffer a little-endian buffer
     * @param offset where the header starts; {@code HEADER_LENGTH} bytes from there must lie within the limit
     *               (absolute accesses are bounded by it)
     * @return this
     * @throws IllegalArgumentException if the buffer is big-endian or the header does not fit
     */
    public ReplicationFrameFlyweight wrap(ByteBuffer buffer, int offset) {
        if (buffer.order() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalArgumentException("frame headers are little-endian, the buffer is " + buffer.order());
        }
        if (offset < 0 || offset > buffer.limit() - HEADER_LENGTH) {
            throw new IllegalArgumentException("a " + HEADER_LENGTH + "-byte frame header at offset " + offset
                    + " does not fit a buffer limited to " + buffer.limit() + " bytes");
        }
        this.buffer = buffer;
        this.offset = offset;
        return this;
    }

    /** @return the wrapped buffer */
    public ByteBuffer buffer() {
        return buffer;
    }

    /** @return the offset of the header in the wrapped buffer */
    public int offset() {
        return offset;
    }

    /**
     * Starts a frame: writes the magic and the type.
     *
     * @param type one of the descriptor's {@code TYPE_*}
     * @return this
     */
    public ReplicationFrameFlyweight frame(int type) {
        buffer.putInt(offset + MAGIC_OFFSET, MAGIC);
        buffer.putInt(offset + TYPE_OFFSET, type);
        return this;
    }

    /** @return whether the header starts with the magic */
    public boolean hasMagic() {
        return buffer.getInt(offset + MAGIC_OFFSET) == MAGIC;
    }

    /** @return the magic field as read */
    public int magic() {
        return buffer.getInt(offset + MAGIC_OFFSET);
    }

    /** @return the frame type */
    public int type() {
        return buffer.getInt(offset + TYPE_OFFSET);
    }

    /** @return the owner rank */
    public int owner() {
        return buffer.getInt(offset + OWNER_OFFSET);
    }

    /**
     * @param owner the owner rank
     * @return this
     */
    public ReplicationFrameFlyweight owner(int owner) {
        buffer.putInt(offset + OWNER_OFFSET, owner);
        return this;
    }

    /** @return the hop */
    public int hop() {
        return buffer.getInt(offset + HOP_OFFSET);
    }

    /**
     * @param hop the hop
     * @return this
     */
    public ReplicationFrameFlyweight hop(int hop) {
        buffer.putInt(offset + HOP_OFFSET, hop);
        return this;
    }

    /** @return the round */
    public long round() {
        return buffer.getLong(offset + ROUND_OFFSET);
    }

    /**
     * @param round the round
     * @return this
     */
    public ReplicationFrameFlyweight round(long round) {
        buffer.putLong(offset + ROUND_OFFSET, round);
        return this;
    }

    /** @return the payload length */
    public long length() {
        return buffer.getLong(offset + LENGTH_OFFSET);
    }

    /**
     * @param length the payload length
     * @return this
     */
    public ReplicationFrameFlyweight length(long length) {
        buffer.putLong(offset + LENGTH_OFFSET, length);
        return this;
    }

    /** @return the payload CRC32C */
    public int crc() {
        return buffer.getInt(offset + CRC_OFFSET);
    }

    /**
     * @param crc the payload CRC32C
     * @return this
     */
    public ReplicationFrameFlyweight crc(int crc) {
        buffer.putInt(offset + CRC_OFFSET, crc);
        return this;
    }

    /** @return the flags */
    public int flags() {
        return buffer.getInt(offset + FLAGS_OFFSET);
    }

    /**
     * @param flags {@code FLAG_CRC_FOLLOWS} or 0
     * @return this
     */
    public ReplicationFrameFlyweight flags(int flags) {
        buffer.putInt(offset + FLAGS_OFFSET, flags);
        return this;
    }
}
