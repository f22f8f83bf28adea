package io.jckpt.samples.cg;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The CG kernel: it solves the Poisson problem, and a row-block decomposition changes no bit. */
class PoissonProblemTest {

    @Test
    void conjugateGradientConvergesToTheKnownSolution() {
        PoissonProblem problem = new PoissonProblem(40, 30);
        PoissonProblem.Solution solution = problem.solveSequentially(1_000, 1e-12);
        assertTrue(solution.iterations() < 1_000, "no convergence: " + solution.iterations());
        assertTrue(problem.maxError(solution.x()) < 1e-9, "error " + problem.maxError(solution.x()));
    }

    @Test
    void operatorIsTheFivePointLaplacianWithZeroBoundary() {
        PoissonProblem problem = new PoissonProblem(3, 2);
        double[] p = {1, 2, 3, 4, 5, 6};
        double[] q = new double[6];
        double[] zeros = new double[3];
        problem.apply(p, zeros, zeros, q, 2);
        assertArrayEquals(new double[] {4 - 2 - 4, 8 - 1 - 3 - 5, 12 - 2 - 6, 16 - 1 - 5, 20 - 2 - 4 - 6, 24 - 3 - 5},
                q);
    }

    @Test
    void blocksWithHalosGiveTheSameBitsAsTheWholeGrid() {
        int nx = 7;
        int ny = 9;
        PoissonProblem problem = new PoissonProblem(nx, ny);
        double[] whole = new double[nx * ny];
        problem.fillRhs(whole, 0, ny);
        double[] zeros = new double[nx];
        double[] q = new double[nx * ny];
        problem.apply(whole, zeros, zeros, q, ny);
        double[] partials = new double[ny];
        problem.rowDots(whole, q, ny, partials, 0);
        double dot = PoissonProblem.sumInOrder(partials);

        for (int size = 1; size <= ny; size++) {
            double[] blockPartials = new double[ny];
            for (int rank = 0; rank < size; rank++) {
                int first = CgSolver.rowStart(rank, size, ny);
                int rows = CgSolver.rowStart(rank + 1, size, ny) - first;
                double[] block = new double[rows * nx];
                problem.fillRhs(block, first, rows);
                double[] above = first == 0 ? zeros : java.util.Arrays.copyOfRange(whole, (first - 1) * nx, first * nx);
                double[] below = first + rows == ny ? zeros
                        : java.util.Arrays.copyOfRange(whole, (first + rows) * nx, (first + rows + 1) * nx);
                double[] blockQ = new double[rows * nx];
                problem.apply(block, above, below, blockQ, rows);
                assertArrayEquals(java.util.Arrays.copyOfRange(q, first * nx, (first + rows) * nx), blockQ,
                        "rank " + rank + " of " + size);
                problem.rowDots(block, blockQ, rows, blockPartials, first);
            }
            assertEquals(Double.doubleToRawLongBits(dot), Double.doubleToRawLongBits(PoissonProblem.sumInOrder(blockPartials)),
                    size + " ranks");
        }
    }
}
