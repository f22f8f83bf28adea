package io.jckpt.samples.heat;

import io.jckpt.cli.CommandLines;

import io.jckpt.Ckpt;
import io.jckpt.samples.GivenSettings;
import io.jckpt.CtrlOptions;

import java.util.Locale;
import mpi.MPI;

/**
 * The 2D heat equation solved by Jacobi iteration on N ranks, written like Figure 1 of the paper:
 * rows split in blocks, halo rows exchanged with neighbours every sweep, the residual reduced
 * every {@code --report} sweeps; only the grid and the sweep counter are registered (halos and the
 * second buffer are recomputed). Prints the CRC32C checksum of the final grid: identical for any
 * number of ranks, with or without failures, and bit-identical to
 * {@link HeatProblem#solveSequentially}. Options: see {@link SolverOptions}.
 *
 * <p>The grid and the sweep counter are registered the same way on a fresh start and after a failure:
 * the launcher then re-enters main in a fresh MPJ world, and {@code register} restores them in place
 * from the checkpoint ({@link Ckpt#isRecovery()} is true). here(sweep) passes the sweep, which the
 * library compares across ranks.
 */
public final class HeatSolver {
    private static final int TAG_UP = 11;
    private static final int TAG_DOWN = 12;
    private static final int TAG_GATHER = 13;
    private static final int NONE = -1;

    private HeatSolver() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        SolverOptions options;
        try {
            options = SolverOptions.parse(appArgs);
        } catch (CommandLines.HelpRequested help) {
            if (MPI.COMM_WORLD.Rank() == 0) {
                System.out.print(help.usage());
            }
            MPI.Finalize();
            return;
        }
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        HeatProblem problem = new HeatProblem(options.nx(), options.ny());
        int nx = problem.nx();
        int ny = problem.ny();
        if (size > ny) {
            throw new IllegalArgumentException("more ranks (" + size + ") than grid rows (" + ny + ")");
        }
        int first = rowStart(rank, size, ny);
        int rows = rowStart(rank + 1, size, ny) - first;
        // a holds the grid between pairs of sweeps (a -> b -> a), so its identity never changes
        double[] a = new double[(rows + 2) * nx];
        double[] b = new double[(rows + 2) * nx];
        int[] sweep = {0};

        if (options.checkpointing()) {
            // only what the command line gave: the job's settings (ckpt-run --replicas, ...) decide the rest
            Ckpt.open(GivenSettings.interval(GivenSettings.builder(options.replicas(), options.diskRatio(),
                    options.diskDirectory()), options.interval(), options.nodeMtbf()).build());
        }
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < nx; c++) {
                a[(r + 1) * nx + c] = problem.initial(first + r, c);
            }
        }
        if (options.checkpointing()) {
            Ckpt.register("grid", a); // after a failure: a and sweep restored in place, here
            Ckpt.register("sweep", sweep);
            if (Ckpt.isRecovery() && rank == 0) {
                System.out.println("rolled back to sweep " + sweep[0] + " (round " + Ckpt.round() + ")");
            }
        }
        Halo halo = new Halo(nx, rows, rank == 0 ? NONE : rank - 1, rank == size - 1 ? NONE : rank + 1);
        double[] local = new double[1];
        double[] global = new double[1];
        long start = System.nanoTime();
        while (sweep[0] + 2 <= options.iterations()) {
            step(problem, halo, a, b, rows, first, sweep[0] + 1, options, local, global, rank);
            step(problem, halo, b, a, rows, first, sweep[0] + 2, options, local, global, rank);
            sweep[0] += 2;
            if (options.checkpointing() && (options.decided() ? Ckpt.needCheckpoint()
                    : sweep[0] % options.checkpointEvery() == 0)) {
                Ckpt.here(sweep[0]); // a synchronized point: no message in flight
                if (Ckpt.round() == options.ctrlRound()) {
                    // collective, like here(): every rank at the same round; m switches at the next here()
                    Ckpt.ctrl(CtrlOptions.builder().replicas(options.ctrlReplicas()).build());
                    if (rank == 0) {
                        System.out.println("ctrl: replicas " + options.ctrlReplicas() + " from round " + (Ckpt.round() + 1));
                    }
                }
            }
        }
        double[] result = a;
        if (sweep[0] < options.iterations()) { // an odd count: one last sweep
            step(problem, halo, a, b, rows, first, sweep[0] + 1, options, local, global, rank);
            result = b;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (rank == 0) {
            double[] grid = new double[ny * nx];
            System.arraycopy(result, nx, grid, 0, rows * nx);
            for (int source = 1; source < size; source++) {
                int sFirst = rowStart(source, size, ny);
                int sRows = rowStart(source + 1, size, ny) - sFirst;
                MPI.COMM_WORLD.Recv(grid, sFirst * nx, sRows * nx, MPI.DOUBLE, source, TAG_GATHER);
            }
            System.out.printf(Locale.ROOT, "checksum %016x (%d x %d, %d iterations, %d ranks, %.3f s)%n",
                    HeatProblem.checksum(grid, 0, grid.length), nx, ny, options.iterations(), size, seconds);
        } else {
            MPI.COMM_WORLD.Send(result, nx, rows * nx, MPI.DOUBLE, 0, TAG_GATHER);
        }
        if (options.checkpointing()) {
            Ckpt.close();
        }
        MPI.Finalize();
    }

    /** One sweep from {@code cur} into {@code next}, numbered {@code number} (1-based). */
    private static void step(HeatProblem problem, Halo halo, double[] cur, double[] next, int rows, int first, int number,
                             SolverOptions options, double[] local, double[] global, int rank) throws Exception {
        halo.exchange(cur);
        local[0] = problem.sweep(cur, next, rows, first);
        if (number % options.report() == 0 || number == options.iterations()) {
            MPI.COMM_WORLD.Allreduce(local, 0, global, 0, 1, MPI.DOUBLE, MPI.SUM);
            if (rank == 0) {
                System.out.printf(Locale.ROOT, "iteration %d residual %.6e%n", number, Math.sqrt(global[0]));
            }
        }
        if (options.sleepMillis() > 0) {
            Thread.sleep(options.sleepMillis());
        }
    }

    /** First global row of {@code rank}'s block (blocks differ in size by at most one row). */
    static int rowStart(int rank, int size, int ny) {
        return (int) ((long) rank * ny / size);
    }

    /** The halo exchange of one rank's block: first row up, last row down. */
    private record Halo(int nx, int rows, int up, int down) {
        void exchange(double[] grid) throws mpi.MPIException {
            exchange(grid, nx, up, (rows + 1) * nx, down, TAG_UP);
            exchange(grid, rows * nx, down, 0, up, TAG_DOWN);
        }

        /**
         * Sends a row at {@code sendOffset} to {@code to} while receiving one at {@code recvOffset}
         * from {@code from}; either side may be {@link #NONE} (MPJ Express's Sendrecv rejects
         * MPI.PROC_NULL).
         */
        private void exchange(double[] grid, int sendOffset, int to, int recvOffset, int from, int tag)
                throws mpi.MPIException {
            if (to != NONE && from != NONE) {
                MPI.COMM_WORLD.Sendrecv(grid, sendOffset, nx, MPI.DOUBLE, to, tag,
                        grid, recvOffset, nx, MPI.DOUBLE, from, tag);
            } else if (to != NONE) {
                MPI.COMM_WORLD.Send(grid, sendOffset, nx, MPI.DOUBLE, to, tag);
            } else if (from != NONE) {
                MPI.COMM_WORLD.Recv(grid, recvOffset, nx, MPI.DOUBLE, from, tag);
            }
        }
    }
}
