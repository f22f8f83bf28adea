package io.jckpt;

import io.jckpt.spi.Collective;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The ranks checkpointed the same round at different steps of the program ({@link Checkpointer#here(long)}):
 * a rank skipped or added a here(), or passed another step. Thrown on every rank with the same
 * message, naming the rank that differs, its step and the others'; the rounds checkpointed before
 * stay restorable.
 */
public final class StepMismatchException extends CkptException {
    private static final long serialVersionUID = 1L;
    private final long round;
    private final long[] steps;

    /**
     * @param rank  the rank that throws
     * @param round the checkpoint round whose steps differ
     * @param where where it was found, completing "the ranks' steps differ ...": {@code at checkpoint round 5}
     * @param steps per rank, its step at that round ({@link Checkpointer#NO_STEP}: here() without one;
     *              below that: not known, left out)
     */
    public StepMismatchException(int rank, long round, String where, long[] steps) {
        super("rank " + rank + ": the ranks' steps differ " + where + ": " + describe(steps)
                + "; every rank must call here() at the same steps of the program (did a rank skip or add a here()?)");
        this.round = round;
        this.steps = steps.clone();
    }

    /**
     * @param steps per rank, its step (below {@link Checkpointer#NO_STEP}: not known)
     * @return whether the known steps differ
     */
    public static boolean differ(long[] steps) {
        long first = Long.MIN_VALUE;
        boolean any = false;
        for (long s : steps) {
            if (s < Checkpointer.NO_STEP) {
                continue;
            }
            if (any && s != first) {
                return true;
            }
            first = s;
            any = true;
        }
        return false;
    }

    /** @return {@code rank 1 called here(6) while ranks 0,2 called here(5)}: the smallest group first */
    static String describe(long[] steps) {
        Map<Long, List<Integer>> groups = new LinkedHashMap<>();
        for (int r = 0; r < steps.length; r++) {
            if (steps[r] >= Checkpointer.NO_STEP) {
                groups.computeIfAbsent(steps[r], s -> new ArrayList<>()).add(r);
            }
        }
        List<Map.Entry<Long, List<Integer>>> sorted = new ArrayList<>(groups.entrySet());
        // the smallest group is the odd one out; on a tie, the group of the higher first rank
        sorted.sort((a, b) -> a.getValue().size() != b.getValue().size()
                ? Integer.compare(a.getValue().size(), b.getValue().size())
                : Integer.compare(b.getValue().get(0), a.getValue().get(0)));
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < sorted.size(); i++) {
            Map.Entry<Long, List<Integer>> g = sorted.get(i);
            sb.append(i == 0 ? "" : i == sorted.size() - 1 ? " while " : ", ")
                    .append(Collective.describeRanks(g.getValue())).append(" called ")
                    .append(g.getKey() == Checkpointer.NO_STEP ? "here() without a step" : "here(" + g.getKey() + ")");
        }
        return sb.toString();
    }

    /** @return the checkpoint round whose steps differ */
    public long round() {
        return round;
    }

    /** @return per rank, its step at that round (below {@link Checkpointer#NO_STEP}: not known) */
    public long[] steps() {
        return steps.clone();
    }
}
