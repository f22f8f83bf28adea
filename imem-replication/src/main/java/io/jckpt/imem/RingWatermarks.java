package io.jckpt.imem;

import java.util.Arrays;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;

/**
 * What one rank knows of the ring's progress: per owner rank its newest completed round, the first
 * round it skipped and the slot size it needs, the program's steps of its two newest rounds, the
 * decider's two newest decisions, this rank's own completed round and the global completed round G
 * (the minimum). The agent thread owns the working arrays and merges WATERMARK frames into them;
 * callers read copies published under {@link #lock}, whose {@link #changed} condition signals every
 * change. Decisions and this rank's own steps live under the lock only (offered from the caller's
 * thread).
 *
 * <p>Steps: an owner attaches its step to a round before the round is handed over or skipped, so
 * every watermark saying that round is complete or skipped carries it (with the step of the round
 * before). Once round r is settled everywhere and no rank can be past round r + 1 (two versions
 * kept: a here() of round r + 2 waits for round r + 1 everywhere), every rank reads the same step of
 * every owner at round r ({@link #stepsAt}).
 */
final class RingWatermarks {
    /** No round skipped. */
    static final long NONE = Long.MAX_VALUE;
    /** No step known. */
    static final long UNKNOWN_STEP = Long.MIN_VALUE;

    /** Guards the published views, the decisions and the own completed round. */
    final ReentrantLock lock = new ReentrantLock();
    /** Signalled on every published change (and by the agent when it stops). */
    final Condition changed = lock.newCondition();

    private final int rank;
    private final int n;
    private final ReplicationCounters counters;

    // guarded by lock
    private long completedRound;
    private final long[] watermarkView;
    private final long[] skippedView;
    private final long[] needView;
    private volatile long globalCompletedRound;
    /**
     * The decider's (rank 0's) two newest decisions as they reached this rank, newest first: rounds
     * and values; round -1 = none.
     */
    private final long[] decisions = {-1, 0, -1, 0};
    /** This rank's newest own round with a step, that step and the one of the round before. */
    private long ownStepRound = -1;
    private long ownStep = UNKNOWN_STEP;
    private long ownPreviousStep = UNKNOWN_STEP;
    private final long[] stepRoundView;
    private final long[] stepView;
    private final long[] previousStepView;

    // agent thread only
    private final long[] watermark;
    /** Per owner: the first round it skipped in this agent's life (its image outgrew its slot), or NONE. */
    private final long[] skipped;
    /** Per owner: the slot capacity its skipped round needs (its image length), 0 when none skipped. */
    private final long[] need;
    /** Per other owner: its newest round with a step, that step, and its step at the round before. */
    private final long[] stepRound;
    private final long[] step;
    private final long[] previousStep;
    private boolean dirty;

    RingWatermarks(int rank, int n, long initialRound, ReplicationCounters counters) {
        this.rank = rank;
        this.n = n;
        this.counters = counters;
        this.completedRound = initialRound;
        this.globalCompletedRound = initialRound;
        this.watermark = new long[n];
        Arrays.fill(watermark, initialRound);
        this.watermarkView = watermark.clone();
        this.skipped = new long[n];
        Arrays.fill(skipped, NONE);
        this.need = new long[n];
        this.skippedView = skipped.clone();
        this.needView = need.clone();
        this.stepRound = new long[n];
        Arrays.fill(stepRound, -1);
        this.step = new long[n];
        Arrays.fill(step, UNKNOWN_STEP);
        this.previousStep = step.clone();
        this.stepRoundView = stepRound.clone();
        this.stepView = step.clone();
        this.previousStepView = step.clone();
    }

    // ------------------------------------------------------------ callers (lock taken here or held)

    /** @return the newest own round acknowledged by all m holders */
    long completedRound() {
        lock.lock();
        try {
            return completedRound;
        } finally {
            lock.unlock();
        }
    }

    /** @return G */
    long globalCompletedRound() {
        return globalCompletedRound;
    }

    /** @return the rank with the oldest completed round as published (lock held) */
    int slowestRank() {
        int slowest = 0;
        for (int i = 1; i < n; i++) {
            if (watermarkView[i] < watermarkView[slowest]) {
                slowest = i;
            }
        }
        return slowest;
    }

    /**
     * @param owner a rank
     * @return its newest completed round as published (lock held)
     */
    long completed(int owner) {
        return watermarkView[owner];
    }

    /**
     * @param round a round
     * @return whether every rank's round is complete or skipped, as published (lock held)
     */
    boolean settled(long round) {
        for (int i = 0; i < n; i++) {
            if (watermarkView[i] < round && skippedView[i] > round) {
                return false;
            }
        }
        return true;
    }

    /**
     * @param round a settled round
     * @return per rank, the capacity its image needs when it skipped this round or an earlier one, else 0
     */
    long[] needs(long round) {
        lock.lock();
        try {
            long[] needs = new long[n];
            for (int i = 0; i < n; i++) {
                needs[i] = skippedView[i] <= round ? needView[i] : 0;
            }
            return needs;
        } finally {
            lock.unlock();
        }
    }

