package io.jckpt.codes;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The rebuild plan against its model for every loss pattern, and carried out: each rebuilder decodes its
 * stripe from its k sources alone (nothing else of the set at hand), giving the lost members' bytes.
 */
class RebuildPlanTest {
    @Test
    void everyLossPatternIsPlannedAndCarriedOutFromTheSourcesAlone() {
        for (Redundancy r : List.of(Redundancy.xor(4), Redundancy.xor(8), Redundancy.rs(4, 2), Redundancy.rs(8, 2))) {
            int n = r.setSize();
            ParityLayoutDescriptor layout = r.layout(n);
            int k = layout.dataColumns();
            int p = layout.parityRows();
            Stripes data = new Stripes(layout, n * 7L);
            for (int mask = 1; mask < 1 << n; mask++) {
                int count = Integer.bitCount(mask);
                if (count > p + 1) {
                    continue;
                }
                boolean[] lost = new boolean[n];
                for (int m = 0; m < n; m++) {
                    lost[m] = (mask & (1 << m)) != 0;
                }
                if (count > p) {
                    SetLossException e = assertThrows(SetLossException.class, () -> RebuildPlan.of(layout, r + " set 1", lost));
                    assertTrue(e.getMessage().contains("every stripe misses " + count + " of its " + n + " parts"), e.getMessage());
                    continue;
                }
                RebuildPlan plan = RebuildPlan.of(layout, r + " set 1", lost);
                // every stripe lost a symbol (each member holds one of every stripe): all n are rebuilt, once each
                assertEquals(n, plan.stripes().size());
                int survivors = n - count;
                int[] load = plan.stripesPerMember(n);
                for (int m = 0; m < n; m++) {
                    if (lost[m]) {
                        assertEquals(0, load[m], "lost member " + m + " rebuilds nothing");
                    } else {
                        assertTrue(load[m] <= (n + survivors - 1) / survivors, r + ": member " + m + " rebuilds " + load[m]);
                    }
                }
                for (RebuildPlan.StripeRebuild s : plan.stripes()) {
                    assertFalse(lost[s.rebuilder()]);
                    assertEquals(k, s.sources().size());
                    assertEquals(s.rebuilder(), s.sources().get(0).member());
                    Set<Integer> symbols = new HashSet<>();
                    for (RebuildPlan.Symbol source : s.sources()) {
                        assertFalse(lost[source.member()]);
                        assertEquals(layout.symbolOf(source.member(), s.stripe()), source.symbol());
                        assertTrue(symbols.add(source.symbol()));
                    }
                    assertEquals(count, s.lost().size());
                    for (RebuildPlan.Symbol gone : s.lost()) {
                        assertTrue(lost[gone.member()]);
                        assertTrue(symbols.add(gone.symbol()));
                    }
                    data.rebuildFromSourcesAlone(s);
                }
            }
        }
    }

    /** A set's symbols, stripe by stripe, as the members would hold them after an encoding. */
    private static final class Stripes {
        final ParityLayoutDescriptor layout;
        final int chunk = 37;
        final byte[][][] symbols; // [stripe][symbol][byte]
        final ReedSolomon code;

        Stripes(ParityLayoutDescriptor layout, long seed) {
            this.layout = layout;
            int n = layout.members();
            int k = layout.dataColumns();
            int p = layout.parityRows();
            code = ReedSolomon.of(k, p);
            Random random = new Random(seed);
            symbols = new byte[n][k + p][chunk];
            for (int s = 0; s < n; s++) {
                ByteBuffer[] data = new ByteBuffer[k];
                ByteBuffer[] parity = new ByteBuffer[p];
                for (int c = 0; c < k; c++) {
                    random.nextBytes(symbols[s][c]);
                    data[c] = ByteBuffer.wrap(symbols[s][c]);
                }
                for (int r = 0; r < p; r++) {
                    parity[r] = ByteBuffer.wrap(symbols[s][k + r]);
                }
                code.encode(data, new int[k], ReedSolomonTest.filled(k, chunk), parity, new int[p], chunk);
            }
        }

        void rebuildFromSourcesAlone(RebuildPlan.StripeRebuild s) {
            int size = layout.members();
            ByteBuffer[] at = new ByteBuffer[size];
            boolean[] erased = new boolean[size];
            java.util.Arrays.fill(erased, true);
            for (int i = 0; i < size; i++) {
                at[i] = ByteBuffer.allocate(chunk); // zeros: what the rebuilder does not have
            }
            for (RebuildPlan.Symbol source : s.sources()) {
                at[source.symbol()] = ByteBuffer.wrap(symbols[s.stripe()][source.symbol()].clone());
                erased[source.symbol()] = false;
            }
            code.reconstruct(at, new int[size], ReedSolomonTest.filled(size, chunk), erased, chunk);
            for (RebuildPlan.Symbol gone : s.lost()) {
                assertArrayEquals(symbols[s.stripe()][gone.symbol()], at[gone.symbol()].array(),
                        "stripe " + s.stripe() + " symbol " + gone.symbol() + " of member " + gone.member());
            }
        }
    }

    @Test
    void xorEightWithOneLossSpreadsEightStripesOverSevenSurvivors() {
        boolean[] lost = new boolean[8];
        lost[3] = true;
        RebuildPlan plan = RebuildPlan.of(Redundancy.xor(8).layout(8), "xor:8 set 0", lost);
        assertArrayEquals(new int[] {2, 1, 1, 0, 1, 1, 1, 1}, plan.stripesPerMember(8));
        assertEquals(0, RebuildPlan.of(Redundancy.xor(8).layout(8), "xor:8 set 0", new boolean[8]).stripes().size());
    }
}
