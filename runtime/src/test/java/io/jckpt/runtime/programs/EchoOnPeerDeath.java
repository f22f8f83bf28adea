package io.jckpt.runtime.programs;

import io.jckpt.runtime.rank.RankServices;
import java.nio.file.Files;
import java.nio.file.Path;
import mpi.MPI;

/**
 * Survivors whose program throws because a peer died, made deterministic: in the first world every
 * rank but {@code victim} says "watching" and waits (polling, at most 60 s) for {@code deadFile},
 * which the test creates after it SIGKILLed the victim; then each throws "peer died" (what MPJ
 * Express does to the peers of a dead rank, without depending on when it notices). In a later
 * world (after the recovery) every rank does one Allgather and prints "done in epoch E".
 *
 * <pre>
 * EchoOnPeerDeath victim deadFile
 * </pre>
 */
public final class EchoOnPeerDeath {
    private EchoOnPeerDeath() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int victim = Integer.parseInt(appArgs[0]);
        Path dead = Path.of(appArgs[1]);
        int rank = MPI.COMM_WORLD.Rank();
        int epoch = RankServices.world().epoch();
        if (epoch == 0) {
            System.out.println("watching");
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (!Files.exists(dead) && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            if (rank != victim) {
                System.out.println("peer died"); // the launcher holds the error: it prints nothing yet
                throw new IllegalStateException("rank " + rank + ": peer died");
            }
        }
        int[] mine = {rank};
        int[] all = new int[MPI.COMM_WORLD.Size()];
        MPI.COMM_WORLD.Allgather(mine, 0, 1, MPI.INT, all, 0, 1, MPI.INT);
        System.out.println("done in epoch " + epoch);
        MPI.Finalize();
    }
}
