package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.jckpt.cli.UsageException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Mapping ranks to hosts by slot and by node, ranks per node, spare hosts, and -np beyond the slots. */
class RankMappingTest {
    private static final HostList NONE = HostList.of("--spare-hosts", List.of());

    private static HostList hosts(String list) throws UsageException {
        return HostListOption.parse("--host", list);
    }

    @Test
    void bySlotFillsEachHostFirst() throws Exception {
        RankMapping m = RankMapping.map(hosts("a:2,b:2,c:2"), 5, MappingPolicy.SLOT, 0, NONE);
        assertEquals(List.of("a", "a", "b", "b", "c"), m.hostOfRank());
        assertEquals(List.of(4), m.ranksOn("c"));
        assertEquals(List.of(), m.spares());
        assertEquals(Map.of("a", 2, "b", 2, "c", 2), m.capacities());
        assertEquals("a: ranks 0,1; b: ranks 2,3; c: ranks 4", m.describe());
    }

    @Test
    void byNodeGoesRoundTheHostsSkippingFullOnes() throws Exception {
        RankMapping m = RankMapping.map(hosts("a:3,b:1,c:2"), 6, MappingPolicy.NODE, 0, NONE);
        assertEquals(List.of("a", "b", "c", "a", "c", "a"), m.hostOfRank());
        assertEquals(List.of(0, 3, 5), m.ranksOn("a"));
    }

    @Test
    void ranksPerNodeCapsEachHost() throws Exception {
        RankMapping m = RankMapping.map(hosts("a:4,b:4,c:1"), 5, MappingPolicy.SLOT, 2, NONE);
        assertEquals(List.of("a", "a", "b", "b", "c"), m.hostOfRank());
        assertEquals(2, m.capacity("a"));
        assertEquals(1, m.capacity("c"));
        RankMapping byNode = RankMapping.map(hosts("a:4,b:4"), 4, MappingPolicy.NODE, 2, NONE);
        assertEquals(List.of("a", "b", "a", "b"), byNode.hostOfRank());
    }

    @Test
    void hostsBeyondNpAndSpareHostsAreSpares() throws Exception {
        RankMapping m = RankMapping.map(hosts("a:2,b:2,c:2,d"), 4, MappingPolicy.SLOT, 0,
                HostListOption.parse("--spare-hosts", "s1:2,s2"));
        assertEquals(List.of("a", "a", "b", "b"), m.hostOfRank());
        assertEquals(List.of(new Host("a", 2), new Host("b", 2)), m.hosts());
        assertEquals(List.of(new Host("c", 2), new Host("d", 1), new Host("s1", 2), new Host("s2", 1)), m.spares());
        assertEquals("a: ranks 0,1; b: ranks 2,3; spare: c:2, d:1, s1:2, s2:1", m.describe());
        RankMapping byNode = RankMapping.map(hosts("a:2,b:2,c:2"), 2, MappingPolicy.NODE, 0, NONE);
        assertEquals(List.of("a", "b"), byNode.hostOfRank());
        assertEquals(List.of(new Host("c", 2)), byNode.spares());
        assertEquals(List.of("a", "b"), List.copyOf(byNode.hostNames()), "c is a spare");
    }

    @Test
    void npBeyondTheSlotsNamesTheCounts() {
        assertEquals("-np 7 exceeds the 6 slots of the 3 hosts in --host (a:2, b:2, c:2); give more hosts or slots,"
                        + " or a smaller -np",
                assertThrows(UsageException.class,
                        () -> RankMapping.map(hosts("a:2,b:2,c:2"), 7, MappingPolicy.SLOT, 0, NONE)).getMessage());
        assertEquals("-np 5 exceeds the 4 slots of the 2 hosts in --host with --ranks-per-node 2 (a:4, b:4);"
                        + " give more hosts or slots, or a smaller -np",
                assertThrows(UsageException.class,
                        () -> RankMapping.map(hosts("a:4,b:4"), 5, MappingPolicy.NODE, 2, NONE)).getMessage());
        assertEquals("-np 2 exceeds the 1 slots of the 1 host in --host (a:1); give more hosts or slots, or a smaller -np",
                assertThrows(UsageException.class,
                        () -> RankMapping.map(hosts("a"), 2, MappingPolicy.SLOT, 0, NONE)).getMessage());
    }

