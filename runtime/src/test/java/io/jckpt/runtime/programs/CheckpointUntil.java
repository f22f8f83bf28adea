package io.jckpt.runtime.programs;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import mpi.MPI;

/**
 * {@link CheckpointLoop}'s rounds (an Allreduce of the round number, a checkpoint each), restored after a
 * failure, until a stop file exists: every round the ranks also agree (the same Allreduce) whether any of
 * them sees the file, and stop together, so that a test fails ranks when it chooses without a round count
 * that must outlast it. Prints "loop done at round R sum S" with S = size * R * (R + 1) / 2, the result of R
 * failure-free rounds. With a park file, every rank waits after a recovery while that file exists (polled, at
 * most two minutes) before it takes another round: a test fails a second node at a moment where the restored
 * round is the newest anywhere and no later round can be replicated meanwhile ("restored at round R" is
 * printed once the recovery, restore and refills, is done). The system property
 * {@code checkpointUntil.timeoutSeconds} sets the library's exchange and replication timeouts (default 30 s
 * and 60 s), so that a test can tell a wait ended by a recovery from one waited out.
 *
 * <pre>
 * CheckpointUntil stopFile sleepMs [parkFile]
 * </pre>
 */
public final class CheckpointUntil {
    private CheckpointUntil() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        Path stop = Path.of(appArgs[0]);
        long sleepMs = Long.parseLong(appArgs[1]);
        Path park = appArgs.length > 2 ? Path.of(appArgs[2]) : null;
        CkptOptions.Builder options = CkptOptions.builder().replicas(1);
        Long timeout = Long.getLong("checkpointUntil.timeoutSeconds");
        if (timeout != null) {
            options.exchangeTimeout(Duration.ofSeconds(timeout)).replicationTimeout(Duration.ofSeconds(timeout));
        }
        Ckpt.open(options.build());
        long[] state = new long[2]; // next round, sum
        if (Ckpt.isRecovery()) {
            Ckpt.rollback("state", state);
            System.out.println("restored at round " + state[0]);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(2);
            while (park != null && Files.exists(park) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
        } else {
            state[0] = 1;
            Ckpt.register("state", state);
        }
        long[] mine = new long[2];
        long[] all = new long[2];
        for (;;) {
            mine[0] = state[0];
            mine[1] = Files.exists(stop) ? 1 : 0;
            MPI.COMM_WORLD.Allreduce(mine, 0, all, 0, 2, MPI.LONG, MPI.SUM);
            if (all[1] > 0) {
                break;
            }
            state[1] += all[0];
            state[0]++;
            Ckpt.here();
            Thread.sleep(sleepMs);
        }
        System.out.println("loop done at round " + (state[0] - 1) + " sum " + state[1]);
        Ckpt.close();
        MPI.Finalize();
    }
}
