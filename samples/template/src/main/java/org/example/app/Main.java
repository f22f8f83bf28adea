package org.example.app;

import io.jckpt.Ckpt;
import java.util.zip.CRC32;
import mpi.MPI;

/**
 * A one-dimensional heat stencil on N ranks that survives failures (the paper's Figure 1): each rank
 * owns {@code cells} cells, exchanges its edge cells with its neighbours every step, and checkpoints
 * its cells and the step counter every step. Rank 0 prints a checksum of the whole result, the same
 * with or without failures.
 *
 * <pre>Main [steps] [cells per rank]</pre>
 * Checkpoint settings come from the job ({@code bin/ckpt-run --replicas 2 --disk DIR ...}).
 */
public final class Main {
    private Main() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int steps = appArgs.length > 0 ? Integer.parseInt(appArgs[0]) : 400;
        int cells = appArgs.length > 1 ? Integer.parseInt(appArgs[1]) : 1 << 15;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        double[] u = new double[cells + 2]; // with one halo cell at each end
        double[] next = new double[cells + 2];
        int[] step = {0};

        for (int i = 1; i <= cells; i++) {
            u[i] = Math.sin((double) (rank * cells + i) / (size * cells) * Math.PI) * 100;
        }
        Ckpt.open(); // the job's settings: launcher options, -Djckpt.*, JCKPT_*, defaults
        Ckpt.register("u", u); // after a failure: u and step restored in place, here
        Ckpt.register("step", step);
        int left = (rank - 1 + size) % size; // a ring: the rod's ends touch
        int right = (rank + 1) % size;
        while (step[0] < steps) {
            MPI.COMM_WORLD.Sendrecv(u, 1, 1, MPI.DOUBLE, left, 1, u, cells + 1, 1, MPI.DOUBLE, right, 1);
            MPI.COMM_WORLD.Sendrecv(u, cells, 1, MPI.DOUBLE, right, 2, u, 0, 1, MPI.DOUBLE, left, 2);
            for (int i = 1; i <= cells; i++) {
                next[i] = u[i] + 0.25 * (u[i - 1] - 2 * u[i] + u[i + 1]);
            }
            System.arraycopy(next, 1, u, 1, cells);
            step[0]++;
            Ckpt.here(step[0]); // a synchronized point: no message in flight; the step is compared across ranks
        }
        // gather a checksum of every rank's cells on rank 0
        CRC32 crc = new CRC32();
        for (int i = 1; i <= cells; i++) {
            crc.update(Long.toString(Double.doubleToLongBits(u[i])).getBytes());
        }
        long[] mine = {crc.getValue()};
        long[] all = new long[size];
        MPI.COMM_WORLD.Gather(mine, 0, 1, MPI.LONG, all, 0, 1, MPI.LONG, 0);
        if (rank == 0) {
            CRC32 total = new CRC32();
            for (long c : all) {
                total.update(Long.toString(c).getBytes());
            }
            System.out.printf("result: %d steps on %d ranks, checksum %08x%n", steps, size, total.getValue());
        }
        Ckpt.close();
        MPI.Finalize();
    }
}
