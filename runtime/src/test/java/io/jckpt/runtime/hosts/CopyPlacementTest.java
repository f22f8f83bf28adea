package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.spi.RingOrder;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The placement's guarantees, checked exhaustively over every host layout of up to 9 ranks on up to 5 hosts,
 * every m and both mapping policies, against brute force: the best any ring could do, and what each set of
 * lost hosts really leaves.
 */
class CopyPlacementTest {
    private static final int MAX_RANKS = 9;
    private static final int MAX_HOSTS = 5;

    @Test
    void threeHostsOfTwoRanks() throws Exception {
        RankMapping mapping = RankMapping.map(HostListOption.parse("--host", "a:2,b:2,c:2"), 6, MappingPolicy.SLOT, 0,
                HostList.of("--spare-hosts", List.of()));
        CopyPlacement p = CopyPlacement.plan(mapping, 2);
        assertEquals(RingOrder.of(0, 2, 4, 1, 3, 5), p.ring());
        assertEquals(List.of(2, 4), p.holders(0));
        assertEquals(List.of("b", "c"), p.holderHosts(0));
        assertEquals(List.of(0, 2), p.holders(5));
        assertEquals(2, p.hostLossesSurvived());
        assertTrue(p.fullyDistinct());
        assertEquals(java.util.Optional.empty(), p.warning());
        assertEquals("copies: m = 2 on 3 hosts, ring 0,2,4,1,3,5; every rank's 2 holders are on 2 other hosts;"
                + " survives the loss of any 2 hosts from memory", p.summary());
        assertEquals("rank 0 (a) -> 2 (b), 4 (c)", p.describeHolders().get(0));
        // the historical ring on the same hosts: rank 0's first holder is rank 1, on its own host
        CopyPlacement identity = CopyPlacement.evaluate(RingOrder.identity(6), mapping.hostOfRank(), 2);
        assertEquals(0, identity.holdersOnDistinctOtherHosts());
        assertEquals(1, identity.hostLossesSurvived());
    }

    @Test
    void twoHostsCannotGiveTwoDistinctHolders() {
        CopyPlacement p = CopyPlacement.plan(List.of("a", "a", "b", "b"), 2);
        assertEquals(RingOrder.of(0, 2, 1, 3), p.ring());
        assertEquals(1, p.holdersOnDistinctOtherHosts());
        assertEquals(1, p.hostLossesSurvived());
        assertFalse(p.fullyDistinct());
        assertEquals("placement warning: 2 hosts cannot give every rank m = 2 holders on 2 distinct other hosts"
                + " (a rank and its holders need 3 hosts); e.g. rank 0 on a has its copies on b, a. The job survives"
                + " the loss of any 1 host at once from memory, not 2: losing more before the copies are made again"
                + " restores every rank from the disk level (--disk), or fails the job without one. For 2 distinct"
                + " holders use at least 3 hosts with at most n/(m+1) ranks each, or a smaller m.", p.warning().orElseThrow());
        assertEquals("copies: m = 2 on 2 hosts, ring 0,2,1,3; holders not on 2 distinct other hosts (see the warning);"
                + " survives the loss of any 1 host from memory", p.summary());
    }

    @Test
    void anOverloadedHostIsNamed() {
        CopyPlacement p = CopyPlacement.plan(List.of("a", "a", "a", "b", "c"), 1);
        assertEquals(0, p.hostLossesSurvived());
        assertTrue(p.warning().orElseThrow().startsWith("placement warning: host a runs 3 of the 5 ranks, so the 3 hosts"
                + " cannot give every rank m = 1 holder on another host (that needs at most 2 ranks per host); e.g. rank "),
                p.warning().orElseThrow());
        assertTrue(p.warning().orElseThrow().contains("Losing a whole host can lose ranks' data from memory"));
    }

    @Test
    void oneHostAndNoCopies() {
        CopyPlacement local = CopyPlacement.plan(List.of("h", "h", "h"), 2);
        assertEquals(0, local.hostLossesSurvived());
        assertTrue(local.warning().orElseThrow().startsWith("placement warning: 1 host cannot give"));
        CopyPlacement none = CopyPlacement.plan(List.of("a", "b"), 0);
        assertEquals(0, none.hostLossesSurvived());
        assertEquals(List.of(), none.holders(1));
        assertEquals(java.util.Optional.empty(), none.warning());
        assertEquals("copies: m = 0 on 2 hosts, ring 0,1; no copies in memory: a host loss restores from the disk level",
                none.summary());
        assertEquals(0, CopyPlacement.plan(List.of("a"), 0).hostLossesSurvived());
    }

