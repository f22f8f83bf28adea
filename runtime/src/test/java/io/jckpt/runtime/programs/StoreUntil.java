package io.jckpt.runtime.programs;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import mpi.MPI;

/**
 * Takes one checkpoint (so every rank has a node-local store), says "checkpointed", then waits
 * (polling, at most 120 s) for a stop file; for the launcher's clean-up tests.
 *
 * <pre>
 * StoreUntil stopFile
 * </pre>
 */
public final class StoreUntil {
    private StoreUntil() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        Path stop = Path.of(appArgs[0]);
        Ckpt.open(CkptOptions.builder().replicas(1).build());
        long[] data = new long[1024];
        data[0] = MPI.COMM_WORLD.Rank();
        Ckpt.register("data", data);
        Ckpt.here();
        System.out.println("checkpointed");
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (!Files.exists(stop) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        Ckpt.close();
        MPI.Finalize();
    }
}
