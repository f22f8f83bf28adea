package io.jckpt.policy.interval;

import java.util.Arrays;
import java.util.Locale;

/**
 * The slowdown of the computation after a restart (a re-spawned JVM's cold code, the ring re-joined), as
 * rank 0 measures it over the job's recoveries: per second since the end of the recovery's open(), the
 * computation's extra time over its steady pace (plus the extra blocking of the here()s begun in that
 * second), summed over the recoveries that lived through that second, with their count. The slowdown of a
 * whole phase is the sum over seconds of the mean extra time: a world cut short by the next failure adds
 * the seconds it lived and no others (censoring), so frequent failures neither lose the measurement nor
 * bias it towards the worlds that happened to live long.
 *
 * <p>A recovery's window lasts at least {@value #MIN_SECONDS} s and ends at the first period after that
 * whose pace is within {@value #TOLERANCE_PERCENT} % of the steady one, at most {@value #MAX_SECONDS} s; its
 * later seconds count as observed with no extra time. The steady pace is close to the fastest periods
 * (see {@link IntervalController}), so an ordinary period is slower than it by some percent: that share,
 * measured on the periods outside the windows ({@link #steadyPeriod}), is taken off every second's extra
 * time. The sums live in the job's {@link FailureHistory}, written by the controller whenever a second is
 * added, so the next world finds them even when this one dies in its window.
 */
final class SlowPhase {
    /** A window lasts at least this long (s): the extra time after a restart measured here is spread over some 6 s. */
    static final int MIN_SECONDS = 6;
    /** ... and at most this long (s). */
    static final int MAX_SECONDS = 30;
    /** A window ends at the first period after {@link #MIN_SECONDS} within this much of the steady pace (%). */
    static final int TOLERANCE_PERCENT = 10;
    /** History keys: per second, the extra time and the computation summed over the recoveries, and their count. */
    static final String EXCESS = "slowSecondExcessSeconds";
    static final String COMPUTED = "slowSecondComputedSeconds";
    static final String COUNTS = "slowSecondCounts";
    /** ... the mean length of the windows that ended (s), their count, and the ordinary periods' share over the steady pace. */
    static final String LENGTH = "slowPhaseSeconds";
    static final String ENDED = "slowPhasesEnded";
    static final String NOISE = "steadyExcessShare";
    /** Weight of a period in the running mean of the ordinary periods' excess share. */
    private static final double NOISE_WEIGHT = 0.05;

    private final double[] excess = new double[MAX_SECONDS];
    private final double[] computed = new double[MAX_SECONDS];
    private final long[] counts = new long[MAX_SECONDS];
    private double lengthMean = Double.NaN;
    private long ended;
    private double noise = Double.NaN;

    // this world's window
    private boolean open;
    private final double[] worldExcess = new double[MAX_SECONDS];
    private final double[] worldComputed = new double[MAX_SECONDS];
    private int recorded;

    /** @param history the job's history (its sums so far), or null */
    SlowPhase(FailureHistory history) {
        if (history != null) {
            read(history.value(EXCESS), excess);
            read(history.value(COMPUTED), computed);
            double[] c = new double[MAX_SECONDS];
            read(history.value(COUNTS), c);
            for (int k = 0; k < MAX_SECONDS; k++) {
                counts[k] = (long) Math.max(0, c[k]);
            }
            ended = (long) Math.max(0, history.number(ENDED, 0));
            lengthMean = ended > 0 ? history.number(LENGTH, Double.NaN) : Double.NaN;
            noise = history.number(NOISE, Double.NaN);
        }
    }

    /** A recovery ended: this world's window starts (at the controller's open). */
    void open() {
        open = true;
        recorded = 0;
        Arrays.fill(worldExcess, 0);
        Arrays.fill(worldComputed, 0);
    }

    /** @return whether this world's window is open */
    boolean isOpen() {
        return open;
    }