    /** Attaches the program's step to an own round (newer than the previous one); the two newest are carried. */
    void offerStep(long round, long value) {
        lock.lock();
        try {
            if (round > ownStepRound) {
                ownPreviousStep = round == ownStepRound + 1 ? ownStep : UNKNOWN_STEP;
                ownStepRound = round;
                ownStep = value;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * @param round a round settled everywhere
     * @return per rank, its step at that round as carried, {@link #UNKNOWN_STEP} where not known
     */
    long[] stepsAt(long round) {
        lock.lock();
        try {
            long[] steps = new long[n];
            for (int i = 0; i < n; i++) {
                long r = i == rank ? ownStepRound : stepRoundView[i];
                long s = i == rank ? ownStep : stepView[i];
                long p = i == rank ? ownPreviousStep : previousStepView[i];
                steps[i] = r == round ? s : r == round + 1 ? p : UNKNOWN_STEP;
            }
            return steps;
        } finally {
            lock.unlock();
        }
    }

    /** Keeps a decision of the decider if it is newer than the newest known (the two newest are kept). */
    void offerDecision(long round, long value) {
        lock.lock();
        try {
            if (round > decisions[0]) {
                decisions[2] = decisions[0];
                decisions[3] = decisions[1];
                decisions[0] = round;
                decisions[1] = value;
            }
        } finally {
            lock.unlock();
        }
    }

    /**
     * @param round a round
     * @return the decision taken at it, or {@link ReplicationAgent#NO_DECISION}
     */
    long decisionAt(long round) {
        lock.lock();
        try {
            return decisions[0] == round ? decisions[1] : decisions[2] == round ? decisions[3]
                    : ReplicationAgent.NO_DECISION;
        } finally {
            lock.unlock();
        }
    }

    /** Wakes every waiting caller. */
    void signal() {
        lock.lock();
        try {
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }

    // ------------------------------------------------------------ agent thread

    /** This rank skipped an own round: the first skip in this agent's life is carried around the ring. */
    void skipOwn(long round, long needed) {
        if (skipped[rank] == NONE) {
            skipped[rank] = round;
            need[rank] = needed;
            publishLocked();
            dirty = true;
        }
    }

    /** ACK hop 1 of an own round came back: every holder stored it. */
    void ownRoundCompleted(long round) {
        lock.lock();
        try {
            if (round > completedRound) {
                completedRound = round;
            }
            counters.roundsCompleted.incrementAndGet();
            watermark[rank] = Math.max(watermark[rank], round);
            publish();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
        dirty = true;
    }

    /**
     * Merges a WATERMARK payload from the previous rank.
     *
     * @param in   the payload
     * @param next the next rank (its own entry is not news to it)
     */
    void merge(WatermarkFlyweight in, int next) {
        boolean changedAny = false;
        boolean forward = false; // news for the next rank: a change to an entry that is not its own
        for (int i = 0; i < n; i++) {
            long w = in.completed(i);
            long s0 = in.skipped(i);
            long x = in.need(i);
            boolean changedHere = false;
            if (w > watermark[i]) {
                watermark[i] = w;
                changedHere = true;
            }
            if (s0 != NONE && skipped[i] == NONE) {
                skipped[i] = s0; // set once per owner, by the owner: every copy carries the same pair
                need[i] = x;
                changedHere = true;
            }
            long sr = in.stepRound(i);
            boolean newerStep = i != rank && sr > stepRound[i];
            if (newerStep) { // the owner's triple, whole; it travels with the entry's next change
                stepRound[i] = sr;
                step[i] = in.step(i);
                previousStep[i] = in.previousStep(i);
            }
            changedAny |= changedHere || newerStep;
            forward |= changedHere && i != next;
        }
        long r0 = in.decisionRound(0);
        long v0 = in.decisionValue(0);
        long r1 = in.decisionRound(1);
        long v1 = in.decisionValue(1);
        lock.lock();
        try {
            if (r0 > decisions[0]) { // the decider's newer pair, whole: it goes on until the decider
                decisions[0] = r0;
                decisions[1] = v0;
                decisions[2] = r1;
                decisions[3] = v1;
                changedAny = true;
                forward |= next != 0;
            }
        } finally {
            lock.unlock();
        }
        if (changedAny) {
            // an entry goes around the ring once and stops before its owner, which knows it: with
            // n = 2 no watermark is ever echoed back, a frame and a wake-up per round saved
            dirty |= forward;
            publishLocked();
        }
    }

    /** @return whether a WATERMARK frame is due; clears the mark */
    boolean takeDirty() {
        boolean d = dirty;
        dirty = false;
        return d;
    }

    /**
     * Writes this rank's view into a WATERMARK payload.
     *
     * @param out the payload, wrapped for n ranks
     */
    void write(WatermarkFlyweight out) {
        lock.lock();
        try {
            for (int i = 0; i < n; i++) {
                out.entry(i, watermark[i], skipped[i], need[i], i == rank ? ownStepRound : stepRound[i],
                        i == rank ? ownStep : step[i], i == rank ? ownPreviousStep : previousStep[i]);
            }
            out.decision(0, decisions[0], decisions[1]).decision(1, decisions[2], decisions[3]);
        } finally {
            lock.unlock();
        }
    }

    /** Called with the lock held. */
    private void publish() {
        long min = Long.MAX_VALUE;
        for (int i = 0; i < n; i++) {
            watermarkView[i] = watermark[i];
            skippedView[i] = skipped[i];
            needView[i] = need[i];
            stepRoundView[i] = stepRound[i];
            stepView[i] = step[i];
            previousStepView[i] = previousStep[i];
            min = Math.min(min, watermark[i]);
        }
        globalCompletedRound = min;
    }

    private void publishLocked() {
        lock.lock();
        try {
            publish();
            changed.signalAll();
        } finally {
            lock.unlock();
        }
    }
}
