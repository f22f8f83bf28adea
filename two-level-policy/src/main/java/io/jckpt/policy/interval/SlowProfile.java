package io.jckpt.policy.interval;

import java.util.Arrays;
import java.util.Locale;

/**
 * The computation's speed after a restart, as a function of the wall time since it computes again: piecewise
 * constant, phase k lasting {@code seconds[k]} at {@code speeds[k]} of the steady pace, the steady pace after
 * the last. The even slow phase of {@link FailureModel.Scheme} ({@code slowdown} extra seconds spread over
 * {@code slowWindow} seconds of computation) is one phase ({@link #even}); a measured profile is many short
 * ones, slowest first (a re-spawned JVM's cold code runs at a third of the pace in its first half second here).
 * The shape matters when failures are frequent: a failure cuts the phase short, so the extra time of its first
 * seconds is paid after almost every restart, that of its later seconds only after the restarts that live
 * that long ({@link #extraPerRestart}).
 *
 * @param seconds each phase's length (s, &gt; 0)
 * @param speeds  each phase's speed over the steady pace (&gt;= 0, finite; above 1 a phase faster than it)
 */
public record SlowProfile(double[] seconds, double[] speeds) {
    /** No slowdown. */
    public static final SlowProfile NONE = new SlowProfile(new double[0], new double[0]);

    /** Checks the phases and copies the arrays. */
    public SlowProfile {
        if (seconds == null || speeds == null || seconds.length != speeds.length) {
            throw new IllegalArgumentException("a slow profile needs as many speeds as phases, got "
                    + (seconds == null ? "null" : seconds.length) + " phases and "
                    + (speeds == null ? "null" : speeds.length) + " speeds");
        }
        seconds = seconds.clone();
        speeds = speeds.clone();
        for (int k = 0; k < seconds.length; k++) {
            if (!(seconds[k] > 0) || Double.isInfinite(seconds[k])) {
                throw new IllegalArgumentException("slow profile phase " + k + ": its length must be > 0 s and "
                        + "finite, got " + seconds[k]);
            }
            if (!(speeds[k] >= 0) || Double.isInfinite(speeds[k])) {
                throw new IllegalArgumentException("slow profile phase " + k + ": its speed must be >= 0 and "
                        + "finite, got " + speeds[k]);
            }
        }
    }

    /**
     * The even slow phase: {@code slowdown} extra seconds of wall time while {@code window} seconds of
     * computation are done, at {@code window / (window + slowdown)} of the pace; none when the slowdown is 0.
     *
     * @param slowdown the extra wall time (s, &gt;= 0)
     * @param window   the computation done meanwhile (s, &gt;= 0; 0: no progress for {@code slowdown} seconds)
     * @return the profile
     */
    public static SlowProfile even(double slowdown, double window) {
        if (!(slowdown >= 0 && window >= 0) || Double.isInfinite(slowdown) || Double.isInfinite(window)) {
            throw new IllegalArgumentException("an even slow phase needs a slowdown and a window >= 0 s and finite, got "
                    + slowdown + " and " + window);
        }
        return slowdown == 0 ? NONE
                : new SlowProfile(new double[] {window + slowdown}, new double[] {window / (window + slowdown)});
    }

    /**
     * Phases of equal length.
     *
     * @param phaseSeconds each phase's length (s)
     * @param speeds       their speeds, in order
     * @return the profile
     */
    public static SlowProfile everySeconds(double phaseSeconds, double... speeds) {
        double[] seconds = new double[speeds.length];
        Arrays.fill(seconds, phaseSeconds);
        return new SlowProfile(seconds, speeds);
    }

    /** @return each phase's length (s), a copy */
    @Override
    public double[] seconds() {
        return seconds.clone();
    }

    /** @return each phase's speed over the steady pace, a copy */
    @Override
    public double[] speeds() {
        return speeds.clone();
    }

    /** @return the extra wall time of a whole profile (s): the sum of (1 - speed) x length */
    public double slowdown() {
        double extra = 0;
        for (int k = 0; k < seconds.length; k++) {
            extra += (1 - speeds[k]) * seconds[k];
        }
        return extra;
    }

