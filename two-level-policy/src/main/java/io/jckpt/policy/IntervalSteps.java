package io.jckpt.policy;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.disk.DiskFlusher;
import io.jckpt.imem.ReplicationAgent;
import io.jckpt.policy.interval.CheckpointSchedule;
import io.jckpt.policy.interval.FailureHistory;
import io.jckpt.policy.interval.IntervalController;
import io.jckpt.policy.interval.IntervalDecision;
import io.jckpt.policy.interval.IntervalMeter;
import io.jckpt.policy.interval.ThreadCpu;
import io.jckpt.spi.RankCollective;
import java.io.IOException;
import java.nio.file.Path;
import java.util.function.Supplier;

/**
 * The checkpointer's part of the interval policy ({@code io.jckpt.policy.interval}): needCheckpoint()'s
 * schedule on every rank, rank 0's controller (an adaptive interval, an automatic disk ratio), and the
 * route of rank 0's decisions to every rank: itself (one rank), the background size agreement, or the
 * ring's watermarks. Every rank takes the same route, so the schedule stays identical everywhere.
 */
final class IntervalSteps {
    private final int rank;
    private final int size;
    private final CheckpointSchedule schedule = new CheckpointSchedule();
    /** Rank 0 with a policy that decides (adaptive interval, automatic disk ratio); else null. */
    private IntervalController controller;
    /** Rank 0's decision taken at the here() of round {@link #ownDecisionRound} ({@link IntervalDecision}). */
    private long ownDecision;
    private long ownDecisionRound = -1;
    /** The round open() restored (0 on a fresh start): the here() after it is not measured. */
    private long openRound;

    IntervalSteps(int rank, int size) {
        this.rank = rank;
        this.size = size;
    }

    /** @return whether ranks need rank 0's decisions: an adaptive interval policy or an automatic disk ratio */
    static boolean decides(CkptOptions requested) {
        return requested.interval().adaptive() || requested.diskRatioAuto();
    }

    /**
     * End of open(): the schedule starts from its deterministic state on every rank; rank 0 measures
     * and decides.
     *
     * @param afterFailure whether this open follows a failure of the job id (one more failure counted)
     * @param sources      where the controller reads what it needs
     */
    void start(long round, CkptOptions requested, boolean afterFailure, Sources sources) {
        openRound = round;
        schedule.restart(requested.interval(), round);
        if (rank == 0 && decides(requested)) {
            startController(requested, afterFailure, sources);
        }
    }

    /**
     * What rank 0's controller reads when it starts: the job directory of its failure history, whether
     * the disk level is on, the threads it meters (read at each measurement), the last figures.
     */
    record Sources(Path historyDirectory, boolean diskLevel, Supplier<ReplicationAgent> agent,
                   Supplier<DiskFlusher> flusher, int replicas, long lastImageBytes, long lastRecoveryNanos,
                   long worldLostNanos) {
    }

