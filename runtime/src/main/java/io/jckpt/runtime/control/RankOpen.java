package io.jckpt.runtime.control;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The line a rank sends (as a rank event) when its {@code Ckpt.open} returned, and its reading by the
 * launcher, which records it as a {@code rank_open} event: the report page draws each rank's open as a
 * start-up phase. One format, both ends.
 */
public final class RankOpen {
    private static final Pattern LINE = Pattern.compile("^checkpointer opened in epoch (\\d+) in (\\d+\\.\\d{3}) ms$");

    private RankOpen() {
    }

    /**
     * @param epoch     the world the checkpointer was opened in
     * @param openNanos how long the open took
     * @return the line
     */
    public static String line(int epoch, long openNanos) {
        return String.format(Locale.ROOT, "checkpointer opened in epoch %d in %.3f ms", epoch, openNanos / 1e6);
    }

    /**
     * @param line a rank's line
     * @return {@code {epoch, open ms}} when it is an open's line, else {@code null}
     */
    public static double[] parse(String line) {
        Matcher m = LINE.matcher(line);
        return m.matches() ? new double[] {Integer.parseInt(m.group(1)), Double.parseDouble(m.group(2))} : null;
    }
}
