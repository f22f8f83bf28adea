package io.jckpt.imem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The ring's order of the ranks: neighbours, distances, validation, and what the store config derives from it. */
class RankRingTest {
    private static final RankRing SPREAD = RankRing.of(0, 2, 4, 1, 3, 5);

    @Test
    void identityIsRankOrder() {
        RankRing r = RankRing.identity(5);
        assertTrue(r.isIdentity());
        for (int rank = 0; rank < 5; rank++) {
            assertEquals((rank + 1) % 5, r.next(rank));
            assertEquals((rank + 4) % 5, r.previous(rank));
            for (int d = 0; d < 5; d++) {
                assertEquals((rank + d) % 5, r.successor(rank, d));
                assertEquals(Math.floorMod(rank - d, 5), r.predecessor(rank, d));
                assertEquals(d, r.distance(rank, (rank + d) % 5));
            }
        }
        assertEquals("0,1,2,3,4", r.text());
        assertEquals(RankRing.of(0, 1, 2, 3, 4), r);
    }

    @Test
    void aPermutationGivesItsNeighboursAndDistances() {
        assertFalse(SPREAD.isIdentity());
        assertEquals(6, SPREAD.size());
        assertEquals(2, SPREAD.next(0));
        assertEquals(5, SPREAD.previous(0));
        assertEquals(3, SPREAD.next(1));
        assertEquals(4, SPREAD.previous(1));
        assertEquals(0, SPREAD.next(5)); // wraps around
        assertEquals(4, SPREAD.successor(0, 2));
        assertEquals(1, SPREAD.successor(0, 3));
        assertEquals(1, SPREAD.successor(0, -3));
        assertEquals(3, SPREAD.predecessor(0, 2));
        assertEquals(3, SPREAD.distance(0, 1));
        assertEquals(3, SPREAD.distance(1, 0));
        assertEquals(1, SPREAD.distance(4, 1));
        assertEquals(0, SPREAD.distance(3, 3));
        for (int a = 0; a < 6; a++) {
            for (int d = 0; d < 6; d++) {
                assertEquals(d, SPREAD.distance(a, SPREAD.successor(a, d)));
                assertEquals(a, SPREAD.predecessor(SPREAD.successor(a, d), d));
            }
        }
        assertEquals("0,2,4,1,3,5", SPREAD.text());
        assertArrayEquals(new int[] {0, 2, 4, 1, 3, 5}, SPREAD.ranks());
        assertNotEquals(RankRing.identity(6), SPREAD);
    }

    @Test
    void theRanksArrayIsCopiedBothWays() {
        int[] a = {1, 0, 2};
        RankRing r = RankRing.of(a);
        a[0] = 0;
        assertEquals(0, r.next(1));
        r.ranks()[0] = 2;
        assertEquals("1,0,2", r.text());
    }

    @Test
    void notAPermutationIsRejectedNamingTheRank() {
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RankRing.of(0, 2, 2)).getMessage()
                .contains("rank 2 appears at positions 1 and 2"));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> RankRing.of(0, 3, 1)).getMessage()
                .contains("rank 3 at position 1 is outside 0..2"));
        assertThrows(IllegalArgumentException.class, () -> RankRing.of());
        assertThrows(IllegalArgumentException.class, () -> RankRing.identity(0));
        assertTrue(assertThrows(IllegalArgumentException.class, () -> SPREAD.next(6)).getMessage().contains("rank 6"));
    }

    @Test
    void theStoreHoldsItsRingPredecessors() {
        Path dir = Path.of("unused");
        ReplicaStoreConfig c = new ReplicaStoreConfig(dir, 1, 6, 2, 2, 1024, 1 << 20, SPREAD);
        assertEquals(1, c.ownerAt(0));
        assertEquals(4, c.ownerAt(1));
        assertEquals(2, c.ownerAt(2));
        assertEquals(1, c.distanceFrom(4));
        assertEquals(3, c.distanceFrom(0));
        ReplicaStoreConfig identity = new ReplicaStoreConfig(dir, 1, 6, 2, 2, 1024, 1 << 20);
        assertEquals(RankRing.identity(6), identity.ring());
        assertEquals(0, identity.ownerAt(1));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> new ReplicaStoreConfig(dir, 1, 4, 1, 2, 1024, 1 << 20, SPREAD)).getMessage().contains("6 ranks"));
    }
}
