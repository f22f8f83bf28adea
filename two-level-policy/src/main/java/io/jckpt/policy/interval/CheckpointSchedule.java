package io.jckpt.policy.interval;

import io.jckpt.IntervalPolicy;

/**
 * needCheckpoint()'s state on every rank: the calls counted since open (or the last change of policy)
 * and the call number of the next checkpoint. {@link #due()} is a counter compare; {@link #atHere}
 * moves the next checkpoint, from nothing but values every rank holds identically: the call count (every
 * rank calls needCheckpoint() once per iteration), the round, and rank 0's decision taken at the previous
 * here(), which reached every rank on an exchange here() makes anyway. So every rank holds the same
 * schedule at the same call.
 *
 * <p>Deterministic start, after open (a recovery included) and after a ctrl of the policy: {@code calls:N}
 * is due every N calls; an adaptive policy checkpoints at calls 1, 2, 4, 8, ... (doubling) as long as no
 * decision of rank 0 taken since the restart has arrived (the first one does at the fourth here() of a
 * job that has learned nothing yet; at the second after a recovery: rank 0 decides at once from the
 * figures it kept). Not thread-safe: the program's thread.
 */
public final class CheckpointSchedule {
    private static final long MAX_WARMUP = 1L << 20;

    private IntervalPolicy policy = IntervalPolicy.manual();
    private long calls;
    private long nextAt = Long.MAX_VALUE;
    private long warmup;
    private long restartRound;
    private long interval;

    /**
     * Restarts the schedule (open, ctrl of the policy): the same on every rank.
     *
     * @param p     the policy
     * @param round the round every rank is at (decisions taken at or before it are not used)
     */
    public void restart(IntervalPolicy p, long round) {
        policy = p;
        calls = 0;
        restartRound = round;
        warmup = 1;
        interval = 0;
        switch (p.kind()) {
            case CALLS:
                nextAt = p.calls();
                break;
            case MANUAL:
                nextAt = Long.MAX_VALUE;
                break;
            default:
                nextAt = 1;
                break;
        }
    }

    /** @return whether a checkpoint is due at this call (counts the call) */
    public boolean due() {
        return ++calls >= nextAt;
    }

    /**
     * A here() of round {@code round + 1} begins (on every rank): the next checkpoint is fixed.
     *
     * @param round    the round before this here() (the same on every rank)
     * @param decision rank 0's decision taken at the here() of {@code round} ({@link IntervalDecision}), or
     *                 {@link IntervalDecision#NONE}
     */
    public void atHere(long round, long decision) {
        switch (policy.kind()) {
            case MANUAL:
                return;
            case CALLS:
                nextAt = calls + policy.calls();
                return;
            default:
                long decided = round > restartRound ? IntervalDecision.interval(decision) : 0;
                if (decided > 0) {
                    interval = decided;
                } else {
                    interval = warmup;
                    warmup = Math.min(MAX_WARMUP, warmup * 2);
                }
                nextAt = calls + interval;
        }
    }

    /** @return calls counted since the restart */
    public long calls() {
        return calls;
    }

    /** @return the call number at which the next checkpoint is due (Long.MAX_VALUE = never) */
    public long nextAt() {
        return nextAt;
    }

    /** @return the interval in calls fixed at the newest here() (0 before the first) */
    public long interval() {
        return interval;
    }

    /**
     * @param round a round
     * @return whether a decision taken at that round may be used (it was taken since the restart)
     */
    public boolean decisionUsable(long round) {
        return round > restartRound;
    }

    /** @return the policy in force */
    public IntervalPolicy policy() {
        return policy;
    }
}
