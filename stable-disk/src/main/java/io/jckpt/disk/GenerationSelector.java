package io.jckpt.disk;

import io.jckpt.wire.GenerationStatus;
import io.jckpt.wire.Integrity;
import io.jckpt.wire.RankInventory;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;

/**
 * Picks the generation to restore from the inventories of all ranks: the newest round that is
 * committed and {@link Integrity#INTACT} on every rank. A pure, deterministic function of its
 * input (the order of the inventories does not matter), so every rank that feeds it the same
 * exchanged inventories picks the same round.
 *
 * <p>World size: a generation is only restorable by a run of the world size that wrote it. A run of
 * another size gets {@link DiskSelection.NothingRestorable} naming both sizes (re-partitioning the
 * images is the application's business and is not attempted).
 */
public final class GenerationSelector {
    private GenerationSelector() {
    }

    /**
     * @param worldSize   the world size of this run
     * @param inventories one inventory per rank 0..worldSize-1, in any order
     * @return the round to restore, or why nothing is restorable
     * @throws IllegalArgumentException if the inventories are not exactly one per rank of one job
     *                                  (a caller's bug, not a state of the disk)
     */
    public static DiskSelection select(final int worldSize, final Collection<RankInventory> inventories) {
        final RankInventory[] byRank = byRank(worldSize, inventories);
        final TreeSet<Long> rounds = new TreeSet<>();
        final List<Map<Long, GenerationStatus>> statuses = new ArrayList<>(worldSize);
        for (final RankInventory inventory : byRank) {
            final Map<Long, GenerationStatus> map = new HashMap<>();
            for (final GenerationStatus g : inventory.generations()) {
                map.put(g.round(), g);
                rounds.add(g.round());
            }
            statuses.add(map);
        }
        final List<String> rejected = new ArrayList<>();
        for (final Long round : rounds.descendingSet()) {
            final String refusal = refusal(round, worldSize, statuses);
            if (refusal == null) {
                return new DiskSelection.Restore(round, rejected);
            }
            rejected.add(refusal);
        }
        final String reason = rounds.isEmpty()
            ? "no committed generation on stable disk for job " + byRank[0].jobId()
            : "none of the " + rounds.size() + " committed generation(s) of job " + byRank[0].jobId()
                + " is intact on all " + worldSize + " ranks";
        return new DiskSelection.NothingRestorable(reason, rejected);
    }

    private static String refusal(final long round, final int worldSize, final List<Map<Long, GenerationStatus>> statuses) {
        final List<String> problems = new ArrayList<>();
        for (int rank = 0; rank < worldSize; rank++) {
            final GenerationStatus g = statuses.get(rank).get(round);
            if (g == null) {
                problems.add("rank " + rank + " sees no commit marker");
            } else if (g.integrity() == Integrity.WORLD_SIZE_MISMATCH) {
                return "round " + round + ": written by " + g.markerWorldSize() + " ranks, this run has " + worldSize
                    + " ranks; restoring on a different world size is not supported";
            } else if (g.integrity() != Integrity.INTACT) {
                problems.add("rank " + rank + " " + g.integrity() + (g.detail().isEmpty() ? "" : " (" + g.detail() + ")"));
            }
        }
        return problems.isEmpty() ? null : "round " + round + ": " + String.join("; ", problems);
    }

    private static RankInventory[] byRank(final int worldSize, final Collection<RankInventory> inventories) {
        if (worldSize < 1 || inventories.size() != worldSize) {
            throw new IllegalArgumentException(inventories.size() + " inventories for world size " + worldSize);
        }
        final RankInventory[] byRank = new RankInventory[worldSize];
        String jobId = null;
        for (final RankInventory inventory : inventories) {
            final int rank = inventory.rank();
            if (rank < 0 || rank >= worldSize || byRank[rank] != null) {
                throw new IllegalArgumentException("inventory of rank " + rank + " out of range or given twice");
            }
            if (inventory.worldSize() != worldSize) {
                throw new IllegalArgumentException("rank " + rank + " runs with world size " + inventory.worldSize()
                    + ", selection asked for " + worldSize);
            }
            if (jobId != null && !jobId.equals(inventory.jobId())) {
                throw new IllegalArgumentException("inventories of two jobs: " + jobId + " and " + inventory.jobId());
            }
            jobId = inventory.jobId();
            byRank[rank] = inventory;
        }
        return byRank;
    }
}
