package io.jckpt.runtime.hosts;

import io.jckpt.spi.RingOrder;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Where the m copies of each rank's checkpoint live (what SCR calls failure groups): the replication
 * ring's order, each rank's m holders (its ring successors), and what that survives.
 *
 * <p>{@link #plan} orders the ring so that it follows hosts, not rank numbers: the ranks of each host are
 * dealt round-robin into {@code c} runs (c = the most ranks on one host), hosts with more ranks first, and
 * the runs are concatenated ({@link #interleave}). Two ranks of one host are then at least ⌊n/c⌋ apart on
 * the ring, so whenever that is possible at all, i.e. every host runs at most ⌊n/(m+1)⌋ of the n ranks
 * (which needs at least m+1 hosts), the m holders of every rank are on m distinct hosts other than its
 * own; more generally every rank's first j holders are on j distinct other hosts for every j with
 * c(j+1) &le; n (so with c &le; n/2 no rank's first holder is on its own host). With 3 hosts of 2 ranks
 * (a: 0,1, b: 2,3, c: 4,5) the ring is 0,2,4,1,3,5. When the hosts cannot give m distinct holders, other
 * candidate rings are tried and improved by swaps (bounded work) for the most host losses survived,
 * keeping that guarantee; the tests check against brute force that this is the best any ring can do for
 * every layout of up to 8 ranks on up to 5 hosts.
 *
 * <p>{@link #hostLossesSurvived()} is how many whole hosts may be lost at once with every rank's data still
 * in some surviving memory (its own store or a holder's): the fewest distinct hosts among a rank and its
 * holders, minus one. {@link #warning()} explains, when hosts cannot give m distinct holders, what that
 * means. {@link #evaluate} does the same for any given ring (e.g. after respawns moved ranks). Immutable.
 */
public final class CopyPlacement {
    private final RingOrder ring;
    private final List<String> hostOfRank;
    private final int replicas;
    private final int survived;
    private final int offHost;

    private CopyPlacement(RingOrder ring, List<String> hostOfRank, int replicas) {
        this.ring = ring;
        this.hostOfRank = List.copyOf(hostOfRank);
        this.replicas = replicas;
        int fewest = Integer.MAX_VALUE;
        int j = replicas;
        for (int r = 0; r < hostOfRank.size(); r++) {
            Set<String> seen = new HashSet<>();
            seen.add(hostOfRank.get(r));
            for (int d = 1; d <= replicas; d++) {
                if (!seen.add(hostOfRank.get(ring.successor(r, d))) && d - 1 < j) {
                    j = d - 1;
                }
            }
            fewest = Math.min(fewest, seen.size());
        }
        this.survived = fewest - 1;
        this.offHost = j;
    }

    /**
     * @param mapping  where the ranks run
     * @param replicas m, 0..n-1
     * @return the placement with a host-interleaved ring
     */
    public static CopyPlacement plan(RankMapping mapping, int replicas) {
        return plan(mapping.hostOfRank(), replicas);
    }

    /**
     * @param hostOfRank the host of each rank, indexed by rank
     * @param replicas   m, 0..n-1
     * @return the placement with a host-interleaved ring
     */
    public static CopyPlacement plan(List<String> hostOfRank, int replicas) {
        check(hostOfRank, replicas);
        return new CopyPlacement(bestRing(hostOfRank, replicas), hostOfRank, replicas);
    }

    /**
     * @param ring       a ring order
     * @param hostOfRank the host of each rank, indexed by rank (same size as the ring)
     * @param replicas   m, 0..n-1
     * @return what that ring gives on those hosts
     */
    public static CopyPlacement evaluate(RingOrder ring, List<String> hostOfRank, int replicas) {
        check(hostOfRank, replicas);
        if (ring.size() != hostOfRank.size()) {
            throw new IllegalArgumentException("a ring of " + ring.size() + " ranks for " + hostOfRank.size()
                    + " ranks with hosts");
        }
        return new CopyPlacement(ring, hostOfRank, replicas);
    }

    private static void check(List<String> hostOfRank, int replicas) {
        int n = hostOfRank.size();
        if (n < 1) {
            throw new IllegalArgumentException("a placement needs at least 1 rank");
        }
        if (replicas < 0 || replicas > n - 1) {
            throw new IllegalArgumentException("m = " + replicas + " copies for " + n + " ranks: m must be 0.." + (n - 1));
        }
        for (int r = 0; r < n; r++) {
            if (hostOfRank.get(r) == null) {
                throw new IllegalArgumentException("rank " + r + " has no host");
            }
        }
    }

    /**
     * The host-interleaved ring order for m = 0..n-1 copies: see the class comment.
     *
     * @param hostOfRank the host of each rank, indexed by rank
     * @return the ring
     */
    public static RingOrder interleave(List<String> hostOfRank) {
        return RingOrder.of(dealt(groupedByHost(hostOfRank), largestHost(hostOfRank)));
    }

    /**
     * The ring for m copies: the {@linkplain #interleave interleaved} one when it gives every rank m holders
     * on m distinct other hosts (it does whenever any ring can). Otherwise the best of a few candidates,
     * improved by swapping pairs of ranks while that helps (within a bounded amount of work), by: never fewer
     * first holders on distinct other hosts than the interleaved ring guarantees, then the most host losses
     * survived, then the most first holders on distinct other hosts, then the fewest weakest windows.
     */
    private static RingOrder bestRing(List<String> hostOfRank, int replicas) {
        List<Integer> grouped = groupedByHost(hostOfRank);
        int largest = largestHost(hostOfRank);
        int n = hostOfRank.size();
        int[] interleaved = dealt(grouped, largest);
        RingOrder ring = RingOrder.of(interleaved);
        if (new CopyPlacement(ring, hostOfRank, replicas).fullyDistinct()) {
            return ring;
        }
        Map<String, Integer> ids = new LinkedHashMap<>();
        int[] hostId = new int[n];
        for (int r = 0; r < n; r++) {
            hostId[r] = ids.computeIfAbsent(hostOfRank.get(r), h -> ids.size());
        }
        int guaranteed = 0; // first holders on distinct other hosts that the interleaved ring guarantees
        while (guaranteed < replicas && (long) largest * (guaranteed + 2) <= n) {
            guaranteed++;
        }
        RingScore score = new RingScore(hostId, ids.size(), replicas, guaranteed);
        List<List<Integer>> sequences = List.of(grouped, nested(hostOfRank));
        int[] best = interleaved;
        long[] bestScore = score.of(best);
        for (List<Integer> sequence : sequences) {
            for (int runs = 1; runs <= n; runs++) {
                int[] candidate = dealt(sequence, runs);
                long[] s = score.of(candidate);
                if (RingScore.better(s, bestScore)) {
                    best = candidate;
                    bestScore = s;
                }
            }
        }
        long budget = Math.max(1, SEARCH_WORK / n); // ring evaluations, each O(n)
        boolean improved = true;
        while (improved && budget > 0) {
            improved = false;
            for (int i = 0; i < n && budget > 0; i++) {
                for (int t = i + 1; t < n && budget > 0; t++) {
                    if (hostId[best[i]] == hostId[best[t]]) {
                        continue;
                    }
                    swap(best, i, t);
                    budget--;
                    long[] s = score.of(best);
                    if (RingScore.better(s, bestScore)) {
                        bestScore = s;
                        improved = true;
                    } else {
                        swap(best, i, t);
                    }
                }
            }
        }
        return RingOrder.of(best);
    }

    /** Bound on the search's work (rank visits): a fraction of a second for any job size. */
    private static final long SEARCH_WORK = 20_000_000L;

    private static void swap(int[] a, int i, int t) {
        int x = a[i];
        a[i] = a[t];
        a[t] = x;
    }

    /**
     * A second candidate sequence: the largest hosts' ranks grouped, followed by the other hosts' ranks
     * already interleaved among themselves (recursively), so that dealing spreads the smaller hosts too.
     */
    private static List<Integer> nested(List<String> hostOfRank) {
        Map<String, List<Integer>> byHost = new LinkedHashMap<>();
        for (int r = 0; r < hostOfRank.size(); r++) {
            byHost.computeIfAbsent(hostOfRank.get(r), h -> new ArrayList<>()).add(r);
        }
        List<List<Integer>> groups = new ArrayList<>(byHost.values());
        groups.sort((x, y) -> Integer.compare(y.size(), x.size()));
        return nestedGroups(groups);
    }

    private static List<Integer> nestedGroups(List<List<Integer>> groups) {
        List<Integer> out = new ArrayList<>();
        if (groups.isEmpty()) {
            return out;
        }
        int largest = groups.get(0).size();
        int i = 0;
        while (i < groups.size() && groups.get(i).size() == largest) {
            out.addAll(groups.get(i++));
        }
        List<List<Integer>> rest = groups.subList(i, groups.size());
        if (!rest.isEmpty()) {
            for (int r : dealt(nestedGroups(rest), rest.get(0).size())) {
                out.add(r);
            }
        }
        return out;
    }

    /** Scores a ring (ranks in ring order) for the search; larger is better, compared lexicographically. */
    private static final class RingScore {
        private final int[] hostId;
        private final int replicas;
        private final int guaranteed;
        private final int[] count;
        private final int[] last;

        RingScore(int[] hostId, int hosts, int replicas, int guaranteed) {
            this.hostId = hostId;
            this.replicas = replicas;
            this.guaranteed = guaranteed;
            this.count = new int[hosts];
            this.last = new int[hosts];
        }

        /** @return {guarantee kept (1/0), host losses survived, first holders on distinct other hosts, -weakest windows} */
        long[] of(int[] ring) {
            int n = ring.length;
            int w = replicas + 1;
            java.util.Arrays.fill(count, 0);
            int distinct = 0;
            for (int d = 0; d < w; d++) {
                if (count[hostId[ring[d]]]++ == 0) {
                    distinct++;
                }
            }
            int fewest = distinct;
            int weakest = 1;
            for (int p = 1; p < n; p++) {
                if (--count[hostId[ring[p - 1]]] == 0) {
                    distinct--;
                }
                if (count[hostId[ring[(p + w - 1) % n]]]++ == 0) {
                    distinct++;
                }
                if (distinct < fewest) {
                    fewest = distinct;
                    weakest = 1;
                } else if (distinct == fewest) {
                    weakest++;
                }
            }
            // the smallest ring distance between two ranks of one host (n when no host has two)
            java.util.Arrays.fill(last, -1);
            int gap = n;
            for (int p = 0; p < 2 * n; p++) {
                int h = hostId[ring[p % n]];
                if (last[h] >= 0 && p - last[h] < gap && p - last[h] > 0) {
                    gap = p - last[h];
                }
                last[h] = p;
            }
            int offHost = Math.min(replicas, gap - 1);
            return new long[] {offHost >= guaranteed ? 1 : 0, fewest - 1, offHost, -weakest};
        }

        static boolean better(long[] a, long[] b) {
            for (int i = 0; i < a.length; i++) {
                if (a[i] != b[i]) {
                    return a[i] > b[i];
                }
            }
            return false;
        }
    }

    /** The ranks grouped by host, larger hosts first (ties in order of first rank), ranks ascending. */
    private static List<Integer> groupedByHost(List<String> hostOfRank) {
        Map<String, List<Integer>> byHost = new LinkedHashMap<>();
        for (int r = 0; r < hostOfRank.size(); r++) {
            byHost.computeIfAbsent(hostOfRank.get(r), h -> new ArrayList<>()).add(r);
        }
        List<List<Integer>> groups = new ArrayList<>(byHost.values());
        groups.sort((x, y) -> Integer.compare(y.size(), x.size())); // stable: ties keep host order
        List<Integer> grouped = new ArrayList<>(hostOfRank.size());
        groups.forEach(grouped::addAll);
        return grouped;
    }

    private static int largestHost(List<String> hostOfRank) {
        Map<String, Integer> counts = new LinkedHashMap<>();
        int largest = 0;
        for (String h : hostOfRank) {
            largest = Math.max(largest, counts.merge(h, 1, Integer::sum));
        }
        return largest;
    }

    /** Deals the grouped ranks round-robin into {@code runs} runs and concatenates the runs. */
    private static int[] dealt(List<Integer> grouped, int runs) {
        List<List<Integer>> run = new ArrayList<>(runs);
        for (int i = 0; i < runs; i++) {
            run.add(new ArrayList<>());
        }
        for (int i = 0; i < grouped.size(); i++) {
            run.get(i % runs).add(grouped.get(i));
        }
        int[] order = new int[grouped.size()];
        int p = 0;
        for (List<Integer> rr : run) {
            for (int r : rr) {
                order[p++] = r;
            }
        }
        return order;
    }

    /** @return the ring order */
    public RingOrder ring() {
        return ring;
    }

    /** @return m */
    public int replicas() {
        return replicas;
    }

    /** @return the number of ranks */
    public int size() {
        return hostOfRank.size();
    }

    /** @return the host of a rank */
    public String hostOf(int rank) {
        if (rank < 0 || rank >= hostOfRank.size()) {
            throw new IllegalArgumentException("rank " + rank + " outside 0.." + (hostOfRank.size() - 1));
        }
        return hostOfRank.get(rank);
    }

    /** @return the m ranks holding copies of {@code rank}'s data, nearest first */
    public List<Integer> holders(int rank) {
        List<Integer> h = new ArrayList<>(replicas);
        for (int d = 1; d <= replicas; d++) {
            h.add(ring.successor(rank, d));
        }
        return h;
    }

    /** @return the hosts of {@link #holders(int)}, in the same order */
    public List<String> holderHosts(int rank) {
        List<String> h = new ArrayList<>(replicas);
        for (int holder : holders(rank)) { // holders() checks the rank
            h.add(hostOfRank.get(holder));
        }
        return h;
    }

    /** @return the number of distinct hosts running ranks */
    public int hostCount() {
        return new HashSet<>(hostOfRank).size();
    }

    /**
     * @return how many whole hosts may be lost at once with every rank's data still in a surviving memory
     *         (0..m); more losses need the disk level
     */
    public int hostLossesSurvived() {
        return survived;
    }

    /**
     * @return the largest j (0..m) such that every rank's first j holders are on j distinct hosts, none of
     *         them the rank's own
     */
    public int holdersOnDistinctOtherHosts() {
        return offHost;
    }

    /** @return whether every rank's m holders are on m distinct hosts other than its own */
    public boolean fullyDistinct() {
        return offHost == replicas;
    }

    /**
     * @return when the hosts cannot give every rank m holders on m distinct other hosts: what happens
     *         instead, what it means, and what would fix it; empty otherwise
     */
    public Optional<String> warning() {
        if (fullyDistinct()) {
            return Optional.empty();
        }
        int n = hostOfRank.size();
        int hosts = hostCount();
        Map<String, Integer> counts = new LinkedHashMap<>();
        for (String h : hostOfRank) {
            counts.merge(h, 1, Integer::sum);
        }
        String biggest = null;
        for (Map.Entry<String, Integer> e : counts.entrySet()) {
            if (biggest == null || e.getValue() > counts.get(biggest)) {
                biggest = e.getKey();
            }
        }
        int example = -1;
        for (int r = 0; r < n && example < 0; r++) {
            Set<String> seen = new HashSet<>();
            seen.add(hostOfRank.get(r));
            for (String h : holderHosts(r)) {
                if (!seen.add(h)) {
                    example = r;
                    break;
                }
            }
        }
        int perHost = n / (replicas + 1);
        StringBuilder b = new StringBuilder("placement warning: ");
        if (hosts < replicas + 1) {
            b.append(hosts == 1 ? "1 host cannot" : hosts + " hosts cannot")
                    .append(" give every rank m = ").append(replicas).append(holdersText())
                    .append(" (a rank and its holders need ").append(replicas + 1).append(" hosts)");
        } else {
            b.append("host ").append(biggest).append(" runs ").append(counts.get(biggest)).append(" of the ").append(n)
                    .append(" ranks, so the ").append(hosts).append(" hosts cannot give every rank m = ").append(replicas)
                    .append(holdersText())
                    .append(" (that needs at most ").append(perHost).append(" ranks per host)");
        }
        b.append("; e.g. rank ").append(example).append(" on ").append(hostOfRank.get(example))
                .append(" has its copies on ").append(String.join(", ", holderHosts(example))).append(". ");
        if (survived == 0) {
            b.append("Losing a whole host can lose ranks' data from memory: such a loss restores every rank from"
                    + " the disk level (--disk), or fails the job without one.");
        } else {
            b.append("The job survives the loss of any ").append(survived).append(survived == 1 ? " host" : " hosts")
                    .append(" at once from memory, not ").append(replicas).append(": losing more before the copies are"
                    + " made again restores every rank from the disk level (--disk), or fails the job without one.");
        }
        b.append(" For ").append(replicas).append(" distinct holders use at least ").append(replicas + 1)
                .append(" hosts with at most n/(m+1) ranks each, or a smaller m.");
        return Optional.of(b.toString());
    }

    private String holdersText() {
        return replicas == 1 ? " holder on another host" : " holders on " + replicas + " distinct other hosts";
    }

    /**
     * @return one line for the job's start, e.g. {@code "copies: m = 2 on 3 hosts, ring 0,2,4,1,3,5; every
     *         rank's 2 holders are on 2 other hosts; survives the loss of any 2 hosts from memory"}
     */
    public String summary() {
        int hosts = hostCount();
        StringBuilder b = new StringBuilder("copies: m = ").append(replicas).append(" on ").append(hosts)
                .append(hosts == 1 ? " host" : " hosts").append(", ring ").append(ring.text()).append("; ");
        if (replicas == 0) {
            b.append("no copies in memory: a host loss restores from the disk level");
            return b.toString();
        }
        if (fullyDistinct()) {
            b.append("every rank's ").append(replicas == 1 ? "holder is on another host"
                    : replicas + " holders are on " + replicas + " other hosts");
        } else {
            b.append("holders not on ").append(replicas).append(" distinct other hosts (see the warning)");
        }
        b.append("; survives the loss of ");
        b.append(survived == 0 ? "no host" : "any " + survived + (survived == 1 ? " host" : " hosts"));
        b.append(" from memory");
        return b.toString();
    }

    /** @return one line per rank: {@code rank 0 (a) -> 2 (b), 4 (c)} */
    public List<String> describeHolders() {
        List<String> lines = new ArrayList<>(hostOfRank.size());
        for (int r = 0; r < hostOfRank.size(); r++) {
            StringBuilder b = new StringBuilder("rank ").append(r).append(" (").append(hostOfRank.get(r)).append(") -> ");
            List<Integer> h = holders(r);
            for (int i = 0; i < h.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(h.get(i)).append(" (").append(hostOfRank.get(h.get(i))).append(')');
            }
            lines.add(b.toString());
        }
        return lines;
    }

    /** @return {@link #summary()} */
    @Override
    public String toString() {
        return summary();
    }
}
