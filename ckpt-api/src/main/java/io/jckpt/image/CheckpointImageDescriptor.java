package io.jckpt.image;

import java.nio.ByteOrder;

/**
 * The binary layout of a checkpoint image, described in this one place. One image holds one rank's
 * data of one round. The same bytes are used in the node-local memory store, on the wire to replicas
 * and on disk, so a copy is always a plain byte copy.
 *
 * <pre>
 * Header (HEADER_LENGTH = 72 bytes), at the image's offset:
 *   0  int    magic            MAGIC ("JCKI" in the image's byte order)
 *   4  short  version          FORMAT_VERSION
 *   6  short  flags            FLAG_SEALED | FLAG_BIG_ENDIAN
 *   8  int    crc32c           CRC32C of the whole image [0, totalLength) read with this field as 0
 *  12  int    headerLength     HEADER_LENGTH
 *  16  long   totalLength      bytes of the whole image, header to end of the last payload (8-aligned)
 *  24  long   round            checkpoint round number (1, 2, ...)
 *  32  int    rank             whose data
 *  36  int    worldSize        ranks in the job when it was written
 *  40  int    epoch            recovery count when it was written
 *  44  int    tagCount         entries in the tag table
 *  48  long   payloadsOffset   where the payload area starts (end of the tag table, 8-aligned)
 *  56  long   timestampMillis  wall clock when it was written (diagnostics only)
 *  64  long   step             the program's step at this round (here(step)), -1 when it gave none
 *
 * Tag table: tagCount entries from offset HEADER_LENGTH, each ENTRY_FIXED_LENGTH + tag bytes,
 * padded to 8 (see entryLength):
 *   0  short  tagLength        UTF-8 bytes of the tag (unsigned), 1..Tags.MAX_TAG_BYTES
 *   2  byte   typeCode         TypeCode.code()
 *   3  byte   entryFlags       0 (reserved)
 *   4  int    reserved         0
 *   8  long   elementCount     elements (array length; bytes for ByteBuffer/Bytes; 1 for Kryo)
 *  16  long   byteLength       payload bytes
 *  24  long   payloadOffset    from the image's start; 8-aligned; inside [payloadsOffset, totalLength)
 *  32  byte[] tag              UTF-8
 *
 * Payloads: from payloadsOffset, each 8-aligned, in table order, padding zeroed. Multi-byte values
 * (header fields and primitive array elements) are in the writer's native byte order, recorded by
 * FLAG_BIG_ENDIAN. All offsets and lengths are longs: an image may exceed 2 GiB.
 * </pre>
 *
 * Version 1 had no step field (a 64-byte header); it is still read, as an image without a step.
 *
 * A writer writes the header first with FLAG_SEALED clear and the CRC 0, then the table and the
 * payloads; the sealer sets FLAG_SEALED, then computes and stores the CRC. An image is trusted only
 * when sealed and its CRC matches.
 */
public final class CheckpointImageDescriptor {
    /** "JCKI" read as a little-endian int. */
    public static final int MAGIC = 0x494B434A;
    /** The format version this library writes (and reads, with version 1). */
    public static final short FORMAT_VERSION = 2;
    /** The version before the step field: a 64-byte header, read as an image without a step. */
    public static final short FORMAT_VERSION_1 = 1;
    /** The header length of version 1. */
    public static final int HEADER_LENGTH_V1 = 64;

    /** Offset of the magic (int). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the format version (short). */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the flags (short). */
    public static final int FLAGS_OFFSET = 6;
    /** Offset of the CRC32C (int). */
    public static final int CRC_OFFSET = 8;
    /** Size of the CRC32C field. */
    public static final int CRC_LENGTH = 4;
    /** Offset of the header length (int). */
    public static final int HEADER_LENGTH_OFFSET = 12;
    /** Offset of the total length (long). */
    public static final int TOTAL_LENGTH_OFFSET = 16;
    /** Offset of the round (long). */
    public static final int ROUND_OFFSET = 24;
    /** Offset of the rank (int). */
    public static final int RANK_OFFSET = 32;
    /** Offset of the world size (int). */
    public static final int WORLD_SIZE_OFFSET = 36;
    /** Offset of the epoch (int). */
    public static final int EPOCH_OFFSET = 40;
    /** Offset of the tag count (int). */
    public static final int TAG_COUNT_OFFSET = 44;
    /** Offset of the payload area's start (long). */
    public static final int PAYLOADS_OFFSET_OFFSET = 48;
    /** Offset of the timestamp (long). */
    public static final int TIMESTAMP_OFFSET = 56;
    /** Offset of the program's step (long; version 2). */
    public static final int STEP_OFFSET = 64;
    /** Length of the header; the tag table follows. */
    public static final int HEADER_LENGTH = 72;

    /** Flag: the CRC has been computed. */
    public static final short FLAG_SEALED = 1;
    /** Flag: multi-byte values are big-endian. */
    public static final short FLAG_BIG_ENDIAN = 2;
    /** Flags this version knows. */
    public static final short KNOWN_FLAGS = FLAG_SEALED | FLAG_BIG_ENDIAN;

    /** Entry offset of the tag length (unsigned short). */
    public static final int ENTRY_TAG_LENGTH_OFFSET = 0;
    /** Entry offset of the type code (byte). */
    public static final int ENTRY_TYPE_CODE_OFFSET = 2;
    /** Entry offset of the entry flags (byte). */
    public static final int ENTRY_FLAGS_OFFSET = 3;
    /** Entry offset of the reserved int. */
    public static final int ENTRY_RESERVED_OFFSET = 4;
    /** Entry offset of the element count (long). */
    public static final int ENTRY_ELEMENT_COUNT_OFFSET = 8;
    /** Entry offset of the payload byte length (long). */
    public static final int ENTRY_BYTE_LENGTH_OFFSET = 16;
    /** Entry offset of the payload offset (long). */
    public static final int ENTRY_PAYLOAD_OFFSET_OFFSET = 24;
    /** Entry offset of the tag's UTF-8 bytes. */
    public static final int ENTRY_TAG_OFFSET = 32;
    /** Length of an entry without its tag. */
    public static final int ENTRY_FIXED_LENGTH = 32;
    /** Alignment of entries and payloads. */
    public static final int ALIGNMENT = 8;

    private CheckpointImageDescriptor() {
    }

    /**
     * @param tagBytes UTF-8 length of the tag
     * @return bytes the entry takes in the table, padded to {@link #ALIGNMENT}
     */
    public static long entryLength(int tagBytes) {
        return align(ENTRY_FIXED_LENGTH + (long) tagBytes);
    }

    /**
     * @param n a length or offset
     * @return n rounded up to {@link #ALIGNMENT}
     */
    public static long align(long n) {
        return (n + ALIGNMENT - 1) & -ALIGNMENT;
    }

    /** @return the flags describing this JVM's byte order */
    public static short nativeOrderFlags() {
        return ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? FLAG_BIG_ENDIAN : 0;
    }
}
