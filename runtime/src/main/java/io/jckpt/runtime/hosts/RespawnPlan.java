package io.jckpt.runtime.hosts;

import java.util.List;
import java.util.Map;

/**
 * The outcome of {@link RespawnPlanner#plan}: where each failed rank restarts, the failed ranks no host
 * can take (with the reason), and the job's hosts afterwards (to plan the next failure from).
 *
 * @param targets    one per placed rank, ascending by rank
 * @param unplaced   rank to the reason no host could take it (empty when {@link #complete()})
 * @param hostOfRank every rank's host after the restarts (an unplaced rank keeps its lost host)
 * @param capacities the job hosts and their capacities afterwards: lost hosts dropped, spares taken added
 * @param spares     the spare hosts still available (taken and lost ones removed)
 */
public record RespawnPlan(List<RespawnTarget> targets, Map<Integer, String> unplaced, List<String> hostOfRank,
        Map<String, Integer> capacities, List<Host> spares) {
    /** Copies the collections. */
    public RespawnPlan {
        targets = List.copyOf(targets);
        unplaced = Map.copyOf(unplaced);
        hostOfRank = List.copyOf(hostOfRank);
        capacities = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(capacities));
        spares = List.copyOf(spares);
    }

    /** @return whether every failed rank has a host */
    public boolean complete() {
        return unplaced.isEmpty();
    }
}
