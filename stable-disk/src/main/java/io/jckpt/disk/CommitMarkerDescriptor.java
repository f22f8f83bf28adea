package io.jckpt.disk;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * The binary layout of a commit marker file, described in one place.
 *
 * <pre>
 *  offset  field
 *   0      magic "JCKC" (int)
 *   4      format version (int)
 *   8      world size n (int)
 *  12      job id length in bytes (int)
 *  16      round (long)
 *  24      committed at, epoch millis (long)
 *  32      job id, UTF-8, zero padded (64 bytes)
 *  96      n rank entries of 16 bytes each, rank 0 first:
 *            +0 image length (long), +8 image CRC32C (int), +12 header CRC32C (int)
 *  96+16n  CRC32C over bytes [0, 96+16n) (int)
 * </pre>
 * Little-endian. The marker's length is exactly {@code 100 + 16n}.
 */
public final class CommitMarkerDescriptor {
    /** "JCKC" read as a little-endian int. */
    public static final int MAGIC = 0x434B434A;
    /** The only format version this code writes and reads. */
    public static final int VERSION = 1;
    /** Byte order of every number. */
    public static final ByteOrder BYTE_ORDER = ByteOrder.LITTLE_ENDIAN;
    /** Offset of the magic (int). */
    public static final int MAGIC_OFFSET = 0;
    /** Offset of the version (int). */
    public static final int VERSION_OFFSET = 4;
    /** Offset of the world size (int). */
    public static final int WORLD_SIZE_OFFSET = 8;
    /** Offset of the job id length (int). */
    public static final int JOB_ID_LENGTH_OFFSET = 12;
    /** Offset of the round (long). */
    public static final int ROUND_OFFSET = 16;
    /** Offset of the commit time (long). */
    public static final int COMMITTED_AT_OFFSET = 24;
    /** Offset of the job id bytes. */
    public static final int JOB_ID_OFFSET = 32;
    /** Offset of the first rank entry. */
    public static final int RANK_ENTRIES_OFFSET = 96;
    /** Length of one rank entry. */
    public static final int RANK_ENTRY_LENGTH = 16;
    /** Offset of the image length within a rank entry (long). */
    public static final int ENTRY_IMAGE_LENGTH_OFFSET = 0;
    /** Offset of the image CRC within a rank entry (int). */
    public static final int ENTRY_IMAGE_CRC_OFFSET = 8;
    /** Offset of the header CRC within a rank entry (int). */
    public static final int ENTRY_HEADER_CRC_OFFSET = 12;
    /** Length of the trailing CRC. */
    public static final int CRC_LENGTH = 4;
    /** Largest world size a marker can describe. */
    public static final int MAX_WORLD_SIZE = 1 << 20;

    private CommitMarkerDescriptor() {
    }

    /**
     * @param worldSize the number of ranks
     * @return the marker's length in bytes
     */
    public static int markerLength(final int worldSize) {
        return RANK_ENTRIES_OFFSET + RANK_ENTRY_LENGTH * worldSize + CRC_LENGTH;
    }

    /**
     * @param marker the marker
     * @return its encoding, positioned at 0
     */
    public static ByteBuffer encode(final CommitMarker marker) {
        final byte[] jobId = marker.jobId().getBytes(StandardCharsets.UTF_8);
        final int n = marker.worldSize();
        final ByteBuffer b = ByteBuffer.allocate(markerLength(n)).order(BYTE_ORDER);
        b.putInt(MAGIC_OFFSET, MAGIC).putInt(VERSION_OFFSET, VERSION).putInt(WORLD_SIZE_OFFSET, n)
            .putInt(JOB_ID_LENGTH_OFFSET, jobId.length).putLong(ROUND_OFFSET, marker.round())
            .putLong(COMMITTED_AT_OFFSET, marker.committedAtMillis()).put(JOB_ID_OFFSET, jobId);
        for (int r = 0; r < n; r++) {
            final CommitMarker.RankEntry e = marker.ranks().get(r);
            final int at = RANK_ENTRIES_OFFSET + r * RANK_ENTRY_LENGTH;
            b.putLong(at + ENTRY_IMAGE_LENGTH_OFFSET, e.imageLength())
                .putInt(at + ENTRY_IMAGE_CRC_OFFSET, e.imageCrc())
                .putInt(at + ENTRY_HEADER_CRC_OFFSET, e.headerCrc());
        }
        final int crcAt = b.capacity() - CRC_LENGTH;
        b.putInt(crcAt, crc(b, crcAt));
        return b;
    }

