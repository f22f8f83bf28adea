package io.jckpt.runtime.rank;

/**
 * The MPJ world a rank is in: its epoch (0 for the first world, +1 per recovery), whether this
 * world exists because of a recovery, whether this process was re-spawned (it has no memory of
 * earlier epochs), and which ranks failed before it.
 */
public record WorldInfo(int epoch, boolean recovery, boolean newRank, int[] failedRanks) {
}
