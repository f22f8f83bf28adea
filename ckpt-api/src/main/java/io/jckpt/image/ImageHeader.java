package io.jckpt.image;

/**
 * The identity written into an image's header: whose data, from which round.
 *
 * @param rank      whose data
 * @param worldSize ranks in the job
 * @param round     checkpoint round, >= 1
 * @param epoch     recovery count, >= 0
 */
public record ImageHeader(int rank, int worldSize, long round, int epoch) {
    /**
     * Validates the fields.
     *
     * @param rank      whose data
     * @param worldSize ranks in the job
     * @param round     checkpoint round, >= 1
     * @param epoch     recovery count, >= 0
     */
    public ImageHeader {
        if (worldSize < 1 || rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " must be in 0.." + (worldSize - 1) + " (worldSize " + worldSize + ")");
        }
        if (round < 1) {
            throw new IllegalArgumentException("round " + round + " must be >= 1");
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch " + epoch + " must be >= 0");
        }
    }
}
