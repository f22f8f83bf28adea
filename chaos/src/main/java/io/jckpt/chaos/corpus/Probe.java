package io.jckpt.chaos.corpus;

import io.jckpt.Ckpt;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import mpi.MPI;

/**
 * Issue 28's probe, every row of its table in one program: a {@code long[]} counter and a
 * {@code double[]} field, a {@link Random} and a {@link SplittableRandom} registered, a
 * {@code HashMap<String, Double>}, an object of the program's own class holding a Random in a field,
 * drawn from through the alias {@code Random rng = state.own.rng} taken before the rollback; written the
 * old way ({@code if (Ckpt.isRecovery()) rollback ... else register ...}) with {@code register} instead
 * of {@code rollback} for the map in the recovery branch. {@code Ckpt.open()} with the job's settings, no
 * Kryo configurer, no JVM option. Every step an Allreduce and a ring Sendrecv; rank 0 prints
 * {@code probe result %016x} before {@code close()}, equal to {@link #expected} after any recoverable
 * failure. The table's mistakes, chosen by {@code MISTAKE}:
 * <ul>
 * <li>{@code none}: the ordinary rows;</li>
 * <li>{@code forget}: the recovery branch forgets the SplittableRandom's tag;</li>
 * <li>{@code skip}: rank {@code SKIP_RANK} (default 1) skips the {@code here()} of step 5 (in every world).</li>
 * </ul>
 * {@code STEP} is {@code step} ({@code here(step)}) or {@code nostep} ({@code here()}). Before any
 * recovery the ranks hold at step {@code HOLD} (0: never; bounded at 120 s) until the launcher abandons
 * their world, so that a test's {@code --kill} at an earlier round always lands before the end.
 *
 * <pre>
 * Probe STEPS CELLS SEED MISTAKE STEP HOLD [SKIP_RANK]
 * </pre>
 */
public final class Probe {
    static final int SKIP_RANK = 1;
    static final long SKIP_STEP = 5;

    private Probe() {
    }

    /** The program's own class: a Random in a field, a total and a growing history. */
    static final class Own {
        final Random rng;
        long total;
        final ArrayList<Long> history = new ArrayList<>();

        Own(long seed) {
            rng = new Random(seed);
        }
    }

    /** One rank's state and its arithmetic, shared with {@link #expected}. */
    static final class State {
        final long[] counter = new long[1];
        final double[] field;
        final Random rng;
        final SplittableRandom split;
        final HashMap<String, Double> weights = new HashMap<>();
        final Own own;

        State(int rank, int cells, long seed) {
            field = new double[cells];
            for (int i = 0; i < cells; i++) {
                field[i] = Math.sin(rank + i * 0.01);
            }
            rng = new Random(seed * 31 + rank);
            split = new SplittableRandom(seed * 17 + rank);
            own = new Own(seed * 13 + rank);
        }

        /** This step's two contributions to the Allreduce; draws from every generator ({@code ownRng}: own.rng). */
        void contribute(long[] out, Random ownRng) {
            // fixed point: a sum of longs is the same in any order MPJ adds them
            out[0] = (long) ((rng.nextGaussian() + field[(int) (counter[0] % field.length)]) * 0x1p32);
            out[1] = split.nextInt(1000) + ownRng.nextInt(100);
        }

        double edge() {
            return field[field.length - 1];
        }

        /** Step {@code step}'s second half: the sums and the left neighbour's edge go into the state. */
        void absorb(long step, long[] sum, double fromLeft, Random ownRng) {
            double g = 0.5 * (sum[0] * 0x1p-32) / (1 + sum[1]);
            double left = fromLeft;
            for (int i = 0; i < field.length; i++) {
                double x = field[i];
                field[i] = 0.5 * x + 0.25 * left + 0.25 * g;
                left = x;
            }
            weights.merge("w" + (step % 7), g + ownRng.nextDouble(), Double::sum);
            own.total += sum[1] ^ step;
            own.history.add(own.total);
            counter[0] = step;
        }

        long checksum() {
            long h = mix(0x243F6A8885A308D3L, counter[0]);
            for (double d : field) {
                h = mix(h, Double.doubleToRawLongBits(d));
            }
            for (Map.Entry<String, Double> e : new TreeMap<>(weights).entrySet()) {
                h = mix(h, e.getKey().hashCode());
                h = mix(h, Double.doubleToRawLongBits(e.getValue()));
            }
            h = mix(h, own.total);
            h = mix(h, own.history.size());
            h = mix(h, rng.nextLong()); // the generators' states, as the next draw shows them
            h = mix(h, split.nextLong());
            return mix(h, own.rng.nextLong());
        }
    }

