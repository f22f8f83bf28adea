package io.jckpt.imem;

/**
 * A rank whose data cannot be restored from memory, and why.
 *
 * @param rank   the rank whose data is lost
 * @param reason a human-readable explanation naming the holders and rounds involved
 */
public record LostData(int rank, String reason) {
}
