package io.jckpt.runtime.programs;

import java.nio.file.Files;
import java.nio.file.Path;
import mpi.MPI;

/**
 * A Sendrecv ring that runs until a stop file exists, for tests that fail ranks at moments they
 * choose: every 100 iterations the ranks agree (Allreduce) whether any of them sees the file, and
 * stop together. Prints "ring ok from P after N iterations sum S", where S is checkable: the sum
 * of P * 1000 + i for i below N.
 *
 * <pre>
 * RingUntil stopFile
 * </pre>
 */
public final class RingUntil {
    private RingUntil() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        Path stop = Path.of(appArgs[0]);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        int next = (rank + 1) % size;
        int prev = (rank - 1 + size) % size;
        long sum = 0;
        int i = 0;
        int[] seen = new int[1];
        int[] anySeen = new int[1];
        for (;; i++) {
            if (i % 100 == 0) {
                seen[0] = Files.exists(stop) ? 1 : 0;
                MPI.COMM_WORLD.Allreduce(seen, 0, anySeen, 0, 1, MPI.INT, MPI.MAX);
                if (anySeen[0] == 1) {
                    break;
                }
                System.out.println("iteration " + i);
                Thread.sleep(5);
            }
            sum += RingCheck.ringStep(rank, next, prev, i);
        }
        System.out.println("ring ok from " + prev + " after " + i + " iterations sum " + sum);
        MPI.Finalize();
    }
}