    /**
     * One computation period in the window, attributed to the second its middle falls in.
     *
     * @param start  when it began (s since the open)
     * @param length its length (s)
     * @param calls  the needCheckpoint() calls in it (&gt; 0)
     * @param steady the steady computation per call (s), NaN when not known
     * @return whether seconds were added to the sums (the history should be written)
     */
    boolean period(double start, double length, long calls, double steady) {
        double end = start + length;
        if (Double.isNaN(steady)) {
            // nothing to compare with: the window only keeps the slow start out of the steady pace
            if (end >= MIN_SECONDS) {
                open = false;
            }
            return false;
        }
        int second = (int) Math.min(MAX_SECONDS - 1, Math.max(0, Math.floor(start + length / 2)));
        worldExcess[second] += length - calls * steady;
        worldComputed[second] += length;
        boolean steadyAgain = length / calls <= steady * (1 + TOLERANCE_PERCENT / 100.0);
        if (end >= MAX_SECONDS || (end >= MIN_SECONDS && steadyAgain)) {
            // the rest of the window is at the steady pace: observed, with no extra time
            record(MAX_SECONDS);
            lengthMean = ended == 0 ? end : (lengthMean * ended + Math.min(end, MAX_SECONDS)) / (ended + 1);
            ended++;
            open = false;
            return true;
        }
        return record((int) Math.floor(end));
    }

    /**
     * The extra blocking of a here() begun in the window, over the usual one.
     *
     * @param at    when it began (s since the open)
     * @param extra its extra blocking (s)
     */
    void extraBlocking(double at, double extra) {
        int second = (int) Math.floor(at);
        if (open && second >= recorded && second < MAX_SECONDS) {
            worldExcess[second] += extra;
        }
    }

    /**
     * A period outside the windows: its share over the steady pace (before the period refines it), when
     * within the tolerance either way.
     *
     * @param length its length (s)
     * @param calls  its calls
     * @param steady the steady computation per call before it (s)
     */
    void steadyPeriod(double length, long calls, double steady) {
        if (length > 0 && calls > 0 && !Double.isNaN(steady)) {
            double share = (length - calls * steady) / length;
            // beyond the tolerance either way a period is no ordinary one: slower, a slowdown or a change of the
            // machine's speed; faster, the pace still improving (the job's own warm-up) with the steady one behind
            if (Math.abs(share) <= TOLERANCE_PERCENT / 100.0) {
                noise = Double.isNaN(noise) ? share : noise + NOISE_WEIGHT * (share - noise);
            }
        }
    }

    /** Adds this world's seconds before {@code upTo} not added yet; true if any was. */
    private boolean record(int upTo) {
        int n = Math.min(upTo, MAX_SECONDS);
        if (n <= recorded) {
            return false;
        }
        for (int k = recorded; k < n; k++) {
            excess[k] += worldExcess[k];
            computed[k] += worldComputed[k];
            counts[k]++;
        }
        recorded = n;
        return true;
    }

    /** @return the extra time of a whole slow phase (s), mean over the recoveries, NaN before one second was measured */
    double slowdown() {
        if (counts[0] == 0) {
            return Double.NaN;
        }
        double s = 0;
        for (int k = 0; k < MAX_SECONDS; k++) {
            s += meanExtra(k);
        }
        return Math.max(0, s);
    }

    /**
     * Second k's extra time, mean over the recoveries that lived through it, less the ordinary periods' share of
     * its computation; 0 for a second none lived through.
     */
    private double meanExtra(int k) {
        if (counts[k] == 0) {
            return 0;
        }
        double share = Double.isNaN(noise) ? 0 : noise;
        return (excess[k] - share * computed[k]) / counts[k];
    }

