package io.jckpt.runtime.launcher;

import io.jckpt.cli.UsageException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One failure to inject: which ranks get SIGKILL, when (seconds after the job started, once a rank
 * reports a given checkpoint round, or right after the next recovery built its new world, i.e.
 * during the rollback), and whether their node-local store is wiped too (node loss). Written
 * {@code RANKS@WHEN[:wipe]}: {@code 2@3.5s}, {@code 1,2@round=40:wipe}, {@code all@round=100},
 * {@code 3@recovery}.
 */
public record KillSpec(List<Integer> ranks, double atSeconds, long atRound, boolean atRecovery, boolean wipe,
                       String text) {

    /** Parses and validates against the world size. */
    static KillSpec parse(String text, int worldSize) throws UsageException {
        String spec = text.trim();
        boolean wipe = false;
        if (spec.endsWith(":wipe")) {
            wipe = true;
            spec = spec.substring(0, spec.length() - ":wipe".length());
        }
        int at = spec.indexOf('@');
        if (at <= 0 || at == spec.length() - 1) {
            throw new UsageException("--kill " + text + ": expected RANKS@WHEN[:wipe], e.g. 2@3s or 1,2@round=40:wipe");
        }
        List<Integer> ranks = new ArrayList<>();
        String who = spec.substring(0, at);
        if (who.equals("all")) {
            for (int r = 0; r < worldSize; r++) {
                ranks.add(r);
            }
        } else {
            for (String part : who.split(",")) {
                try {
                    int rank = Integer.parseInt(part.trim());
                    if (rank < 0 || rank >= worldSize) {
                        throw new UsageException("--kill " + text + ": rank " + rank + " is not in 0.." + (worldSize - 1));
                    }
                    if (!ranks.contains(rank)) {
                        ranks.add(rank);
                    }
                } catch (NumberFormatException e) {
                    throw new UsageException("--kill " + text + ": '" + part + "' is not a rank");
                }
            }
        }
        String when = spec.substring(at + 1).toLowerCase(Locale.ROOT);
        try {
            if (when.startsWith("round=")) {
                long round = Long.parseLong(when.substring("round=".length()));
                if (round < 1) {
                    throw new UsageException("--kill " + text + ": the round must be at least 1");
                }
                return new KillSpec(List.copyOf(ranks), -1, round, false, wipe, text);
            }
            if (when.equals("recovery")) {
                return new KillSpec(List.copyOf(ranks), -1, -1, true, wipe, text);
            }
            double seconds = Double.parseDouble(when.endsWith("s") ? when.substring(0, when.length() - 1) : when);
            if (seconds < 0) {
                throw new UsageException("--kill " + text + ": the time must not be negative");
            }
            return new KillSpec(List.copyOf(ranks), seconds, -1, false, wipe, text);
        } catch (NumberFormatException e) {
            throw new UsageException("--kill " + text + ": '" + when + "' is neither seconds (3.5s), round=N nor recovery");
        }
    }

    /**
     * Whether it fires now, given the seconds since start, the newest round any rank reported, and
     * whether a recovery has just rebuilt its world (its ranks are rolling back).
     */
    boolean due(double elapsedSeconds, long newestRound, boolean rollingBack) {
        if (atRecovery) {
            return rollingBack;
        }
        return atRound > 0 ? newestRound >= atRound : elapsedSeconds >= atSeconds;
    }
}
