package io.jckpt.image;

import io.jckpt.Checkpointer;

/**
 * The identity written into an image's header: whose data, from which round, at which step of the program.
 *
 * @param rank      whose data
 * @param worldSize ranks in the job
 * @param round     checkpoint round, >= 1
 * @param epoch     recovery count, >= 0
 * @param step      the program's step at this round ({@code here(step)}), {@link Checkpointer#NO_STEP} when none
 */
public record ImageHeader(int rank, int worldSize, long round, int epoch, long step) {
    /**
     * Validates the fields.
     *
     * @param rank      whose data
     * @param worldSize ranks in the job
     * @param round     checkpoint round, >= 1
     * @param epoch     recovery count, >= 0
     * @param step      the program's step, >= 0, or {@link Checkpointer#NO_STEP}
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
        if (step < Checkpointer.NO_STEP) {
            throw new IllegalArgumentException("step " + step + " must be >= 0, or NO_STEP");
        }
    }

    /** A header without a step ({@link Checkpointer#NO_STEP}). */
    public ImageHeader(int rank, int worldSize, long round, int epoch) {
        this(rank, worldSize, round, epoch, Checkpointer.NO_STEP);
    }
}
