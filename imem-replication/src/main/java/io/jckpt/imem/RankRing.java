package io.jckpt.imem;

import java.util.Arrays;

/**
 * The order of the ranks on the replication ring: a permutation of {@code 0..n-1}. Rank r's m copies
 * go to the m ranks after it on the ring ({@link #successor(int, int) successor(r, 1..m)}), and r holds
 * the copies of the m ranks before it ({@link #predecessor(int, int) predecessor(r, 1..m)}); the ring
 * distance from an owner to a holder is the copy's hop and the index of its slots in the holder's
 * store. The {@linkplain #identity(int) identity} is the rank order (holders r+1..r+m modulo n); the
 * launcher may choose another one so that a rank's holders live on other hosts.
 *
 * <p>Immutable and pure; the same on every rank for the life of a job. This module's own form of the
 * API's {@code io.jckpt.spi.RingOrder} (this module does not depend on the API): the policy converts
 * with {@code RankRing.of(ringOrder.ranks())}.
 */
public final class RankRing {
    private final int[] rankAt;
    private final int[] positionOf;

    private RankRing(int[] rankAt) {
        if (rankAt.length < 1) {
            throw new IllegalArgumentException("a ring needs at least 1 rank, got none");
        }
        this.rankAt = rankAt;
        this.positionOf = new int[rankAt.length];
        Arrays.fill(positionOf, -1);
        for (int p = 0; p < rankAt.length; p++) {
            int r = rankAt[p];
            if (r < 0 || r >= rankAt.length) {
                throw new IllegalArgumentException("ring " + Arrays.toString(rankAt) + ": rank " + r + " at position " + p
                        + " is outside 0.." + (rankAt.length - 1));
            }
            if (positionOf[r] >= 0) {
                throw new IllegalArgumentException("ring " + Arrays.toString(rankAt) + ": rank " + r + " appears at positions "
                        + positionOf[r] + " and " + p);
            }
            positionOf[r] = p;
        }
    }

    /**
     * @param n number of ranks, at least 1
     * @return the rank order 0, 1, ..., n-1
     */
    public static RankRing identity(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("a ring needs at least 1 rank, got " + n);
        }
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return new RankRing(a);
    }

    /**
     * @param ranksInRingOrder every rank 0..n-1 exactly once, in ring order (copied)
     * @return that ring
     * @throws IllegalArgumentException naming the missing, repeated or out-of-range rank
     */
    public static RankRing of(int... ranksInRingOrder) {
        return new RankRing(ranksInRingOrder.clone());
    }

    /** @return n */
    public int size() {
        return rankAt.length;
    }

    /** @return whether this is the rank order 0, 1, ..., n-1 */
    public boolean isIdentity() {
        for (int p = 0; p < rankAt.length; p++) {
            if (rankAt[p] != p) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param rank     0..n-1
     * @param distance any integer (negative goes backwards)
     * @return the rank {@code distance} places after {@code rank}
     */
    public int successor(int rank, int distance) {
        return rankAt[Math.floorMod(position(rank) + distance, rankAt.length)];
    }

    /**
     * @param rank     0..n-1
     * @param distance any integer
     * @return the rank {@code distance} places before {@code rank}
     */
    public int predecessor(int rank, int distance) {
        return successor(rank, -distance);
    }

    /** @return the rank {@code rank} sends its copies to */
    public int next(int rank) {
        return successor(rank, 1);
    }

    /** @return the rank {@code rank} receives copies from */
    public int previous(int rank) {
        return successor(rank, -1);
    }

    /**
     * @param owner  the rank whose copy it is
     * @param holder the rank holding it
     * @return the ring distance from owner to holder, 0..n-1
     */
    public int distance(int owner, int holder) {
        return Math.floorMod(position(holder) - position(owner), rankAt.length);
    }

    /** @return the ranks in ring order (a copy) */
    public int[] ranks() {
        return rankAt.clone();
    }

    /** @return the ranks in ring order separated by commas, e.g. {@code "0,2,4,1,3,5"} */
    public String text() {
        StringBuilder b = new StringBuilder();
        for (int p = 0; p < rankAt.length; p++) {
            b.append(p > 0 ? "," : "").append(rankAt[p]);
        }
        return b.toString();
    }

    private int position(int rank) {
        if (rank < 0 || rank >= rankAt.length) {
            throw new IllegalArgumentException("rank " + rank + " outside 0.." + (rankAt.length - 1) + " of a ring of "
                    + rankAt.length);
        }
        return positionOf[rank];
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RankRing other && Arrays.equals(rankAt, other.rankAt);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(rankAt);
    }

    /** @return {@code "RankRing[" + text() + "]"} */
    @Override
    public String toString() {
        return "RankRing[" + text() + "]";
    }
}
