package io.jckpt.runtime.programs;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import java.time.Duration;
import mpi.MPI;

/**
 * A loop of steps with an Allreduce each, written in the simplest correct form (everything registered
 * unconditionally, here(step) every step), except that one rank skips the here() of one step in every
 * world: the mistake the library must name. Prints "loop done at step S sum X" if it ever gets there.
 *
 * <pre>
 * SkippedHere steps sleepMs skipRank skipStep exchangeTimeoutSeconds
 * </pre>
 * The exchange timeout (and here()'s wait) is the program's own: a test sets it far above its bound,
 * so that a wait for an exchange that never completes cannot pass for the detection.
 */
public final class SkippedHere {
    private SkippedHere() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int steps = Integer.parseInt(appArgs[0]);
        long sleepMs = Long.parseLong(appArgs[1]);
        int skipRank = Integer.parseInt(appArgs[2]);
        long skipStep = Long.parseLong(appArgs[3]);
        Duration timeout = Duration.ofSeconds(Long.parseLong(appArgs[4]));
        int rank = MPI.COMM_WORLD.Rank();
        long[] state = new long[2]; // step, sum
        Ckpt.open(CkptOptions.builder().exchangeTimeout(timeout).hereWaitTimeout(timeout).build());
        Ckpt.register("state", state); // restored in place after a failure
        long[] one = new long[1];
        long[] all = new long[1];
        while (state[0] < steps) {
            one[0] = state[0] + rank;
            MPI.COMM_WORLD.Allreduce(one, 0, all, 0, 1, MPI.LONG, MPI.SUM);
            state[1] += all[0];
            state[0]++;
            if (!(rank == skipRank && state[0] == skipStep)) {
                Ckpt.here(state[0]);
            }
            Thread.sleep(sleepMs);
        }
        System.out.println("loop done at step " + state[0] + " sum " + state[1]);
        Ckpt.close();
        MPI.Finalize();
    }
}
