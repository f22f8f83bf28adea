package io.jckpt.policy.interval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.policy.interval.FailureModel.Placement;
import io.jckpt.policy.interval.FailureModel.Protection;
import java.util.Arrays;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/**
 * The model of the memory level's redundancy codes (issue 30): copies as before, xor and
 * Reed-Solomon sets by their first-order loss rate, checked against an event simulation of nodes
 * failing and staying unprotected, and by the memory they hold.
 */
class ProtectionModelTest {

    @Test
    void copiesAreTheRingsFigureAsBefore() {
        for (Placement placement : Placement.values()) {
            for (int p : new int[] {1, 4, 16}) {
                for (int nodes : new int[] {1, 2, 3, 10, 1000}) {
                    for (int m = 0; m <= 3; m++) {
                        Protection c = Protection.copies(m, p, nodes, placement);
                        assertEquals(FailureModel.unsurvivableRate(3e7, nodes, p, m, 600, placement),
                                FailureModel.unsurvivableRate(3e7, nodes, c, 600), 1e-18, c + " " + nodes + " nodes");
                        assertEquals(FailureModel.memoryPerNode(1e6, p, m, 2), FailureModel.memoryPerNode(1e6, p, c, 2), 1e-6);
                    }
                }
            }
        }
    }

    @Test
    void aSetLosesItsDataWhenMoreThanItToleratesAreDownTogether() {
        // nodes failing at rate 1, each unprotected for w after its failure: losses per unit time, where
        // the first order holds (λw small) and a simulation of 40,000 node MTBFs sees 500 to 9,000 losses
        for (Protection code : new Protection[] {Protection.xor(8, 32), Protection.xor(4, 32),
            Protection.reedSolomon(6, 2, 32), Protection.copies(1, 1, 32, Placement.SPREAD),
            Protection.copies(2, 1, 32, Placement.SPREAD)}) {
            double w = code.tolerated() == 1 ? 0.002 : 0.005;
            double model = FailureModel.unsurvivableRate(1, 32, code, w);
            double simulated = simulatedLossRate(32, code, w, 40_000, 7);
            assertEquals(model, simulated, 0.1 * model, code + ": model " + model + ", simulated " + simulated);
        }
    }

    @Test
    void eachCodeCostsAFractionOfACopyAndExposesItsSetAsItSays() {
        Protection copy = Protection.copies(1, 1, 1000, Placement.SPREAD);
        Protection xor8 = Protection.xor(8, 1000);
        Protection rs82 = Protection.reedSolomon(8, 2, 1000);
        assertEquals(2.0, copy.storedPerImage());
        assertEquals(1 + 1.0 / 7, xor8.storedPerImage(), 1e-12, "1/(K-1) held for others");
        assertEquals(1.25, rs82.storedPerImage(), 1e-12, "P/K held for others");
        double lambda = 1 / 3e7;
        double w = 600;
        // sets of 8 nodes, any 2 down: N/8 x 28 x 2 λ (λw) = 7 N λ²w, 3.5 times the ring's 2 N λ²w
        assertEquals(7 * 1000 * lambda * lambda * w, FailureModel.unsurvivableRate(3e7, 1000, xor8, w), 1e-20);
        assertEquals(3.5, FailureModel.unsurvivableRate(3e7, 1000, xor8, w) / FailureModel.unsurvivableRate(3e7, 1000, copy, w),
                1e-9);
        // any 3 of 10 down: orders of magnitude rarer than any 2 of 8
        assertTrue(FailureModel.unsurvivableRate(3e7, 1000, rs82, w) < 1e-3 * FailureModel.unsurvivableRate(3e7, 1000, xor8, w));
        assertEquals(1.0, xor8.sentPerImage());
        assertEquals(2.0, rs82.sentPerImage());
    }

    @Test
    void aSetOnFewerNodesThanMembersToleratesWhatItsNodesAllow() {
        assertEquals(1, Protection.xor(4, 4).tolerated());
        assertEquals(0, Protection.xor(4, 3).tolerated(), "a node holds two members of the set: its loss is one too many");
        assertEquals(1, Protection.reedSolomon(4, 2, 3).tolerated(), "6 members on 3 nodes: 2 per node, 2 tolerated");
        assertEquals(FailureModel.unsurvivableRate(3e7, 3, Protection.xor(4, 3), 600), 3 / 3e7, 1e-18,
                "every node loss loses data");
        assertThrows(IllegalArgumentException.class, () -> Protection.xor(1, 10));
        assertThrows(IllegalArgumentException.class, () -> Protection.reedSolomon(4, 0, 10));
    }

    /**
     * Nodes fail at rate 1 (exponential) and stay unprotected for {@code w}; sets tile the nodes (a
     * copy's set: a node and the next d - 1 on the ring). A loss: a failure that leaves a set with more
     * than it tolerates unprotected.
     */
    private static double simulatedLossRate(int nodes, Protection code, double w, double time, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        PriorityQueue<double[]> failures = new PriorityQueue<>((a, b) -> Double.compare(a[0], b[0]));
        for (int n = 0; n < nodes; n++) {
            failures.add(new double[] {-Math.log(1 - random.nextDouble()), n});
        }
        double[] downUntil = new double[nodes];
        Arrays.fill(downUntil, -1);
        int g = code.setNodes();
        boolean ring = code.ring();
        long losses = 0;
        for (double[] f = failures.poll(); f[0] < time; f = failures.poll()) {
            int n = (int) f[1];
            downUntil[n] = f[0] + w;
            failures.add(new double[] {f[0] - Math.log(1 - random.nextDouble()), n});
            // the sets this node belongs to: its tile, or on a ring the d windows that hold it
            int[] starts = ring ? new int[g] : new int[] {n / g * g};
            for (int i = 0; ring && i < g; i++) {
                starts[i] = Math.floorMod(n - i, nodes);
            }
            for (int start : starts) {
                int down = 0;
                for (int i = 0; i < g; i++) {
                    down += downUntil[(start + i) % nodes] > f[0] ? 1 : 0;
                }
                if (down == code.tolerated() + 1) {
                    losses++; // this failure is the one too many for that set
                }
            }
        }
        return losses / time;
    }
}
