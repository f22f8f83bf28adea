package io.jckpt.policy.interval;

/**
 * The checkpoint and failure model of jckpt, in closed form: the online interval policy's
 * ({@link IntervalController}, rank 0's decision at each here()), which the advisor tool
 * ({@code io.jckpt.advisor.Advisor}, module advisor) tabulates and its {@code Simulator} simulates event
 * by event.
 *
 * <h2>The model</h2>
 * A job computes; every {@code tau} seconds of computation it takes an in-memory checkpoint that costs
 * {@code c} seconds (here()'s blocking time plus the CPU the background replication takes from the
 * program); every {@code k}-th checkpoint is also a disk round, costing {@code cd} seconds more. Nodes
 * fail independently (exponential, rate 1 / node MTBF). A failure the memory level survives (fewer
 * than all the nodes holding some rank's copies) loses the computation since the newest in-memory
 * checkpoint and costs a restart of {@code r} seconds; a failure it does not survive (rate
 * {@link #unsurvivableRate}) loses everything since the newest disk round and costs {@code rd}; without
 * the disk level it ends the job. Failures may strike during checkpoints and restarts too. After every
 * restart the computation runs slower for a while (a re-spawned JVM starts cold, the first here()
 * re-joins the ring): a slow phase of {@code w + s} seconds of wall time in which {@code w} seconds of
 * computation get done, {@code s} seconds of extra time when no failure cuts it short, or a measured pace
 * second by second ({@link SlowProfile#extraPerRestart}); checkpoints go on in it.
 *
 * <p>Times are in seconds, rates per second. Every method is a pure function.
 */
public final class FailureModel {
    private FailureModel() {
    }

    /** Where the m copies of a rank's checkpoint live. */
    public enum Placement {
        /** The next m ranks in rank order (jckpt's ring today): with p ranks per node, copies share nodes. */
        RANK_ORDER,
        /** m distinct nodes other than the owner's (node-aware rings, SCR's failure groups). */
        SPREAD
    }

    /**
     * Young's first-order optimum interval sqrt(2 c M).
     *
     * @param cost cost of one checkpoint (s, &gt;= 0)
     * @param mtbf mean time between failures of the job (s, &gt; 0)
     * @return the compute time between checkpoints (s)
     */
    public static double youngInterval(double cost, double mtbf) {
        requirePositive("mtbf", mtbf);
        return Math.sqrt(2 * Math.max(0, cost) * mtbf);
    }

    /**
     * Daly's higher-order optimum (J. T. Daly, FGCS 2006): sqrt(2cM)[1 + (1/3)sqrt(c/2M) + (1/9)(c/2M)] - c
     * for c &lt; 2M, else M.
     *
     * @param cost cost of one checkpoint (s, &gt;= 0)
     * @param mtbf mean time between failures of the job (s, &gt; 0)
     * @return the compute time between checkpoints (s), at least a tiny positive value
     */
    public static double dalyInterval(double cost, double mtbf) {
        requirePositive("mtbf", mtbf);
        double c = Math.max(0, cost);
        if (c >= 2 * mtbf) {
            return mtbf;
        }
        double x = c / (2 * mtbf);
        double tau = Math.sqrt(2 * c * mtbf) * (1 + Math.sqrt(x) / 3 + x / 9) - c;
        return Math.max(tau, 1e-9);
    }

    /**
     * Daly's exact expected wall time of one segment of {@code length} seconds that must run without a
     * failure, restarts of {@code restart} seconds (which may fail too) before every retry:
     * M e^(R/M) (e^(L/M) - 1).
     *
     * @param length  the segment (s)
     * @param restart the restart cost before each retry (s)
     * @param rate    the failure rate (1/s, &gt;= 0)
     * @return the expected wall time (s)
     */
    public static double expectedSegmentTime(double length, double restart, double rate) {
        if (rate <= 0) {
            return length;
        }
        return Math.exp(rate * restart) * Math.expm1(rate * length) / rate;
    }

