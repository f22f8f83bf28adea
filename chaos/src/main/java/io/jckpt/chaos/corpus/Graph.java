package io.jckpt.chaos.corpus;

import io.jckpt.Ckpt;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import mpi.MPI;

/**
 * Corpus: a graph code with maps. PageRank on a random directed graph every rank builds the same way
 * from the seed; each rank owns a block of vertices and keeps their scores in a
 * {@code HashMap<String, Double>} keyed by vertex name, how often each of its vertices led the block
 * in a {@code TreeMap<Integer, Integer>}, and the residual of every iteration in a growing
 * {@code ArrayList<Double>}. Each iteration the contributions to every vertex are Allreduced (a dense
 * vector) and the residual with them. Registered unconditionally, the maps and the list themselves;
 * {@code here()} without a step every third iteration, as the heat example of docs/api.md does. Rank 0
 * prints {@code graph: ...} with a hash of every rank's scores, leaders and residuals.
 *
 * <pre>Graph [iterations] [vertices per rank] [seed]</pre>
 */
public final class Graph {
    private static final double DAMPING = 0.85;

    private Graph() {
    }

    static String name(int v) {
        return "v" + v;
    }

    public static void main(String[] args) throws Exception {
        String[] a = MPI.Init(args);
        int iterations = a.length > 0 ? Integer.parseInt(a[0]) : 90;
        int per = a.length > 1 ? Integer.parseInt(a[1]) : 3000;
        long seed = a.length > 2 ? Long.parseLong(a[2]) : 1;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        int nv = per * size;
        int first = rank * per;

        // the graph: the same on every rank, rebuilt on every start (not registered)
        Random g = new Random(seed);
        Map<Integer, List<Integer>> out = new HashMap<>();
        for (int v = 0; v < nv; v++) {
            int degree = g.nextInt(8); // some vertices dangle
            List<Integer> targets = new ArrayList<>(degree);
            for (int k = 0; k < degree; k++) {
                targets.add(g.nextInt(nv));
            }
            out.put(v, targets);
        }

        HashMap<String, Double> score = new HashMap<>();
        for (int v = first; v < first + per; v++) {
            score.put(name(v), 1.0 / nv);
        }
        TreeMap<Integer, Integer> leaders = new TreeMap<>();
        ArrayList<Double> residuals = new ArrayList<>();
        int[] iteration = {0};
        Ckpt.open();
        Ckpt.register("score", score);
        Ckpt.register("leaders", leaders);
        Ckpt.register("residuals", residuals);
        Ckpt.register("iteration", iteration);

        double[] contribution = new double[nv + 1]; // the last slot: dangling mass
        double[] total = new double[nv + 1];
        double[] residual = new double[1];
        double[] allResidual = new double[1];
        while (iteration[0] < iterations) {
            java.util.Arrays.fill(contribution, 0);
            for (int v = first; v < first + per; v++) {
                double s = score.get(name(v));
                List<Integer> targets = out.get(v);
                if (targets.isEmpty()) {
                    contribution[nv] += s;
                } else {
                    for (int t : targets) {
                        contribution[t] += DAMPING * s / targets.size();
                    }
                }
            }
            MPI.COMM_WORLD.Allreduce(contribution, 0, total, 0, nv + 1, MPI.DOUBLE, MPI.SUM);
            residual[0] = 0;
            int best = -1;
            double bestScore = -1;
            int hot = (int) ((iteration[0] * 7919L + seed) % nv); // a teleport target that moves: no fixed point
            for (int v = first; v < first + per; v++) {
                double next = (1 - DAMPING) / nv + total[v] + DAMPING * total[nv] / nv + (v == hot ? 0.05 : 0);
                residual[0] += Math.abs(next - score.get(name(v)));
                score.put(name(v), next);
                if (next > bestScore) {
                    bestScore = next;
                    best = v;
                }
            }
            leaders.merge(best, 1, Integer::sum);
            MPI.COMM_WORLD.Allreduce(residual, 0, allResidual, 0, 1, MPI.DOUBLE, MPI.SUM);
            residuals.add(allResidual[0]);
            iteration[0]++;
            if (iteration[0] % 3 == 0) {
                Ckpt.here();
            }
        }

        long h = 1;
        for (int v = first; v < first + per; v++) {
            h = h * 31 + Double.doubleToLongBits(score.get(name(v)));
        }
        for (Map.Entry<Integer, Integer> e : leaders.entrySet()) {
            h = h * 31 + e.getKey() * 1_000_003L + e.getValue();
        }
        for (double r : residuals) {
            h = h * 31 + Double.doubleToLongBits(r);
        }
        long[] mine = {h};
        long[] all = new long[size];
        MPI.COMM_WORLD.Gather(mine, 0, 1, MPI.LONG, all, 0, 1, MPI.LONG, 0);
        if (rank == 0) {
            long hash = 0;
            for (long c : all) {
                hash = hash * 1_000_003L + c;
            }
            System.out.printf("graph: %d iterations over %d vertices on %d ranks, last residual %016x, hash %016x%n",
                    iteration[0], nv, size, Double.doubleToLongBits(residuals.get(residuals.size() - 1)), hash);
        }
        Ckpt.close();
        MPI.Finalize();
    }
}