    /**
     * Decodes and verifies a whole marker file.
     *
     * @param bytes the file's content
     * @param path  the file, named in error messages
     * @return the marker
     * @throws DiskFileCorruptException with the precise kind of damage
     */
    public static CommitMarker decode(final ByteBuffer bytes, final Path path) throws DiskFileCorruptException {
        final ByteBuffer b = bytes.duplicate().order(BYTE_ORDER);
        final int length = b.remaining();
        if (length < RANK_ENTRIES_OFFSET + CRC_LENGTH) {
            throw new DiskFileCorruptException(DiskFileDamage.TRUNCATED, path,
                "commit marker is " + length + " bytes, shorter than its " + (RANK_ENTRIES_OFFSET + CRC_LENGTH)
                    + "-byte minimum");
        }
        final int magic = b.getInt(MAGIC_OFFSET);
        if (magic != MAGIC) {
            throw new DiskFileCorruptException(DiskFileDamage.BAD_MAGIC, path,
                String.format("magic is 0x%08x, expected 0x%08x (\"JCKC\"): not a jckpt commit marker", magic, MAGIC));
        }
        final int version = b.getInt(VERSION_OFFSET);
        if (version != VERSION) {
            throw new DiskFileCorruptException(DiskFileDamage.UNSUPPORTED_VERSION, path,
                "commit marker format version " + version + ", this code reads version " + VERSION);
        }
        final int n = b.getInt(WORLD_SIZE_OFFSET);
        if (n < 1 || n > MAX_WORLD_SIZE) {
            throw new DiskFileCorruptException(DiskFileDamage.MALFORMED_HEADER, path, "world size " + n + " out of range");
        }
        final int expected = markerLength(n);
        if (length < expected) {
            throw new DiskFileCorruptException(DiskFileDamage.TRUNCATED, path,
                "commit marker is " + length + " bytes, a marker for " + n + " ranks is " + expected);
        }
        if (length > expected) {
            throw new DiskFileCorruptException(DiskFileDamage.OVERSIZED, path,
                "commit marker is " + length + " bytes, a marker for " + n + " ranks is " + expected);
        }
        final int crcAt = expected - CRC_LENGTH;
        final int stored = b.getInt(crcAt);
        final int actual = crc(b, crcAt);
        if (stored != actual) {
            throw new DiskFileCorruptException(DiskFileDamage.HEADER_CRC_MISMATCH, path,
                String.format("commit marker CRC32C is 0x%08x, stored 0x%08x", actual, stored));
        }
        final int jobIdLength = b.getInt(JOB_ID_LENGTH_OFFSET);
        if (jobIdLength < 0 || jobIdLength > DiskFileDescriptor.JOB_ID_MAX_LENGTH) {
            throw new DiskFileCorruptException(DiskFileDamage.MALFORMED_HEADER, path, "job id length " + jobIdLength);
        }
        final byte[] jobId = new byte[jobIdLength];
        b.get(JOB_ID_OFFSET, jobId);
        final List<CommitMarker.RankEntry> entries = new ArrayList<>(n);
        for (int r = 0; r < n; r++) {
            final int at = RANK_ENTRIES_OFFSET + r * RANK_ENTRY_LENGTH;
            entries.add(new CommitMarker.RankEntry(b.getLong(at + ENTRY_IMAGE_LENGTH_OFFSET),
                b.getInt(at + ENTRY_IMAGE_CRC_OFFSET), b.getInt(at + ENTRY_HEADER_CRC_OFFSET)));
        }
        return new CommitMarker(new String(jobId, StandardCharsets.UTF_8), b.getLong(ROUND_OFFSET), n,
            b.getLong(COMMITTED_AT_OFFSET), entries);
    }

    private static int crc(final ByteBuffer b, final int length) {
        final CRC32C crc = new CRC32C();
        crc.update(b.duplicate().position(0).limit(length));
        return (int)crc.getValue();
    }
}
