package io.jckpt.runtime.programs;

import io.jckpt.spi.JobServices;
import java.nio.file.Files;
import java.nio.file.Path;
import mpi.MPI;

/**
 * One rank finishes its program early while the others go on, for the launcher test of failures
 * that fall due after a rank completed: after one Allgather, rank {@code early} returns from main at
 * once ("done early"); every other rank waits (polling, at most 60 s) for a stop file, then returns
 * ("done after the stop file"). Meanwhile, once the go file appears, the lowest other rank reports
 * checkpoint round 1 to the launcher (no checkpointer: the report alone), so that a
 * {@code --kill R@round=1} falls due exactly when the test says.
 *
 * <pre>
 * EarlyFinish early stopFile goFile
 * </pre>
 */
public final class EarlyFinish {
    private EarlyFinish() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int early = Integer.parseInt(appArgs[0]);
        Path stop = Path.of(appArgs[1]);
        Path go = Path.of(appArgs[2]);
        int rank = MPI.COMM_WORLD.Rank();
        int[] mine = {rank};
        int[] all = new int[MPI.COMM_WORLD.Size()];
        MPI.COMM_WORLD.Allgather(mine, 0, 1, MPI.INT, all, 0, 1, MPI.INT);
        if (rank == early) {
            System.out.println("done early");
            return;
        }
        boolean reporter = rank == (early == 0 ? 1 : 0);
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (!Files.exists(stop) && System.nanoTime() < deadline) {
            if (reporter && Files.exists(go)) {
                JobServices.current().checkpointed(1, 0, 0);
                System.out.println("reported round 1");
                reporter = false;
            }
            Thread.sleep(20);
        }
        System.out.println("done after the stop file");
    }
}