    private void startController(CkptOptions requested, boolean afterFailure, Sources sources) {
        FailureHistory history = FailureHistory.load(sources.historyDirectory().resolve(FailureHistory.FILE_NAME));
        if (afterFailure) {
            // the gap since rank 0's last save: at most one save period plus a recovery's bound
            history.recordFailure(System.currentTimeMillis(),
                    IntervalController.SAVE_EVERY_NANOS / 1e9 + requested.exchangeTimeout().toSeconds());
        }
        ThreadCpu ring = new ThreadCpu();
        ThreadCpu flush = new ThreadCpu();
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        boolean programCpu = threads.isCurrentThreadCpuTimeSupported() && threads.isThreadCpuTimeEnabled();
        IntervalMeter meter = new IntervalMeter() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public long backgroundCpuNanos() {
                ReplicationAgent a = sources.agent().get();
                return ring.sample(a, a == null ? -1 : a.cpuTimeNanos());
            }

            @Override
            public long flushCpuNanos() {
                DiskFlusher f = sources.flusher().get();
                return flush.sample(f, f == null ? -1 : f.cpuTimeNanos());
            }

            @Override
            public long programCpuNanos() {
                return programCpu ? threads.getCurrentThreadCpuTime() : -1;
            }
        };
        controller = new IntervalController(requested.interval(), requested.diskRatioAuto() && sources.diskLevel(),
                requested.diskRatio(), requested.nodeMtbf(), requested.failureNodes(size), size, meter, history);
        controller.recoveredIn(sources.lastRecoveryNanos());
        if (afterFailure) {
            // the restart as the job lived it: from the launcher's detection of the failure (on this process's
            // clock, from the age the launcher sent) to now, the end of open(): computing again
            long lost = sources.worldLostNanos();
            controller.afterRecovery(lost > 0 ? System.nanoTime() - lost : -1);
        }
        controller.save(sources.replicas(), sources.lastImageBytes());
    }

    /** A ctrl changed the policy: every rank restarts the schedule at the same call. */
    void restart(long round, CkptOptions requested, Sources sources) {
        schedule.restart(requested.interval(), round);
        if (controller != null) {
            controller.policy(requested.interval());
        } else if (rank == 0 && decides(requested)) {
            startController(requested, false, sources);
        }
    }

    /**
     * Start of here() of round {@code round + 1}: fixes the next checkpoint's call number from rank 0's
     * decision taken at the here() of {@code round}, applies its disk ratio, and (rank 0) takes this
     * round's decision.
     *
     * @param diskLevel whether the disk level is on (an automatic disk ratio applies only then)
     * @param replicas  the m in force (rank 0's cost model)
     * @param decision  how the decision travelled to this rank (called only when ranks need decisions)
     * @return {@code requested}, or the options with the disk ratio the decision set (the same on every rank)
     */
    CkptOptions atHere(long round, CkptOptions requested, boolean diskLevel, int replicas, long lastImageBytes,
                       Supplier<Long> decision) {
        if (!decides(requested)) {
            schedule.atHere(round, IntervalDecision.NONE);
            return requested;
        }
        long d = decision.get();
        schedule.atHere(round, d);
        int k = schedule.decisionUsable(round) ? IntervalDecision.diskRatio(d) : 0;
        CkptOptions next = requested;
        if (k > 0 && requested.diskRatioAuto() && diskLevel && k != requested.diskRatio()) {
            next = requested.toBuilder().diskRatio(k).build();
        }
        if (controller != null) { // the disk ratio does not change the m in force
            ownDecision = controller.decide(schedule.calls(), replicas, lastImageBytes);
            ownDecisionRound = round + 1;
        }
        return next;
    }

    /** @return this rank's own decision of round {@code r}, or {@link IntervalDecision#NONE} */
    long ownDecisionOf(long r) {
        return ownDecisionRound == r ? ownDecision : IntervalDecision.NONE;
    }

    /**
     * Rank 0's decision taken at the here() of {@code round}, from where it travelled: itself (one
     * rank), the background size agreement that here() started, or the ring's watermarks (awaited as
     * here() awaits round {@code round} anyway).
     *
     * @param ring the agent when the agreement rides on the ring, else null
     */
    long receivedDecision(long round, SizeAgreement agreement, ReplicationAgent ring, CkptOptions options,
                          RankCollective exchange) {
        if (size == 1) {
            return ownDecisionOf(round);
        }
        if (agreement.carriesDecisionOf(round)) {
            return agreement.decisionOf(round, options);
        }
        if (ring != null) {
            try {
                long v = ring.awaitDecision(round, options.hereWaitTimeout());
                StepCheck.onRing(rank, round, ring); // round is settled everywhere now: its steps are known
                return v == ReplicationAgent.NO_DECISION ? IntervalDecision.NONE : v;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CkptException("rank " + rank + ": interrupted in here() of round " + (round + 1), e);
            } catch (IOException e) {
                throw LayoutSwitcher.ringFailure(exchange, "rank " + rank + ": checkpoint round " + (round + 1)
                        + " failed: " + e.getMessage(), e);
            }
        }
        return IntervalDecision.NONE;
    }

    /** Rank 0: attaches round {@code r}'s decision to the ring's watermarks, before the round is handed over or skipped. */
    void offerDecision(ReplicationAgent agent, long r) {
        if (ownDecisionRound == r) {
            agent.offerDecision(r, ownDecision);
        }
    }

    /** The end of a here() that checkpointed: rank 0 measures it. */
    void hereEnded(long blockedNanos, boolean diskRound, long round) {
        if (controller != null) {
            controller.hereEnded(schedule.calls(), blockedNanos, diskRound, round > openRound + 1);
        }
    }

    /**
     * At close: rank 0 saves its exposure (an abandoned world's counts too) and returns its summary.
     *
     * @return the summary line, or null without a controller or when {@code abandoned}
     */
    String close(int replicas, long lastImageBytes, boolean abandoned) {
        if (controller == null) {
            return null;
        }
        controller.save(replicas, lastImageBytes);
        return abandoned ? null : controller.summary(replicas, lastImageBytes);
    }

    /** @return needCheckpoint()'s schedule */
    CheckpointSchedule schedule() {
        return schedule;
    }

    /** @return rank 0's controller, or null on other ranks and without a deciding policy */
    IntervalController controller() {
        return controller;
    }
}
