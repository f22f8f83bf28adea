package io.jckpt.image;

import java.nio.ByteOrder;

/**
 * The binary layout of a checkpoint image, described in this one place. One image holds one rank's
 * data of one round. The same bytes are used in the node-local memory store, on the wire to replicas
 * and on disk, so a copy is always a plain byte copy, and every copy carries the image's MAC.
 *
 * <pre>
 * Header (HEADER_LENGTH = 72 bytes), at the image's offset:
 *   0  int    magic            MAGIC ("JCKI" in the image's byte order)
 *   4  short  version          FORMAT_VERSION (3; versions 1 and 2 are refused, see below)
 *   6  short  flags            FLAG_BIG_ENDIAN
 *   8  int    keyId            ImageKey.id() of the job key the MAC is made with (no secret)
 *  12  int    headerLength     HEADER_LENGTH
 *  16  long   totalLength      bytes of the whole image, header to the end of the MAC (8-aligned)
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
 *  24  long   payloadOffset    from the image's start; 8-aligned; inside [payloadsOffset, macOffset)
 *  32  byte[] tag              UTF-8
 *
 * Payloads: from payloadsOffset, each 8-aligned, in table order, padding zeroed. Multi-byte values
 * (header fields and primitive array elements) are in the writer's native byte order, recorded by
 * FLAG_BIG_ENDIAN. All offsets and lengths are longs: an image may exceed 2 GiB.
 *
 * MAC trailer (MAC_LENGTH = 32 bytes) at macOffset = totalLength - MAC_LENGTH:
 *   HMAC-SHA256 with the job's image key (ImageKey) over bytes [0, macOffset).
 * </pre>
 *
 * The writer ({@link ImageWriter}) writes the header, the table and the payloads; the MAC is computed
 * afterwards, off the caller's thread ({@link ImageMac}), before the copy counts as complete. An image
 * is read ({@link ImageReader}, and so handed to any data adapter) only after its MAC was verified
 * with the job's key: bytes that this job did not write are refused, never deserialized.
 *
 * Earlier versions are refused, each with a message naming it: version 1 (a 64-byte header, no step,
 * no MAC) and version 2, which two lines of development each used for half of this format (a 72-byte
 * header with the step but no MAC; or a 64-byte header with the key id and the MAC but no step).
 * Neither can be authenticated as this format, and nothing unauthenticated is deserialized.
 */
public final class CheckpointImageDescriptor {
    /** "JCKI" read as a little-endian int. */
    public static final int MAGIC = 0x494B434A;
    /** The format version this library writes and reads (the step, the key id and the MAC). */
    public static final short FORMAT_VERSION = 3;
    /** The first format (no step, no MAC): refused with a message saying so. */
    public static final short UNAUTHENTICATED_FORMAT_VERSION = 1;
    /** The format with only one of the step and the MAC (see above): refused with a message saying so. */
    public static final short PARTIAL_FORMAT_VERSION = 2;

    /** Offset of the magic (int). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the format version (short). */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the flags (short). */
    public static final int FLAGS_OFFSET = 6;
    /** Offset of the key id (int). */
    public static final int KEY_ID_OFFSET = 8;
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
    /** Offset of the program's step (long). */
    public static final int STEP_OFFSET = 64;
    /** Length of the header; the tag table follows. */
    public static final int HEADER_LENGTH = 72;
    /** Length of the MAC trailer (HMAC-SHA256) that ends every image. */
    public static final int MAC_LENGTH = 32;
    /** The shortest image: a header and a MAC. */
    public static final int MIN_IMAGE_LENGTH = HEADER_LENGTH + MAC_LENGTH;

    /** Flag: multi-byte values are big-endian. */
    public static final short FLAG_BIG_ENDIAN = 2;
    /** Flags this version knows. */
    public static final short KNOWN_FLAGS = FLAG_BIG_ENDIAN;

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

    /**
     * @param totalLength an image's total length
     * @return where its MAC trailer starts (the end of its payload area)
     */
    public static long macOffset(long totalLength) {
        return totalLength - MAC_LENGTH;
    }

    /** @return the flags describing this JVM's byte order */
    public static short nativeOrderFlags() {
        return ByteOrder.nativeOrder() == ByteOrder.BIG_ENDIAN ? FLAG_BIG_ENDIAN : 0;
    }
}
