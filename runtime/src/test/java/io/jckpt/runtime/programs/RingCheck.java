package io.jckpt.runtime.programs;

import mpi.MPI;

/**
 * A small MPJ Express program used by the launcher tests: an Allgather and a Sendrecv ring whose
 * results it checks and prints, then an optional misbehaviour.
 *
 * <pre>
 * RingCheck [iterations] [fault rank kind]
 *   kind: throw (an exception out of main), exit3 (System.exit(3)), none
 * </pre>
 * With many iterations it loops long enough for a test to kill a rank mid-loop.
 */
public final class RingCheck {
    private RingCheck() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        int iterations = appArgs.length > 0 ? Integer.parseInt(appArgs[0]) : 1;
        int faultRank = appArgs.length > 2 ? Integer.parseInt(appArgs[1]) : -1;
        String fault = appArgs.length > 2 ? appArgs[2] : "none";

        int[] mine = {rank * 10 + 1};
        int[] all = new int[size];
        MPI.COMM_WORLD.Allgather(mine, 0, 1, MPI.INT, all, 0, 1, MPI.INT);
        StringBuilder gathered = new StringBuilder();
        for (int r = 0; r < size; r++) {
            if (all[r] != r * 10 + 1) {
                throw new IllegalStateException("allgather: slot " + r + " holds " + all[r]);
            }
            gathered.append(r == 0 ? "" : ",").append(all[r]);
        }
        System.out.println("allgather ok " + gathered);

        int next = (rank + 1) % size;
        int prev = (rank - 1 + size) % size;
        long sum = 0;
        for (int i = 0; i < iterations; i++) {
            sum += ringStep(rank, next, prev, i);
            if (i == iterations / 2 && rank == faultRank) {
                if (fault.equals("throw")) {
                    System.out.println("throwing the injected failure"); // the rank prints nothing of it
                    throw new IllegalStateException("injected failure on rank " + rank);
                }
                if (fault.equals("exit3")) {
                    System.exit(3);
                }
            }
            if (iterations > 1 && i % 100 == 0) {
                System.out.println("iteration " + i);
                Thread.sleep(5);
            }
        }
        System.out.println("ring ok from " + prev + " sum " + sum);
        MPI.Finalize();
    }

    /**
     * One ring step: sends rank * 1000 + i to the next rank, receives and checks the previous rank's.
     *
     * @return the value received
     */
    static int ringStep(int rank, int next, int prev, int i) {
        int[] send = {rank * 1000 + i};
        int[] recv = new int[1];
        MPI.COMM_WORLD.Sendrecv(send, 0, 1, MPI.INT, next, 7, recv, 0, 1, MPI.INT, prev, 7);
        if (recv[0] != prev * 1000 + i) {
            throw new IllegalStateException("ring: iteration " + i + " got " + recv[0] + " from " + prev);
        }
        return recv[0];
    }
}
