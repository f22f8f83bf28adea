package io.jckpt.codes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The set planner against its model: a partition of the ranks into balanced sets, spread over hosts as far as the hosts allow. */
class SetPlannerTest {
    private static List<String> hosts(int... ranksPerHost) {
        List<String> out = new ArrayList<>();
        for (int h = 0; h < ranksPerHost.length; h++) {
            for (int i = 0; i < ranksPerHost[h]; i++) {
                out.add("node" + h);
            }
        }
        return out;
    }

    @Test
    void sixteenRanksOnFourHostsMakeFourXorSetsEachOnFourHosts() {
        SetPlan plan = SetPlanner.plan(Redundancy.xor(4), hosts(4, 4, 4, 4));
        assertEquals(4, plan.sets().size());
        assertArrayEquals(new int[] {0, 4, 8, 12}, plan.sets().get(0).ranks());
        assertArrayEquals(new int[] {3, 7, 11, 15}, plan.sets().get(3).ranks());
        assertEquals(1, plan.setOf(9).index());
        assertEquals(2, plan.setOf(9).memberOf(9));
        assertTrue(plan.hostsDistinct());
        assertEquals("xor:4: 4 sets of 4 ranks, each on different hosts", plan.placementLine());
    }

    @Test
    void twoHostsCannotHoldXorFourOnDifferentHostsAndTheLineSaysSo() {
        SetPlan plan = SetPlanner.plan(Redundancy.xor(4), hosts(4, 4));
        assertEquals(2, plan.sets().size());
        assertFalse(plan.hostsDistinct());
        assertFalse(plan.survivesHostLoss());
        assertEquals("xor:4: 2 sets of 4 ranks; the hosts do not allow different hosts per set: set 0 has 2 on one host, "
                + "set 1 has 2 on one host; a lost host can take more than 1 member(s) of a set: the disk level covers that",
                plan.placementLine());
        // rs:2+2 on the same hosts: two of a set on each host, and P = 2 survives either host
        SetPlan rs = SetPlanner.plan(Redundancy.rs(2, 2), hosts(4, 4));
        assertTrue(rs.survivesHostLoss());
        assertTrue(rs.placementLine().endsWith("; a lost host still leaves every set rebuildable"), rs.placementLine());
    }

    @Test
    void ranksThatDoNotDivideMakeSmallerBalancedSetsOrOneLargerSet() {
        SetPlan nine = SetPlanner.plan(Redundancy.xor(8), hosts(1, 1, 1, 1, 1, 1, 1, 1, 1));
        assertEquals(List.of(5, 4), nine.sets().stream().map(SetPlan.RedundancySet::size).toList());
        assertEquals("xor:8: 2 sets of 4-5 ranks (9 ranks do not make sets of 8), each on different hosts", nine.placementLine());
        // rs:1+2 over 4 ranks: two sets of 2 could not hold 2 parity parts plus an image: one set of 4
        SetPlan four = SetPlanner.plan(Redundancy.rs(1, 2), hosts(1, 1, 1, 1));
        assertEquals(1, four.sets().size());
        assertEquals(4, four.sets().get(0).size());
        assertEquals("rs:8+2 needs at least 3 ranks (a set of 2 parity part(s) and one image at least); the job has 2",
                assertThrows(IllegalArgumentException.class, () -> SetPlanner.plan(Redundancy.rs(8, 2), hosts(2))).getMessage());
        assertThrows(IllegalArgumentException.class, () -> SetPlanner.plan(Redundancy.copies(1), hosts(2)));
    }

