package io.jckpt.disk;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.zip.CRC32C;

/**
 * The binary layout of one rank's checkpoint file for one round, described in one place.
 *
 * <pre>
 *  0                   1                   2                   3
 *  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
 * +---------------------------------------------------------------+
 * |                      magic "JCKD" (int)                        |  0
 * |                      format version (int)                      |  4
 * |                      header length (int) = 128                 |  8
 * |                      rank (int)                                | 12
 * |                      world size (int)                          | 16
 * |                      job id length in bytes (int)              | 20
 * |                      round (long)                              | 24
 * |                      image length (long)                       | 32
 * |                      image CRC32C (int)                        | 40
 * |                      epoch of the writer (int)                 | 44
 * |                      job id, UTF-8, zero padded (64 bytes)     | 48
 * |                      reserved, zero (12 bytes)                 | 112
 * |                      header CRC32C over bytes [0, 124) (int)   | 124
 * +---------------------------------------------------------------+
 * |                      image (image length bytes)                | 128
 * +---------------------------------------------------------------+
 * </pre>
 *
 * All numbers are little-endian. The file length is exactly {@code HEADER_LENGTH + imageLength};
 * anything shorter is a truncated file, anything longer is damaged too. The image is opaque to
 * this module (it carries its own internal checksum as well); the image CRC32C covers it as
 * stored. The header is written last (after the image, before the single force), so a header
 * with a valid CRC never describes an image that was not completely handed to the file system.
 */
public final class DiskFileDescriptor {
    /** "JCKD" read as a little-endian int from the first four bytes of a file. */
    public static final int MAGIC = 0x444B434A;
    /** The only format version this code writes and reads. */
    public static final int VERSION = 1;
    /** Byte order of every number in the header. */
    public static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;

    /** Offset of the magic number (int). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the format version (int). */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the header length (int). */
    public static final int HEADER_LENGTH_OFFSET = 8;
    /** Offset of the rank (int). */
    public static final int RANK_OFFSET = 12;
    /** Offset of the world size (int). */
    public static final int WORLD_SIZE_OFFSET = 16;
    /** Offset of the job id length in bytes (int). */
    public static final int JOB_ID_LENGTH_OFFSET = 20;
    /** Offset of the round (long). */
    public static final int ROUND_OFFSET = 24;
    /** Offset of the image length (long). */
    public static final int IMAGE_LENGTH_OFFSET = 32;
    /** Offset of the CRC32C of the image (int). */
    public static final int IMAGE_CRC_OFFSET = 40;
    /**
     * Offset of the writer's epoch (int): the MPJ world its rank belonged to. A commit vouches only for
     * files of its coordinator's epoch, so that a rank fenced out by a recovery never makes a
     * generation of mixed worlds. Reserved (zero) before epochs were recorded: such files read as epoch 0.
     */
    public static final int EPOCH_OFFSET = 44;
    /** Offset of the job id bytes (UTF-8, zero padded to {@link #JOB_ID_MAX_LENGTH}). */
    public static final int JOB_ID_OFFSET = 48;
    /** Maximum length of the job id in UTF-8 bytes. */
    public static final int JOB_ID_MAX_LENGTH = 64;
    /** Offset of the CRC32C over bytes {@code [0, HEADER_CRC_OFFSET)} (int). */
    public static final int HEADER_CRC_OFFSET = 124;
    /** Length of the header; the image starts here. */
    public static final int HEADER_LENGTH = 128;
    /** Offset of the first image byte. */
    public static final int IMAGE_OFFSET = HEADER_LENGTH;

    private DiskFileDescriptor() {
    }