    /**
     * The expected time of a segment when failures due during a restart wait for its end: e^(λL) - 1
     * failures strike the segment's attempts (each after (e^(λL) - 1) / λ in all), and each failure
     * costs whole restarts until one passes with no failure falling due, r e^(λr).
     *
     * @param length  the segment (s)
     * @param restart restart after a failure (s)
     * @param rate    failure rate (1/s)
     * @return expected wall time (s)
     */
    public static double expectedSegmentTimeDeferred(double length, double restart, double rate) {
        return expectedSegmentTime(length, restart, restart, rate);
    }

    /**
     * The expected time of a segment when a failure that falls due in the first {@code held} seconds of a
     * restart waits for their end and then strikes at once, and one due later cuts the restart short
     * ({@code bin/ckpt-run --mtbf} holds failures while it rebuilds the world, not while the ranks restore
     * their data). e^(λL) - 1 failures strike the segment's attempts ((e^(λL) - 1) / λ in all), and each is
     * followed by restart attempts until one passes with no failure: e^(λr) attempts, each lasting
     * max(h, min(X, r)) with X exponential, h + (e^(-λh) - e^(-λr)) / λ on average. {@code held} = 0 is
     * {@link #expectedSegmentTime(double, double, double) Daly's}; {@code held} = {@code restart} is
     * {@link #expectedSegmentTimeDeferred}.
     *
     * @param length  the segment (s)
     * @param held    the part of each restart no failure cuts short (s; clamped to 0..restart)
     * @param restart restart after a failure (s)
     * @param rate    failure rate (1/s)
     * @return expected wall time (s)
     */
    public static double expectedSegmentTime(double length, double held, double restart, double rate) {
        if (rate <= 0) {
            return length;
        }
        double h = Math.max(0, Math.min(held, restart));
        double failures = Math.expm1(rate * length);
        double attempt = h + (Math.exp(-rate * h) - Math.exp(-rate * restart)) / rate;
        return failures / rate + failures * attempt * Math.exp(rate * restart);
    }

    private static double segmentTime(double length, double restart, double rate, double held) {
        return held <= 0 ? expectedSegmentTime(length, restart, rate) : expectedSegmentTime(length, held, restart, rate);
    }

    /**
     * How many distinct nodes must all be lost to lose some rank's checkpoint from memory: its own
     * node and the nodes of its m holders. With {@link Placement#RANK_ORDER} and p ranks per node
     * (consecutive ranks share a node), the first rank of a node has its m holders on the next
     * floor(m / p) nodes: floor(m / p) + 1 nodes. With {@link Placement#SPREAD}, m + 1. Never more
     * than the nodes there are.
     *
     * @param m            copies on other ranks
     * @param ranksPerNode p
     * @param nodes        nodes of the job
     * @param placement    where copies go
     * @return the nodes that must all fail, &gt;= 1
     */
    public static int nodesToLoseMemory(int m, int ranksPerNode, int nodes, Placement placement) {
        int d = placement == Placement.SPREAD ? m + 1 : m / Math.max(1, ranksPerNode) + 1;
        return Math.max(1, Math.min(d, nodes));
    }

    /**
     * The rate of failures the memory level cannot survive: some group of d nodes that together hold
     * every copy of a rank ({@link #nodesToLoseMemory}) all down at once, each lost node staying
     * unprotected for {@code window} seconds (the recovery, then the next round re-creating its copies).
     * First order: groups x d λ (λ w)^(d-1), with one group per node in the ring (a single group when
     * d = nodes).
     *
     * @param nodeMtbf     MTBF of one node (s, &gt; 0)
     * @param nodes        nodes of the job (&gt;= 1)
     * @param ranksPerNode ranks per node (&gt;= 1)
     * @param m            copies on other ranks (&gt;= 0)
     * @param window       how long a lost node's copies stay missing (s, &gt;= 0)
     * @param placement    where copies go
     * @return the rate (1/s)
     */
    public static double unsurvivableRate(double nodeMtbf, int nodes, int ranksPerNode, int m, double window,
                                          Placement placement) {
        requirePositive("nodeMtbf", nodeMtbf);
        double lambda = 1 / nodeMtbf;
        int d = nodesToLoseMemory(m, ranksPerNode, nodes, placement);
        double groups = d >= nodes ? 1 : nodes;
        double rate = groups * d * lambda * Math.pow(lambda * Math.max(0, window), d - 1);
        return Math.min(rate, nodes * lambda); // never more than all failures
    }

