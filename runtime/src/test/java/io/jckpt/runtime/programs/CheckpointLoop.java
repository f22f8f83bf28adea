package io.jckpt.runtime.programs;

import io.jckpt.Checkpointer;
import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import io.jckpt.CkptStats;
import io.jckpt.DiskUnavailable;
import java.nio.file.Path;
import mpi.MPI;

/**
 * A loop of checkpoint rounds with an Allreduce each, restored after a failure; prints
 * "loop done at round R sum S" (S checkable: the sum of the round numbers 1..R of every rank) and
 * its {@link CkptStats} counters as "stats ...". Replicas and, unless given here, the disk level come
 * from the launcher's settings ({@code --replicas}, {@code --disk}, {@code --disk-ratio}).
 *
 * <pre>
 * CheckpointLoop rounds sleepMs [diskDir diskRatio [fail|memory-only]]
 * </pre>
 */
public final class CheckpointLoop {
    private CheckpointLoop() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int rounds = Integer.parseInt(appArgs[0]);
        long sleepMs = Long.parseLong(appArgs[1]);
        // m from the launcher's --replicas (default 1): the multi-host tests run it with m = 2
        CkptOptions.Builder options = CkptOptions.builder();
        if (appArgs.length > 3) {
            options.diskDirectory(Path.of(appArgs[2])).diskRatio(Integer.parseInt(appArgs[3]));
        }
        if (appArgs.length > 4) {
            options.diskUnavailable(appArgs[4].equals("memory-only") ? DiskUnavailable.MEMORY_ONLY : DiskUnavailable.FAIL);
        }
        Checkpointer checkpointer = Ckpt.open(options.build());
        long[] state = new long[2]; // next round, sum
        if (Ckpt.isRecovery()) {
            Ckpt.rollback("state", state);
            System.out.println("restored at round " + state[0]);
        } else {
            state[0] = 1;
            Ckpt.register("state", state);
        }
        long[] one = new long[1];
        long[] all = new long[1];
        while (state[0] <= rounds) {
            one[0] = state[0];
            MPI.COMM_WORLD.Allreduce(one, 0, all, 0, 1, MPI.LONG, MPI.SUM);
            state[1] += all[0];
            state[0]++;
            Ckpt.here();
            Thread.sleep(sleepMs);
        }
        System.out.println("loop done at round " + (state[0] - 1) + " sum " + state[1]);
        Ckpt.close();
        CkptStats s = checkpointer.stats(); // after close: the last disk generation is committed then
        System.out.println("stats diskCheckpoints=" + s.diskCheckpoints() + " diskCommits=" + s.diskCommits()
                + " diskFailures=" + s.diskFailures() + " diskRatio=" + s.diskRatio() + " recoveries=" + s.recoveries()
                + " rollbacks=" + s.rollbacks());
        MPI.Finalize();
    }
}
