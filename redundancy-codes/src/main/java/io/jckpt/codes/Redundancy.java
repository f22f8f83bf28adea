package io.jckpt.codes;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A job's redundancy for its in-memory level, {@code copies:M | xor:K | rs:K+P}: M full copies on other
 * ranks, or sets of K ranks with one parity part each (survives one lost member per set), or sets of
 * K + P ranks with P parity parts each (survives any P lost members per set). Parsed with errors naming
 * the option and the value; {@link #heldForOthers()} is the memory each rank holds for others per byte of
 * its own image.
 *
 * @param kind copies, xor or rs
 * @param count M for copies, K for xor and rs (rs: K data members' worth)
 * @param parity 0 for copies, 1 for xor, P for rs
 */
public record Redundancy(Kind kind, int count, int parity) {
    /** The three families. */
    public enum Kind {
        /** M full copies on other ranks. */
        COPIES,
        /** XOR parity over sets of K. */
        XOR,
        /** Reed-Solomon over sets of K + P. */
        RS
    }

    private static final Pattern FORM = Pattern.compile("(copies|xor|rs):(\\d{1,4})(?:\\+(\\d{1,4}))?");

    /** Validates. */
    public Redundancy {
        switch (kind) {
            case COPIES -> {
                if (count < 0 || parity != 0) {
                    throw new IllegalArgumentException("copies:M needs M >= 0 copies, not " + count);
                }
            }
            case XOR -> {
                if (count < 2 || count > 256 || parity != 1) {
                    throw new IllegalArgumentException("xor:K needs sets of 2 to 256 ranks, not K = " + count);
                }
            }
            case RS -> {
                if (count < 1 || parity < 1 || count + parity > 256) {
                    throw new IllegalArgumentException("rs:K+P needs K >= 1, P >= 1 and K + P <= 256 (sets of K + P ranks), not K = "
                            + count + ", P = " + parity);
                }
            }
            default -> throw new IllegalArgumentException("no redundancy kind");
        }
    }

    /**
     * @param m copies on other ranks
     * @return copies:M
     */
    public static Redundancy copies(int m) {
        return new Redundancy(Kind.COPIES, m, 0);
    }

    /**
     * @param k ranks per set
     * @return xor:K
     */
    public static Redundancy xor(int k) {
        return new Redundancy(Kind.XOR, k, 1);
    }

    /**
     * @param k data members' worth per set
     * @param p parity parts per set (losses survived)
     * @return rs:K+P
     */
    public static Redundancy rs(int k, int p) {
        return new Redundancy(Kind.RS, k, p);
    }

    /**
     * Parses {@code copies:M}, {@code xor:K} or {@code rs:K+P}.
     *
     * @param option where the value came from, for errors (e.g. "--redundancy", "JCKPT_REDUNDANCY")
     * @param value the value
     * @return the redundancy
     * @throws IllegalArgumentException naming the option and the value
     */
    public static Redundancy parse(String option, String value) {
        String v = value == null ? "" : value.trim().toLowerCase(Locale.ROOT);
        Matcher m = FORM.matcher(v);
        if (!m.matches()) {
            throw new IllegalArgumentException(option + " '" + value + "': expected copies:M, xor:K or rs:K+P "
                    + "(e.g. copies:1, xor:8, rs:8+2)");
        }
        String kind = m.group(1);
        int a = Integer.parseInt(m.group(2));
        String b = m.group(3);
        if (kind.equals("rs") != (b != null)) {
            throw new IllegalArgumentException(option + " '" + value + "': " + (b == null
                    ? "rs needs its parity count, rs:K+P (e.g. rs:8+2)" : kind + " takes one number (e.g. " + kind + ":"
                    + a + ")"));
        }
        try {
            return switch (kind) {
                case "copies" -> copies(a);
                case "xor" -> xor(a);
                default -> rs(a, Integer.parseInt(b));
            };
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(option + " '" + value + "': " + e.getMessage(), e);
        }
    }

    /** @return true for xor and rs: ranks in sets with parity rather than full copies */
    public boolean isCode() {
        return kind != Kind.COPIES;
    }

    /** @return ranks per set: K for xor, K + P for rs (0 for copies, which has none) */
    public int setSize() {
        return switch (kind) {
            case COPIES -> 0;
            case XOR -> count;
            case RS -> count + parity;
        };
    }

    /** @return members of a set that may be lost at once and rebuilt from the others (copies: M) */
    public int lossesSurvived() {
        return kind == Kind.COPIES ? count : parity;
    }

    /**
     * @return bytes held for other ranks per byte of a rank's own image in a full set of equal images:
     *         M for copies:M, 1/(K−1) for xor:K, P/K for rs:K+P
     */
    public double heldForOthers() {
        return switch (kind) {
            case COPIES -> count;
            case XOR -> 1.0 / (count - 1);
            case RS -> (double) parity / count;
        };
    }

    /**
     * @param members the members of one set (a set can be smaller than {@link #setSize()} where the ranks
     *        do not divide)
     * @return that set's layout
     * @throws IllegalStateException for copies, which has no sets
     */
    public ParityLayoutDescriptor layout(int members) {
        if (!isCode()) {
            throw new IllegalStateException(this + " keeps full copies, not parity sets");
        }
        return ParityLayoutDescriptor.of(members, parity);
    }

    @Override
    public String toString() {
        return switch (kind) {
            case COPIES -> "copies:" + count;
            case XOR -> "xor:" + count;
            case RS -> "rs:" + count + "+" + parity;
        };
    }
}
