package io.jckpt.chaos;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteBuffer;
import org.junit.jupiter.api.Test;

/**
 * The chaos program's arithmetic is a fit reference: a rollback to any earlier iteration followed by
 * re-execution gives the failure-free checksum, and any lost or repeated update changes it.
 */
class ChaosStateTest {
    private static final int SIZE = 4;
    private static final int ELEMENTS = 64;
    private static final long ITERATIONS = 30;
    private static final int GROW_LONGS = 16;

    @Test
    void rollingBackAnyRankToAnEarlierIterationAndRedoingGivesTheReference() {
        long reference = ChaosState.reference(SIZE, ITERATIONS, ELEMENTS);
        for (long saved = 0; saved <= ITERATIONS; saved += 7) {
            assertEquals(reference, run(saved, 11, false), "rollback to iteration " + saved);
        }
    }

    @Test
    void aGrowingStateRolledBackAndRedoneGivesItsOwnReference() {
        long reference = ChaosState.reference(SIZE, ITERATIONS, ELEMENTS, GROW_LONGS);
        assertNotEquals(ChaosState.reference(SIZE, ITERATIONS, ELEMENTS), reference, "the padding is in the checksum");
        for (long saved = 0; saved <= ITERATIONS; saved += 7) {
            assertEquals(reference, run(saved, 11, false, GROW_LONGS), "rollback to iteration " + saved);
        }
        assertNotEquals(reference, run(10, 5, true, GROW_LONGS));
    }

    @Test
    void aLostOrRepeatedIterationChangesTheChecksum() {
        long reference = ChaosState.reference(SIZE, ITERATIONS, ELEMENTS);
        assertNotEquals(reference, ChaosState.reference(SIZE, ITERATIONS - 1, ELEMENTS));
        assertNotEquals(reference, run(10, 5, true), "one rank kept its state while the others rolled back");
    }

    /**
     * Runs the job, saves every rank at iteration {@code saved}, goes on {@code lost} iterations, rolls
     * back (all ranks, or all but rank 1 when {@code inconsistent}) and runs to the end.
     */
    private static long run(long saved, long lost, boolean inconsistent) {
        return run(saved, lost, inconsistent, 0);
    }

    private static long run(long saved, long lost, boolean inconsistent, int growLongs) {
        ChaosState[] ranks = new ChaosState[SIZE];
        for (int r = 0; r < SIZE; r++) {
            ranks[r] = ChaosState.initial(r, ELEMENTS, ByteBuffer.allocateDirect(8 * ELEMENTS), growLongs);
        }
        ChaosState[] checkpoint = new ChaosState[SIZE];
        long end = Math.min(ITERATIONS, saved + lost);
        for (long i = 1; i <= ITERATIONS; i++) {
            if (i - 1 == saved) {
                for (int r = 0; r < SIZE; r++) {
                    checkpoint[r] = ranks[r].copy();
                }
            }
            step(ranks, i);
            if (i == end && checkpoint[0] != null) {
                for (int r = 0; r < SIZE; r++) {
                    if (!(inconsistent && r == 1)) {
                        ranks[r] = checkpoint[r].copy();
                    }
                }
                i = saved;
                checkpoint[0] = null;
                saved = -1;
            }
        }
        long[] sums = new long[SIZE];
        for (int r = 0; r < SIZE; r++) {
            sums[r] = ranks[r].checksum();
        }
        return ChaosState.combine(sums);
    }

    private static void step(ChaosState[] ranks, long i) {
        long[] tokens = new long[SIZE];
        long global = 0;
        for (int r = 0; r < SIZE; r++) {
            tokens[r] = ranks[r].compute(i);
            global += tokens[r];
        }
        for (int r = 0; r < SIZE; r++) {
            ranks[r].absorb(i, tokens[(r - 1 + SIZE) % SIZE], global);
        }
    }
}
