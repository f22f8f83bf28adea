package io.jckpt.chaos.corpus;

import io.jckpt.Ckpt;
import java.util.Random;
import mpi.MPI;

/**
 * Corpus: particle code with a {@link Random}, written the way the template is. Langevin particles in a
 * box, each rank its own; each step an Allreduce of the mean position and the kinetic energy (the
 * particles are pulled towards the mean and kicked by the Random) and a ring Sendrecv of the rank's
 * outermost particle (a wall felt by the neighbour). Registered unconditionally, once, after
 * {@code Ckpt.open()}: the positions, the velocities, the Random (created and used before open, to draw
 * the initial state) and the step; {@code here(step)} every step. Rank 0 prints
 * {@code particles: ...} with the energy's bits and a hash of every rank's particles.
 *
 * <pre>Particles [steps] [particles per rank] [seed]</pre>
 */
public final class Particles {
    private Particles() {
    }

    public static void main(String[] args) throws Exception {
        String[] a = MPI.Init(args);
        int steps = a.length > 0 ? Integer.parseInt(a[0]) : 200;
        int n = a.length > 1 ? Integer.parseInt(a[1]) : 20000;
        long seed = a.length > 2 ? Long.parseLong(a[2]) : 1;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();

        Random rng = new Random(seed * 1000 + rank);
        double[] x = new double[n];
        double[] v = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = rng.nextDouble();
            v[i] = 0.1 * rng.nextGaussian();
        }
        long[] t = {0};
        Ckpt.open();
        Ckpt.register("x", x); // after a failure these lines restore x, v, rng and t in place
        Ckpt.register("v", v);
        Ckpt.register("rng", rng);
        Ckpt.register("t", t);

        double dt = 0.01;
        double[] local = new double[2];
        double[] global = new double[2];
        double[] wall = new double[1];
        double[] neighbour = new double[1];
        while (t[0] < steps) {
            local[0] = 0;
            local[1] = 0;
            double outer = 0;
            for (int i = 0; i < n; i++) {
                local[0] += x[i];
                local[1] += 0.5 * v[i] * v[i];
                outer = Math.max(outer, x[i]);
            }
            MPI.COMM_WORLD.Allreduce(local, 0, global, 0, 2, MPI.DOUBLE, MPI.SUM);
            wall[0] = outer;
            MPI.COMM_WORLD.Sendrecv(wall, 0, 1, MPI.DOUBLE, (rank + 1) % size, 3,
                    neighbour, 0, 1, MPI.DOUBLE, (rank - 1 + size) % size, 3);
            double mean = global[0] / ((double) n * size);
            double temperature = global[1] / ((double) n * size);
            double kick = 0.05 / (1 + temperature);
            for (int i = 0; i < n; i++) {
                v[i] += -(x[i] - mean) * dt + kick * rng.nextGaussian();
                x[i] += v[i] * dt;
                if (x[i] < 0 || x[i] > neighbour[0] + 0.5) { // reflecting walls, the upper one the neighbour's
                    v[i] = -v[i];
                    x[i] = Math.min(Math.max(x[i], 0), neighbour[0] + 0.5);
                }
            }
            t[0]++;
            Ckpt.here(t[0]);
        }

        long hash = 1469598103934665603L;
        for (int i = 0; i < n; i++) {
            hash = (hash ^ Double.doubleToLongBits(x[i])) * 1099511628211L;
            hash = (hash ^ Double.doubleToLongBits(v[i])) * 1099511628211L;
        }
        long[] mine = {hash};
        long[] all = new long[size];
        MPI.COMM_WORLD.Gather(mine, 0, 1, MPI.LONG, all, 0, 1, MPI.LONG, 0);
        double energy = 0;
        for (int i = 0; i < n; i++) {
            energy += 0.5 * v[i] * v[i];
        }
        double[] e = {energy};
        double[] total = new double[1];
        MPI.COMM_WORLD.Reduce(e, 0, total, 0, 1, MPI.DOUBLE, MPI.SUM, 0);
        if (rank == 0) {
            long h = 0;
            for (long c : all) {
                h = h * 31 + c;
            }
            System.out.printf("particles: %d steps, %d particles on %d ranks, energy %016x, hash %016x%n", t[0],
                    (long) n * size, size, Double.doubleToLongBits(total[0]), h);
        }
        Ckpt.close();
        MPI.Finalize();
    }
}