    /**
     * How the memory level protects a rank's checkpoint, as the model counts it: the rank's data and its
     * redundancy lie on sets of {@code setNodes} nodes of which any {@code tolerated} may be lost at once;
     * a rank's store holds {@code storedPerImage} images' worth (its own, plus what it keeps for others),
     * and a checkpoint sends {@code sentPerImage} images' worth per rank.
     *
     * @param name           as {@code --redundancy} says it: {@code copies:M}, {@code xor:K}, {@code rs:K+P}
     * @param setNodes       nodes of one set (&gt;= 1)
     * @param tolerated      nodes of a set that may be lost together (&gt;= 0, &lt; setNodes)
     * @param storedPerImage bytes held per byte of own image (&gt;= 1)
     * @param sentPerImage   bytes sent per byte of own image at each checkpoint (&gt;= 0)
     * @param ring           whether the sets slide along the ring (full copies: one set per node, a node and
     *                       its holders' nodes) rather than tile the nodes (a code's sets)
     */
    public record Protection(String name, int setNodes, int tolerated, double storedPerImage, double sentPerImage,
                             boolean ring) {
        /** Checks the values. */
        public Protection {
            if (setNodes < 1 || tolerated < 0 || tolerated >= setNodes || !(storedPerImage >= 1) || !(sentPerImage >= 0)) {
                throw new IllegalArgumentException("not a protection: " + name + " (set of " + setNodes + " nodes, "
                        + tolerated + " tolerated, " + storedPerImage + " stored, " + sentPerImage + " sent per image)");
            }
        }

        /**
         * m full copies on the next ranks ({@code copies:M}): the own node and the holders' nodes
         * ({@link #nodesToLoseMemory}) must all be lost.
         */
        public static Protection copies(int m, int ranksPerNode, int nodes, Placement placement) {
            int d = nodesToLoseMemory(m, ranksPerNode, nodes, placement);
            return new Protection("copies:" + m, d, d - 1, m + 1, m, true);
        }

        /**
         * XOR parity over sets of k members on k nodes ({@code xor:K}): each member keeps one parity stripe
         * of image / (k - 1); one lost member per set is rebuilt. With fewer nodes than k, members share
         * nodes and a node's loss is a member's too many.
         */
        public static Protection xor(int k, int nodes) {
            if (k < 2) {
                throw new IllegalArgumentException("xor:" + k + ": a set needs at least 2 members");
            }
            return spread("xor:" + k, k, 1, 1 + 1.0 / (k - 1), 1, nodes);
        }

        /**
         * Reed-Solomon over sets of k + p members on k + p nodes ({@code rs:K+P}): each member keeps p / k
         * of its image in parity; any p lost members per set are rebuilt; a checkpoint sends each data
         * part to the p parity parts.
         */
        public static Protection reedSolomon(int k, int p, int nodes) {
            if (k < 1 || p < 1) {
                throw new IllegalArgumentException("rs:" + k + "+" + p + ": needs k >= 1 data and p >= 1 parity members");
            }
            return spread("rs:" + k + "+" + p, k + p, p, 1 + (double) p / k, p, nodes);
        }

        /** A set of {@code members} over as many nodes as there are, at most that many members per node. */
        private static Protection spread(String name, int members, int tolerated, double stored, double sent, int nodes) {
            int setNodes = Math.max(1, Math.min(members, nodes));
            int perNode = (members + setNodes - 1) / setNodes;
            return new Protection(name, setNodes, tolerated / perNode, stored, sent, false);
        }
    }