    /**
     * The computation done in a slow phase (s), as the model ({@code FailureModel}) takes it: a phase of
     * window + slowdown seconds over which the extra time accrues evenly, cut short by a failure. The
     * measured extra time comes mostly early (the first second holds about half), so the phase reported is
     * the even one with the same centre in time (twice the extra time's mean second): its chance of being
     * cut short then matches the measured one to first order in the failure rate, where the window's whole
     * length would make a failure seem to cut off more of the slowdown than it does.
     *
     * @return that phase's length less the slowdown (&gt;= 0); NaN before one second was measured
     */
    double window() {
        double s = slowdown();
        if (Double.isNaN(s)) {
            return Double.NaN;
        }
        double sum = 0;
        double moment = 0;
        for (int k = 0; k < MAX_SECONDS; k++) {
            double e = meanExtra(k);
            if (e > 0) {
                sum += e;
                moment += e * (k + 0.5);
            }
        }
        double length = sum > 0 ? 2 * moment / sum : ended > 0 ? lengthMean : observedSeconds();
        return Math.max(0, length - s);
    }

    /**
     * The pace after a restart second by second, as the advisor takes it ({@code --slow-pace}): second k at 1 - e_k
     * of the steady pace, e_k its mean extra time over the recoveries that lived through it (less the ordinary
     * periods' share), up to the last second with extra time. A second whose extra time exceeds the second (a
     * long first period) passes the rest on to the next, so the profile holds the whole extra time (a second
     * faster than the steady pace counts as steady) and its weight stays early: the advisor charges a failure
     * the part of the phase it lived through, and most of the extra time comes in the first seconds.
     *
     * @return the profile, {@link SlowProfile#NONE} before one second was measured
     */
    SlowProfile pace() {
        if (counts[0] == 0) {
            return SlowProfile.NONE;
        }
        double[] speeds = new double[MAX_SECONDS];
        int last = -1;
        double carried = 0;
        for (int k = 0; k < MAX_SECONDS && (counts[k] > 0 || carried > 0); k++) {
            double e = carried + meanExtra(k);
            carried = Math.max(0, e - 1);
            speeds[k] = Math.max(0, 1 - Math.max(e, 0) + carried);
            if (e > 0) {
                last = k;
            }
        }
        return last < 0 ? SlowProfile.NONE : SlowProfile.everySeconds(1, Arrays.copyOf(speeds, last + 1));
    }

    /** @return the recoveries measured (that lived through their first second) */
    long samples() {
        return counts[0];
    }

    private int observedSeconds() {
        int n = 0;
        for (int k = 0; k < MAX_SECONDS; k++) {
            if (counts[k] > 0) {
                n = k + 1;
            }
        }
        return n;
    }

    /** Writes the sums into the history (the caller saves it). */
    void saveTo(FailureHistory history) {
        history.put(EXCESS, write(excess));
        history.put(COMPUTED, write(computed));
        double[] c = new double[MAX_SECONDS];
        for (int k = 0; k < MAX_SECONDS; k++) {
            c[k] = counts[k];
        }
        history.put(COUNTS, write(c));
        history.put(ENDED, Long.toString(ended));
        if (!Double.isNaN(lengthMean)) {
            history.put(LENGTH, Double.toString(lengthMean));
        }
        if (!Double.isNaN(noise)) {
            history.put(NOISE, Double.toString(noise));
        }
    }

    private static void read(String text, double[] into) {
        if (text == null || text.isBlank()) {
            return;
        }
        String[] parts = text.split(",");
        for (int k = 0; k < Math.min(parts.length, into.length); k++) {
            try {
                double v = Double.parseDouble(parts[k].trim());
                into[k] = Double.isFinite(v) ? v : 0;
            } catch (NumberFormatException e) {
                into[k] = 0; // a damaged entry: that second starts over
            }
        }
    }

    private static String write(double[] values) {
        int n = values.length;
        while (n > 0 && values[n - 1] == 0) {
            n--;
        }
        StringBuilder b = new StringBuilder();
        for (int k = 0; k < n; k++) {
            if (k > 0) {
                b.append(',');
            }
            b.append(String.format(Locale.ROOT, "%.6g", values[k]));
        }
        return b.toString();
    }
}
