package io.jckpt.samples.heat;

import java.util.Locale;
import mpi.MPI;

/**
 * The 2D heat equation solved by Jacobi iteration on N ranks, rows split in blocks, halo rows
 * exchanged with neighbours every sweep, the residual reduced every {@code --report} sweeps. Prints
 * the CRC32C checksum of the final grid, identical for any number of ranks and bit-identical to
 * {@link HeatProblem#solveSequentially}.
 *
 * <pre>
 * HeatSolver [--nx 256] [--ny 256] [--iterations 1000] [--report 100] [--sleep-ms 0]
 * </pre>
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
        SolverOptions options = SolverOptions.parse(appArgs);
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
        double[] cur = new double[(rows + 2) * nx];
        double[] next = new double[(rows + 2) * nx];
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < nx; c++) {
                cur[(r + 1) * nx + c] = problem.initial(first + r, c);
            }
        }
        int up = rank == 0 ? NONE : rank - 1;
        int down = rank == size - 1 ? NONE : rank + 1;
        double[] local = new double[1];
        double[] global = new double[1];
        long start = System.nanoTime();
        for (int it = 1; it <= options.iterations(); it++) {
            // halo rows: my first row goes up, my last row goes down
            exchange(cur, nx, nx, up, (rows + 1) * nx, down, TAG_UP);
            exchange(cur, rows * nx, nx, down, 0, up, TAG_DOWN);
            local[0] = problem.sweep(cur, next, rows, first);
            double[] t = cur;
            cur = next;
            next = t;
            if (it % options.report() == 0 || it == options.iterations()) {
                MPI.COMM_WORLD.Allreduce(local, 0, global, 0, 1, MPI.DOUBLE, MPI.SUM);
                if (rank == 0) {
                    System.out.printf(Locale.ROOT, "iteration %d residual %.6e%n", it, Math.sqrt(global[0]));
                }
            }
            if (options.sleepMillis() > 0) {
                Thread.sleep(options.sleepMillis());
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (rank == 0) {
            double[] grid = new double[ny * nx];
            System.arraycopy(cur, nx, grid, 0, rows * nx);
            for (int source = 1; source < size; source++) {
                int sFirst = rowStart(source, size, ny);
                int sRows = rowStart(source + 1, size, ny) - sFirst;
                MPI.COMM_WORLD.Recv(grid, sFirst * nx, sRows * nx, MPI.DOUBLE, source, TAG_GATHER);
            }
            System.out.printf(Locale.ROOT, "checksum %016x (%d x %d, %d iterations, %d ranks, %.3f s)%n",
                    HeatProblem.checksum(grid, 0, grid.length), nx, ny, options.iterations(), size, seconds);
        } else {
            MPI.COMM_WORLD.Send(cur, nx, rows * nx, MPI.DOUBLE, 0, TAG_GATHER);
        }
        MPI.Finalize();
    }

    /**
     * Sends {@code count} values at {@code sendOffset} to {@code to} while receiving as many at
     * {@code recvOffset} from {@code from}; either side may be {@link #NONE} (MPJ Express's Sendrecv
     * does not accept MPI.PROC_NULL).
     */
    private static void exchange(double[] grid, int sendOffset, int count, int to, int recvOffset, int from, int tag)
            throws mpi.MPIException {
        if (to != NONE && from != NONE) {
            MPI.COMM_WORLD.Sendrecv(grid, sendOffset, count, MPI.DOUBLE, to, tag,
                    grid, recvOffset, count, MPI.DOUBLE, from, tag);
        } else if (to != NONE) {
            MPI.COMM_WORLD.Send(grid, sendOffset, count, MPI.DOUBLE, to, tag);
        } else if (from != NONE) {
            MPI.COMM_WORLD.Recv(grid, recvOffset, count, MPI.DOUBLE, from, tag);
        }
    }

    /** First global row of {@code rank}'s block (blocks differ in size by at most one row). */
    static int rowStart(int rank, int size, int ny) {
        return (int) ((long) rank * ny / size);
    }
}
