package io.jckpt.imem;

import java.util.List;

/**
 * What one rank contributes to the status exchange after a failure: who it is, whether it was
 * re-spawned, and every complete copy its node-local store holds.
 *
 * @param rank   the rank number
 * @param fresh  true if this process was re-spawned (new) in this recovery
 * @param copies the complete copies this rank holds (its own and its predecessors'), any order
 */
public record RankStatus(int rank, boolean fresh, List<CopyStatus> copies) {
    /** Validates and freezes the fields. */
    public RankStatus {
        if (rank < 0) {
            throw new IllegalArgumentException("rank must be >= 0: " + rank);
        }
        copies = List.copyOf(copies);
    }

    /**
     * Returns whether this rank holds an intact copy of the given owner's data at the given round.
     *
     * @param owner the owner rank
     * @param round the round
     * @return the intact copy, or {@code null}
     */
    public CopyStatus intactCopy(int owner, long round) {
        for (CopyStatus c : copies) {
            if (c.owner() == owner && c.round() == round && c.intact()) {
                return c;
            }
        }
        return null;
    }
}
