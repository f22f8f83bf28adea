package io.jckpt.samples.cg;

import io.jckpt.cli.CommandLines;

import io.jckpt.Ckpt;
import io.jckpt.samples.GivenSettings;

import java.util.Locale;
import mpi.MPI;
import mpi.MPIException;

/**
 * Conjugate gradient for the 2D Poisson problem of {@link PoissonProblem} on N ranks, written like
 * Figure 1 of the paper. Grid rows (and so matrix rows) are split in blocks; the matrix-vector
 * product exchanges one halo row of p with each neighbour; the two dot products per iteration are
 * Allreduce'd. Registered: the vectors x, r and p, and the scalars (iteration, rho, rho0) in a small
 * array; q, the halos and the right-hand side are recomputed.
 *
 * <p><b>Determinism.</b> A plain Allreduce of one partial sum per rank would make the result depend on
 * the number of ranks (floating-point addition is not associative) and on MPJ's reduction order. The
 * solver reduces instead one partial per grid row (a vector of ny doubles in which each rank fills its
 * own rows and leaves the others +0.0): adding +0.0 is exact, so every rank receives exactly the row
 * partials, and sums them in row order. The dot products, hence every vector, are then bit-identical
 * for any number of ranks and to {@link PoissonProblem#solveSequentially}, and identical on every rank
 * (so the early-stop decision is the same everywhere). The cost is a reduction of ny doubles instead
 * of one.
 *
 * <p>Prints {@code checksum %016x}: the CRC32C of the final x, row-major.
 */
public final class CgSolver {
    private static final int TAG_UP = 21;
    private static final int TAG_DOWN = 22;
    private static final int TAG_GATHER = 23;
    private static final int NONE = -1;
    /** Indexes into the registered scalars. */
    private static final int ITERATION = 0;
    private static final int RHO = 1;
    private static final int RHO0 = 2;

    private CgSolver() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        CgOptions options;
        try {
            options = CgOptions.parse(appArgs);
        } catch (CommandLines.HelpRequested help) {
            if (MPI.COMM_WORLD.Rank() == 0) {
                System.out.print(help.usage());
            }
            MPI.Finalize();
            return;
        }
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        PoissonProblem problem = new PoissonProblem(options.nx(), options.ny());
        int nx = problem.nx();
        int ny = problem.ny();
        if (size > ny) {
            throw new IllegalArgumentException("more ranks (" + size + ") than grid rows (" + ny + ")");
        }
        int first = rowStart(rank, size, ny);
        int rows = rowStart(rank + 1, size, ny) - first;
        int n = rows * nx;
        double[] x = new double[n];
        double[] r = new double[n];
        double[] p = new double[n];
        double[] scalars = new double[3]; // iteration, rho = r.r, rho0 = b.b
        Dots dots = new Dots(problem, rows, first, ny);

        if (options.checkpointing()) {
            // only what the command line gave: the job's settings (ckpt-run --replicas, ...) decide the rest
            Ckpt.open(GivenSettings.builder(options.replicas(), options.diskRatio(), options.diskDirectory()).build());
        }
        problem.fillRhs(r, first, rows); // x = 0, so r = b
        System.arraycopy(r, 0, p, 0, n);
        scalars[RHO] = dots.dot(r, r);
        scalars[RHO0] = scalars[RHO];
        if (options.checkpointing()) {
            Ckpt.register("x", x); // after a failure: restored in place, here
            Ckpt.register("r", r);
            Ckpt.register("p", p);
            Ckpt.register("scalars", scalars);
            if (Ckpt.isRecovery() && rank == 0) {
                System.out.println("rolled back to iteration " + (long) scalars[ITERATION] + " (round " + Ckpt.round()
                        + ")");
            }
        }