    /**
     * The rate of failures the memory level cannot survive under {@code protection}: more than its
     * tolerated nodes of one set down at once, each lost node unprotected for {@code window} seconds.
     * First order: sets x C(g, t+1) x (t+1) λ (λ w)^t for sets of g nodes tolerating t; the sets
     * tile the nodes ({@code nodes / g} of them), except m copies on a ring, where every node starts
     * one ({@link #unsurvivableRate}, the same figure).
     *
     * @param nodeMtbf   MTBF of one node (s, &gt; 0)
     * @param nodes      nodes of the job (&gt;= 1)
     * @param protection the memory level's redundancy
     * @param window     how long a lost node's data stays unprotected (s, &gt;= 0)
     * @return the rate (1/s)
     */
    public static double unsurvivableRate(double nodeMtbf, int nodes, Protection protection, double window) {
        requirePositive("nodeMtbf", nodeMtbf);
        double lambda = 1 / nodeMtbf;
        int g = Math.min(protection.setNodes(), nodes);
        int t = Math.min(protection.tolerated(), g - 1);
        double sets = protection.ring() ? (g >= nodes ? 1 : nodes) : Math.max(1.0, (double) nodes / g);
        double rate = sets * choose(g, t + 1) * (t + 1) * lambda * Math.pow(lambda * Math.max(0, window), t);
        return Math.min(rate, nodes * lambda); // never more than all failures
    }

    private static double choose(int n, int k) {
        double c = 1;
        for (int i = 1; i <= k; i++) {
            c = c * (n - k + i) / i;
        }
        return c;
    }

    /**
     * The disk ratio that minimises the expected time of the two-level scheme: Young's optimum for the
     * disk level alone, sqrt(2 cd / λu), in memory periods of {@code tau + c}.
     *
     * @param tau              compute time between memory checkpoints (s)
     * @param cost             cost of a memory checkpoint (s)
     * @param diskCost         extra cost of a disk round (s, &gt;= 0)
     * @param unsurvivableRate failures the memory level cannot survive (1/s)
     * @param maxRatio         the largest ratio to choose (&gt;= 1)
     * @return k in 1..maxRatio
     */
    public static int diskRatio(double tau, double cost, double diskCost, double unsurvivableRate, int maxRatio) {
        if (unsurvivableRate <= 0) {
            return maxRatio;
        }
        double period = Math.sqrt(2 * Math.max(diskCost, 1e-9) / unsurvivableRate);
        double k = period / Math.max(tau + cost, 1e-12);
        return (int) Math.max(1, Math.min(maxRatio, Math.round(k)));
    }

    /**
     * Expected wall time per second of computation of the two-level scheme (1 = no overhead): the
     * memory level is Daly's segment formula under the survivable failures; the disk level applies the
     * same formula to a disk period of k expected memory segments plus the disk round, under the
     * unsurvivable failures (exact for one level; for two levels it treats the disk period as its
     * expected length, good while λu times the period is small, see {@code SimulatorTest}).
     * Without the disk level ({@code k == 0}) it is the expected time of a job that no unsurvivable
     * failure ends (see {@link #lossProbability} for those).
     *
     * @param s the scheme
     * @return expected wall time / computation
     */
    public static double wallPerWork(Scheme s) {
        return wallPerWork(s, false);
    }

    /**
     * {@link #wallPerWork(Scheme)}, or the same when a failure that falls due during a restart waits for
     * the restart's end and then strikes at once, as {@code bin/ckpt-run --mtbf} injects failures (it
     * kills no rank while a recovery is under way): a restart is then never cut short, and each failure
     * due in it costs one more whole restart ({@link #expectedSegmentTimeDeferred}). Real failures do not
     * wait: the advisor uses the first form. The interval bench uses {@link #wallPerWork(Scheme, double)}
     * with the part of a restart the launcher holds failures for.
     *
     * @param s                        the scheme
     * @param failuresWaitForRestarts  whether failures due during a restart strike at its end
     * @return expected wall time / computation
     */
    public static double wallPerWork(Scheme s, boolean failuresWaitForRestarts) {
        return wallPerWork(s, failuresWaitForRestarts ? Double.POSITIVE_INFINITY : 0);
    }

