package io.jckpt.runtime.launcher;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Each recovery end to end, added up from the job's events as they pass, on the events file's clock:
 * when the failure happened (its injection, else its detection), when it was detected, when the new
 * world formed, when the last rank finished its rollback (the job computing again), the round it
 * restored and the work redone since that round's here(). One {@code recovery} event (and line) per
 * recovery, made when its last rank has rolled back; a failure during a recovery joins it. The totals
 * go to the end-of-job summary. A recorder: the console calls it under its lock, in event order.
 */
final class RecoveryLedger {
    /**
     * One recovery, complete.
     *
     * @param number      1, 2, ... in the order the recoveries completed
     * @param epoch       the MPJ world it formed
     * @param cause       the first failure's reason, and how many more joined it
     * @param failedAt    when the failure happened: its injection when the launcher injected it, else its detection
     * @param detectedAt  when the launcher detected it (the first failure of the recovery)
     * @param worldAt     when every rank ran in the new world
     * @param computingAt when the last rank finished its rollback
     * @param round       the round restored; 0 when the job restarted from the beginning
     * @param step        the program's step at that round, or null when the program gave none
     * @param source      memory, disk, or start
     * @param redone      seconds of work done again: from the restored round's here() (or the start) to the
     *                    failure; NaN when that round's time is not known (a round from before this launcher)
     */
    record Recovery(int number, int epoch, String cause, double failedAt, double detectedAt, double worldAt,
                    double computingAt, long round, Long step, String source, double redone) {
        /** @return the seconds the failure cost before the job computed again */
        double recovering() {
            return computingAt - failedAt;
        }

        /** The launcher's line: true end to end, on the events' own clock. */
        String line() {
            return String.format(Locale.ROOT, "recovery %d: %s, at %.2f s; computing again at %.2f s, %.2f s later"
                            + " (detect %.2f, new world %.2f, restore %.2f s); %s; redone: %s",
                    number, cause, failedAt, computingAt, recovering(), detectedAt - failedAt, worldAt - detectedAt,
                    computingAt - worldAt, round == 0 ? "restarted from the beginning (no checkpoint yet)"
                            : "restored round " + round + (step == null ? "" : " (step " + step + ")") + " from " + source,
                    Double.isNaN(redone) ? "unknown (the round is older than this launcher)"
                            : String.format(Locale.ROOT, "%.2f s of work", redone));
        }

        ReportedEvent event() {
            Map<String, Object> f = new LinkedHashMap<>();
            f.put("number", number);
            f.put("epoch", epoch);
            f.put("cause", cause);
            f.put("failed_s", failedAt);
            f.put("detected_s", detectedAt);
            f.put("world_s", worldAt);
            f.put("computing_s", computingAt);
            f.put("round", round);
            if (step != null) {
                f.put("step", step);
            }
            f.put("source", source);
            f.put("redone_s", Double.isNaN(redone) ? null : redone);
            return new ReportedEvent("recovery", f, line());
        }
    }

    /** A recovery under way: from its first failure to the last rank's rollback. */
    private static final class Open {
        String cause;
        /** Failures detected with the first, before the recovery started (the ranks of one lost host). */
        int with;
        /** Failures during the recovery: they joined it. */
        int more;
        boolean started;
        double failedAt;
        double detectedAt;
        int epoch = -1;
        double worldAt = Double.NaN;
        final TreeSet<Integer> rolledBack = new TreeSet<>();
        long round = Long.MAX_VALUE;
        Long step;
        String source = "";
    }

    private final int worldSize;
    private final Map<Integer, Double> injectedAt = new HashMap<>();
    /** When each round was first reported, in the computation that counts: rounds redone are forgotten. */
    private final TreeMap<Long, Double> roundAt = new TreeMap<>();
    private final List<Recovery> done = new ArrayList<>();
    /** When the computation last started from the beginning (the first world, or a recovery with nothing to restore). */
    private double startedAt = Double.NaN;
    private Open open;

    /** @param worldSize the job's ranks: a recovery completes when this many have rolled back */
    RecoveryLedger(int worldSize) {
        this.worldSize = worldSize;
    }