    /** @return the computation done in a whole profile (s) */
    public double window() {
        double done = 0;
        for (int k = 0; k < seconds.length; k++) {
            done += speeds[k] * seconds[k];
        }
        return done;
    }

    /**
     * The expected extra wall time of one profile cut short by a failure of rate λ (the next failure
     * exponential, the profile's time lost until then): the integral of (1 - speed(t)) e^(-λt), so
     * sum over phases of (1 - speed) (e^(-λa) - e^(-λb)) / λ for a phase from a to b. One even phase of s extra
     * seconds over T = s + w gives s (1 - e^(-λT)) / (λT): a failure at x into it has cost x s / T.
     *
     * @param rate the failure rate (1/s, &gt;= 0)
     * @return seconds
     */
    public double extraPerRestart(double rate) {
        if (!(rate >= 0)) {
            throw new IllegalArgumentException("rate must be >= 0, got " + rate);
        }
        double extra = 0;
        double start = 0;
        for (int k = 0; k < seconds.length; k++) {
            double length = seconds[k];
            extra += (1 - speeds[k]) * (rate == 0 ? length : Math.exp(-rate * start) * -Math.expm1(-rate * length) / rate);
            start += length;
        }
        return extra;
    }

    /**
     * The wall time to do {@code work} seconds of computation starting {@code age} seconds after the
     * restart (the simulator's segments).
     *
     * @param age  wall time since the restart (s, &gt;= 0)
     * @param work computation (s, &gt;= 0)
     * @return seconds
     */
    public double wallFor(double age, double work) {
        double wall = 0;
        double left = work;
        double start = 0;
        for (int k = 0; k < seconds.length; k++) {
            double end = start + seconds[k];
            if (age < end) {
                double from = Math.max(age, start);
                double span = end - from;
                double v = speeds[k];
                if (v > 0 && v * span >= left) {
                    return wall + left / v;
                }
                left -= v * span;
                wall += span;
            }
            start = end;
        }
        return wall + left;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SlowProfile p && Arrays.equals(seconds, p.seconds) && Arrays.equals(speeds, p.speeds);
    }

    @Override
    public int hashCode() {
        return 31 * Arrays.hashCode(seconds) + Arrays.hashCode(speeds);
    }

    /**
     * The profile as {@code bin/ckpt-advisor --slow-pace}'s value: STEP:SPEED:SPEED:... ("0" without phases).
     *
     * @return the flag's value
     * @throws IllegalStateException when the phases are not all of one length
     */
    public String flag() {
        if (seconds.length == 0) {
            return "0";
        }
        StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "%.3g", seconds[0]));
        for (int k = 0; k < speeds.length; k++) {
            if (seconds[k] != seconds[0]) {
                throw new IllegalStateException("--slow-pace takes phases of one length, not " + this);
            }
            b.append(':').append(String.format(Locale.ROOT, "%.2f", speeds[k]));
        }
        return b.toString();
    }

    /** "every 0.5 s: 0.31, 0.51, 0.58" when the phases are equal, else each phase "1.00 s at 0.31". */
    @Override
    public String toString() {
        boolean equal = Arrays.stream(seconds).allMatch(x -> x == seconds[0]);
        if (equal && seconds.length > 0) {
            StringBuilder b = new StringBuilder(String.format(Locale.ROOT, "every %.3g s:", seconds[0]));
            for (int k = 0; k < speeds.length; k++) {
                b.append(k == 0 ? " " : ", ").append(String.format(Locale.ROOT, "%.2f", speeds[k]));
            }
            return b.toString();
        }
        StringBuilder b = new StringBuilder("SlowProfile[");
        for (int k = 0; k < seconds.length; k++) {
            b.append(k == 0 ? "" : ", ").append(String.format(Locale.ROOT, "%.2f s at %.2f", seconds[k], speeds[k]));
        }
        return b.append(']').toString();
    }
}
