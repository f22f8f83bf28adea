package io.jckpt.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The ring order: identity matches the historical rank+d modulo n, permutations are checked, the text form round-trips. */
class RingOrderTest {
    @Test
    void identityIsRankPlusDistanceModuloN() {
        for (int n = 1; n <= 7; n++) {
            RingOrder ring = RingOrder.identity(n);
            assertTrue(ring.isIdentity());
            for (int r = 0; r < n; r++) {
                assertEquals((r + 1) % n, ring.next(r));
                assertEquals(Math.floorMod(r - 1, n), ring.previous(r));
                for (int d = -2 * n; d <= 2 * n; d++) {
                    assertEquals(Math.floorMod(r + d, n), ring.successor(r, d), "n " + n + " rank " + r + " d " + d);
                    assertEquals(Math.floorMod(r - d, n), ring.predecessor(r, d));
                }
                for (int h = 0; h < n; h++) {
                    assertEquals(Math.floorMod(h - r, n), ring.distance(r, h));
                }
            }
        }
    }

    @Test
    void everyPermutationOfFiveIsConsistent() {
        for (int[] p : permutations(5)) {
            RingOrder ring = RingOrder.of(p);
            assertEquals(RingOrder.parse(ring.text()), ring);
            assertEquals(ring.hashCode(), RingOrder.parse(ring.text()).hashCode());
            for (int pos = 0; pos < 5; pos++) {
                int r = ring.rankAt(pos);
                assertEquals(pos, ring.positionOf(r));
                assertEquals(p[(pos + 1) % 5], ring.next(r));
                assertEquals(p[(pos + 4) % 5], ring.previous(r));
                for (int d = 0; d < 5; d++) {
                    int holder = ring.successor(r, d);
                    assertEquals(d, ring.distance(r, holder));
                    assertEquals(r, ring.predecessor(holder, d));
                }
            }
        }
    }

    @Test
    void ofCopiesItsArgument() {
        int[] a = {2, 0, 1};
        RingOrder ring = RingOrder.of(a);
        a[0] = 0;
        assertEquals("2,0,1", ring.text());
        assertFalse(ring.isIdentity());
        assertNotEquals(RingOrder.identity(3), ring);
        assertEquals("RingOrder[2,0,1]", ring.toString());
        int[] ranks = ring.ranks();
        ranks[1] = 2;
        assertEquals(0, ring.rankAt(1), "ranks() is a copy");
        assertEquals(ring, RingOrder.of(2, 0, 1));
    }

    @Test
    void badOrdersNameTheProblem() {
        assertEquals("ring order [0, 1, 1]: rank 1 appears at positions 1 and 2",
                assertThrows(IllegalArgumentException.class, () -> RingOrder.of(0, 1, 1)).getMessage());
        assertEquals("ring order [0, 3, 1]: rank 3 at position 1 is outside 0..2",
                assertThrows(IllegalArgumentException.class, () -> RingOrder.of(0, 3, 1)).getMessage());
        assertEquals("ring order [0, -1]: rank -1 at position 1 is outside 0..1",
                assertThrows(IllegalArgumentException.class, () -> RingOrder.of(0, -1)).getMessage());
        assertThrows(IllegalArgumentException.class, RingOrder::of);
        assertThrows(IllegalArgumentException.class, () -> RingOrder.identity(0));
        assertEquals("ring order '0,x,1': 'x' at position 1 is not a rank number",
                assertThrows(IllegalArgumentException.class, () -> RingOrder.parse("0,x,1")).getMessage());
        assertThrows(IllegalArgumentException.class, () -> RingOrder.parse(""));
        assertThrows(IllegalArgumentException.class, () -> RingOrder.parse("0,,1"));
        assertEquals("rank 3 outside 0..2 of a ring of 3",
                assertThrows(IllegalArgumentException.class, () -> RingOrder.identity(3).next(3)).getMessage());
        assertThrows(IllegalArgumentException.class, () -> RingOrder.identity(3).rankAt(-1));
    }

    @Test
    void parseAcceptsSpaces() {
        assertEquals(RingOrder.of(1, 0, 2), RingOrder.parse(" 1, 0 ,2"));
    }

    private static List<int[]> permutations(int n) {
        List<int[]> out = new ArrayList<>();
        permute(new int[n], new boolean[n], 0, out);
        return out;
    }

    private static void permute(int[] a, boolean[] used, int i, List<int[]> out) {
        if (i == a.length) {
            out.add(a.clone());
            return;
        }
        for (int v = 0; v < a.length; v++) {
            if (!used[v]) {
                used[v] = true;
                a[i] = v;
                permute(a, used, i + 1, out);
                used[v] = false;
            }
        }
    }
}
