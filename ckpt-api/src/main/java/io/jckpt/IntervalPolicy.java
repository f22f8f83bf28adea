package io.jckpt;

import java.util.Locale;
import java.util.Objects;

/**
 * When {@link Checkpointer#needCheckpoint()} says a checkpoint is due: an immutable value, set with
 * {@link CkptOptions.Builder#interval(IntervalPolicy)} or changed by {@link CtrlOptions.Builder#interval}, and
 * written as text for a launcher option ({@link #parse(String)}; {@link #toString()} gives it back):
 * <ul>
 * <li>{@code manual} (the default): never due; the program calls here() where it wants.</li>
 * <li>{@code calls:N}: every N calls of needCheckpoint().</li>
 * <li>{@code seconds:T}: every T seconds of rank 0's clock (no clocks are compared across ranks).</li>
 * <li>{@code overhead:P}: as rarely as keeps the checkpoints' cost at P % of the run time (0 &lt; P &lt; 100).</li>
 * <li>{@code auto}: the interval that minimises the expected run time (Daly's higher-order form of
 * Young's sqrt(2·C·M)) from the measured cost C of this job's checkpoints and its MTBF M
 * ({@link CkptOptions.Builder#nodeMtbf} per node, refined by the failures this job id has seen).</li>
 * </ul>
 * Every policy but {@code manual} and {@code calls} is decided by rank 0 from its measurements and carried
 * to the other ranks by exchanges that here() makes anyway; see {@link Checkpointer#needCheckpoint()}.
 */
public final class IntervalPolicy {
    /** The kinds of policy. */
    public enum Kind {
        /** Never due: the program decides. */
        MANUAL,
        /** Every N calls. */
        CALLS,
        /** Every T seconds of rank 0's clock. */
        SECONDS,
        /** A maximum overhead in percent. */
        OVERHEAD,
        /** Young/Daly from measured costs and failures. */
        AUTO
    }

    private static final IntervalPolicy MANUAL = new IntervalPolicy(Kind.MANUAL, 0);
    private static final IntervalPolicy AUTO = new IntervalPolicy(Kind.AUTO, 0);

    private final Kind kind;
    private final double value;

    private IntervalPolicy(Kind kind, double value) {
        this.kind = kind;
        this.value = value;
    }

    /** @return the default: never due, the program calls here() itself */
    public static IntervalPolicy manual() {
        return MANUAL;
    }

    /**
     * @param n calls of needCheckpoint() between checkpoints (&gt;= 1)
     * @return the policy
     * @throws InvalidOptionException when n &lt; 1
     */
    public static IntervalPolicy everyCalls(long n) {
        if (n < 1) {
            throw new InvalidOptionException("interval", "calls:" + n, "must be calls:N with N >= 1");
        }
        return new IntervalPolicy(Kind.CALLS, n);
    }

    /**
     * @param seconds seconds of rank 0's clock between checkpoints (&gt; 0)
     * @return the policy
     * @throws InvalidOptionException when seconds &lt;= 0 or not finite
     */
    public static IntervalPolicy everySeconds(double seconds) {
        if (!(seconds > 0) || Double.isInfinite(seconds)) {
            throw new InvalidOptionException("interval", "seconds:" + seconds,
                    "must be seconds:T with T > 0 (the time between checkpoints)");
        }
        return new IntervalPolicy(Kind.SECONDS, seconds);
    }

    /**
     * @param percent the largest share of the run time checkpoints may take, in percent (0 &lt; P &lt; 100)
     * @return the policy
     * @throws InvalidOptionException when percent &lt;= 0 or &gt;= 100
     */
    public static IntervalPolicy maxOverhead(double percent) {
        if (!(percent > 0) || !(percent < 100)) {
            throw new InvalidOptionException("interval", "overhead:" + percent,
                    "must be overhead:P with 0 < P < 100 (percent of the run time)");
        }
        return new IntervalPolicy(Kind.OVERHEAD, percent);
    }

    /** @return the Young/Daly policy (needs {@link CkptOptions.Builder#nodeMtbf}) */
    public static IntervalPolicy auto() {
        return AUTO;
    }

    /**
     * Parses the text form: {@code manual}, {@code calls:N}, {@code seconds:T}, {@code overhead:P}
     * (a trailing {@code %} is allowed) or {@code auto}.
     *
     * @param text the text
     * @return the policy
     * @throws InvalidOptionException naming the text and the forms accepted
     */
    public static IntervalPolicy parse(String text) {
        if (text == null) {
            throw new InvalidOptionException("interval", null, "must be manual, calls:N, seconds:T, overhead:P or auto");
        }
        String t = text.trim().toLowerCase(Locale.ROOT);
        int colon = t.indexOf(':');
        String name = colon < 0 ? t : t.substring(0, colon);
        String arg = colon < 0 ? null : t.substring(colon + 1).trim();
        try {
            switch (name) {
                case "manual":
                    if (arg == null) {
                        return MANUAL;
                    }
                    break;
                case "auto":
                    if (arg == null) {
                        return AUTO;
                    }
                    break;
                case "calls":
                    if (arg != null) {
                        return everyCalls(Long.parseLong(arg));
                    }
                    break;
                case "seconds":
                    if (arg != null) {
                        return everySeconds(Double.parseDouble(arg.endsWith("s") ? arg.substring(0, arg.length() - 1) : arg));
                    }
                    break;
                case "overhead":
                    if (arg != null) {
                        return maxOverhead(Double.parseDouble(arg.endsWith("%") ? arg.substring(0, arg.length() - 1) : arg));
                    }
                    break;
                default:
                    break;
            }
        } catch (NumberFormatException e) {
            throw new InvalidOptionException("interval", text, "has a number that cannot be read: " + e.getMessage());
        }
        throw new InvalidOptionException("interval", text, "must be manual, calls:N, seconds:T, overhead:P or auto");
    }

    /** @return the kind */
    public Kind kind() {
        return kind;
    }

    /** @return N of {@code calls:N}, else 0 */
    public long calls() {
        return kind == Kind.CALLS ? (long) value : 0;
    }

    /** @return T of {@code seconds:T}, else 0 */
    public double seconds() {
        return kind == Kind.SECONDS ? value : 0;
    }

    /** @return P of {@code overhead:P} (percent), else 0 */
    public double overheadPercent() {
        return kind == Kind.OVERHEAD ? value : 0;
    }

    /** @return whether rank 0 decides the interval from measurements (seconds, overhead, auto) */
    public boolean adaptive() {
        return kind == Kind.SECONDS || kind == Kind.OVERHEAD || kind == Kind.AUTO;
    }

    @Override
    public String toString() {
        switch (kind) {
            case CALLS:
                return "calls:" + (long) value;
            case SECONDS:
                return "seconds:" + value;
            case OVERHEAD:
                return "overhead:" + value;
            default:
                return kind.name().toLowerCase(Locale.ROOT);
        }
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IntervalPolicy p && p.kind == kind && Double.compare(p.value, value) == 0;
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, value);
    }
}
