package io.jckpt.runtime.programs;

import io.jckpt.Ckpt;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import mpi.MPI;

/**
 * A program that checkpoints data of its own kinds with the job's settings and no configuration at all
 * (no Kryo configurer, no JVM flag of its own: bin/ckpt-run gives the rank JVMs what the state graph
 * needs): an object of its own class (the class lives in the world's class loader, not the library's)
 * holding a {@link Random} and a {@code HashMap<String, Double>}, a {@code double[][]} and an
 * {@code AtomicLong}. It takes aliases of the Random and the map before the rollback, as a program
 * naturally does ({@code Random rng = tally.rng}), draws through them and rolls back with
 * {@code Ckpt.rollback(tag, x)} ignoring the return value: a rollback that put a new Random or a new map
 * in the object would leave the aliases behind and change the printed result. Each round adds the
 * Allreduce of the ranks' contributions (which include their random draws), so a state restored wrongly
 * (or not at all) changes the result line
 * "own objects ok rank R rounds N total T history H grid G weights W", checkable from N and the world
 * size ({@link #expectedTotal}, {@link #expectedWeights}). Before any recovery the ranks hold at round
 * {@code hold} (bounded) until the launcher abandons their world, so the job completes only through a
 * recovery from a failure injected before that round.
 *
 * <pre>
 * OwnObjects rounds hold
 * </pre>
 */
public final class OwnObjects {
    private OwnObjects() {
    }

    /** The program's own class (nested, never registered), with a final list, a Random, a map and a cycle. */
    static final class Tally {
        final List<long[]> history = new ArrayList<>();
        final Random rng;
        final HashMap<String, Double> weights = new HashMap<>();
        long total;
        Tally self = this;

        Tally(int rank) {
            rng = new Random(seed(rank));
        }
    }

    static long seed(int rank) {
        return 1000 + rank;
    }

    /** One round's draws of a rank: what it adds to the Allreduce, and its weight's key and increment. */
    static int draw(Random rng) {
        return rng.nextInt(1000);
    }

    static String key(long round) {
        return "w" + (round % 5);
    }

    /** The weights as text: every value's bits, keys in order. */
    static String weights(Map<String, Double> w) {
        StringBuilder b = new StringBuilder();
        for (Map.Entry<String, Double> e : new TreeMap<>(w).entrySet()) {
            b.append(e.getKey()).append('=').append(Long.toHexString(Double.doubleToRawLongBits(e.getValue()))).append(';');
        }
        return b.toString();
    }

    /**
     * @param ranks  the world size
     * @param rounds the rounds run
     * @return the total every rank prints after a failure-free run
     */
    public static long expectedTotal(int ranks, int rounds) {
        Random[] g = new Random[ranks];
        for (int r = 0; r < ranks; r++) {
            g[r] = new Random(seed(r));
        }
        long total = 0;
        for (long s = 1; s <= rounds; s++) {
            long sum = 0;
            for (int r = 0; r < ranks; r++) {
                sum += r * 1000L + s + draw(g[r]);
                g[r].nextGaussian();
            }
            total += sum;
        }
        return total;
    }

    /**
     * @param rank   a rank
     * @param rounds the rounds run
     * @return the weights that rank prints after a failure-free run
     */
    public static String expectedWeights(int rank, int rounds) {
        Random g = new Random(seed(rank));
        Map<String, Double> w = new HashMap<>();
        for (long s = 1; s <= rounds; s++) {
            draw(g);
            w.merge(key(s), g.nextGaussian(), Double::sum);
        }
        return weights(w);
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int rounds = Integer.parseInt(appArgs[0]);
        int hold = Integer.parseInt(appArgs[1]);
        int rank = MPI.COMM_WORLD.Rank();
        Ckpt.open();
        Tally tally = new Tally(rank);
        Random rng = tally.rng; // aliases taken before the rollback: they must see the restored state
        Map<String, Double> weights = tally.weights;
        double[][] grid = new double[4][8];
        AtomicLong step = new AtomicLong();
        if (Ckpt.isRecovery()) {
            Ckpt.rollback("tally", tally);
            Ckpt.rollback("grid", grid);
            Ckpt.rollback("step", step);
            System.out.println("rolled back to step " + step.get() + " with " + tally.history.size() + " history entries");
        } else {
            Ckpt.register("tally", tally);
            Ckpt.register("grid", grid);
            Ckpt.register("step", step);
        }
        long[] mine = new long[1];
        long[] sum = new long[1];
        while (step.get() < rounds) {
            long s = step.incrementAndGet();
            if (s == hold && !Ckpt.isRecovery()) {
                // the failure injected at an earlier round ends this world; a survivor's thread stays here
                new CountDownLatch(1).await(120, TimeUnit.SECONDS);
                throw new IllegalStateException("rank " + rank + " reached round " + hold + " without a recovery");
            }
            mine[0] = rank * 1000L + s + draw(rng);
            weights.merge(key(s), rng.nextGaussian(), Double::sum);
            MPI.COMM_WORLD.Allreduce(mine, 0, sum, 0, 1, MPI.LONG, MPI.SUM);
            tally.total += sum[0];
            tally.history.add(new long[] {s, sum[0]});
            for (int i = 0; i < grid.length; i++) {
                for (int j = 0; j < grid[i].length; j++) {
                    grid[i][j] += s * i + j * rank;
                }
            }
            Ckpt.here();
        }
        double gridSum = 0;
        for (double[] row : grid) {
            for (double v : row) {
                gridSum += v;
            }
        }
        System.out.println("own objects ok rank " + rank + " rounds " + step.get() + " total " + tally.total + " history "
                + tally.history.size() + " grid " + (long) gridSum + " weights " + weights(weights)
                + (tally.self == tally ? "" : " self broken") + (tally.rng == rng && tally.weights == weights ? "" : " alias broken"));
        Ckpt.close();
        MPI.Finalize();
    }
}
