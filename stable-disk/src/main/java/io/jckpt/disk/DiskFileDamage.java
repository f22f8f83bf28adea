package io.jckpt.disk;

/**
 * The kinds of damage a checkpoint file or a commit marker can show; each comes with a precise
 * message in {@link DiskFileCorruptException}.
 */
public enum DiskFileDamage {
    /** The file is shorter than its header, or than the header plus the image length it promises. */
    TRUNCATED,
    /** The file is longer than the header plus the image length it promises. */
    OVERSIZED,
    /** The first four bytes are not the jckpt magic: not a jckpt file at all. */
    BAD_MAGIC,
    /** A format version this code does not read. */
    UNSUPPORTED_VERSION,
    /** The CRC32C over the header (or over the whole marker) does not match. */
    HEADER_CRC_MISMATCH,
    /** The header's CRC matches but a field is out of range (a file written by broken code). */
    MALFORMED_HEADER,
    /** The file belongs to another job. */
    WRONG_JOB,
    /** The file was written by another rank than its name says. */
    WRONG_RANK,
    /** The file was written by a job of another world size. */
    WRONG_WORLD_SIZE,
    /** The file holds another round than its name says. */
    WRONG_ROUND,
    /** The file is intact but is not the file the commit marker vouches for (length or CRC differ). */
    MARKER_MISMATCH,
    /** The CRC32C over the image does not match the header: the image bytes are damaged. */
    IMAGE_CRC_MISMATCH,
    /**
     * The image is not this job's, or not this file's: its MAC does not verify with the job's key (altered,
     * or written with another key, or by a jckpt before images carried a MAC), or it is another rank's or
     * round's image. Refused before anything reads it.
     */
    NOT_AUTHENTIC
}
