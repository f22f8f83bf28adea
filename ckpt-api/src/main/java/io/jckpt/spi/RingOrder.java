package io.jckpt.spi;

import java.util.Arrays;

/**
 * The order of the ranks on the replication ring: a permutation of {@code 0..n-1}. A rank's copies go
 * to the m ranks that follow it on the ring ({@link #successor(int, int) successor(rank, 1..m)}); the
 * owners whose copies a rank holds are {@link #predecessor(int, int) predecessor(rank, 1..m)}. The {@linkplain #identity(int)
 * identity} order is the historical one (successors rank+1..rank+m modulo n); the launcher computes
 * another one so that the holders of a rank's copies are on other hosts than the rank's own.
 *
 * <p>Immutable and pure. Its {@linkplain #text() text form} is the ranks in ring order separated by
 * commas ({@code "0,3,1,4,2,5"}), readable with {@link #parse(String)}, so that it can travel to the ranks
 * in an environment variable ({@link #ENV_RING_ORDER}).
 */
public final class RingOrder {
    /** Environment variable that can carry the {@linkplain #text() text form} to the ranks. */
    public static final String ENV_RING_ORDER = "JCKPT_RING_ORDER";

    private final int[] rankAt;
    private final int[] positionOf;

    private RingOrder(int[] rankAt) {
        this.rankAt = rankAt;
        this.positionOf = new int[rankAt.length];
        Arrays.fill(positionOf, -1);
        for (int p = 0; p < rankAt.length; p++) {
            int r = rankAt[p];
            if (r < 0 || r >= rankAt.length) {
                throw new IllegalArgumentException("ring order " + Arrays.toString(rankAt) + ": rank " + r
                        + " at position " + p + " is outside 0.." + (rankAt.length - 1));
            }
            if (positionOf[r] >= 0) {
                throw new IllegalArgumentException("ring order " + Arrays.toString(rankAt) + ": rank " + r
                        + " appears at positions " + positionOf[r] + " and " + p);
            }
            positionOf[r] = p;
        }
    }

    /**
     * @param n number of ranks, at least 1
     * @return the order 0, 1, ..., n-1 (successors rank+1..rank+m modulo n)
     */
    public static RingOrder identity(int n) {
        if (n < 1) {
            throw new IllegalArgumentException("a ring needs at least 1 rank, got " + n);
        }
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i;
        }
        return new RingOrder(a);
    }

    /**
     * @param ranksInRingOrder every rank 0..n-1 exactly once, in ring order
     * @return that order
     * @throws IllegalArgumentException naming the missing, repeated or out-of-range rank
     */
    public static RingOrder of(int... ranksInRingOrder) {
        if (ranksInRingOrder.length < 1) {
            throw new IllegalArgumentException("a ring needs at least 1 rank, got none");
        }
        return new RingOrder(ranksInRingOrder.clone());
    }

    /**
     * @param text the {@linkplain #text() text form}, e.g. {@code "0,3,1,4,2,5"}
     * @return the order
     * @throws IllegalArgumentException naming what is wrong with the text
     */
    public static RingOrder parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("ring order: empty text");
        }
        String[] parts = text.split(",", -1);
        int[] a = new int[parts.length];
        for (int i = 0; i < parts.length; i++) {
            try {
                a[i] = Integer.parseInt(parts[i].trim());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("ring order '" + text + "': '" + parts[i] + "' at position " + i
                        + " is not a rank number", e);
            }
        }
        return new RingOrder(a);
    }

    /** @return n, the number of ranks */
    public int size() {
        return rankAt.length;
    }

    /** @return whether this is the order 0, 1, ..., n-1 */
    public boolean isIdentity() {
        for (int p = 0; p < rankAt.length; p++) {
            if (rankAt[p] != p) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param position 0..n-1
     * @return the rank at that ring position
     */
    public int rankAt(int position) {
        return rankAt[checkIndex(position, "position")];
    }

    /**
     * @param rank 0..n-1
     * @return that rank's ring position
     */
    public int positionOf(int rank) {
        return positionOf[checkIndex(rank, "rank")];
    }

    /**
     * @param rank     0..n-1
     * @param distance ring distance, any integer (0 is the rank itself; negative goes backwards)
     * @return the rank {@code distance} places after {@code rank} on the ring: with distance 1..m, the
     *         holders of {@code rank}'s copies
     */
    public int successor(int rank, int distance) {
        return rankAt[Math.floorMod(positionOf(rank) + distance, rankAt.length)];
    }

    /**
     * @param rank     0..n-1
     * @param distance ring distance, any integer
     * @return the rank {@code distance} places before {@code rank}: with distance 1..m, the owners whose
     *         copies {@code rank} holds
     */
    public int predecessor(int rank, int distance) {
        return successor(rank, -distance);
    }

    /** @return the rank a rank sends its copies to (distance 1) */
    public int next(int rank) {
        return successor(rank, 1);
    }

    /** @return the rank a rank receives copies from (distance 1 behind) */
    public int previous(int rank) {
        return successor(rank, -1);
    }

    /**
     * @param owner  the rank whose copy it is
     * @param holder the rank holding it
     * @return the ring distance from owner to holder, 0..n-1 (the copy's hop)
     */
    public int distance(int owner, int holder) {
        return Math.floorMod(positionOf(holder) - positionOf(owner), rankAt.length);
    }

    /**
     * @return the ranks in ring order (a copy): the form for modules that do not depend on this API, such as
     *         imem-replication
     */
    public int[] ranks() {
        return rankAt.clone();
    }

    /** @return the ranks in ring order, separated by commas (readable with {@link #parse(String)}) */
    public String text() {
        StringBuilder b = new StringBuilder();
        for (int p = 0; p < rankAt.length; p++) {
            if (p > 0) {
                b.append(',');
            }
            b.append(rankAt[p]);
        }
        return b.toString();
    }

    private int checkIndex(int i, String what) {
        if (i < 0 || i >= rankAt.length) {
            throw new IllegalArgumentException(what + " " + i + " outside 0.." + (rankAt.length - 1)
                    + " of a ring of " + rankAt.length);
        }
        return i;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof RingOrder other && Arrays.equals(rankAt, other.rankAt);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(rankAt);
    }

    /** @return {@code "RingOrder[" + text() + "]"} */
    @Override
    public String toString() {
        return "RingOrder[" + text() + "]";
    }
}
