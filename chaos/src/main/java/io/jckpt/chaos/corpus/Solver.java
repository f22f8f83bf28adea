package io.jckpt.chaos.corpus;

import io.jckpt.Ckpt;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import mpi.MPI;

/**
 * Corpus: an object-oriented solver with nested classes of its own and aliases. A Jacobi relaxation of
 * a 2-D plate whose rows are split across ranks, kept in a {@code Solver} object: a nested
 * {@code Grid} (a {@code double[][]} with a reference back to its solver: a cycle), an inner
 * {@code Monitor} (its {@code this$0} the solver) with a growing list of samples, a {@link Random} in a
 * field that perturbs one cell per sweep, a record of settings. The program works through aliases taken
 * before the rollback ({@code double[][] cells = solver.grid.cells}, {@code Random noise = solver.noise},
 * {@code Monitor monitor = solver.monitor}), and restores the whole graph with one tag, the old way
 * ({@code if (Ckpt.isRecovery()) Ckpt.rollback("solver", solver); else Ckpt.register(...)}, the return
 * value ignored). Each sweep exchanges halo rows with both neighbours (Sendrecv) and Allreduces the
 * residual; {@code here(sweep)} every second sweep. Rank 0 prints {@code solver: ...}.
 *
 * <pre>Solver [sweeps] [rows per rank] [columns] [seed]</pre>
 */
public final class Solver {
    /** The solver's settings: a value inside the graph. */
    record Settings(int rows, int columns, double omega) {
    }

    /** The plate's rows of this rank with a halo row above and below. */
    static final class Grid {
        final double[][] cells;
        Solver owner;

        Grid(int rows, int columns) {
            cells = new double[rows + 2][columns];
        }
    }

    /** What the solver watches; an inner class, so it holds its solver. */
    final class Monitor {
        final List<double[]> samples = new ArrayList<>();
        double worst;

        void record(double residual) {
            samples.add(new double[] {sweep, residual});
            worst = Math.max(worst, residual);
        }

        Solver solver() {
            return Solver.this;
        }
    }

    final Settings settings;
    final Grid grid;
    final Monitor monitor = new Monitor();
    final Random noise;
    int sweep;

    Solver(Settings settings, int rank, long seed) {
        this.settings = settings;
        this.grid = new Grid(settings.rows(), settings.columns());
        this.grid.owner = this;
        this.noise = new Random(seed * 7 + rank);
        for (int i = 1; i <= settings.rows(); i++) {
            for (int j = 0; j < settings.columns(); j++) {
                grid.cells[i][j] = ((rank * settings.rows() + i) * 31 + j) % 97 / 97.0;
            }
        }
    }

    /** One Jacobi sweep over this rank's rows (halos filled); returns the local residual. */
    static double relax(double[][] cells, double[][] next, double omega) {
        double residual = 0;
        int columns = cells[0].length;
        for (int i = 1; i < cells.length - 1; i++) {
            for (int j = 0; j < columns; j++) {
                double left = cells[i][j == 0 ? columns - 1 : j - 1];
                double right = cells[i][j == columns - 1 ? 0 : j + 1];
                double v = 0.25 * (cells[i - 1][j] + cells[i + 1][j] + left + right);
                next[i][j] = cells[i][j] + omega * (v - cells[i][j]);
                residual += Math.abs(next[i][j] - cells[i][j]);
            }
        }
        for (int i = 1; i < cells.length - 1; i++) {
            System.arraycopy(next[i], 0, cells[i], 0, columns);
        }
        return residual;
    }

    public static void main(String[] args) throws Exception {
        String[] a = MPI.Init(args);
        int sweeps = a.length > 0 ? Integer.parseInt(a[0]) : 160;
        int rows = a.length > 1 ? Integer.parseInt(a[1]) : 96;
        int columns = a.length > 2 ? Integer.parseInt(a[2]) : 256;
        long seed = a.length > 3 ? Long.parseLong(a[3]) : 1;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();

        Solver solver = new Solver(new Settings(rows, columns, 0.9), rank, seed);
        double[][] cells = solver.grid.cells; // aliases, taken before the rollback
        Random noise = solver.noise;
        Monitor monitor = solver.monitor;
        Ckpt.open();
        if (Ckpt.isRecovery()) {
            Ckpt.rollback("solver", solver);
        } else {
            Ckpt.register("solver", solver);
        }

        double[][] next = new double[rows + 2][columns];
        int up = (rank - 1 + size) % size;
        int down = (rank + 1) % size;
        double[] residual = new double[1];
        double[] total = new double[1];
        while (solver.sweep < sweeps) {
            MPI.COMM_WORLD.Sendrecv(cells[1], 0, columns, MPI.DOUBLE, up, 11,
                    cells[rows + 1], 0, columns, MPI.DOUBLE, down, 11);
            MPI.COMM_WORLD.Sendrecv(cells[rows], 0, columns, MPI.DOUBLE, down, 12,
                    cells[0], 0, columns, MPI.DOUBLE, up, 12);
            residual[0] = relax(cells, next, solver.settings.omega());
            cells[1 + noise.nextInt(rows)][noise.nextInt(columns)] += 0.01 * noise.nextGaussian();
            MPI.COMM_WORLD.Allreduce(residual, 0, total, 0, 1, MPI.DOUBLE, MPI.SUM);
            solver.sweep++;
            monitor.record(total[0]);
            if (solver.sweep % 2 == 0) {
                Ckpt.here(solver.sweep);
            }
        }

        long h = 17;
        for (int i = 1; i <= rows; i++) {
            for (int j = 0; j < columns; j++) {
                h = h * 31 + Double.doubleToLongBits(cells[i][j]);
            }
        }
        for (double[] s : monitor.samples) {
            h = h * 31 + Double.doubleToLongBits(s[1]);
        }
        h = h * 31 + noise.nextLong(); // the generator's state
        boolean intact = solver.grid.cells == cells && solver.noise == noise && solver.monitor == monitor
                && monitor.solver() == solver && solver.grid.owner == solver;
        long[] mine = {h, intact ? 1 : 0};
        long[] all = new long[2 * size];
        MPI.COMM_WORLD.Gather(mine, 0, 2, MPI.LONG, all, 0, 2, MPI.LONG, 0);
        if (rank == 0) {
            long hash = 0;
            long whole = 0;
            for (int r = 0; r < size; r++) {
                hash = hash * 1_000_003L + all[2 * r];
                whole += all[2 * r + 1];
            }
            System.out.printf("solver: %d sweeps of %dx%d on %d ranks, worst residual %016x, hash %016x, objects %s%n",
                    solver.sweep, rows * size, columns, size, Double.doubleToLongBits(monitor.worst), hash,
                    whole == size ? "intact" : "BROKEN on " + (size - whole) + " ranks");
        }
        Ckpt.close();
        MPI.Finalize();
    }
}
