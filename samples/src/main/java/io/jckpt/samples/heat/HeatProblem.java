package io.jckpt.samples.heat;

import java.util.zip.CRC32C;

/**
 * The 2D heat equation (Jacobi iteration) on an {@code nx x ny} grid with fixed boundaries: the
 * numerical kernel shared by the parallel solver and the sequential reference, so both compute
 * bit-identical values. Rows are the unit of decomposition.
 */
public final class HeatProblem {
    private final int nx;
    private final int ny;

    public HeatProblem(int nx, int ny) {
        if (nx < 3 || ny < 3) {
            throw new IllegalArgumentException("grid must be at least 3 x 3, got " + nx + " x " + ny);
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

    /** Initial temperature of global cell (row, col): hot top edge and a hot spot, cold elsewhere. */
    public double initial(int row, int col) {
        if (row == 0) {
            return 100.0;
        }
        if (row == ny - 1 || col == 0 || col == nx - 1) {
            return 0.0;
        }
        int dr = row - ny / 3;
        int dc = col - nx / 3;
        return dr * dr + dc * dc < (nx * nx) / 64 ? 50.0 : 0.0;
    }

    /** Whether the global row is a fixed boundary row. */
    public boolean boundaryRow(int row) {
        return row == 0 || row == ny - 1;
    }

    /**
     * One Jacobi sweep over rows [1, rows] of {@code cur} (rows 0 and rows+1 are halos) into
     * {@code next}; {@code firstGlobalRow} is the global index of local row 1. Returns the sum of
     * squared changes (the residual's square).
     */
    public double sweep(double[] cur, double[] next, int rows, int firstGlobalRow) {
        double residual = 0;
        for (int r = 1; r <= rows; r++) {
            int base = r * nx;
            if (boundaryRow(firstGlobalRow + r - 1)) {
                System.arraycopy(cur, base, next, base, nx);
                continue;
            }
            next[base] = cur[base];
            next[base + nx - 1] = cur[base + nx - 1];
            for (int c = 1; c < nx - 1; c++) {
                double v = 0.25 * (cur[base + c - 1] + cur[base + c + 1] + cur[base + c - nx] + cur[base + c + nx]);
                double d = v - cur[base + c];
                residual += d * d;
                next[base + c] = v;
            }
        }
        return residual;
    }

    /** The checksum printed by the solvers: CRC32C of the grid's IEEE bits, row-major. */
    public static long checksum(double[] grid, int offset, int length) {
        CRC32C crc = new CRC32C();
        java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(8 * 1024);
        for (int i = 0; i < length; i++) {
            if (!bytes.hasRemaining()) {
                bytes.flip();
                crc.update(bytes);
                bytes.clear();
            }
            bytes.putLong(Double.doubleToRawLongBits(grid[offset + i]));
        }
        bytes.flip();
        crc.update(bytes);
        return crc.getValue();
    }

    /** The sequential reference: {@code iterations} sweeps of the whole grid. */
    public double[] solveSequentially(int iterations) {
        double[] cur = new double[(ny + 2) * nx];
        double[] next = new double[(ny + 2) * nx];
        for (int row = 0; row < ny; row++) {
            for (int col = 0; col < nx; col++) {
                cur[(row + 1) * nx + col] = initial(row, col);
            }
        }
        for (int i = 0; i < iterations; i++) {
            sweep(cur, next, ny, 0);
            double[] t = cur;
            cur = next;
            next = t;
        }
        double[] grid = new double[ny * nx];
        System.arraycopy(cur, nx, grid, 0, ny * nx);
        return grid;
    }
}