    @Test
    void largeJobs() {
        List<String> even = new ArrayList<>();
        for (int r = 0; r < 1024; r++) {
            even.add("node" + r / 64); // 16 hosts of 64 ranks, by slot
        }
        CopyPlacement p = CopyPlacement.plan(even, 3);
        assertTrue(p.fullyDistinct());
        assertEquals(3, p.hostLossesSurvived());
        assertEquals(3, trueSurvivalOfWindows(p, even));

        List<String> uneven = new ArrayList<>();
        for (int r = 0; r < 1000; r++) {
            uneven.add(r < 600 ? "big" : r < 900 ? "mid" : "small");
        }
        CopyPlacement q = CopyPlacement.plan(uneven, 2); // big runs 600 > 1000/2: some copies stay on big
        assertFalse(q.fullyDistinct());
        assertEquals(0, q.holdersOnDistinctOtherHosts());
        assertEquals(q.hostLossesSurvived(), trueSurvivalOfWindows(q, uneven));
        assertEquals(1, q.hostLossesSurvived(), "a pair of big ranks never meets a third: every window of 3 has another host");
    }

    /** Fewest distinct hosts among a rank and its holders, minus one. */
    private static int trueSurvivalOfWindows(CopyPlacement p, List<String> hostOf) {
        int fewest = Integer.MAX_VALUE;
        for (int r = 0; r < hostOf.size(); r++) {
            Set<String> hosts = new HashSet<>(p.holderHosts(r));
            hosts.add(hostOf.get(r));
            fewest = Math.min(fewest, hosts.size());
        }
        return fewest - 1;
    }

