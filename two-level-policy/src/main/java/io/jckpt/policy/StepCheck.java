package io.jckpt.policy;

import io.jckpt.StepMismatchException;
import io.jckpt.imem.ReplicationAgent;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The comparison of the program's steps ({@code here(step)}) across ranks, on data an exchange already
 * carried: the ring's watermarks, the background size agreement, the ctrl and close exchanges, and a
 * recovery's restored round. Every rank compares the same values, so a difference is the same
 * {@link StepMismatchException} on every rank. Pure.
 */
final class StepCheck {
    private StepCheck() {
    }

    /**
     * @param rank  this rank
     * @param round the round the steps belong to
     * @param steps per rank, its step ({@link ReplicationAgent#UNKNOWN_STEP}: not known, left out)
     * @param where how the message says where: {@code at checkpoint round 5}
     * @throws StepMismatchException when the known steps differ
     */
    static void compare(int rank, long round, long[] steps, String where) {
        if (StepMismatchException.differ(steps)) {
            throw new StepMismatchException(rank, round, where, steps);
        }
    }

    /** The steps of round {@code round} from the ring's watermarks (settled there). */
    static void onRing(int rank, long round, ReplicationAgent ring) {
        if (round >= 1) {
            compare(rank, round, ring.stepsAt(round), "at checkpoint round " + round);
        }
    }

    /**
     * @param all  every rank's message of an exchange, indexed by rank
     * @param step the step a message carries
     * @return per rank, its step
     */
    static <T> long[] steps(List<T> all, ToLongFunction<T> step) {
        return all.stream().mapToLong(step).toArray();
    }
}
