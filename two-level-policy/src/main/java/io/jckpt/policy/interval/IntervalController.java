package io.jckpt.policy.interval;

import io.jckpt.IntervalPolicy;
import io.jckpt.advisor.FailureModel;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rank 0's side of the interval policy: measures, at every here(), the computation per call of
 * needCheckpoint() (its own clock), the cost of a checkpoint C (here()'s blocking time plus the CPU
 * the background replication used meanwhile, read from the {@link IntervalMeter}), the cost of a disk
 * round (the flusher's CPU per disk round), and from them and the job's MTBF decides the interval in
 * calls (and the disk ratio when it is automatic). The decision is an {@link IntervalDecision} that
 * the checkpointer carries to every rank; other ranks never run this. Running means are exponential
 * (weight {@value #WEIGHT} for the newest sample); the first here() after open is not measured (it
 * sizes and creates the stores).
 *
 * <ul>
 * <li>{@code seconds:T}: interval = (T - blocking) / computation per call.</li>
 * <li>{@code overhead:P}: the smallest interval with C / (interval x per call + C) &lt;= P %.</li>
 * <li>{@code auto}: Daly's interval for C and the job's MTBF M ({@link FailureModel#dalyInterval}) /
 * per call; M = (node MTBF / nodes + exposed run time) / (1 + failures seen), {@link FailureHistory}.</li>
 * <li>disk ratio auto: {@link FailureModel#diskRatio} for the disk round's cost and the rate of failures
 * the memory level cannot survive ({@link FailureModel#unsurvivableRate}, copies in rank order, each
 * lost node unprotected for a recovery plus one checkpoint period), up to the configured ratio.</li>
 * </ul>
 */
public final class IntervalController {
    private static final Logger LOG = LoggerFactory.getLogger(IntervalController.class);
    /** Weight of the newest sample in the running means. */
    public static final double WEIGHT = 0.25;
    /** The history file is written at most this often while the job runs. */
    public static final long SAVE_EVERY_NANOS = TimeUnit.SECONDS.toNanos(10);
    /** The restart time assumed until a recovery was measured (s). */
    static final double DEFAULT_RECOVERY_SECONDS = 1.0;

    private final IntervalMeter meter;
    private final FailureHistory history;
    private final boolean diskRatioAuto;
    private final int maxDiskRatio;
    private final double priorJobMtbf;
    private final int nodes;
    private final int ranks;
    private IntervalPolicy policy;
    private double recoverySeconds = DEFAULT_RECOVERY_SECONDS;

    private double perCall = Double.NaN;
    private double period = Double.NaN;
    private double cost = Double.NaN;
    private double blocking = Double.NaN;
    private double flushCpu;
    private long diskRounds;
    private long lastHereEnd = -1;
    private long lastHereCalls;
    private long lastBackground = -1;
    private long lastFlush = -1;
    private long measuredBlocking = -1;
    private long lastExposure;
    private long lastSave;
    private long decision;
    private int replicasForModel;

    /**
     * @param policy        the interval policy
     * @param diskRatioAuto whether the disk ratio is decided too
     * @param maxDiskRatio  the largest disk ratio to decide
     * @param nodeMtbf      the configured MTBF of one node, or null (then no policy needs it)
     * @param nodes         the nodes whose failures the job suffers
     * @param ranks         the ranks of the job
     * @param meter         clock and CPU times
     * @param history       the job's failure history, or null to keep none
     */
    public IntervalController(IntervalPolicy policy, boolean diskRatioAuto, int maxDiskRatio, Duration nodeMtbf,
                              int nodes, int ranks, IntervalMeter meter, FailureHistory history) {
        this.policy = policy;
        this.diskRatioAuto = diskRatioAuto;
        this.maxDiskRatio = Math.max(1, maxDiskRatio);
        this.priorJobMtbf = nodeMtbf == null ? Double.NaN : nodeMtbf.toNanos() / 1e9 / nodes;
        this.nodes = nodes;
        this.ranks = ranks;
        this.meter = meter;
        this.history = history;
        this.lastExposure = meter.nanoTime();
        this.lastSave = lastExposure;
    }

    /** @param p the policy from now on (a ctrl) */
    public void policy(IntervalPolicy p) {
        policy = p;
    }

    /** @param nanos the newest recovery's length (the restart cost of the model) */
    public void recoveredIn(long nanos) {
        if (nanos > 0) {
            recoverySeconds = nanos / 1e9;
        }
    }

    /**
     * At the start of a here(): takes the measurements since the previous one and decides.
     *
     * @param calls      needCheckpoint() calls so far
     * @param replicas   the copies m in force
     * @param imageBytes the newest image's size (for the advisor's figures)
     * @return the decision ({@link IntervalDecision}), {@link IntervalDecision#NONE} while not enough is measured
     */
    public long decide(long calls, int replicas, long imageBytes) {
        long now = meter.nanoTime();
        if (lastHereEnd >= 0) {
            double computed = (now - lastHereEnd) / 1e9;
            period = mean(period, computed);
            if (calls > lastHereCalls) {
                perCall = mean(perCall, computed / (calls - lastHereCalls));
            }
        }
        long background = meter.backgroundCpuNanos();
        if (measuredBlocking >= 0) {
            double b = measuredBlocking / 1e9;
            blocking = mean(blocking, b);
            cost = mean(cost, b + (lastBackground >= 0 ? Math.max(0, background - lastBackground) / 1e9 : 0));
        }
        lastBackground = background;
        long flush = meter.flushCpuNanos();
        if (lastFlush >= 0) {
            flushCpu += Math.max(0, flush - lastFlush) / 1e9;
        }
        lastFlush = flush;
        keepHistory(now, replicas, imageBytes);
        decision = decideNow();
        return decision;
    }

    private long decideNow() {
        if (Double.isNaN(cost) || Double.isNaN(period)) {
            return IntervalDecision.NONE;
        }
        long interval = 0;
        if (policy.adaptive() && !Double.isNaN(perCall) && perCall > 0) {
            double calls;
            switch (policy.kind()) {
                case SECONDS:
                    calls = Math.max(0, policy.seconds() - blocking) / perCall;
                    break;
                case OVERHEAD:
                    double f = policy.overheadPercent() / 100;
                    calls = Math.ceil(cost * (1 - f) / (f * perCall));
                    break;
                default:
                    calls = FailureModel.dalyInterval(cost, jobMtbfSeconds()) / perCall;
                    break;
            }
            interval = Math.max(1, Math.round(Math.min(calls, IntervalDecision.MAX_INTERVAL)));
        }
        int k = 0;
        if (diskRatioAuto && diskRounds > 0) {
            double diskCost = flushCpu / diskRounds;
            double tau = interval > 0 ? interval * perCall : period;
            double m = jobMtbfSeconds() * nodes; // the learned MTBF of one node
            int perNode = (ranks + nodes - 1) / nodes;
            k = FailureModel.diskRatio(Math.max(tau, 1e-9), cost, diskCost,
                    FailureModel.unsurvivableRate(m, nodes, perNode, replicasForModel, recoverySeconds + tau + cost,
                            FailureModel.Placement.RANK_ORDER), maxDiskRatio);
        }
        return IntervalDecision.encode(interval, k);
    }

    private void keepHistory(long now, int replicas, long imageBytes) {
        replicasForModel = replicas;
        if (history == null) {
            return;
        }
        history.addExposure((now - lastExposure) / 1e9);
        lastExposure = now;
        if (now - lastSave >= SAVE_EVERY_NANOS) {
            save(replicas, imageBytes);
            lastSave = now;
        }
    }

    /**
     * At the end of a here() that took its round.
     *
     * @param calls         needCheckpoint() calls so far
     * @param blockingNanos here()'s blocking time
     * @param diskRound     whether it was a disk round
     * @param measured      false for a here() whose cost is not representative (the first after open)
     */
    public void hereEnded(long calls, long blockingNanos, boolean diskRound, boolean measured) {
        lastHereEnd = meter.nanoTime();
        lastHereCalls = calls;
        measuredBlocking = measured ? blockingNanos : -1;
        if (diskRound) {
            diskRounds++;
        }
    }

    /** @return the job's MTBF in seconds: configured, refined by the failures seen (NaN without a configured one) */
    public double jobMtbfSeconds() {
        return history == null ? priorJobMtbf : history.jobMtbfSeconds(priorJobMtbf);
    }

    /** @return the running mean of the computation per needCheckpoint() call (s), NaN before it is measured */
    public double perCallSeconds() {
        return perCall;
    }

    /** @return the running mean of a checkpoint's cost C (s): blocking + background CPU */
    public double costSeconds() {
        return cost;
    }

    /**
     * @param replicas   the copies m in force
     * @param imageBytes the newest image's size
     * @return the measured figures in one line, as the flags of {@code bin/ckpt-advisor} (which reads them
     *         back from a launcher log with {@code --log FILE})
     */
    public String summary(int replicas, long imageBytes) {
        java.util.Locale l = java.util.Locale.ROOT;
        StringBuilder b = new StringBuilder("interval policy ").append(policy).append(':');
        if (!Double.isNaN(perCall)) {
            b.append(String.format(l, " computation %.3g s per call,", perCall));
        }
        if (!Double.isNaN(cost)) {
            b.append(String.format(l, " checkpoint --cost %.3g --blocking %.3g,", cost, blocking));
        }
        if (diskRounds > 0) {
            b.append(String.format(l, " disk round --disk-cost %.3g,", flushCpu / diskRounds));
        }
        b.append(String.format(l, " --restart %.3g --image %d --measured-m %d --ranks-per-node %d,", recoverySeconds,
                imageBytes, replicas, (ranks + nodes - 1) / nodes));
        if (!Double.isNaN(jobMtbfSeconds())) {
            b.append(String.format(l, " --node-mtbf %.4gs (job MTBF %.4g s: %d failure(s) in %.4g s seen),",
                    jobMtbfSeconds() * nodes, jobMtbfSeconds(), history == null ? 0 : history.failures(),
                    history == null ? 0 : history.exposedSeconds()));
        }
        b.append(" interval ").append(IntervalDecision.interval(decision)).append(" calls");
        if (diskRatioAuto) {
            b.append(", disk ratio ").append(IntervalDecision.diskRatio(decision));
        }
        return b.toString();
    }

    /** @return the newest decision */
    public long decision() {
        return decision;
    }

    /**
     * Writes the history with the measured figures (the advisor reads them); advisory, errors logged.
     *
     * @param replicas   the copies m in force
     * @param imageBytes the newest image's size
     */
    public void save(int replicas, long imageBytes) {
        if (history == null) {
            return;
        }
        history.put("ranks", Integer.toString(ranks));
        history.put("failureNodes", Integer.toString(nodes));
        history.put("replicas", Integer.toString(replicas));
        history.put("imageBytes", Long.toString(imageBytes));
        history.put("policy", policy.toString());
        putNumber("costSeconds", cost);
        putNumber("blockingSeconds", blocking);
        putNumber("periodSeconds", period);
        putNumber("perCallSeconds", perCall);
        putNumber("diskCostSeconds", diskRounds > 0 ? flushCpu / diskRounds : Double.NaN);
        putNumber("recoverySeconds", recoverySeconds);
        putNumber("jobMtbfSeconds", jobMtbfSeconds());
        putNumber("intervalCalls", IntervalDecision.interval(decision));
        putNumber("diskRatio", IntervalDecision.diskRatio(decision));
        try {
            history.save();
        } catch (IOException e) {
            LOG.warn("interval policy: cannot write {}: {}", history.file(), e.toString());
        }
    }

    private void putNumber(String key, double v) {
        if (!Double.isNaN(v)) {
            history.put(key, Double.toString(v));
        }
    }

    private static double mean(double old, double sample) {
        return Double.isNaN(old) ? sample : old + WEIGHT * (sample - old);
    }
}
