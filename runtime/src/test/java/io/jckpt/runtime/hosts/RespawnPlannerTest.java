package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.runtime.hosts.RespawnTarget.Reason;
import io.jckpt.spi.RingOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** Where failed ranks restart: their host if it lives, else a free slot elsewhere, else a spare host. */
class RespawnPlannerTest {
    private static final List<String> THREE_BY_TWO = List.of("a", "a", "b", "b", "c", "c");
    private static final RingOrder RING = CopyPlacement.interleave(THREE_BY_TWO); // 0,2,4,1,3,5

    private static Map<String, Integer> capacities(Object... hostAndCapacity) {
        Map<String, Integer> m = new LinkedHashMap<>();
        for (int i = 0; i < hostAndCapacity.length; i += 2) {
            m.put((String) hostAndCapacity[i], (Integer) hostAndCapacity[i + 1]);
        }
        return m;
    }

    @Test
    void aRankWhoseHostLivesRestartsThere() {
        RespawnPlan plan = RespawnPlanner.plan(THREE_BY_TWO, capacities("a", 2, "b", 2, "c", 2), List.of(),
                Set.of(), List.of(3), RING, 1);
        assertEquals(List.of(new RespawnTarget(3, "b", "b", Reason.SAME_HOST)), plan.targets());
        assertTrue(plan.complete());
        assertEquals(THREE_BY_TWO, plan.hostOfRank());
        assertEquals("rank 3: restarts on its host b", plan.targets().get(0).describe());
    }

    @Test
    void aLostHostsRanksGoToFreeSlotsAwayFromTheirRingNeighbours() {
        // a, b, c have a free slot each; b is lost with ranks 2 and 3. Ring 0,2,4,1,3,5 with m = 1:
        // rank 2's neighbours are 0 (a) and 4 (c), rank 3's are 1 (a) and 5 (c): one neighbour on each live host,
        // so the most free slots decide, then host order.
        RespawnPlan plan = RespawnPlanner.plan(THREE_BY_TWO, capacities("a", 3, "b", 3, "c", 3), List.of(),
                Set.of("b"), List.of(3, 2), RING, 1);
        assertEquals(List.of(new RespawnTarget(2, "b", "a", Reason.FREE_SLOT),
                new RespawnTarget(3, "b", "c", Reason.FREE_SLOT)), plan.targets());
        assertEquals(List.of("a", "a", "a", "c", "c", "c"), plan.hostOfRank());
        assertEquals(Map.of("a", 3, "c", 3), plan.capacities());
        assertEquals("rank 2: host b lost, restarts on a (free slot)", plan.targets().get(0).describe());
    }

    @Test
    void aHostNotAnsweringYetIsLeftForThisPlanOnlyAndKeepsItsSlots() {
        // b has not answered (its probe still runs): its failed rank 3 moves, nothing is placed on b, but b stays
        // a job host with its slots (rank 2, not failed, stays there); spare s2 has not answered either: s1 is taken
        RespawnPlan plan = RespawnPlanner.plan(THREE_BY_TWO, capacities("a", 3, "b", 3, "c", 2),
                List.of(new Host("s2", 2), new Host("s1", 2)), Set.of(), Set.of("b", "s2"), List.of(3), RING, 1);
        assertEquals(List.of(new RespawnTarget(3, "b", "a", Reason.FREE_SLOT, true)), plan.targets());
        assertEquals("rank 3: host b does not answer, restarts on a (free slot)", plan.targets().get(0).describe());
        assertEquals(Map.of("a", 3, "b", 3, "c", 2), plan.capacities());
        assertEquals(List.of(new Host("s2", 2), new Host("s1", 2)), plan.spares(), "both still spares");

        // no free slot on the hosts that answered: the first spare that answered joins
        RespawnPlan spare = RespawnPlanner.plan(THREE_BY_TWO, capacities("a", 2, "b", 2, "c", 2),
                List.of(new Host("s2", 2), new Host("s1", 2)), Set.of(), Set.of("b", "s2"), List.of(3), RING, 1);
        assertEquals(List.of(new RespawnTarget(3, "b", "s1", Reason.SPARE_HOST, true)), spare.targets());
        assertEquals(List.of(new Host("s2", 2)), spare.spares());

        // nowhere else: not placed now (the caller waits for b's verdict), and the reason says b did not answer
        RespawnPlan none = RespawnPlanner.plan(THREE_BY_TWO, capacities("a", 2, "b", 2, "c", 2), List.of(), Set.of(),
                Set.of("b"), List.of(3), RING, 1);
        assertFalse(none.complete());
        assertTrue(none.unplaced().get(3).startsWith("rank 3 (host b not answering): no live host has a free slot"),
                none.unplaced().toString());
    }

