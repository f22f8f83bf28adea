package io.jckpt.imem;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Binary layout of one replica slot file: a 64-byte header followed by the image bytes.
 * Little-endian. The slot file is fixed-size (header + capacity rounded up to a page); the image
 * length is the LENGTH field, never the file size.
 * <pre>
 *   0  int  MAGIC ('JCRP')
 *   4  int  LAYOUT_VERSION
 *   8  int  STATE        EMPTY / WRITING / COMPLETE
 *  12  int  OWNER        rank whose data this is
 *  16  long ROUND
 *  24  long LENGTH       image length in bytes
 *  32  int  CRC32C       of the image bytes
 *  36  int  HEADER_CRC   CRC32C of bytes [12, 36): owner, round, length, crc
 *  40  long CAPACITY     image capacity of this file
 *  48  16 bytes reserved
 *  64  image bytes
 * </pre>
 * Write protocol (crash-safe against the death of the writing process): STATE := WRITING (fenced)
 * before any other field or image byte changes; the image, LENGTH, CRC32C and HEADER_CRC are
 * written; then, fenced, STATE := COMPLETE. A slot found WRITING after a crash is torn and is
 * never trusted; a COMPLETE slot is still re-verified against HEADER_CRC and CRC32C before use.
 */
public final class ReplicaSlotDescriptor {
    /** 'JCRP'. */
    public static final int MAGIC = 0x4A435250;
    /** Layout version. */
    public static final int LAYOUT_VERSION = 1;
    /** Offset of the magic. */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the layout version. */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the state. */
    public static final int STATE_OFFSET = 8;
    /** Offset of the owner rank. */
    public static final int OWNER_OFFSET = 12;
    /** Offset of the round. */
    public static final int ROUND_OFFSET = 16;
    /** Offset of the image length. */
    public static final int LENGTH_OFFSET = 24;
    /** Offset of the image CRC32C. */
    public static final int CRC_OFFSET = 32;
    /** Offset of the header CRC32C. */
    public static final int HEADER_CRC_OFFSET = 36;
    /** Offset of the capacity. */
    public static final int CAPACITY_OFFSET = 40;
    /** Length of the header; the image starts here. */
    public static final int HEADER_LENGTH = 64;
    /** Page size used for rounding and pre-touching. */
    public static final int PAGE = 4096;

    /** State value: never written, or discarded. */
    public static final int STATE_EMPTY = 0;
    /** State value: a write began and did not complete (torn if found after a crash). */
    public static final int STATE_WRITING = 1;
    /** State value: the image and its checksums are complete. */
    public static final int STATE_COMPLETE = 2;

    private ReplicaSlotDescriptor() {
    }

    /**
     * @param capacity image capacity
     * @return the slot file size: header plus capacity, rounded up to a page
     */
    public static long fileSize(long capacity) {
        long raw = HEADER_LENGTH + capacity;
        return (raw + PAGE - 1) / PAGE * PAGE;
    }

    /**
     * @param header a buffer positioned anywhere holding the header at index 0
     * @return the CRC32C over owner, round, length and crc
     */
    public static int headerCrc(ByteBuffer header) {
        CRC32C crc = new CRC32C();
        crc.update(header.duplicate().position(OWNER_OFFSET).limit(HEADER_CRC_OFFSET));
        return (int) crc.getValue();
    }

    /**
     * @param state a state value
     * @return its name
     */
    public static String stateName(int state) {
        return switch (state) {
            case STATE_EMPTY -> "EMPTY";
            case STATE_WRITING -> "WRITING";
            case STATE_COMPLETE -> "COMPLETE";
            default -> "UNKNOWN(" + state + ")";
        };
    }
}