    static long mix(long h, long v) {
        long x = (h ^ v) * 0x9E3779B97F4A7C15L;
        return x ^ (x >>> 29);
    }

    static long combine(long[] checksums) {
        long h = 17;
        for (long c : checksums) {
            h = mix(h, c);
        }
        return h;
    }

    /** The result a failure-free run prints (every rank's arithmetic in one thread, no MPJ, no library). */
    public static long expected(int ranks, long steps, int cells, long seed) {
        State[] s = new State[ranks];
        for (int r = 0; r < ranks; r++) {
            s[r] = new State(r, cells, seed);
        }
        long[][] parts = new long[ranks][2];
        for (long step = 1; step <= steps; step++) {
            long[] sum = new long[2];
            double[] edges = new double[ranks];
            for (int r = 0; r < ranks; r++) {
                s[r].contribute(parts[r], s[r].own.rng);
                edges[r] = s[r].edge();
            }
            for (int r = 0; r < ranks; r++) {
                sum[0] += parts[r][0];
                sum[1] += parts[r][1];
            }
            for (int r = 0; r < ranks; r++) {
                s[r].absorb(step, sum, edges[(r - 1 + ranks) % ranks], s[r].own.rng);
            }
        }
        long[] all = new long[ranks];
        for (int r = 0; r < ranks; r++) {
            all[r] = s[r].checksum();
        }
        return combine(all);
    }

    public static void main(String[] args) throws Exception {
        String[] a = MPI.Init(args);
        long steps = Long.parseLong(a[0]);
        int cells = Integer.parseInt(a[1]);
        long seed = Long.parseLong(a[2]);
        String mistake = a[3];
        boolean withStep = switch (a[4]) {
            case "step" -> true;
            case "nostep" -> false;
            default -> throw new IllegalArgumentException("STEP must be step or nostep, got " + a[4]);
        };
        long hold = Long.parseLong(a[5]);
        int skipRank = a.length > 6 ? Integer.parseInt(a[6]) : SKIP_RANK;
        if (!mistake.equals("none") && !mistake.equals("forget") && !mistake.equals("skip")) {
            throw new IllegalArgumentException("MISTAKE must be none, forget or skip, got " + mistake);
        }
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        State state = new State(rank, cells, seed);
        Random rng = state.own.rng; // an alias taken before the rollback: it must see the restored state

        Ckpt.open();
        if (Ckpt.isRecovery()) {
            Ckpt.rollback("counter", state.counter);
            Ckpt.rollback("field", state.field);
            Ckpt.rollback("rng", state.rng);
            if (!mistake.equals("forget")) {
                Ckpt.rollback("split", state.split);
            }
            Ckpt.register("weights", state.weights); // register instead of rollback: restores in place too
            Ckpt.rollback("own", state.own);
        } else {
            Ckpt.register("counter", state.counter);
            Ckpt.register("field", state.field);
            Ckpt.register("rng", state.rng);
            Ckpt.register("split", state.split);
            Ckpt.register("weights", state.weights);
            Ckpt.register("own", state.own);
        }

        long[] part = new long[2];
        long[] sum = new long[2];
        double[] edge = new double[1];
        double[] fromLeft = new double[1];
        while (state.counter[0] < steps) {
            long step = state.counter[0] + 1;
            if (step == hold && !Ckpt.isRecovery()) {
                // the failure injected at an earlier round ends this world; a survivor's thread stays here
                new CountDownLatch(1).await(120, TimeUnit.SECONDS);
                throw new IllegalStateException("rank " + rank + " reached step " + hold + " without a recovery");
            }
            state.contribute(part, rng);
            edge[0] = state.edge();
            MPI.COMM_WORLD.Allreduce(part, 0, sum, 0, 2, MPI.LONG, MPI.SUM);
            MPI.COMM_WORLD.Sendrecv(edge, 0, 1, MPI.DOUBLE, (rank + 1) % size, 7,
                    fromLeft, 0, 1, MPI.DOUBLE, (rank - 1 + size) % size, 7);
            state.absorb(step, sum, fromLeft[0], rng);
            if (!(mistake.equals("skip") && rank == skipRank && step == SKIP_STEP)) {
                if (withStep) {
                    Ckpt.here(step);
                } else {
                    Ckpt.here();
                }
            }
        }
        long[] mine = {state.checksum()};
        long[] all = new long[size];
        MPI.COMM_WORLD.Gather(mine, 0, 1, MPI.LONG, all, 0, 1, MPI.LONG, 0);
        if (rank == 0) {
            System.out.printf(Locale.ROOT, "probe result %016x (%d steps, %d ranks)%n", combine(all), steps, size);
        }
        Ckpt.close();
        MPI.Finalize();
    }
}
