package io.jckpt.runtime.launcher;

import io.jckpt.spi.RankEvent;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The launcher's events as the events file records them ({@code docs/events.md}): one factory per type,
 * each given the console line it stands for, so that the console stays as it was and the file gets the
 * same event with its data as fields. Rank events (sent by a rank's library over the control channel)
 * come typed ({@link RankEvent}): each record becomes its event, its text the console line.
 */
final class LauncherEvents {

    private LauncherEvents() {
    }

    static ReportedEvent start(String text, String jobId, LaunchSpec spec, int cores) {
        return ReportedEvent.of("start", text, "job", jobId, "ranks", spec.worldSize(), "main", spec.mainClass(),
                "device", spec.device().cliName(), "on_failure", spec.onFailure().name().toLowerCase(Locale.ROOT),
                "max_recoveries", spec.maxRecoveries(), "standbys", spec.standbys(),
                "detectors", spec.detectors().stream().map(FailureDetector::name).toList(), "cores", cores,
                "schema", EventLog.SCHEMA_VERSION);
    }

    static ReportedEvent settings(String text, Map<String, Object> settings) {
        return ReportedEvent.of("settings", text, "settings", settings);
    }

    static ReportedEvent ranksRunning(String text, int epoch, List<Long> pids) {
        return ReportedEvent.of("ranks_running", text, "epoch", epoch, "pids", pids);
    }

    /** Every rank of world {@code epoch} joined its MPJ port exchange (their MPI.Init has its peers): file only. */
    static ReportedEvent worldFormed(int epoch) {
        return ReportedEvent.of("world_formed", "", "epoch", epoch);
    }

    /** Rank 0's newest round, as the console shows it at most once a second. */
    static ReportedEvent progress(RankProgress p) {
        return ReportedEvent.of("progress", p.line(), "round", p.round(), "bytes", p.bytes(),
                "here_ms", p.blockedNanos() / 1e6);
    }

    /** A rank's progress report: file only (the console shows rank 0's, once a second). */
    static ReportedEvent checkpoint(int rank, RankProgress p) {
        return ReportedEvent.of("checkpoint", "", "rank", rank, "round", p.round(), "bytes", p.bytes(),
                "here_ms", p.blockedNanos() / 1e6, "checkpoints", p.checkpoints(), "blocked_ms", p.blockedTotalNanos() / 1e6,
                "jvm", Long.toHexString(p.incarnation()));
    }

    /**
     * An event a rank's library sent: a disk commit, a rollback with its source, its totals, its open, its
     * settings, or a line.
     *
     * @param jobSettings the launcher's settings line ({@link LauncherSettings#line()}): rank 0's settings
     *                    are shown only where they differ
     */
    static ReportedEvent rankEvent(int rank, RankEvent event, String jobSettings) {
        String text = "rank " + rank + ": " + event.text();
        if (event instanceof RankEvent.Settings s) {
            // the launcher's line said them already, unless the program's builder calls set some
            return ReportedEvent.of("rank_event", s.summary().equals(jobSettings) ? "" : text, "rank", rank,
                    "text", event.text());
        } else if (event instanceof RankEvent.Totals t) {
            return JobSummary.totals(rank, t);
        } else if (event instanceof RankEvent.Opened o) {
            // file only: the report page's start-up phases; the console does not need a line per rank
            return ReportedEvent.of("rank_open", "", "rank", rank, "epoch", o.epoch(),
                    "open_ms", Math.round(o.openNanos() / 1e3) / 1e3);
        } else if (event instanceof RankEvent.DiskCommitted d) {
            return ReportedEvent.of("disk_commit", text, "rank", rank, "round", d.round());
        } else if (event instanceof RankEvent.Restored r) {
            // file only: the console's recovery line (RecoveryLedger) says it once for every rank
            String how = r.how().toLowerCase(Locale.ROOT);
            return r.step() == io.jckpt.Checkpointer.NO_STEP
                    ? ReportedEvent.of("rollback", "", "rank", rank, "round", r.round(), "source", r.source(), "how", how)
                    : ReportedEvent.of("rollback", "", "rank", rank, "round", r.round(), "source", r.source(), "how", how,
                    "step", r.step());
        } else if (event instanceof RankEvent.Restarted r) { // a recovery with nothing to restore: round 0, the beginning
            return ReportedEvent.of("rollback", "", "rank", rank, "round", 0L, "source", "start", "how", "",
                    "reason", r.reason());
        }
        return ReportedEvent.of("rank_event", text, "rank", rank, "text", event.text());
    }

    static ReportedEvent injection(String text, String spec, List<Integer> ranks, boolean wipe, long newestRound) {
        return ReportedEvent.of("injection", text, "spec", spec, "ranks", ranks, "wipe", wipe, "round", newestRound);
    }

    /** A line of the failure triage: a FAILURE line is a failure, the rest (echoes, notes) are messages. */
    static ReportedEvent triageLine(String line, int rank, int epoch) {
        if (line.startsWith("FAILURE: ")) {
            return ReportedEvent.of("failure", line, "ranks", List.of(rank), "epoch", epoch,
                    "reason", line.substring("FAILURE: ".length()));
        }
        return ReportedEvent.of("message", line, "text", line, "rank", rank);
    }

    static ReportedEvent jobFailure(String line, String reason) {
        return ReportedEvent.of("failure", line, "ranks", List.of(), "reason", reason, "fatal", true);
    }

    static ReportedEvent recoveryStart(String text, int epoch, int[] failed) {
        return ReportedEvent.of("recovery_start", text, "epoch", epoch, "failed", failed);
    }

    static ReportedEvent recovered(RecoveryReport r) {
        return ReportedEvent.of("recovered", r.line(), "epoch", r.epoch(), "world_ms", r.worldMillis(),
                "respawn_ms", r.respawnMillis(), "from_standby", r.standbysUsed());
    }

    static ReportedEvent takeover(String text, int rank, int standby, long pid) {
        return ReportedEvent.of("standby_takeover", text, "rank", rank, "standby", standby, "pid", pid);
    }

    /** A rank's program returned from main (its process may live on until the job completes): file only. */
    static ReportedEvent rankCompleted(int rank, int epoch) {
        return ReportedEvent.of("rank_completed", "", "rank", rank, "epoch", epoch);
    }

    static ReportedEvent rankFinished(String text, int rank) {
        return ReportedEvent.of("rank_finished", text, "rank", rank);
    }

    static ReportedEvent end(String text, boolean completed, int exitStatus, int recoveries, String reason) {
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("status", completed ? "completed" : "failed");
        fields.put("exit", exitStatus);
        fields.put("recoveries", recoveries);
        if (reason != null) {
            fields.put("reason", reason);
        }
        return new ReportedEvent("end", fields, text);
    }

    /** @return the pids as a list, for the events file */
    static List<Long> list(long[] values) {
        List<Long> out = new ArrayList<>();
        Arrays.stream(values).forEach(out::add);
        return out;
    }
}