    @Test
    void theHostWithFewerRingNeighboursWins() {
        // ring identity over a,b,c,d,e: rank 2 (on c, lost) has neighbours 1 (b) and 3 (d) with m = 1;
        // a and e have no neighbour of it, a comes first; with free slots only on b and e, e wins despite order.
        List<String> hosts = List.of("a", "b", "c", "d", "e");
        RespawnPlan plan = RespawnPlanner.plan(hosts, capacities("a", 1, "b", 2, "c", 1, "d", 1, "e", 2), List.of(),
                Set.of("c"), List.of(2), RingOrder.identity(5), 1);
        assertEquals("e", plan.targets().get(0).host());
    }

    @Test
    void spareHostsWhenNoSlotIsFree() {
        RespawnPlan plan = RespawnPlanner.plan(THREE_BY_TWO, capacities("a", 2, "b", 2, "c", 2),
                List.of(new Host("dead", 4), new Host("s1", 1), new Host("s2", 2)), Set.of("c", "dead"), List.of(4, 5),
                RING, 2);
        assertEquals(List.of(new RespawnTarget(4, "c", "s1", Reason.SPARE_HOST),
                new RespawnTarget(5, "c", "s2", Reason.SPARE_HOST)), plan.targets());
        assertEquals(List.of("a", "a", "b", "b", "s1", "s2"), plan.hostOfRank());
        assertEquals(List.of("a", "b", "s1", "s2"), List.copyOf(plan.capacities().keySet()));
        assertEquals(List.of(), plan.spares());
        assertEquals("rank 4: host c lost, restarts on spare host s1", plan.targets().get(0).describe());

        // a spare with two slots takes both ranks of the lost host; the other spare stays
        RespawnPlan two = RespawnPlanner.plan(THREE_BY_TWO, capacities("a", 2, "b", 2, "c", 2),
                List.of(new Host("s", 2), new Host("t", 1)), Set.of("a"), List.of(0, 1), RING, 1);
        assertEquals(List.of(new RespawnTarget(0, "a", "s", Reason.SPARE_HOST),
                new RespawnTarget(1, "a", "s", Reason.SPARE_HOST)), two.targets());
        assertEquals(List.of(new Host("t", 1)), two.spares());
    }

    @Test
    void sameHostFirstThenOthersAtOnce() {
        // rank 1 failed alone on a living host, ranks 2 and 3 with host b: rank 1 keeps its slot on a,
        // so b's ranks find only c's free slot and a spare
        RespawnPlan plan = RespawnPlanner.plan(THREE_BY_TWO, capacities("a", 2, "b", 2, "c", 3),
                List.of(new Host("s", 1)), Set.of("b"), List.of(1, 2, 3), RING, 1);
        assertEquals(List.of(new RespawnTarget(1, "a", "a", Reason.SAME_HOST),
                new RespawnTarget(2, "b", "c", Reason.FREE_SLOT),
                new RespawnTarget(3, "b", "s", Reason.SPARE_HOST)), plan.targets());
    }

    @Test
    void noHostLeftSaysWhy() {
        RespawnPlan plan = RespawnPlanner.plan(THREE_BY_TWO, capacities("a", 2, "b", 2, "c", 2),
                List.of(new Host("s", 1), new Host("t", 1)), Set.of("b", "t"), List.of(2, 3), RING, 1);
        assertFalse(plan.complete());
        assertEquals(List.of(new RespawnTarget(2, "b", "s", Reason.SPARE_HOST)), plan.targets());
        assertEquals(Map.of(3, "rank 3 (host b lost): no live host has a free slot (a: 2 of 2, c: 2 of 2, s: 1 of 1)"
                + " and no spare host is left (lost spares: t)"), plan.unplaced());
        assertEquals("b", plan.hostOfRank().get(3));
        assertTrue(plan.capacities().containsKey("b"), "b still has an unplaced rank");

        RespawnPlan all = RespawnPlanner.plan(List.of("a"), capacities("a", 1), List.of(), Set.of("a"), List.of(0),
                RingOrder.identity(1), 0);
        assertEquals(Map.of(0, "rank 0 (host a lost): no live host has a free slot (every job host is lost)"
                + " and no spare host is left"), all.unplaced());
    }

