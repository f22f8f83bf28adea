package io.jckpt.imem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.wire.CopyStatus;
import io.jckpt.wire.RankStatus;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class RollbackPlannerTest {

    private static Set<Integer> members(int mask, int n) {
        Set<Integer> s = new HashSet<>();
        for (int i = 0; i < n; i++) {
            if ((mask & (1 << i)) != 0) {
                s.add(i);
            }
        }
        return s;
    }

    /** Checks a plan against the model: chosen round, sources, sender lists, determinism, codec. */
    private static void check(RingModel model, Set<Integer> failed, boolean wiped, Random shuffle) {
        int n = model.n;
        List<RankStatus> statuses = model.statuses(failed, wiped);
        RollbackPlan plan = RollbackPlanner.plan(statuses);
        String ctx = "n=" + n + " m=" + model.m + " failed=" + failed + " wiped=" + wiped
                + " progress=" + java.util.Arrays.toString(model.progress) + " plan=" + plan;

        boolean baseOk = true;
        boolean nextOk = true;
        for (int o = 0; o < n; o++) {
            baseOk &= model.baseSurvives(o, failed, wiped);
            nextOk &= model.nextRoundSurvives(o, failed, wiped);
        }
        if (!baseOk && !nextOk) {
            assertFalse(plan.recoverable(), ctx);
            Set<Integer> lost = plan.lost().stream().map(LostData::rank).collect(Collectors.toSet());
            for (int o = 0; o < n; o++) {
                if (!model.baseSurvives(o, failed, wiped) && !model.nextRoundSurvives(o, failed, wiped)) {
                    assertTrue(lost.contains(o) || plan.round() == model.base + 1 && model.nextRoundSurvives(o, failed, wiped), ctx);
                }
            }
            assertFalse(lost.isEmpty(), ctx);
            for (LostData l : plan.lost()) {
                assertFalse(l.reason().isBlank(), ctx);
            }
        } else {
            assertTrue(plan.recoverable(), ctx);
            assertEquals(nextOk ? model.base + 1 : model.base, plan.round(), ctx);
            List<List<Integer>> expectSends = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                expectSends.add(new ArrayList<>());
            }
            for (int r = 0; r < n; r++) {
                RestoreAction a = plan.action(r);
                assertEquals(r, a.rank(), ctx);
                RankStatus local = statuses.get(r);
                if (local.intactCopy(r, plan.round()) != null) {
                    assertEquals(RestoreAction.Kind.LOCAL, a.kind(), ctx);
                    assertEquals(r, a.source(), ctx);
                } else {
                    assertEquals(RestoreAction.Kind.RECEIVE, a.kind(), ctx);
                    // nearest NEXT holder: nobody strictly between r and source holds it
                    int dist = Math.floorMod(a.source() - r, n);
                    assertTrue(dist >= 1 && dist <= model.m, ctx);
                    for (int d = 1; d < dist; d++) {
                        assertEquals(null, statuses.get((r + d) % n).intactCopy(r, plan.round()), ctx);
                    }
                    CopyStatus c = statuses.get(a.source()).intactCopy(r, plan.round());
                    assertEquals(c.length(), a.length(), ctx);
                    assertEquals(c.crc32c(), a.crc32c(), ctx);
                    expectSends.get(a.source()).add(r);
                }
            }
            for (int s = 0; s < n; s++) {
                final int sender = s;
                expectSends.get(s).sort((x, y) -> Integer.compare(Math.floorMod(sender - x, n), Math.floorMod(sender - y, n)));
                assertEquals(expectSends.get(s), plan.sendsTo(s), ctx);
            }
            // refills: exactly the holders within m that lack the owner's copy at the round, served by the owner's source
            List<Refill> expectRefills = new ArrayList<>();
            for (int o = 0; o < n; o++) {
                for (int d = 1; d <= Math.min(model.m, n - 1); d++) {
                    int holder = (o + d) % n;
                    if (statuses.get(holder).intactCopy(o, plan.round()) == null) {
                        RestoreAction a = plan.action(o);
                        assertTrue(statuses.get(a.source()).intactCopy(o, plan.round()) != null, ctx);
                        expectRefills.add(new Refill(o, holder, a.source(), a.length(), a.crc32c()));
                    }
                }
            }
            assertEquals(expectRefills, plan.refills(model.m), ctx);
            if (wiped && plan.round() == model.base) {
                // every wiped rank receives from its nearest surviving NEXT rank (the paper's rule)
                for (int r : failed) {
                    int d = 1;
                    while (failed.contains((r + d) % n)) {
                        d++;
                    }
                    assertEquals((r + d) % n, plan.action(r).source(), ctx);
                }
            }
        }
        // determinism: any input order, and through the binary codec, gives the identical plan
        List<RankStatus> shuffled = new ArrayList<>();
        for (RankStatus s : statuses) {
            shuffled.add(RankStatus.EXCHANGE.decode(RankStatus.EXCHANGE.encode(s)));
        }
        Collections.shuffle(shuffled, shuffle);
        assertEquals(plan, RollbackPlanner.plan(shuffled), ctx);
    }

    @Test
    void exhaustiveFailureSetsUpToSix() {
        Random rnd = new Random(1);
        int cases = 0;
        for (int n = 2; n <= 6; n++) {
            for (int m = 1; m <= n - 1; m++) {
                RingModel model = RingModel.complete(n, m, 5);
                for (int mask = 0; mask < (1 << n); mask++) {
                    Set<Integer> failed = members(mask, n);
                    for (boolean wiped : new boolean[] {true, false}) {
                        check(model, failed, wiped, rnd);
                        cases++;
                        if (failed.size() <= m || !wiped) {
                            RollbackPlan p = RollbackPlanner.plan(model.statuses(failed, wiped));
                            assertTrue(p.recoverable(), "n=" + n + " m=" + m + " " + failed);
                            assertEquals(5, p.round());
                        }
                    }
                }
            }
        }
        assertTrue(cases > 1000);
    }

    @Test
    void mPlusOneAdjacentFailuresAreNotRecoverable() {
        for (int n = 2; n <= 8; n++) {
            for (int m = 1; m <= n - 1; m++) {
                RingModel model = RingModel.complete(n, m, 3);
                for (int start = 0; start < n; start++) {
                    Set<Integer> failed = new HashSet<>();
                    for (int k = 0; k <= m; k++) {
                        failed.add((start + k) % n);
                    }
                    RollbackPlan p = RollbackPlanner.plan(model.statuses(failed, true));
                    assertFalse(p.recoverable());
                    Set<Integer> lost = p.lost().stream().map(LostData::rank).collect(Collectors.toSet());
                    Set<Integer> expect = failed.size() == n ? failed : Set.of(start);
                    assertEquals(expect, lost, "n=" + n + " m=" + m + " start=" + start);
                    assertThrows(IllegalStateException.class, () -> p.action(0));
                }
            }
        }
    }

    @Test
    void skewedRoundsExhaustiveSmall() {
        Random rnd = new Random(2);
        for (int n = 2; n <= 4; n++) {
            for (int m = 1; m <= n - 1; m++) {
                int[] progress = new int[n];
                int combos = (int) Math.pow(m + 2, n);
                for (int c = 0; c < combos; c++) {
                    int x = c;
                    for (int o = 0; o < n; o++) {
                        progress[o] = x % (m + 2);
                        x /= m + 2;
                    }
                    RingModel model = new RingModel(n, m, 10, progress);
                    for (int mask = 0; mask < (1 << n); mask++) {
                        Set<Integer> failed = members(mask, n);
                        if (failed.size() > m) {
                            continue;
                        }
                        check(model, failed, true, rnd);
                        check(model, failed, false, rnd);
                    }
                }
            }
        }
    }

    @Test
    void sampledSevenAndEight() {
        Random rnd = new Random(3);
        for (int n = 7; n <= 8; n++) {
            for (int m = 1; m <= n - 1; m++) {
                for (int sample = 0; sample < 400; sample++) {
                    int[] progress = new int[n];
                    boolean skew = rnd.nextBoolean();
                    for (int o = 0; o < n; o++) {
                        progress[o] = skew ? rnd.nextInt(m + 2) : 0;
                    }
                    Set<Integer> failed = new HashSet<>();
                    int k = rnd.nextInt(m + 2); // sometimes m+1: beyond the guarantee
                    while (failed.size() < k) {
                        failed.add(rnd.nextInt(n));
                    }
                    check(new RingModel(n, m, 7, progress), failed, rnd.nextInt(4) != 0, rnd);
                }
            }
        }
    }

    private static List<RankStatus> corrupt(List<RankStatus> in, int holder, int owner, long round) {
        List<RankStatus> out = new ArrayList<>();
        for (RankStatus s : in) {
            if (s.rank() != holder) {
                out.add(s);
                continue;
            }
            List<CopyStatus> copies = new ArrayList<>();
            for (CopyStatus c : s.copies()) {
                copies.add(c.owner() == owner && c.round() == round
                        ? new CopyStatus(c.owner(), c.round(), c.length(), c.crc32c(), false) : c);
            }
            out.add(new RankStatus(s.rank(), s.fresh(), copies));
        }
        return out;
    }

    @Test
    void corruptReplicaUsesAnotherCopyOrOlderRound() {
        // m = 2: the nearest holder's copy is corrupt, the next one is used
        RingModel m2 = RingModel.complete(4, 2, 5);
        RollbackPlan p = RollbackPlanner.plan(corrupt(m2.statuses(Set.of(1), true), 2, 1, 5));
        assertTrue(p.recoverable());
        assertEquals(5, p.round());
        assertEquals(3, p.action(1).source());
        assertEquals(List.of(1), p.sendsTo(3));
        assertEquals(List.of(), p.sendsTo(2));

        // m = 1: the only replica of round 5 is corrupt: everyone goes back to round 4
        RingModel m1 = RingModel.complete(4, 1, 5);
        p = RollbackPlanner.plan(corrupt(m1.statuses(Set.of(1), true), 2, 1, 5));
        assertTrue(p.recoverable());
        assertEquals(4, p.round());
        assertEquals(new RestoreAction(1, RestoreAction.Kind.RECEIVE, 2, RingModel.len(1, 4), RingModel.crc(1, 4)), p.action(1));
        assertEquals(RestoreAction.Kind.LOCAL, p.action(0).kind());

        // both versions corrupt: not recoverable, the reason names the corrupt holder
        p = RollbackPlanner.plan(corrupt(corrupt(m1.statuses(Set.of(1), true), 2, 1, 5), 2, 1, 4));
        assertFalse(p.recoverable());
        assertEquals(1, p.lost().size());
        assertEquals(1, p.lost().get(0).rank());
        assertTrue(p.lost().get(0).reason().contains("copies refused at ranks [2]"), p.lost().get(0).reason());

        // a survivor whose own copy is corrupt receives it from its NEXT neighbour
        p = RollbackPlanner.plan(corrupt(m1.statuses(Set.of(), true), 2, 2, 5));
        assertTrue(p.recoverable());
        assertEquals(5, p.round());
        assertEquals(new RestoreAction(2, RestoreAction.Kind.RECEIVE, 3, RingModel.len(2, 5), RingModel.crc(2, 5)), p.action(2));
    }

    @Test
    void consecutiveNewRanksAllServedByOneSurvivor() {
        RingModel model = RingModel.complete(6, 3, 9);
        RollbackPlan p = RollbackPlanner.plan(model.statuses(Set.of(1, 2, 3), true));
        assertTrue(p.recoverable());
        assertEquals(List.of(3, 2, 1), p.sendsTo(4));
        for (int r : new int[] {0, 4, 5}) {
            assertEquals(RestoreAction.Kind.LOCAL, p.action(r).kind());
        }
        // the new ranks held nothing: every copy they hold for their predecessors (m = 3) is refilled
        List<String> refills = p.refills(3).stream().map(f -> f.owner() + "->" + f.holder() + " from " + f.source()).toList();
        assertEquals(List.of("0->1 from 0", "0->2 from 0", "0->3 from 0", "1->2 from 4", "1->3 from 4", "2->3 from 4",
                "4->1 from 4", "5->1 from 5", "5->2 from 5"), refills);
        assertEquals(List.of(), RollbackPlanner.plan(model.statuses(Set.of(1, 2, 3), false)).refills(3),
                "their stores survived: every copy is in place");
    }

    @Test
    void nothingAnywhereIsNotRecoverable() {
        List<RankStatus> s = List.of(new RankStatus(0, true, List.of()), new RankStatus(1, true, List.of()));
        RollbackPlan p = RollbackPlanner.plan(s);
        assertFalse(p.recoverable());
        assertEquals(-1, p.round());
        assertEquals(2, p.lost().size());
    }

    @Test
    void badInputRejected() {
        assertThrows(IllegalArgumentException.class, () -> RollbackPlanner.plan(List.of()));
        assertThrows(IllegalArgumentException.class, () -> RollbackPlanner.plan(
                List.of(new RankStatus(0, false, List.of()), new RankStatus(0, false, List.of()))));
        assertThrows(IllegalArgumentException.class, () -> RollbackPlanner.plan(
                List.of(new RankStatus(0, false, List.of()), new RankStatus(2, false, List.of()))));
        assertThrows(IllegalArgumentException.class, () -> RollbackPlanner.plan(
                List.of(new RankStatus(0, false, List.of(new CopyStatus(5, 1, 1, 1, true))))));
    }
}
