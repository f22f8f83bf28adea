package io.jckpt.runtime.hosts;

import io.jckpt.spi.RingOrder;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Decides where failed ranks restart (pure): a rank whose host lives restarts there; a rank whose host is
 * lost restarts on another live job host with a free slot, else on the first live spare host (which then
 * joins the job with its slots, so that further ranks of the same loss can follow it there). A host that
 * has not answered yet (its probe still runs: it may hang) is treated as lost for this plan only: its
 * ranks move and nothing is placed on it, but it keeps its slots for the next plan. Among hosts
 * with a free slot it prefers the one running the fewest of the rank's ring neighbours within m (its
 * holders and the ranks it holds for), so that its copies stay off its host; then the most free slots;
 * then host order. Ranks are placed in ascending order, so the result is deterministic.
 */
public final class RespawnPlanner {
    private RespawnPlanner() {
    }

    /**
     * @param hostOfRank  every rank's host before the failure, indexed by rank
     * @param capacities  the job hosts (those that may run ranks) and how many ranks each may run, in order
     * @param spares      spare hosts not yet used, in order
     * @param lostHosts   hosts known lost (job or spare hosts)
     * @param failedRanks the ranks to restart
     * @param ring        the replication ring
     * @param replicas    m
     * @return the targets, the ranks that cannot be placed (with why), and the hosts afterwards
     * @throws IllegalArgumentException for a failed rank out of range or a rank on a host not in
     *                                  {@code capacities}
     */
    public static RespawnPlan plan(List<String> hostOfRank, Map<String, Integer> capacities, List<Host> spares,
            Set<String> lostHosts, Collection<Integer> failedRanks, RingOrder ring, int replicas) {
        return plan(hostOfRank, capacities, spares, lostHosts, Set.of(), failedRanks, ring, replicas);
    }

    /**
     * As {@link #plan(List, Map, List, Set, Collection, RingOrder, int)}, with hosts that have not answered yet.
     *
     * @param unanswered hosts not known to live nor to be lost (their probes still run): no rank restarts
     *                   on them now, their own ranks move; unlike lost hosts they stay job hosts (or spares)
     */
    public static RespawnPlan plan(List<String> hostOfRank, Map<String, Integer> capacities, List<Host> spares,
            Set<String> lostHosts, Set<String> unanswered, Collection<Integer> failedRanks, RingOrder ring,
            int replicas) {
        Set<String> away = new HashSet<>(lostHosts);
        away.addAll(unanswered);
        int n = hostOfRank.size();
        if (ring.size() != n) {
            throw new IllegalArgumentException("a ring of " + ring.size() + " ranks for " + n + " ranks");
        }
        TreeSet<Integer> failed = new TreeSet<>();
        for (int r : failedRanks) {
            if (r < 0 || r >= n) {
                throw new IllegalArgumentException("failed rank " + r + " outside 0.." + (n - 1));
            }
            failed.add(r);
        }
        Map<String, Integer> capacity = new LinkedHashMap<>(capacities);
        Map<String, Integer> occupied = new LinkedHashMap<>();
        capacity.keySet().forEach(h -> occupied.put(h, 0));
        for (int r = 0; r < n; r++) {
            String h = hostOfRank.get(r);
            if (!capacity.containsKey(h)) {
                throw new IllegalArgumentException("rank " + r + " runs on " + h + ", which is not a job host " + capacity.keySet());
            }
            if (!failed.contains(r)) {
                occupied.merge(h, 1, Integer::sum);
            }
        }
        List<String> now = new ArrayList<>(hostOfRank);
        List<RespawnTarget> targets = new ArrayList<>();
        Map<Integer, String> unplaced = new TreeMap<>();
        List<Host> spareLeft = new ArrayList<>();
        List<Host> spareWaiting = new ArrayList<>(); // not answered yet: a spare still, for the next plan
        for (Host s : spares) {
            if (!capacity.containsKey(s.name()) && !lostHosts.contains(s.name())) {
                (unanswered.contains(s.name()) ? spareWaiting : spareLeft).add(s);
            }
        }
        Set<String> takenSpares = new HashSet<>();
        for (int r : failed) {
            String from = hostOfRank.get(r);
            if (!away.contains(from)) {
                occupied.merge(from, 1, Integer::sum);
                targets.add(new RespawnTarget(r, from, from, RespawnTarget.Reason.SAME_HOST));
            }
        }
        for (int r : failed) {
            String from = hostOfRank.get(r);
            if (!away.contains(from)) {
                continue;
            }
            String best = null;
            int bestNeighbours = 0;
            int bestFree = 0;
            for (Map.Entry<String, Integer> e : capacity.entrySet()) {
                String h = e.getKey();
                int free = e.getValue() - occupied.get(h);
                if (away.contains(h) || free <= 0) {
                    continue;
                }
                int neighbours = neighboursOn(h, r, now, ring, replicas);
                if (best == null || neighbours < bestNeighbours || (neighbours == bestNeighbours && free > bestFree)) {
                    best = h;
                    bestNeighbours = neighbours;
                    bestFree = free;
                }
            }
            RespawnTarget.Reason reason = RespawnTarget.Reason.FREE_SLOT;
            if (best == null && !spareLeft.isEmpty()) {
                Host spare = spareLeft.remove(0);
                capacity.put(spare.name(), spare.slots());
                occupied.put(spare.name(), 0);
                takenSpares.add(spare.name());
                best = spare.name();
            }
            if (best == null) {
                unplaced.put(r, noHost(r, from, capacity, occupied, lostHosts, unanswered, spares));
                continue;
            }
            if (takenSpares.contains(best)) {
                reason = RespawnTarget.Reason.SPARE_HOST;
            }
            occupied.merge(best, 1, Integer::sum);
            now.set(r, best);
            targets.add(new RespawnTarget(r, from, best, reason, !lostHosts.contains(from)));
        }
        targets.sort((a, b) -> Integer.compare(a.rank(), b.rank()));
        Map<String, Integer> after = new LinkedHashMap<>();
        Set<String> stillUsed = new HashSet<>(now);
        capacity.forEach((h, c) -> {
            if (!lostHosts.contains(h) || stillUsed.contains(h)) {
                after.put(h, c);
            }
        });
        List<Host> sparesAfter = new ArrayList<>();
        for (Host s : spares) {
            if (spareLeft.contains(s) || spareWaiting.contains(s)) {
                sparesAfter.add(s); // in their order
            }
        }
        return new RespawnPlan(targets, unplaced, now, after, sparesAfter);
    }