    @Test
    void badInput() {
        assertThrows(IllegalArgumentException.class, () -> RespawnPlanner.plan(THREE_BY_TWO,
                capacities("a", 2, "b", 2, "c", 2), List.of(), Set.of(), List.of(6), RING, 1));
        assertThrows(IllegalArgumentException.class, () -> RespawnPlanner.plan(THREE_BY_TWO,
                capacities("a", 2, "b", 2), List.of(), Set.of(), List.of(0), RING, 1));
        assertThrows(IllegalArgumentException.class, () -> RespawnPlanner.plan(THREE_BY_TWO,
                capacities("a", 2, "b", 2, "c", 2), List.of(), Set.of(), List.of(0), RingOrder.identity(5), 1));
    }

    @Test
    void everyPlacedRankGetsALiveHostWithinCapacity() throws Exception {
        // every lost host of every layout of up to 4 hosts x 3 slots, with and without a spare: targets live,
        // capacities respected, ranks of living hosts untouched, and placed whenever free slots + spares suffice
        int[][] layouts = {{1, 1}, {2, 2}, {2, 1, 1}, {3, 2, 1}, {2, 2, 2}, {1, 3, 2, 2}};
        for (int[] slots : layouts) {
            StringBuilder list = new StringBuilder();
            int total = 0;
            for (int h = 0; h < slots.length; h++) {
                list.append(h == 0 ? "" : ",").append("h").append(h).append(':').append(slots[h]);
                total += slots[h];
            }
            for (int np = 1; np <= total; np++) {
                RankMapping mapping = RankMapping.map(HostListOption.parse("--host", list.toString()), np,
                        MappingPolicy.NODE, 0, HostList.of("--spare-hosts", List.of()));
                for (String lost : mapping.hostNames()) {
                    for (List<Host> spares : List.of(List.<Host>of(), List.of(new Host("spare", 2)))) {
                        for (int m = 0; m < np; m++) {
                            String what = list + " np " + np + " lost " + lost + " spares " + spares + " m " + m;
                            RingOrder ring = CopyPlacement.plan(mapping, m).ring();
                            List<Integer> failed = mapping.ranksOn(lost);
                            RespawnPlan plan = RespawnPlanner.plan(mapping.hostOfRank(), mapping.capacities(), spares,
                                    Set.of(lost), failed, ring, m);
                            int free = 0;
                            for (String h : mapping.hostNames()) {
                                if (!h.equals(lost)) {
                                    free += mapping.capacity(h) - mapping.ranksOn(h).size();
                                }
                            }
                            for (Host s : spares) {
                                free += s.slots();
                            }
                            assertEquals(Math.min(free, failed.size()), plan.targets().size(), what);
                            assertEquals(failed.size() - plan.targets().size(), plan.unplaced().size(), what);
                            Map<String, Integer> count = new LinkedHashMap<>();
                            for (int r = 0; r < np; r++) {
                                String h = plan.hostOfRank().get(r);
                                if (!failed.contains(r)) {
                                    assertEquals(mapping.hostOf(r), h, what);
                                } else if (!plan.unplaced().containsKey(r)) {
                                    assertFalse(h.equals(lost), what);
                                }
                                count.merge(h, 1, Integer::sum);
                            }
                            for (Map.Entry<String, Integer> e : count.entrySet()) {
                                if (!e.getKey().equals(lost)) {
                                    assertTrue(e.getValue() <= plan.capacities().get(e.getKey()), what + " " + e);
                                }
                            }
                            for (RespawnTarget t : plan.targets()) {
                                assertEquals(spares.stream().anyMatch(s -> s.name().equals(t.host()))
                                        ? Reason.SPARE_HOST : Reason.FREE_SLOT, t.reason(), what);
                            }
                        }
                    }
                }
            }
        }
    }
}