    /**
     * Records an event.
     *
     * @param seconds when it was reported, on the console's (and the events file's) clock
     * @param e       the event
     * @return the {@code recovery} event this one completed, or null
     */
    ReportedEvent accept(double seconds, ReportedEvent e) {
        Map<String, Object> f = e.fields();
        switch (e.type()) {
            case "ranks_running" -> {
                if (Double.isNaN(startedAt)) {
                    startedAt = seconds;
                }
            }
            case "checkpoint", "progress" -> roundAt.putIfAbsent(number(f, "round").longValue(), seconds);
            case "injection" -> {
                if (f.get("ranks") instanceof List<?> ranks) {
                    ranks.forEach(r -> injectedAt.put(((Number) r).intValue(), seconds));
                }
            }
            case "failure" -> failure(seconds, f, e.text());
            case "recovery_start" -> {
                if (open == null) { // no failure line came first: the recovery names its failed ranks
                    open = new Open();
                    open.cause = "rank(s) " + (f.get("failed") instanceof int[] a ? RecoveryReport.ranks(a) : f.get("failed")) + " failed";
                    open.failedAt = seconds;
                    open.detectedAt = seconds;
                }
                open.started = true;
                open.epoch = number(f, "epoch").intValue(); // a new world: its ranks roll back afresh
                open.worldAt = Double.NaN;
                open.rolledBack.clear();
                open.round = Long.MAX_VALUE;
                open.step = null;
            }
            case "recovered" -> {
                if (open != null && open.epoch == number(f, "epoch").intValue()) {
                    open.worldAt = seconds;
                }
            }
            case "rollback" -> {
                return rollback(seconds, f);
            }
            default -> {
            }
        }
        return null;
    }

    private void failure(double seconds, Map<String, Object> f, String text) {
        if (Boolean.TRUE.equals(f.get("fatal")) || !(f.get("ranks") instanceof List<?> ranks) || ranks.isEmpty()) {
            return; // the job's end, not a rank's failure
        }
        if (open != null) {
            if (open.started) {
                open.more++; // a failure during the recovery: the same recovery, longer
            } else {
                open.with++;
            }
            return;
        }
        open = new Open();
        Object reason = f.get("reason");
        open.cause = reason != null ? reason.toString() : text;
        open.detectedAt = seconds;
        double failedAt = seconds;
        for (Object r : ranks) {
            Double injected = injectedAt.remove(((Number) r).intValue());
            if (injected != null && injected <= seconds) {
                failedAt = Math.min(failedAt, injected);
            }
        }
        open.failedAt = failedAt;
    }

    private ReportedEvent rollback(double seconds, Map<String, Object> f) {
        if (open == null || Double.isNaN(open.worldAt)) {
            return null; // a rank's rollback in a world the launcher has not seen form: the recovery is not its
        }
        open.rolledBack.add(number(f, "rank").intValue());
        long round = number(f, "round").longValue();
        if (round < open.round) {
            open.round = round;
            open.source = String.valueOf(f.get("source"));
            open.step = f.get("step") instanceof Number n ? n.longValue() : null;
        }
        if (open.rolledBack.size() < worldSize) {
            return null;
        }
        Open o = open;
        open = null;
        double redone;
        if (o.round == 0) {
            redone = Double.isNaN(startedAt) ? Double.NaN : o.failedAt - startedAt;
            startedAt = seconds;
        } else {
            Double at = roundAt.get(o.round);
            redone = at == null ? Double.NaN : Math.max(0, o.failedAt - at);
        }
        roundAt.tailMap(o.round, false).clear(); // the rounds after the restored one are done again
        injectedAt.clear();
        String cause = o.cause + (o.with == 0 ? "" : " (and " + o.with + " more failure" + (o.with == 1 ? "" : "s")
                + " with it)") + (o.more == 0 ? "" : " (and " + o.more + " more failure" + (o.more == 1 ? "" : "s")
                + " during the recovery)");
        Recovery r = new Recovery(done.size() + 1, o.epoch, cause,
                o.failedAt, o.detectedAt, o.worldAt, seconds, o.round, o.step, o.source, redone);
        done.add(r);
        return r.event();
    }

    /** @return the recoveries completed so far, in order */
    List<Recovery> recoveries() {
        return List.copyOf(done);
    }

    /**
     * @return when the recovery under way started (its failure), or NaN when none is: a job that ends
     *         during a recovery lost the time since
     */
    double openSince() {
        return open == null ? Double.NaN : open.failedAt;
    }

    private static Number number(Map<String, Object> fields, String name) {
        Object v = fields.get(name);
        return v instanceof Number n ? n : 0;
    }
}
