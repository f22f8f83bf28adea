package io.jckpt.runtime.report;

import java.util.ArrayList;
import java.util.List;

/**
 * One row of labels on the report page's timeline, laid out so that no two overlap: a label is
 * placed beside its bar (after it, else before it) only where the row is free of other labels and
 * bars, else its shorter form is tried, else it is left out (its bar's hover text and the tables
 * under the timeline still say everything). Widths are estimated from the text (the page has no
 * script to measure them), generously: above DejaVu Sans's, Debian's default sans-serif and among the
 * widest; {@code ReportPageManyFailuresTest} checks the boxes Chromium lays out.
 */
final class LabelRow {
    /** Space kept free between two labels, or a label and a bar, in pixels. */
    private static final double GAP = 4;
    private final double min;
    private final double max;
    private final List<double[]> taken = new ArrayList<>();

    /** A label placed: its text, the x its anchor is at and the anchor ({@code start} or {@code end}). */
    record Placed(String text, double x, String anchor) {
    }

    /**
     * @param min the row's left end (pixels)
     * @param max the row's right end
     */
    LabelRow(double min, double max) {
        this.min = min;
        this.max = max;
    }

    /** Marks {@code [from, to]} as taken (a bar drawn there). */
    void occupy(double from, double to) {
        taken.add(new double[] {from, to});
    }

    /**
     * Places a label for the bar {@code [barFrom, barTo]}: the first of {@code texts} (longest first) that
     * fits after the bar or before it, and takes its space.
     *
     * @return where, or {@code null} when none fits
     */
    Placed place(double barFrom, double barTo, double fontSize, String... texts) {
        for (String text : texts) {
            double w = width(text, fontSize);
            if (free(barTo + 3, barTo + 3 + w, barFrom, barTo)) {
                taken.add(new double[] {barTo + 3, barTo + 3 + w});
                return new Placed(text, barTo + 3, "start");
            }
            if (free(barFrom - 3 - w, barFrom - 3, barFrom, barTo)) {
                taken.add(new double[] {barFrom - 3 - w, barFrom - 3});
                return new Placed(text, barFrom - 3, "end");
            }
        }
        return null;
    }

    private boolean free(double from, double to, double ownFrom, double ownTo) {
        if (from < min || to > max) {
            return false;
        }
        for (double[] t : taken) {
            boolean own = t[0] == ownFrom && t[1] == ownTo;
            if (!own && from < t[1] + GAP && t[0] - GAP < to) {
                return false;
            }
        }
        return true;
    }

    /**
     * @return an upper estimate of {@code text}'s width in pixels at {@code fontSize} in a sans-serif font
     */
    static double width(String text, double fontSize) {
        double em = 0;
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (" .,:;'!|()[]-/ijlftrI".indexOf(c) >= 0) {
                em += 0.42;
            } else if ("mwMW".indexOf(c) >= 0) {
                em += 1.0;
            } else if (c == '#' || Character.isUpperCase(c)) {
                em += 0.85;
            } else {
                em += 0.66; // DejaVu Sans: digits 0.64 em, most lower case letters 0.62
            }
        }
        return em * fontSize + 2;
    }
}
