package io.jckpt.runtime.report;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;

/**
 * The job's recoveries as the report page shows them, read from its events: per {@code recovery_start},
 * the injected kill and the detection before it, the new world, the rollbacks after it, the round
 * restored and the work lost; where the launcher reported a recovery end to end (its {@code recovery}
 * event), its figures. Only reads; the page draws them (timeline bars, the recoveries table).
 */
final class Recoveries {
    /**
     * One recovery. Times in seconds since the job's start; {@code NaN} when the events do not say.
     *
     * @param epoch      the new world's epoch
     * @param failed     the ranks that failed (the recovery's {@code failed}, else the failures' ranks)
     * @param killed     the injected kill's time
     * @param detected   the first failure's time (else the recovery's start)
     * @param start      the recovery's start
     * @param recovered  when every rank ran in the new world
     * @param worldMs    detection to the new world, as the launcher measured it
     * @param rolledBack the last rollback's time
     * @param restored   the lowest round restored, -1 when none was
     * @param sources    where the rounds came from: memory, disk, or both
     * @param failedAt   the newest round when the rank failed (the injection's, else the newest reported)
     * @param lostFrom   when the restored round was taken (the work lost runs from it to {@link #lostUntil})
     */
    record Recovery(int epoch, List<Integer> failed, double killed, double detected, double start, double recovered,
                    double worldMs, double rolledBack, long restored, String sources, long failedAt, double lostFrom) {
        /** @return the kill, else the detection: where the work lost ends */
        double lostUntil() {
            return Double.isNaN(killed) ? detected : killed;
        }
    }

    private final List<JsonNode> events;

    private Recoveries(List<JsonNode> events) {
        this.events = events;
    }

    /**
     * @param events a job's events, in order
     * @return its recoveries, in order
     */
    static List<Recovery> of(List<JsonNode> events) {
        return new Recoveries(events).read();
    }

    private List<Recovery> read() {
        List<Recovery> out = new ArrayList<>();
        double windowStart = 0;
        for (int i = 0; i < events.size(); i++) {
            JsonNode e = events.get(i);
            if (!type(e).equals("recovery_start")) {
                if (type(e).equals("recovered")) {
                    windowStart = e.path("t").asDouble();
                }
                continue;
            }
            double recoveryStart = e.path("t").asDouble();
            double killed = Double.NaN;
            double detected = Double.NaN;
            long failedAt = -1;
            TreeSet<Integer> failed = new TreeSet<>();
            for (JsonNode rank : e.path("failed")) {
                failed.add(rank.asInt());
            }
            for (JsonNode before : events) {
                double t = before.path("t").asDouble();
                if (t < windowStart || t > recoveryStart) {
                    continue;
                }
                if (type(before).equals("injection") && Double.isNaN(killed)) {
                    killed = t;
                    failedAt = before.path("round").asLong(-1);
                } else if (type(before).equals("failure") && Double.isNaN(detected)) {
                    detected = t;
                }
                if (type(before).equals("failure") && e.path("failed").isEmpty()) {
                    before.path("ranks").forEach(rank -> failed.add(rank.asInt()));
                }
            }
            if (Double.isNaN(detected)) {
                detected = recoveryStart;
            }
            double lostUntil = Double.isNaN(killed) ? detected : killed;
            double recovered = Double.NaN;
            double worldMs = Double.NaN;
            double rolledBack = Double.NaN;
            long restored = Long.MAX_VALUE;
            TreeSet<String> sources = new TreeSet<>();
            for (int j = i + 1; j < events.size(); j++) {
                JsonNode after = events.get(j);
                String type = type(after);
                if (type.equals("recovery_start")) {
                    break;
                }
                if (type.equals("recovered") && Double.isNaN(recovered)) {
                    recovered = after.path("t").asDouble();
                    worldMs = after.path("world_ms").asDouble(Double.NaN);
                } else if (type.equals("rollback")) {
                    rolledBack = after.path("t").asDouble();
                    restored = Math.min(restored, after.path("round").asLong());
                    sources.add(after.path("source").asText());
                }
            }
            if (failedAt < 0) {
                failedAt = newestRoundBefore(lostUntil);
            }
            boolean any = restored != Long.MAX_VALUE;
            Recovery r = new Recovery(e.path("epoch").asInt(), List.copyOf(failed), killed, detected, recoveryStart,
                    recovered, worldMs, rolledBack, any ? restored : -1, String.join(" and ", sources), failedAt,
                    any ? timeOfRound(restored, lostUntil) : Double.NaN);
            out.add(asTheLauncherSaidIt(r));
        }
        return out;
    }

    /**
     * The recovery with the launcher's own figures where it reported them (its {@code recovery} event, the
     * same as its console line): the failure, detection, new world, last rollback, round and work redone.
     */
    private Recovery asTheLauncherSaidIt(Recovery r) {
        for (JsonNode e : events) {
            if (!type(e).equals("recovery") || e.path("epoch").asInt() != r.epoch()) {
                continue;
            }
            double failedAt = e.path("failed_s").asDouble();
            double detected = e.path("detected_s").asDouble();
            double world = e.path("world_s").asDouble();
            long round = e.path("round").asLong();
            String source = e.path("source").asText() + (e.has("step") ? ", step " + e.path("step").asLong() : "");
            return new Recovery(r.epoch(), r.failed(), failedAt < detected ? failedAt : Double.NaN, detected, r.start(),
                    world, (world - detected) * 1000, e.path("computing_s").asDouble(), round, source, r.failedAt(),
                    e.path("redone_s").isNumber() ? failedAt - e.path("redone_s").asDouble() : r.lostFrom());
        }
        return r;
    }

    /** The newest round any rank reported before {@code t}. */
    private long newestRoundBefore(double t) {
        long newest = 0;
        for (JsonNode e : events) {
            if (type(e).equals("checkpoint") && e.path("t").asDouble() <= t) {
                newest = Math.max(newest, e.path("round").asLong());
            }
        }
        return newest;
    }

    /**
     * When round {@code round} was taken, before {@code before}: a report of it, else interpolated between
     * the reported rounds around it (ranks report at most every 20 ms), else the first world's start.
     */
    private double timeOfRound(long round, double before) {
        double lowT = 0;
        long lowRound = 0;
        double highT = Double.NaN;
        long highRound = Long.MAX_VALUE;
        for (JsonNode e : events) {
            double t = e.path("t").asDouble();
            if (type(e).equals("ranks_running") && lowRound == 0 && lowT == 0) {
                lowT = t;
            }
            if (!type(e).equals("checkpoint") || t > before) {
                continue;
            }
            long r = e.path("round").asLong();
            if (r <= round && (r > lowRound || r == lowRound && t < lowT)) {
                lowRound = r;
                lowT = t;
            }
            if (r >= round && (r < highRound || r == highRound && t < highT)) {
                highRound = r;
                highT = t;
            }
        }
        if (lowRound == round || Double.isNaN(highT) || highRound == lowRound) {
            return lowT;
        }
        return lowT + (highT - lowT) * (round - lowRound) / (double) (highRound - lowRound);
    }

    private static String type(JsonNode e) {
        return e.path("type").asText();
    }
}
