package io.jckpt.imem;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Binary layout of a {@link RankStatus} as sent in the status exchange, with encode and decode.
 * Little-endian; the trailing CRC32C covers every byte before it.
 * <pre>
 *   0  int   MAGIC ('JCRS')
 *   4  short LAYOUT_VERSION
 *   6  short FLAGS            bit 0: fresh (re-spawned)
 *   8  int   RANK
 *  12  int   COPY_COUNT
 *  16  COPY_COUNT entries of COPY_LENGTH bytes:
 *        +0  int  OWNER
 *        +4  int  COPY_FLAGS  bit 0: intact
 *        +8  long ROUND
 *       +16  long LENGTH
 *       +24  int  CRC32C
 *       +28  int  reserved (0)
 *  end int   CRC32C of bytes [0, end)
 * </pre>
 */
public final class RankStatusDescriptor {
    /** 'JCRS'. */
    public static final int MAGIC = 0x4A435253;
    /** Layout version. */
    public static final short LAYOUT_VERSION = 1;
    /** Offset of the magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version. */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the flags. */
    public static final int FLAGS_OFFSET = 6;
    /** Offset of the rank. */
    public static final int RANK_OFFSET = 8;
    /** Offset of the copy count. */
    public static final int COPY_COUNT_OFFSET = 12;
    /** Length of the fixed header. */
    public static final int HEADER_LENGTH = 16;
    /** Length of one copy entry. */
    public static final int COPY_LENGTH = 32;
    /** Offset of the owner inside a copy entry. */
    public static final int COPY_OWNER_OFFSET = 0;
    /** Offset of the copy flags inside a copy entry. */
    public static final int COPY_FLAGS_OFFSET = 4;
    /** Offset of the round inside a copy entry. */
    public static final int COPY_ROUND_OFFSET = 8;
    /** Offset of the length inside a copy entry. */
    public static final int COPY_LENGTH_OFFSET = 16;
    /** Offset of the CRC32C inside a copy entry. */
    public static final int COPY_CRC_OFFSET = 24;
    /** Length of the trailing checksum. */
    public static final int TRAILER_LENGTH = 4;
    /** Flag bit: the rank is new. */
    public static final int FLAG_FRESH = 1;
    /** Copy flag bit: the copy verified intact. */
    public static final int COPY_FLAG_INTACT = 1;

    private RankStatusDescriptor() {
    }

    /**
     * @param copies number of copies
     * @return the encoded length
     */
    public static int encodedLength(int copies) {
        return HEADER_LENGTH + copies * COPY_LENGTH + TRAILER_LENGTH;
    }

    /**
     * Encodes a status.
     *
     * @param status the status
     * @return its bytes
     */
    public static byte[] encode(RankStatus status) {
        List<CopyStatus> copies = status.copies();
        ByteBuffer b = ByteBuffer.allocate(encodedLength(copies.size())).order(ByteOrder.LITTLE_ENDIAN);
        b.putInt(MAGIC_OFFSET, MAGIC);
        b.putShort(VERSION_OFFSET, LAYOUT_VERSION);
        b.putShort(FLAGS_OFFSET, (short) (status.fresh() ? FLAG_FRESH : 0));
        b.putInt(RANK_OFFSET, status.rank());
        b.putInt(COPY_COUNT_OFFSET, copies.size());
        int at = HEADER_LENGTH;
        for (CopyStatus c : copies) {
            b.putInt(at + COPY_OWNER_OFFSET, c.owner());
            b.putInt(at + COPY_FLAGS_OFFSET, c.intact() ? COPY_FLAG_INTACT : 0);
            b.putLong(at + COPY_ROUND_OFFSET, c.round());
            b.putLong(at + COPY_LENGTH_OFFSET, c.length());
            b.putInt(at + COPY_CRC_OFFSET, c.crc32c());
            at += COPY_LENGTH;
        }
        CRC32C crc = new CRC32C();
        crc.update(b.array(), 0, at);
        b.putInt(at, (int) crc.getValue());
        return b.array();
    }

    /**
     * Decodes a status, checking magic, version, length and checksum.
     *
     * @param bytes the encoded status
     * @return the status
     * @throws IllegalArgumentException if the bytes are not a valid encoded status
     */
    public static RankStatus decode(byte[] bytes) {
        if (bytes.length < HEADER_LENGTH + TRAILER_LENGTH) {
            throw new IllegalArgumentException("rank status too short: " + bytes.length + " bytes");
        }
        ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (b.getInt(MAGIC_OFFSET) != MAGIC) {
            throw new IllegalArgumentException("not a rank status (bad magic)");
        }
        if (b.getShort(VERSION_OFFSET) != LAYOUT_VERSION) {
            throw new IllegalArgumentException("unsupported rank status layout version " + b.getShort(VERSION_OFFSET));
        }
        int count = b.getInt(COPY_COUNT_OFFSET);
        if (count < 0 || count > (bytes.length - HEADER_LENGTH - TRAILER_LENGTH) / COPY_LENGTH
                || bytes.length != encodedLength(count)) {
            throw new IllegalArgumentException("rank status length " + bytes.length + " does not match copy count " + count);
        }
        int end = bytes.length - TRAILER_LENGTH;
        CRC32C crc = new CRC32C();
        crc.update(bytes, 0, end);
        if ((int) crc.getValue() != b.getInt(end)) {
            throw new IllegalArgumentException("rank status checksum mismatch");
        }
        List<CopyStatus> copies = new ArrayList<>(count);
        for (int i = 0, at = HEADER_LENGTH; i < count; i++, at += COPY_LENGTH) {
            copies.add(new CopyStatus(b.getInt(at + COPY_OWNER_OFFSET), b.getLong(at + COPY_ROUND_OFFSET),
                    b.getLong(at + COPY_LENGTH_OFFSET), b.getInt(at + COPY_CRC_OFFSET),
                    (b.getInt(at + COPY_FLAGS_OFFSET) & COPY_FLAG_INTACT) != 0));
        }
        return new RankStatus(b.getInt(RANK_OFFSET), (b.getShort(FLAGS_OFFSET) & FLAG_FRESH) != 0, copies);
    }
}
