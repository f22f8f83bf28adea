package io.jckpt.runtime.programs;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import java.time.Duration;
import mpi.MPI;

/**
 * Ranks that wait for each other, for the launcher's deadlock watch. After one checkpoint round:
 * <ul>
 * <li>{@code ring}: every rank receives from the next one, which never sends (a deadlock in MPJ Express);
 * <li>{@code extra-barrier}: rank 0 calls one Barrier more than the others, which go on to Ckpt.close()
 *     (a deadlock across the program's calls and the library's exchange);
 * <li>{@code slow-sender MS}: rank 0 sleeps MS, then sends to every rank waiting for it (no deadlock).
 * </ul>
 * Prints "done" and closes. The exchange timeout is 120 s, so only the launcher's watch ends a deadlock.
 */
public final class WaitsFor {
    private WaitsFor() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        Duration timeout = Duration.ofSeconds(120);
        Ckpt.open(CkptOptions.builder().exchangeTimeout(timeout).hereWaitTimeout(timeout).build());
        long[] state = {rank};
        Ckpt.register("state", state);
        Ckpt.here(1);
        int[] buf = new int[1];
        switch (appArgs[0]) {
            case "ring" -> MPI.COMM_WORLD.Recv(buf, 0, 1, MPI.INT, (rank + 1) % size, 7);
            case "extra-barrier" -> {
                if (rank == 0) {
                    MPI.COMM_WORLD.Barrier();
                }
            }
            case "slow-sender" -> {
                if (rank == 0) {
                    Thread.sleep(Long.parseLong(appArgs[1]));
                    for (int r = 1; r < size; r++) {
                        MPI.COMM_WORLD.Send(buf, 0, 1, MPI.INT, r, 7);
                    }
                } else {
                    MPI.COMM_WORLD.Recv(buf, 0, 1, MPI.INT, 0, 7);
                }
            }
            default -> throw new IllegalArgumentException("mode: ring, extra-barrier or slow-sender MS");
        }
        System.out.println("done");
        Ckpt.close();
        MPI.Finalize();
    }
}