    @Test
    void badInput() {
        assertEquals("m = 2 copies for 2 ranks: m must be 0..1",
                assertThrows(IllegalArgumentException.class, () -> CopyPlacement.plan(List.of("a", "b"), 2)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> CopyPlacement.plan(List.of("a", "b"), -1));
        assertThrows(IllegalArgumentException.class, () -> CopyPlacement.plan(List.of(), 0));
        assertEquals("a ring of 3 ranks for 2 ranks with hosts", assertThrows(IllegalArgumentException.class,
                () -> CopyPlacement.evaluate(RingOrder.identity(3), List.of("a", "b"), 1)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> CopyPlacement.plan(List.of("a", "b"), 1).hostOf(2));
    }

    @Test
    void guaranteesOverEverySmallLayout() throws Exception {
        int cases = 0;
        for (List<Integer> counts : partitions(MAX_RANKS, MAX_HOSTS)) {
            int n = counts.stream().mapToInt(Integer::intValue).sum();
            int biggest = counts.get(0);
            StringBuilder list = new StringBuilder();
            for (int h = 0; h < counts.size(); h++) {
                list.append(h == 0 ? "" : ",").append("h").append(h).append(':').append(counts.get(h));
            }
            int[][] best = bestSurvival(counts, n);
            for (MappingPolicy policy : MappingPolicy.values()) {
                RankMapping mapping = RankMapping.map(HostListOption.parse("--host", list.toString()), n, policy, 0,
                        HostList.of("--spare-hosts", List.of()));
                for (int m = 0; m <= n - 1; m++) {
                    String what = list + " " + policy + " m " + m;
                    CopyPlacement p = CopyPlacement.plan(mapping, m);
                    List<String> hostOf = mapping.hostOfRank();
                    checkHolders(p, hostOf, m, what);
                    // the holders are on j distinct other hosts whenever any ring can do that
                    for (int j = 0; j <= m; j++) {
                        if ((long) biggest * (j + 1) <= n) {
                            assertTrue(p.holdersOnDistinctOtherHosts() >= j, what + ": first " + j + " holders");
                        }
                    }
                    boolean possible = (long) biggest * (m + 1) <= n;
                    assertEquals(possible, p.fullyDistinct(), what);
                    assertEquals(possible, p.warning().isEmpty(), what);
                    if (possible) {
                        assertEquals(m, p.hostLossesSurvived(), what);
                    }
                    // no ring does better: first the guarantee above, then host losses, then distinct first holders
                    if (best != null) {
                        assertEquals(best[m][0], p.hostLossesSurvived(), what + ": the most losses any ring survives");
                        assertEquals(best[m][1], p.holdersOnDistinctOtherHosts(), what + ": the best ring's first holders");
                    }
                    assertEquals(trueSurvival(p.ring(), hostOf, m), p.hostLossesSurvived(), what + ": by brute force");
                    cases++;
                }
            }
        }
        assertTrue(cases > 500, "cases " + cases);
    }

    /** Holders are the m ring successors, distinct ranks, never the owner. */
    private static void checkHolders(CopyPlacement p, List<String> hostOf, int m, String what) {
        int n = hostOf.size();
        for (int r = 0; r < n; r++) {
            List<Integer> holders = p.holders(r);
            assertEquals(m, holders.size(), what);
            assertEquals(m, new HashSet<>(holders).size(), what);
            assertFalse(holders.contains(r), what);
            for (int d = 1; d <= m; d++) {
                assertEquals(p.ring().successor(r, d), (int) holders.get(d - 1), what);
                assertEquals(hostOf.get(holders.get(d - 1)), p.holderHosts(r).get(d - 1), what);
            }
        }
    }

    /** The largest k such that losing any k hosts leaves every rank's data on a surviving host (own store or holder). */
    private static int trueSurvival(RingOrder ring, List<String> hostOf, int m) {
        List<String> hosts = new ArrayList<>(new HashSet<>(hostOf));
        int survived = -1;
        for (int k = 0; k <= hosts.size(); k++) {
            boolean all = true;
            for (int mask = 0; mask < 1 << hosts.size() && all; mask++) {
                if (Integer.bitCount(mask) != k) {
                    continue;
                }
                Set<String> lost = new HashSet<>();
                for (int h = 0; h < hosts.size(); h++) {
                    if ((mask & 1 << h) != 0) {
                        lost.add(hosts.get(h));
                    }
                }
                for (int r = 0; r < hostOf.size() && all; r++) {
                    boolean kept = !lost.contains(hostOf.get(r));
                    for (int d = 1; d <= m; d++) {
                        kept |= !lost.contains(hostOf.get(ring.successor(r, d)));
                    }
                    all = kept;
                }
            }
            if (!all) {
                break;
            }
            survived = k;
        }
        return Math.min(survived, hosts.size() - 1);
    }

    /**
     * For each m: among the rings whose first j holders are on distinct other hosts for every j the
     * interleaving guarantees (c(j+1) <= n), the most whole-host losses survived, and with that the most first
     * holders on distinct other hosts; found by trying every arrangement of host labels around the ring (first
     * label fixed: rotations are equivalent). Null when there are too many arrangements to try.
     */
    private static int[][] bestSurvival(List<Integer> counts, int n) {
        if (n > 8) {
            return null;
        }
        int[][] best = new int[n][];
        int[] left = counts.stream().mapToInt(Integer::intValue).toArray();
        int[] labels = new int[n];
        labels[0] = 0;
        left[0]--;
        arrange(labels, 1, left, best, counts.get(0));
        return best;
    }

    private static void arrange(int[] labels, int i, int[] left, int[][] best, int largest) {
        int n = labels.length;
        if (i == n) {
            for (int m = 0; m < n; m++) {
                int fewest = Integer.MAX_VALUE;
                int distinctFirst = m;
                for (int p = 0; p < n; p++) {
                    Set<Integer> seen = new HashSet<>();
                    for (int d = 0; d <= m; d++) {
                        if (!seen.add(labels[(p + d) % n])) {
                            distinctFirst = Math.min(distinctFirst, d - 1);
                        }
                    }
                    fewest = Math.min(fewest, seen.size());
                }
                int required = 0;
                while (required < m && largest * (required + 2) <= n) {
                    required++;
                }
                if (distinctFirst < required) {
                    continue;
                }
                int[] s = {fewest - 1, distinctFirst};
                if (best[m] == null || s[0] > best[m][0] || (s[0] == best[m][0] && s[1] > best[m][1])) {
                    best[m] = s;
                }
            }
            return;
        }
        for (int h = 0; h < left.length; h++) {
            if (left[h] > 0) {
                left[h]--;
                labels[i] = h;
                arrange(labels, i + 1, left, best, largest);
                left[h]++;
            }
        }
    }

    /** Every multiset of host sizes (descending) with 1..maxRanks ranks on 1..maxHosts hosts. */
    private static List<List<Integer>> partitions(int maxRanks, int maxHosts) {
        List<List<Integer>> out = new ArrayList<>();
        for (int n = 1; n <= maxRanks; n++) {
            partition(n, n, maxHosts, new ArrayList<>(), out);
        }
        return out;
    }

    private static void partition(int rest, int max, int hostsLeft, List<Integer> prefix, List<List<Integer>> out) {
        if (rest == 0) {
            out.add(List.copyOf(prefix));
            return;
        }
        if (hostsLeft == 0) {
            return;
        }
        for (int c = Math.min(rest, max); c >= 1; c--) {
            prefix.add(c);
            partition(rest - c, c, hostsLeft - 1, prefix, out);
            prefix.remove(prefix.size() - 1);
        }
    }
}
