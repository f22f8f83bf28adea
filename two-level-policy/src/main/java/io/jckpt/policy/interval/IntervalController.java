package io.jckpt.policy.interval;

import io.jckpt.IntervalPolicy;
import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rank 0's side of the interval policy: measures, at every here(), the computation per call of
 * needCheckpoint() (its own clock), the cost of a checkpoint C (here()'s blocking time plus the CPU
 * the background replication used meanwhile, read from the {@link IntervalMeter}, divided by the share
 * of a core the program's thread gets: on cores shared by more threads than they have, a CPU second of
 * background work costs the computation 1 / share seconds), the cost of a disk round (the flusher's CPU
 * per disk round), and from them and the job's MTBF decides the interval in
 * calls (and the disk ratio when it is automatic). After a recovery it also measures the restart (the
 * the failure detected → computing again, {@link #afterRecovery}) and the slowdown that follows it ({@link SlowPhase}:
 * per second since the restart, the computation's extra time over its steady pace per call, measured
 * outside such windows, plus the extra blocking of the here()s begun then; summed over the recoveries that
 * lived through each second), kept in the history for the next world and the advisor. The decision is an {@link IntervalDecision} that
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
    /** ... and when the steady pace is first known or has moved by 5 %, at most this often. */
    private static final long SAVE_STEADY_EVERY_NANOS = TimeUnit.SECONDS.toNanos(1);
    /** The restart time assumed until a recovery was measured (s). */
    static final double DEFAULT_RECOVERY_SECONDS = 1.0;
    /** How long after the job's first open the computation is not the steady pace (every JVM's code is cold). */
    public static final int SLOW_WINDOW_SECONDS = 3;
    private static final long SLOW_WINDOW_NANOS = TimeUnit.SECONDS.toNanos(SLOW_WINDOW_SECONDS);
    /** The share of a core the program's thread is assumed to get until measured, and its floor. */
    private static final double MIN_CPU_SHARE = 0.05;
    /** History keys: the means over the job's recoveries (the advisor's --restart, --slowdown, --slow-window). */
    static final String RECOVERY = "recoverySeconds";
    static final String RECOVERY_SAMPLES = "recoverySamples";
    static final String SLOWDOWN = "slowdownSeconds";
    static final String SLOW_WINDOW = "slowWindowSeconds";
    static final String SLOWDOWN_SAMPLES = "slowdownSamples";
    static final String STEADY_PER_CALL = "steadyPerCallSeconds";
    static final String STEADY_BLOCKING = "steadyBlockingSeconds";
    static final String POLICY = "policy";
    static final String COST = "costSeconds";
    static final String BLOCKING = "blockingSeconds";
    static final String PERIOD = "periodSeconds";
    static final String PER_CALL = "perCallSeconds";
    static final String CPU_SHARE = "programCpuShare";

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
    /** When this controller started: the end of open(), the computation (re)starts. */
    private final long openedAt;
    /** The computation per call outside the slow windows (s; from the history until measured here). */
    private double steadyPerCall = Double.NaN;
    /** The steady pace in the history file (NaN: none written yet). */
    private double savedSteadyPerCall = Double.NaN;
    /** The share of a core the program's thread got while computing (NaN: not measured). */
    private double cpuShare = Double.NaN;
    private long programCpuAtHereEnd = -1;
    /** The slowdown after the job's restarts; this world's window is open after a recovery. */
    private final SlowPhase slowPhase;
    /** here()'s blocking outside the slow windows (s), running mean. */
    private double steadyBlocking = Double.NaN;
    private double recoveryMean = Double.NaN;
    private long recoverySamples;
    private long lastImageBytes;

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
        this.openedAt = lastExposure;
        if (history != null) {
            steadyPerCall = history.number(STEADY_PER_CALL, Double.NaN);
            steadyBlocking = history.number(STEADY_BLOCKING, Double.NaN);
            if (policy.toString().equals(history.value(POLICY))) {
                // what this job id learned before (an earlier world, kept across the recovery): decided at the
                // first here() after open, so the schedule leaves its warm-up at the second (calls 1, then this)
                cost = history.number(COST, Double.NaN);
                blocking = history.number(BLOCKING, Double.NaN);
                period = history.number(PERIOD, Double.NaN);
                perCall = history.number(PER_CALL, Double.NaN);
                cpuShare = history.number(CPU_SHARE, Double.NaN);
            }
            recoverySamples = (long) history.number(RECOVERY_SAMPLES, 0);
            if (recoverySamples > 0) {
                recoveryMean = history.number(RECOVERY, Double.NaN);
                recoverySeconds = recoveryMean;
            }
        }
        this.slowPhase = new SlowPhase(history);
    }

    /** @param p the policy from now on (a ctrl) */
    public void policy(IntervalPolicy p) {
        policy = p;
    }

    /** @param nanos the newest recovery open()'s length: the restart of the model until one is measured whole */
    public void recoveredIn(long nanos) {
        if (nanos > 0 && recoverySamples == 0) {
            recoverySeconds = nanos / 1e9;
        }
    }

    /**
     * This controller starts after a recovery: the restart is measured (averaged with the job's earlier
     * ones) and the computation's slowdown in the seconds after it will be ({@link SlowPhase}).
     *
     * @param restartNanos the failure detected → computing again (now), or &lt;= 0 when not known (the newest
     *                     known restart stays)
     */
    public void afterRecovery(long restartNanos) {
        slowPhase.open();
        if (restartNanos > 0) {
            double r = restartNanos / 1e9;
            recoveryMean = Double.isNaN(recoveryMean) ? r : (recoveryMean * recoverySamples + r) / (recoverySamples + 1);
            recoverySamples++;
            recoverySeconds = recoveryMean;
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
        long programCpu = meter.programCpuNanos();
        lastImageBytes = imageBytes;
        if (lastHereEnd < 0 && slowPhase.isOpen() && calls > 0 && now > openedAt) {
            // the restart's first period (from the end of open()): the slowest of the slow phase
            if (slowPhase.period(0, (now - openedAt) / 1e9, calls, steadyPerCall)) {
                save(replicas, imageBytes);
            }
        }
        if (lastHereEnd >= 0) {
            double computed = (now - lastHereEnd) / 1e9;
            period = mean(period, computed);
            if (calls > lastHereCalls) {
                perCall = mean(perCall, computed / (calls - lastHereCalls));
                slowdownSample(computed, calls - lastHereCalls);
            }
            if (programCpu >= 0 && programCpuAtHereEnd >= 0 && now > lastHereEnd) {
                cpuShare = mean(cpuShare, Math.max(MIN_CPU_SHARE,
                        Math.min(1, (double) (programCpu - programCpuAtHereEnd) / (now - lastHereEnd))));
            }
        }
        long background = meter.backgroundCpuNanos();
        if (measuredBlocking >= 0) {
            double b = measuredBlocking / 1e9;
            blocking = mean(blocking, b);
            double share = Double.isNaN(cpuShare) ? 1 : cpuShare;
            cost = mean(cost, b + (lastBackground >= 0 ? Math.max(0, background - lastBackground) / 1e9 / share : 0));
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

    /**
     * One computation period (from the end of the previous here()): in the slow window after a recovery it
     * goes to the {@link SlowPhase} (the history is written when a second is complete, so a world cut short
     * leaves what it measured); outside it, it refines the steady computation per call.
     */
    private void slowdownSample(double computed, long calls) {
        long since = lastHereEnd - openedAt;
        double pace = computed / calls;
        if (slowPhase.isOpen()) {
            if (slowPhase.period(since / 1e9, computed, calls, steadyPerCall)) {
                save(replicasForModel, lastImageBytes);
            }
            if (slowPhase.isOpen() || Double.isNaN(steadyPerCall)) {
                return; // a slow period; without a steady pace yet, the window only keeps them out of it
            }
        } else if (since < SLOW_WINDOW_NANOS) {
            return; // the cold start of a job's first world: neither steady nor a restart's slowdown
        }
        slowPhase.steadyPeriod(computed, calls, steadyPerCall);
        steadyPerCall = steady(steadyPerCall, pace);
    }

    /**
     * The steady pace: it follows a faster period half way at once and a slower one slowly, so that the
     * slow tail of a warm-up (all JVMs cold at the start; a re-spawned one after a restart) does not pass for
     * the steady pace while a lasting change of the machine's speed still does, within some 20 periods.
     */
    private static double steady(double old, double sample) {
        return Double.isNaN(old) ? sample : old + (sample < old ? 0.5 : 0.05) * (sample - old);
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
                    // the steady computation per call when known: the slow start after a recovery would
                    // shorten the interval in calls for nothing
                    double per = Double.isNaN(steadyPerCall) ? perCall : steadyPerCall;
                    calls = FailureModel.dalyInterval(cost, jobMtbfSeconds()) / per;
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
        // the steady pace as soon as it is known or has moved: a failure within the first 10 s must not leave
        // the next world without it (it measures the slowdown after the restart against it)
        boolean steadyMoved = !Double.isNaN(steadyPerCall) && (Double.isNaN(savedSteadyPerCall)
                || Math.abs(steadyPerCall / savedSteadyPerCall - 1) > 0.05);
        if (now - lastSave >= SAVE_EVERY_NANOS || (steadyMoved && now - lastSave >= SAVE_STEADY_EVERY_NANOS)) {
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
        long end = meter.nanoTime();
        if (slowPhase.isOpen()) { // began in the slow window after a recovery: cold code, the ring re-joined
            double usual = !Double.isNaN(steadyBlocking) ? steadyBlocking : Double.isNaN(blocking) ? 0 : blocking;
            slowPhase.extraBlocking((end - blockingNanos - openedAt) / 1e9, Math.max(0, blockingNanos / 1e9 - usual));
        } else if (end - blockingNanos - openedAt < SLOW_WINDOW_NANOS) {
            // the cold start of a job's first world: not the usual blocking
        } else if (measured) {
            steadyBlocking = mean(steadyBlocking, blockingNanos / 1e9);
        }
        lastHereEnd = end;
        programCpuAtHereEnd = meter.programCpuNanos();
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

    /** @return the running mean of a checkpoint's cost C (s): blocking + background CPU / the program's CPU share */
    public double costSeconds() {
        return cost;
    }

    /** @return the mean slowdown after a recovery over the job's recoveries (s), NaN before one was measured */
    public double slowdownSeconds() {
        return slowPhase.slowdown();
    }

    /** @return the computation done in the slow windows, mean (s), NaN before one was measured */
    public double slowWindowSeconds() {
        return slowPhase.window();
    }

    /** @return the computation per call outside the slow windows (s), NaN before it is measured */
    public double steadyPerCallSeconds() {
        return steadyPerCall;
    }

    /** @return the restart the model uses (s): the mean measured, else the newest recovery open(), else 1 s */
    public double restartSeconds() {
        return recoverySeconds;
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
        if (!Double.isNaN(cpuShare)) {
            b.append(String.format(l, " program CPU share %.2f,", cpuShare));
        }
        double slowdown = slowPhase.slowdown();
        if (!Double.isNaN(slowdown)) {
            b.append(String.format(l, " after a restart --slowdown %.3g --slow-window %.3g --slow-pace %s (%d recoveries"
                    + " measured),", slowdown, slowPhase.window(), slowPhase.pace().flag(), slowPhase.samples()));
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
        history.put(POLICY, policy.toString());
        putNumber(COST, cost);
        putNumber(BLOCKING, blocking);
        putNumber(PERIOD, period);
        putNumber(PER_CALL, perCall);
        putNumber(CPU_SHARE, cpuShare);
        putNumber("diskCostSeconds", diskRounds > 0 ? flushCpu / diskRounds : Double.NaN);
        putNumber(RECOVERY, recoverySeconds);
        putNumber(RECOVERY_SAMPLES, recoverySamples);
        slowPhase.saveTo(history);
        putNumber(SLOWDOWN, slowPhase.slowdown());
        putNumber(SLOW_WINDOW, slowPhase.window());
        putNumber(SLOWDOWN_SAMPLES, slowPhase.samples());
        putNumber(STEADY_PER_CALL, steadyPerCall);
        savedSteadyPerCall = steadyPerCall;
        putNumber(STEADY_BLOCKING, steadyBlocking);
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