    @Test
    void otherBadInput() {
        assertEquals("-np must be at least 1, got 0", assertThrows(UsageException.class,
                () -> RankMapping.map(hosts("a"), 0, MappingPolicy.SLOT, 0, NONE)).getMessage());
        assertEquals("host b is both in --host and in --spare-hosts; a spare host must not run ranks from the start",
                assertThrows(UsageException.class, () -> RankMapping.map(hosts("a,b"), 1, MappingPolicy.SLOT, 0,
                        HostListOption.parse("--spare-hosts", "b"))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> RankMapping.local(2).hostOf(2));
        assertThrows(IllegalArgumentException.class, () -> RankMapping.local(2).capacity("elsewhere"));
    }

    @Test
    void everyRankGetsAHostWithinItsCapacity() throws Exception {
        // exhaustive over small host lists: no host above its capacity, by-slot contiguous, by-node balanced
        int[][] layouts = {{1}, {3}, {1, 1}, {2, 1}, {1, 3}, {2, 2, 2}, {3, 1, 2}, {1, 1, 1, 1}, {4, 2, 1, 3}};
        for (int[] slots : layouts) {
            StringBuilder list = new StringBuilder();
            int total = 0;
            for (int h = 0; h < slots.length; h++) {
                list.append(h == 0 ? "" : ",").append("h").append(h).append(':').append(slots[h]);
                total += slots[h];
            }
            for (int cap = 0; cap <= 3; cap++) {
                for (MappingPolicy policy : MappingPolicy.values()) {
                    int capacity = 0;
                    for (int s : slots) {
                        capacity += cap == 0 ? s : Math.min(s, cap);
                    }
                    for (int np = 1; np <= total; np++) {
                        String what = list + " cap " + cap + " " + policy + " np " + np;
                        if (np > capacity) {
                            final int n = np;
                            final int c = cap;
                            assertThrows(UsageException.class,
                                    () -> RankMapping.map(hosts(list.toString()), n, policy, c, NONE), what);
                            continue;
                        }
                        RankMapping m = RankMapping.map(hosts(list.toString()), np, policy, cap, NONE);
                        int[] count = new int[slots.length];
                        int previous = 0;
                        for (int r = 0; r < np; r++) {
                            int h = Integer.parseInt(m.hostOf(r).substring(1));
                            count[h]++;
                            if (policy == MappingPolicy.SLOT) {
                                assertEquals(true, h >= previous, what + ": by slot is contiguous");
                                previous = h;
                            }
                        }
                        int used = 0;
                        for (int h = 0; h < slots.length; h++) {
                            int hostCap = cap == 0 ? slots[h] : Math.min(slots[h], cap);
                            assertEquals(true, count[h] <= hostCap, what);
                            used += count[h] > 0 ? 1 : 0;
                            if (count[h] > 0) {
                                assertEquals(hostCap, m.capacity("h" + h), what);
                            }
                        }
                        assertEquals(used, m.hosts().size(), what);
                        assertEquals(slots.length - used, m.spares().size(), what);
                        if (policy == MappingPolicy.NODE) {
                            for (int h = 0; h < slots.length; h++) {
                                for (int g = 0; g < slots.length; g++) {
                                    int capG = cap == 0 ? slots[g] : Math.min(slots[g], cap);
                                    // a host below its capacity never has 2+ fewer ranks than another host
                                    if (count[g] < capG) {
                                        assertEquals(true, count[h] <= count[g] + 1, what + ": by node is balanced");
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}