    /**
     * {@link #wallPerWork(Scheme)} when a failure that falls due in the first {@code held} seconds of a
     * restart waits for their end and then strikes at once, and one due later cuts the restart short
     * ({@link #expectedSegmentTime(double, double, double, double)}): {@code bin/ckpt-run --mtbf} kills no
     * rank while it rebuilds the world after a failure (the detection to the new world), but does while the
     * ranks restore their data in it. 0 is Daly's form, infinity (or the restart) the restart held whole.
     *
     * @param s    the scheme
     * @param held seconds of each restart (memory and disk alike, each clamped to its restart) that no failure
     *             cuts short
     * @return expected wall time / computation
     */
    public static double wallPerWork(Scheme s, double held) {
        return wallPerWork(s, held, SlowProfile.even(s.slowdown(), s.slowWindow()));
    }

    /**
     * {@link #wallPerWork(Scheme, double)} with the computation after each restart following {@code profile}
     * (the scheme's own slowdown and slow window are not used): a measured, front-loaded profile costs more
     * per failure than the even phase of the same total when failures are frequent
     * ({@link SlowProfile#extraPerRestart}).
     *
     * @param s       the scheme
     * @param held    seconds of each restart that no failure cuts short
     * @param profile the speed after a restart
     * @return expected wall time / computation
     */
    public static double wallPerWork(Scheme s, double held, SlowProfile profile) {
        if (!(held >= 0)) {
            throw new IllegalArgumentException("held must be >= 0 seconds, not " + held);
        }
        double segment = segmentTime(s.tau() + s.cost(), s.restart(), s.survivableRate(), held);
        double wall;
        if (s.diskRatio() <= 0) {
            wall = segment / s.tau();
        } else {
            double period = s.diskRatio() * segment + s.diskCost();
            wall = segmentTime(period, s.diskRestart(), s.unsurvivableRate(), held)
                    / (s.diskRatio() * s.tau());
        }
        // each failure adds a slow phase's extra time; failures strike in that time too (a renewal: the
        // extra time is lambda x wall x extra, summed over its own failures: wall / (1 - lambda extra))
        double rate = s.survivableRate() + s.unsurvivableRate();
        double extra = rate * profile.extraPerRestart(rate);
        return extra >= 1 ? Double.POSITIVE_INFINITY : wall / (1 - extra);
    }

    /**
     * Expected time lost per failure: the computation redone plus the restart and the slowdown after it, weighted by how often
     * each kind of failure happens (half a memory segment for the survivable ones, half a disk period
     * for the others).
     *
     * @param s the scheme
     * @return seconds
     */
    public static double lostPerFailure(Scheme s) {
        return lostPerFailure(s, SlowProfile.even(s.slowdown(), s.slowWindow()));
    }

    /**
     * {@link #lostPerFailure(Scheme)} with the computation after each restart following {@code profile} (the
     * scheme's own slowdown and slow window are not used).
     *
     * @param s       the scheme
     * @param profile the speed after a restart
     * @return seconds
     */
    public static double lostPerFailure(Scheme s, SlowProfile profile) {
        double total = s.survivableRate() + s.unsurvivableRate();
        if (total <= 0) {
            return 0;
        }
        double slow = profile.extraPerRestart(total);
        double memory = (s.tau() + s.cost()) / 2 + s.restart() + slow;
        double disk = s.diskRatio() <= 0 ? Double.NaN
                : (s.diskRatio() * (s.tau() + s.cost()) + s.diskCost()) / 2 + s.diskRestart() + slow;
        if (s.diskRatio() <= 0) {
            return memory; // an unsurvivable failure ends the job: counted in lossProbability
        }
        return (s.survivableRate() * memory + s.unsurvivableRate() * disk) / total;
    }

