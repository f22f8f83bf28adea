package io.jckpt.runtime.programs;

import java.nio.file.Files;
import java.nio.file.Path;
import mpi.MPI;

/**
 * One rank finishes its program early while the others go on, for the launcher test of failures
 * that fall due after a rank completed: after one Allgather, rank {@code early} returns from main at
 * once ("done early"); every other rank waits (polling, at most 60 s) for a stop file, then returns
 * ("done after the stop file").
 *
 * <pre>
 * EarlyFinish early stopFile
 * </pre>
 */
public final class EarlyFinish {
    private EarlyFinish() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int early = Integer.parseInt(appArgs[0]);
        Path stop = Path.of(appArgs[1]);
        int rank = MPI.COMM_WORLD.Rank();
        int[] mine = {rank};
        int[] all = new int[MPI.COMM_WORLD.Size()];
        MPI.COMM_WORLD.Allgather(mine, 0, 1, MPI.INT, all, 0, 1, MPI.INT);
        if (rank == early) {
            System.out.println("done early");
            return;
        }
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!Files.exists(stop) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        System.out.println("done after the stop file");
    }
}