    /**
     * Encodes a header into a fresh buffer of {@link #HEADER_LENGTH} bytes, header CRC included.
     *
     * @param header the values to write
     * @return a buffer positioned at 0 with limit {@link #HEADER_LENGTH}
     */
    public static ByteBuffer encode(final RankFileHeader header) {
        final byte[] jobId = header.jobId().getBytes(StandardCharsets.UTF_8);
        if (jobId.length > JOB_ID_MAX_LENGTH) {
            throw new IllegalArgumentException("job id longer than " + JOB_ID_MAX_LENGTH + " bytes: " + header.jobId());
        }
        final ByteBuffer buffer = ByteBuffer.allocate(HEADER_LENGTH).order(BYTE_ORDER);
        buffer.putInt(MAGIC_OFFSET, MAGIC)
            .putInt(VERSION_OFFSET, VERSION)
            .putInt(HEADER_LENGTH_OFFSET, HEADER_LENGTH)
            .putInt(RANK_OFFSET, header.rank())
            .putInt(WORLD_SIZE_OFFSET, header.worldSize())
            .putInt(JOB_ID_LENGTH_OFFSET, jobId.length)
            .putLong(ROUND_OFFSET, header.round())
            .putLong(IMAGE_LENGTH_OFFSET, header.imageLength())
            .putInt(IMAGE_CRC_OFFSET, header.imageCrc())
            .putInt(EPOCH_OFFSET, header.epoch())
            .put(JOB_ID_OFFSET, jobId);
        buffer.putInt(HEADER_CRC_OFFSET, headerCrc(buffer));
        return buffer;
    }

    /**
     * Decodes and checks a header: magic, version, header length, header CRC.
     * Identity (job, rank, world size, round) is checked by the caller, which knows what it expects.
     *
     * @param buffer     exactly {@link #HEADER_LENGTH} bytes from offset 0 of the file
     * @param path       the file, named in error messages
     * @param fileLength the file's length on disk
     * @return the decoded header
     * @throws DiskFileCorruptException with the precise kind of damage
     */
    public static RankFileHeader decode(final ByteBuffer buffer, final Path path, final long fileLength)
        throws DiskFileCorruptException {
        if (fileLength < HEADER_LENGTH) {
            throw new DiskFileCorruptException(DiskFileDamage.TRUNCATED, path,
                "file is " + fileLength + " bytes, shorter than the " + HEADER_LENGTH + "-byte header");
        }
        final ByteBuffer b = buffer.duplicate().order(BYTE_ORDER);
        final int magic = b.getInt(MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new DiskFileCorruptException(DiskFileDamage.BAD_MAGIC, path,
                String.format("magic is 0x%08x, expected 0x%08x (\"JCKD\"): not a jckpt checkpoint file", magic, MAGIC));
        }
        final int version = b.getInt(VERSION_OFFSET);
        if (version != VERSION) {
            throw new DiskFileCorruptException(DiskFileDamage.UNSUPPORTED_VERSION, path,
                "format version " + version + ", this code reads version " + VERSION);
        }
        final int stored = b.getInt(HEADER_CRC_OFFSET);
        final int actual = headerCrc(b);
        if (stored != actual) {
            throw new DiskFileCorruptException(DiskFileDamage.HEADER_CRC_MISMATCH, path,
                String.format("header CRC32C is 0x%08x, stored 0x%08x", actual, stored));
        }
        final int headerLength = b.getInt(HEADER_LENGTH_OFFSET);
        final int jobIdLength = b.getInt(JOB_ID_LENGTH_OFFSET);
        if (headerLength != HEADER_LENGTH || jobIdLength < 0 || jobIdLength > JOB_ID_MAX_LENGTH) {
            throw new DiskFileCorruptException(DiskFileDamage.MALFORMED_HEADER, path,
                "header fields out of range (header length " + headerLength + ", job id length " + jobIdLength + ")");
        }
        final byte[] jobId = new byte[jobIdLength];
        b.get(JOB_ID_OFFSET, jobId);
        return new RankFileHeader(new String(jobId, StandardCharsets.UTF_8), b.getInt(RANK_OFFSET),
            b.getInt(WORLD_SIZE_OFFSET), b.getLong(ROUND_OFFSET), b.getLong(IMAGE_LENGTH_OFFSET),
            b.getInt(IMAGE_CRC_OFFSET), stored, b.getInt(EPOCH_OFFSET));
    }

    /**
     * The file length a header promises.
     *
     * @param imageLength the image length
     * @return header plus image length
     */
    public static long fileLength(final long imageLength) {
        return HEADER_LENGTH + imageLength;
    }

    private static int headerCrc(final ByteBuffer header) {
        final CRC32C crc = new CRC32C();
        crc.update(header.duplicate().position(0).limit(HEADER_CRC_OFFSET));
        return (int)crc.getValue();
    }
}