        Halo halo = new Halo(nx, rows, rank == 0 ? NONE : rank - 1, rank == size - 1 ? NONE : rank + 1);
        double[] q = new double[n];
        double stop = options.tolerance() * options.tolerance() * scalars[RHO0];
        long start = System.nanoTime();
        while (scalars[ITERATION] < options.iterations() && scalars[RHO] > stop) {
            double rho = scalars[RHO];
            halo.exchange(p);
            problem.apply(p, halo.above, halo.below, q, rows);
            double alpha = rho / dots.dot(p, q);
            PoissonProblem.updateSolution(x, r, p, q, alpha, n);
            double rhoNext = dots.dot(r, r);
            PoissonProblem.updateDirection(p, r, rhoNext / rho, n);
            scalars[RHO] = rhoNext;
            long k = (long) ++scalars[ITERATION];
            if (rank == 0 && k % options.report() == 0) {
                System.out.printf(Locale.ROOT, "iteration %d residual %.6e%n", k, Math.sqrt(rhoNext));
            }
            if (options.sleepMillis() > 0) {
                Thread.sleep(options.sleepMillis());
            }
            boolean last = k >= options.iterations() || rhoNext <= stop;
            if (options.checkpointing() && k % options.checkpointEvery() == 0 && !last) {
                // a synchronized point: x, r, p and the scalars are one consistent state (not after the
                // last iteration: nothing would be left to recompute)
                Ckpt.here(k);
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        if (rank == 0) {
            double[] all = new double[ny * nx];
            System.arraycopy(x, 0, all, 0, n);
            for (int source = 1; source < size; source++) {
                int sFirst = rowStart(source, size, ny);
                int sRows = rowStart(source + 1, size, ny) - sFirst;
                MPI.COMM_WORLD.Recv(all, sFirst * nx, sRows * nx, MPI.DOUBLE, source, TAG_GATHER);
            }
            System.out.printf(Locale.ROOT, "checksum %016x (%d x %d, %d iterations, residual %.6e, max error %.3e,"
                            + " %d ranks, %.3f s)%n", PoissonProblem.checksum(all), nx, ny, (long) scalars[ITERATION],
                    Math.sqrt(scalars[RHO]), problem.maxError(all), size, seconds);
        } else {
            MPI.COMM_WORLD.Send(x, 0, n, MPI.DOUBLE, 0, TAG_GATHER);
        }
        if (options.checkpointing()) {
            Ckpt.close();
        }
        MPI.Finalize();
    }

    /** First global row of {@code rank}'s block (blocks differ in size by at most one row). */
    static int rowStart(int rank, int size, int ny) {
        return (int) ((long) rank * ny / size);
    }

    /** Global dot products reduced per grid row, so the result does not depend on the rank count. */
    private static final class Dots {
        private final PoissonProblem problem;
        private final int rows;
        private final int first;
        private final double[] local;
        private final double[] global;

        Dots(PoissonProblem problem, int rows, int first, int ny) {
            this.problem = problem;
            this.rows = rows;
            this.first = first;
            this.local = new double[ny]; // other ranks' rows stay +0.0
            this.global = new double[ny];
        }

        double dot(double[] a, double[] b) throws MPIException {
            problem.rowDots(a, b, rows, local, first);
            MPI.COMM_WORLD.Allreduce(local, 0, global, 0, local.length, MPI.DOUBLE, MPI.SUM);
            return PoissonProblem.sumInOrder(global);
        }
    }

    /**
     * The halo rows of p for one rank's block: {@code above} is the last row of the rank above (zeros
     * on rank 0), {@code below} the first row of the rank below (zeros on the last rank).
     */
    private static final class Halo {
        private final int nx;
        private final int rows;
        private final int up;
        private final int down;
        final double[] above;
        final double[] below;

        Halo(int nx, int rows, int up, int down) {
            this.nx = nx;
            this.rows = rows;
            this.up = up;
            this.down = down;
            this.above = new double[nx];
            this.below = new double[nx];
        }

        void exchange(double[] p) throws MPIException {
            // first row up, the rank below's first row in; last row down, the rank above's last row in
            exchange(p, 0, up, below, down, TAG_UP);
            exchange(p, (rows - 1) * nx, down, above, up, TAG_DOWN);
        }

        /** MPJ Express's Sendrecv rejects MPI.PROC_NULL: edges use plain Send or Recv. */
        private void exchange(double[] p, int sendOffset, int to, double[] into, int from, int tag)
                throws MPIException {
            if (to != NONE && from != NONE) {
                MPI.COMM_WORLD.Sendrecv(p, sendOffset, nx, MPI.DOUBLE, to, tag, into, 0, nx, MPI.DOUBLE, from, tag);
            } else if (to != NONE) {
                MPI.COMM_WORLD.Send(p, sendOffset, nx, MPI.DOUBLE, to, tag);
            } else if (from != NONE) {
                MPI.COMM_WORLD.Recv(into, 0, nx, MPI.DOUBLE, from, tag);
            }
        }
    }
}