    /** The model, over random jobs: what any valid plan must be, and the spread the hosts allow. */
    @Test
    void randomJobsMatchTheModel() {
        Random random = new Random(2026);
        Redundancy[] codes = {Redundancy.xor(2), Redundancy.xor(4), Redundancy.xor(8), Redundancy.rs(4, 2), Redundancy.rs(8, 2),
            Redundancy.rs(1, 3)};
        for (int trial = 0; trial < 600; trial++) {
            Redundancy r = codes[random.nextInt(codes.length)];
            int hostCount = 1 + random.nextInt(12);
            int[] perHost = new int[hostCount];
            int ranks = 0;
            for (int h = 0; h < hostCount; h++) {
                perHost[h] = random.nextInt(6);
                ranks += perHost[h];
            }
            List<String> hosts = hosts(perHost);
            java.util.Collections.shuffle(hosts, random); // ranks of a host need not be contiguous
            if (ranks < r.parity() + 1) {
                assertThrows(IllegalArgumentException.class, () -> SetPlanner.plan(r, hosts));
                continue;
            }
            SetPlan plan = SetPlanner.plan(r, hosts);
            String job = r + " over " + hosts;
            int g = plan.sets().size();
            // a partition of the ranks, balanced, each set big enough for its code
            Set<Integer> seen = new HashSet<>();
            int min = Integer.MAX_VALUE;
            int max = 0;
            for (SetPlan.RedundancySet s : plan.sets()) {
                for (int rank : s.ranks()) {
                    assertTrue(seen.add(rank), job);
                    assertEquals(hosts.get(rank), s.hosts().get(s.memberOf(rank)), job);
                    assertEquals(s, plan.setOf(rank), job);
                }
                min = Math.min(min, s.size());
                max = Math.max(max, s.size());
                assertTrue(s.size() >= r.parity() + 1, job);
                r.layout(s.size()); // a valid layout
            }
            assertEquals(ranks, seen.size(), job);
            assertTrue(max - min <= 1, job);
            // as many sets as the set size asks, unless that would leave a set too small for P
            int wanted = (ranks + r.setSize() - 1) / r.setSize();
            assertEquals(Math.max(1, Math.min(wanted, ranks / (r.parity() + 1))), g, job);
            assertTrue(max <= r.setSize() || g == ranks / (r.parity() + 1), job);
            // spread: no set has more of a host than the pigeonhole forces, ceil(c / g)
            Map<String, Integer> count = new HashMap<>();
            for (String h : hosts) {
                count.merge(h, 1, Integer::sum);
            }
            int forced = count.values().stream().mapToInt(c -> (c + g - 1) / g).max().orElse(0);
            int most = plan.sets().stream().mapToInt(SetPlan.RedundancySet::mostOnOneHost).max().orElse(0);
            assertEquals(forced, most, job);
            assertEquals(forced == 1, plan.hostsDistinct(), job);
            assertEquals(most <= r.parity(), plan.survivesHostLoss(), job);
            assertEquals(!plan.hostsDistinct(), plan.placementLine().contains("the hosts do not allow"), job);
        }
    }

    @Test
    void memoryHeldForOthersFollowsTheLargestImageOfTheSet() {
        // xor:4 over 8 ranks: sets {0,2,4,6} and {1,3,5,7} (4 hosts of 2); images 3 MiB, set 0's rank 4 has 6 MiB
        SetPlan plan = SetPlanner.plan(Redundancy.xor(4), hosts(2, 2, 2, 2));
        assertArrayEquals(new int[] {0, 2, 4, 6}, plan.sets().get(0).ranks());
        long mib = 1 << 20;
        long[] images = {3 * mib, 3 * mib, 3 * mib, 3 * mib, 6 * mib, 3 * mib, 3 * mib, 3 * mib};
        assertEquals(2 * mib, plan.heldForOthers(0, images)); // padded to 6 MiB: 6/3
        assertEquals(1 * mib, plan.heldForOthers(1, images)); // 3/3
        // rs:8+2 over 10 ranks of 8 MiB each: 2/8 of the image
        SetPlan rs = SetPlanner.plan(Redundancy.rs(8, 2), hosts(1, 1, 1, 1, 1, 1, 1, 1, 1, 1));
        long[] equal = new long[10];
        java.util.Arrays.fill(equal, 8 * mib);
        assertEquals(2 * mib, rs.heldForOthers(9, equal));
    }
}
