package io.jckpt.wire;

/**
 * One checkpoint copy a rank holds in its node-local store, as reported in its {@link RankStatus}.
 *
 * @param owner  the rank whose data this is
 * @param round  the checkpoint round the copy belongs to
 * @param length the image length in bytes
 * @param crc32c the CRC32C of the image recorded when the copy was completed
 * @param intact whether the copy was re-verified against its CRC32C before being reported
 */
public record CopyStatus(int owner, long round, long length, int crc32c, boolean intact) {
    /** Bytes of one copy on the wire. */
    static final int ENCODED_LENGTH = 4 + 1 + 8 + 8 + 4;

    /** Validates the fields. */
    public CopyStatus {
        if (owner < 0) {
            throw new IllegalArgumentException("owner must be >= 0: " + owner);
        }
        if (round < 0) {
            throw new IllegalArgumentException("round must be >= 0: " + round);
        }
        if (length < 0) {
            throw new IllegalArgumentException("length must be >= 0: " + length);
        }
    }
}
