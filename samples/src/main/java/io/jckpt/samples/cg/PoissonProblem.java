package io.jckpt.samples.cg;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * The sparse linear system of the conjugate gradient sample: the 2D Poisson equation on an
 * {@code nx x ny} grid of unknowns with zero Dirichlet boundaries, discretised by the 5-point
 * Laplacian {@code (A u)(i,j) = 4 u(i,j) - u(i-1,j) - u(i+1,j) - u(i,j-1) - u(i,j+1)}. The matrix is
 * never stored: {@link #apply} computes {@code A p} on a block of grid rows from the block and its two
 * halo rows. The right-hand side is {@code b = A u*} for a known smooth {@link #exact} solution, so a
 * converged run can be checked against it.
 *
 * <p>This is the kernel shared by the parallel solver and the sequential reference: every value is
 * computed by the same expression in the same order whatever the decomposition, which is what makes
 * the result bit-identical for any number of ranks (see {@link #rowDots} for the dot products).
 * Vectors hold a block of whole grid rows, row-major, without halos: element {@code (r, c)} of a
 * block is at {@code r * nx + c}.
 */
public final class PoissonProblem {
    private final int nx;
    private final int ny;

    public PoissonProblem(int nx, int ny) {
        if (nx < 1 || ny < 1) {
            throw new IllegalArgumentException("grid must be at least 1 x 1, got " + nx + " x " + ny);
        }
        if ((long) nx * ny > Integer.MAX_VALUE / 2) {
            throw new IllegalArgumentException("grid " + nx + " x " + ny + " is too large");
        }
        this.nx = nx;
        this.ny = ny;
    }

    public int nx() {
        return nx;
    }

    public int ny() {
        return ny;
    }

    /**
     * The known solution at global unknown (row, col): a smooth polynomial that vanishes on the
     * boundary and is not an eigenvector of A (CG needs many iterations to reach it). Plain
     * arithmetic only, so it is the same bits on every JVM.
     */
    public double exact(int row, int col) {
        if (row < 0 || row >= ny || col < 0 || col >= nx) {
            return 0.0; // the Dirichlet boundary
        }
        double x = (col + 1.0) / (nx + 1.0);
        double y = (row + 1.0) / (ny + 1.0);
        return 16.0 * x * (1.0 - x) * y * (1.0 - y) * (1.0 + 2.0 * x + y * y);
    }

    /** The right-hand side {@code b = A u*} at global unknown (row, col). */
    public double rhs(int row, int col) {
        return 4.0 * exact(row, col) - exact(row - 1, col) - exact(row + 1, col) - exact(row, col - 1)
                - exact(row, col + 1);
    }

    /** Fills {@code b} with the right-hand side of the block of {@code rows} rows from global row {@code first}. */
    public void fillRhs(double[] b, int first, int rows) {
        for (int r = 0; r < rows; r++) {
            for (int c = 0; c < nx; c++) {
                b[r * nx + c] = rhs(first + r, c);
            }
        }
    }

    /**
     * {@code q = A p} on a block of {@code rows} rows; {@code above} is the grid row just above the
     * block and {@code below} the one just below (all zeros at the domain's boundary).
     */
    public void apply(double[] p, double[] above, double[] below, double[] q, int rows) {
        for (int r = 0; r < rows; r++) {
            int base = r * nx;
            for (int c = 0; c < nx; c++) {
                int i = base + c;
                double north = r == 0 ? above[c] : p[i - nx];
                double south = r == rows - 1 ? below[c] : p[i + nx];
                double west = c == 0 ? 0.0 : p[i - 1];
                double east = c == nx - 1 ? 0.0 : p[i + 1];
                q[i] = 4.0 * p[i] - north - south - west - east;
            }
        }
    }

    /**
     * The dot product's per-row partial sums of a block: {@code partials[offset + r]} is the sum over
     * the columns of row r, left to right, starting from +0.0 (so never -0.0). A global dot product is
     * these row partials summed in global row order ({@link #sumInOrder}); since a row is never split
     * between ranks, this order, and so the result, does not depend on the number of ranks.
     */
    public void rowDots(double[] a, double[] b, int rows, double[] partials, int offset) {
        for (int r = 0; r < rows; r++) {
            int base = r * nx;
            double sum = 0.0;
            for (int c = 0; c < nx; c++) {
                sum += a[base + c] * b[base + c];
            }
            partials[offset + r] = sum;
        }
    }

    /** The sum of all row partials, in row order. */
    public static double sumInOrder(double[] partials) {
        double sum = 0.0;
        for (double partial : partials) {
            sum += partial;
        }
        return sum;
    }

    /** One CG update of a block: {@code x += alpha p; r -= alpha q}. */
    public static void updateSolution(double[] x, double[] r, double[] p, double[] q, double alpha, int length) {
        for (int i = 0; i < length; i++) {
            x[i] += alpha * p[i];
            r[i] -= alpha * q[i];
        }
    }

    /** One CG update of a block: {@code p = r + beta p}. */
    public static void updateDirection(double[] p, double[] r, double beta, int length) {
        for (int i = 0; i < length; i++) {
            p[i] = r[i] + beta * p[i];
        }
    }

    /** The largest {@code |x - u*|} over the whole grid ({@code x} holds all rows). */
    public double maxError(double[] x) {
        double max = 0.0;
        for (int row = 0; row < ny; row++) {
            for (int col = 0; col < nx; col++) {
                max = Math.max(max, Math.abs(x[row * nx + col] - exact(row, col)));
            }
        }
        return max;
    }

    /** The checksum printed by the solver: CRC32C of the solution's IEEE bits, row-major. */
    public static long checksum(double[] x) {
        CRC32C crc = new CRC32C();
        ByteBuffer bytes = ByteBuffer.allocate(8 * 1024);
        for (double v : x) {
            if (!bytes.hasRemaining()) {
                bytes.flip();
                crc.update(bytes);
                bytes.clear();
            }
            bytes.putLong(Double.doubleToRawLongBits(v));
        }
        bytes.flip();
        crc.update(bytes);
        return crc.getValue();
    }

    /** The result of a sequential solve. */
    public record Solution(double[] x, int iterations, double residualNorm) {
    }

    /**
     * The sequential reference: CG on the whole grid as one block, at most {@code maxIterations}
     * iterations, stopping early when {@code ||r|| <= tolerance ||b||}. The parallel solver must
     * reproduce its {@code x} bit for bit.
     */
    public Solution solveSequentially(int maxIterations, double tolerance) {
        int n = nx * ny;
        double[] x = new double[n];
        double[] r = new double[n];
        double[] p = new double[n];
        double[] q = new double[n];
        double[] zeros = new double[nx];
        double[] partials = new double[ny];
        fillRhs(r, 0, ny); // x = 0, so r = b - A x = b
        System.arraycopy(r, 0, p, 0, n);
        rowDots(r, r, ny, partials, 0);
        double rho = sumInOrder(partials);
        double stop = tolerance * tolerance * rho;
        int k = 0;
        while (k < maxIterations && rho > stop) {
            apply(p, zeros, zeros, q, ny);
            rowDots(p, q, ny, partials, 0);
            double alpha = rho / sumInOrder(partials);
            updateSolution(x, r, p, q, alpha, n);
            rowDots(r, r, ny, partials, 0);
            double rhoNext = sumInOrder(partials);
            updateDirection(p, r, rhoNext / rho, n);
            rho = rhoNext;
            k++;
        }
        return new Solution(x, k, Math.sqrt(rho));
    }
}