    /**
     * Probability that a job of {@code jobSeconds} meets a failure neither level survives: without the
     * disk level, any unsurvivable failure; with it, one before the first disk generation exists.
     *
     * @param s          the scheme
     * @param jobSeconds the job's failure-free length (s)
     * @return a probability
     */
    public static double lossProbability(Scheme s, double jobSeconds) {
        double exposed = s.diskRatio() <= 0 ? jobSeconds * wallPerWork(s)
                : Math.min(jobSeconds, s.diskRatio() * (s.tau() + s.cost()) + s.diskCost());
        return -Math.expm1(-s.unsurvivableRate() * exposed);
    }

    /**
     * Memory one node needs for the in-memory level: each of its ranks keeps its own and m copies of
     * others, versionsKept versions each, in slots sized 1.25 x the image.
     *
     * @param imageBytes   one rank's checkpoint image
     * @param ranksPerNode ranks on the node
     * @param m            copies on other ranks
     * @param versionsKept versions per owner (2 by default)
     * @return bytes
     */
    public static double memoryPerNode(double imageBytes, int ranksPerNode, int m, int versionsKept) {
        return imageBytes * 1.25 * ranksPerNode * (m + 1) * versionsKept;
    }

    /**
     * As {@link #memoryPerNode(double, int, int, int)} under {@code protection}: each rank's store holds
     * {@link Protection#storedPerImage()} images' worth.
     */
    public static double memoryPerNode(double imageBytes, int ranksPerNode, Protection protection, int versionsKept) {
        return imageBytes * 1.25 * ranksPerNode * protection.storedPerImage() * versionsKept;
    }

    /**
     * One configuration of the two-level scheme, with its failure rates.
     *
     * @param tau              compute time between memory checkpoints (s, &gt; 0)
     * @param cost             cost of a memory checkpoint (s)
     * @param diskRatio        every k-th checkpoint also goes to disk (0 = no disk level)
     * @param diskCost         extra cost of a disk round (s)
     * @param restart          restart after a survivable failure (s)
     * @param diskRestart      restart from the disk level (s)
     * @param survivableRate   failures the memory level survives (1/s)
     * @param unsurvivableRate failures it does not survive (1/s)
     * @param slowdown         extra wall time of the computation after each restart (s): cold JIT of a
     *                         re-spawned JVM, the first here() re-joining the ring; measured by the job
     * @param slowWindow       the computation done meanwhile (s): the slow phase lasts slowWindow + slowdown
     */
    public record Scheme(double tau, double cost, int diskRatio, double diskCost, double restart, double diskRestart,
                         double survivableRate, double unsurvivableRate, double slowdown, double slowWindow) {
        /** Checks the values. */
        public Scheme {
            requirePositive("tau", tau);
            if (!(cost >= 0 && diskCost >= 0 && restart >= 0 && diskRestart >= 0 && survivableRate >= 0
                    && unsurvivableRate >= 0 && diskRatio >= 0 && slowdown >= 0 && slowWindow >= 0)
                    || Double.isInfinite(slowdown) || Double.isInfinite(slowWindow)) {
                throw new IllegalArgumentException("negative or undefined value in " + this);
            }
        }

        /** A scheme without a slowdown after restarts. */
        public Scheme(double tau, double cost, int diskRatio, double diskCost, double restart, double diskRestart,
                      double survivableRate, double unsurvivableRate) {
            this(tau, cost, diskRatio, diskCost, restart, diskRestart, survivableRate, unsurvivableRate, 0, 0);
        }
    }

    static void requirePositive(String name, double value) {
        if (!(value > 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(name + " must be > 0 and finite, got " + value);
        }
    }
}
