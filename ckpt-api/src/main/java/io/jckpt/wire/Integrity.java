package io.jckpt.wire;

/**
 * The state of one rank's file of one committed round of the disk level, as that rank found it
 * (reported in its {@link RankInventory}).
 */
public enum Integrity {
    /** Present, well formed, the file the marker vouches for, image CRC verified. */
    INTACT,
    /** The rank's file for the round is not there. */
    MISSING,
    /** The rank's file is there but failed verification. */
    DAMAGED,
    /** The commit marker itself is damaged, so the round does not count as committed. */
    MARKER_DAMAGED,
    /** The generation was written by a job of another world size; restoring on it is refused. */
    WORLD_SIZE_MISMATCH
}