    /** How many of rank r's ring neighbours within m (holders and owners it holds for) run on host h. */
    private static int neighboursOn(String h, int r, List<String> hostOfRank, RingOrder ring, int replicas) {
        int count = 0;
        int reach = Math.min(replicas, ring.size() - 1);
        Set<Integer> seen = new HashSet<>();
        for (int d = 1; d <= reach; d++) {
            for (int q : new int[] {ring.successor(r, d), ring.predecessor(r, d)}) {
                if (q != r && seen.add(q) && hostOfRank.get(q).equals(h)) {
                    count++;
                }
            }
        }
        return count;
    }

    private static String noHost(int r, String from, Map<String, Integer> capacity, Map<String, Integer> occupied,
            Set<String> lostHosts, Set<String> unanswered, List<Host> spares) {
        StringBuilder b = new StringBuilder("rank ").append(r).append(" (host ").append(from)
                .append(lostHosts.contains(from) ? " lost" : " not answering").append("): no live host has a free slot (");
        boolean first = true;
        for (Map.Entry<String, Integer> e : capacity.entrySet()) {
            if (lostHosts.contains(e.getKey()) || unanswered.contains(e.getKey())) {
                continue;
            }
            b.append(first ? "" : ", ").append(e.getKey()).append(": ").append(occupied.get(e.getKey()))
                    .append(" of ").append(e.getValue());
            first = false;
        }
        if (first) {
            b.append("every job host is lost");
        }
        b.append(") and no spare host is left");
        List<String> lostSpares = new ArrayList<>();
        for (Host s : spares) {
            if (lostHosts.contains(s.name())) {
                lostSpares.add(s.name());
            }
        }
        if (!lostSpares.isEmpty()) {
            b.append(" (lost spares: ").append(String.join(", ", lostSpares)).append(')');
        }
        return b.toString();
    }
}
