package io.jckpt.runtime.launcher;

import io.jckpt.spi.RankEvent;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;

/**
 * The end-of-job summary: what checkpointing cost and what the failures cost, added up from the job's
 * events as they pass ({@link JobConsole#observe}): every rank's totals at close (checkpoints, image
 * bytes, here()'s blocking time and its p50/p99, disk rounds written and failed), the disk generations
 * committed, and what the failures cost in all: the time from each failure to the job computing again
 * and the work redone ({@link RecoveryLedger}), as a share of the run. Printed as a few lines and
 * written as one {@code summary} event.
 */
final class JobSummary implements Consumer<ReportedEvent> {
    /** One rank's figures at close. */
    record Totals(long checkpoints, long bytes, double blockingMs, double p50Ms, double p99Ms, long diskWritten,
                  long diskFailed) {
    }

    private final Map<Integer, Totals> totals = new TreeMap<>();
    private final RecoveryLedger ledger;
    private final Map<Integer, Long> failedAtByEpoch = new LinkedHashMap<>();
    private int worlds = 1;
    private long newestRound;
    /** Each rank's newest round reported: the newest round complete on every rank is their least. */
    private final Map<Integer, Long> newestByRank = new TreeMap<>();
    private long newestDiskRound = -1;
    /** Per rank, per JVM it ran in: its here() calls and their blocking (ms) so far, over every world. */
    private final Map<Integer, Map<String, double[]>> byJvm = new TreeMap<>();
    private long diskCommits;
    private int epoch;
    private final java.util.function.DoubleSupplier clock;
    /** When the newest MPJ world began running (seconds since the job started): the totals are its own. */
    private double worldStartSeconds;

    /**
     * @param clock  seconds since the job started
     * @param ledger the job's recoveries, end to end
     */
    JobSummary(java.util.function.DoubleSupplier clock, RecoveryLedger ledger) {
        this.clock = clock;
        this.ledger = ledger;
    }

    /** @return the totals a rank sent, as the {@code rank_totals} event (file only: the summary lines say them for the job) */
    static ReportedEvent totals(int rank, RankEvent.Totals t) {
        return ReportedEvent.of("rank_totals", "", "rank", rank, "checkpoints", t.checkpoints(), "bytes", t.bytes(),
                "blocking_ms", t.blockingMs(), "here_p50_ms", t.hereP50Ms(), "here_p99_ms", t.hereP99Ms(),
                "disk_written", t.diskWritten(), "disk_failed", t.diskFailed());
    }

    @Override
    public synchronized void accept(ReportedEvent e) {
        Map<String, Object> f = e.fields();
        switch (e.type()) {
            case "rank_totals" -> totals.put(number(f, "rank").intValue(), new Totals(number(f, "checkpoints").longValue(),
                    number(f, "bytes").longValue(), number(f, "blocking_ms").doubleValue(), number(f, "here_p50_ms").doubleValue(),
                    number(f, "here_p99_ms").doubleValue(), number(f, "disk_written").longValue(),
                    number(f, "disk_failed").longValue()));
            case "checkpoint", "progress" -> {
                newestRound = Math.max(newestRound, number(f, "round").longValue());
                if (e.type().equals("checkpoint")) {
                    int rank = number(f, "rank").intValue();
                    newestByRank.merge(rank, number(f, "round").longValue(), Math::max);
                    if (f.get("jvm") != null) { // each JVM's totals so far: the last report of each counts
                        byJvm.computeIfAbsent(rank, r -> new LinkedHashMap<>()).put(String.valueOf(f.get("jvm")),
                                new double[] {number(f, "checkpoints").doubleValue(), number(f, "blocked_ms").doubleValue()});
                    }
                }
            }
            case "disk_commit" -> {
                diskCommits++;
                newestDiskRound = Math.max(newestDiskRound, number(f, "round").longValue());
            }
            case "recovery_start" -> {
                epoch = number(f, "epoch").intValue();
                failedAtByEpoch.put(epoch, newestRound);
            }
            case "recovered" -> {
                worldStartSeconds = clock.getAsDouble();
                worlds++;
            }
            default -> {
            }
        }
    }

    /**
     * @param runSeconds the job's run time so far
     * @return the summary's lines (one event each) and the {@code summary} event with every figure
     */
    synchronized List<ReportedEvent> report(double runSeconds) {
        List<ReportedEvent> out = new ArrayList<>();
        long minCkpt = totals.values().stream().mapToLong(Totals::checkpoints).min().orElse(0);
        long maxCkpt = totals.values().stream().mapToLong(Totals::checkpoints).max().orElse(0);
        long bytes = totals.values().stream().mapToLong(Totals::bytes).max().orElse(0);
        long written = totals.values().stream().mapToLong(Totals::diskWritten).sum();
        long failed = totals.values().stream().mapToLong(Totals::diskFailed).sum();
        double p50 = totals.values().stream().mapToDouble(Totals::p50Ms).max().orElse(0);
        double p99 = totals.values().stream().mapToDouble(Totals::p99Ms).max().orElse(0);
        double blocking = totals.values().stream().mapToDouble(Totals::blockingMs).max().orElse(0);
        // a rank's totals are those of its checkpointer, opened in the newest world
        double worldSeconds = runSeconds - worldStartSeconds;
        double overhead = worldSeconds > 0 ? 100 * blocking / 1000 / worldSeconds : 0;
        List<RecoveryLedger.Recovery> recoveries = ledger.recoveries();
        List<Map<String, Object>> lost = new ArrayList<>();
        double recovering = 0;
        double redone = 0;
        for (RecoveryLedger.Recovery r : recoveries) {
            Map<String, Object> one = new LinkedHashMap<>();
            one.put("epoch", r.epoch());
            one.put("world_ms", (r.worldAt() - r.detectedAt()) * 1000);
            one.put("failed_at_round", failedAtByEpoch.getOrDefault(r.epoch(), -1L));
            one.put("restored_round", r.round());
            one.put("failed_s", r.failedAt());
            one.put("computing_s", r.computingAt());
            one.put("recovering_s", r.recovering());
            one.put("redone_s", Double.isNaN(r.redone()) ? null : r.redone());
            lost.add(one);
            recovering += r.recovering();
            redone += Double.isNaN(r.redone()) ? 0 : r.redone();
        }
        double unfinished = Double.isNaN(ledger.openSince()) ? 0 : Math.max(0, runSeconds - ledger.openSince());
        if (totals.isEmpty() && recoveries.isEmpty() && unfinished == 0) {
            return out;
        }
        // every world: each rank's JVMs added up (a survivor's one JVM, a replaced rank's several)
        long jobMin = Long.MAX_VALUE;
        long jobMax = 0;
        double jobBlocked = 0;
        for (Map<String, double[]> jvms : byJvm.values()) {
            long n = Math.round(jvms.values().stream().mapToDouble(v -> v[0]).sum());
            jobMin = Math.min(jobMin, n);
            jobMax = Math.max(jobMax, n);
            jobBlocked = Math.max(jobBlocked, jvms.values().stream().mapToDouble(v -> v[1]).sum());
        }
        jobMin = byJvm.isEmpty() ? 0 : jobMin;
        double checkpointShare = runSeconds > 0 ? 100 * jobBlocked / 1000 / runSeconds : 0;
        String ranks = totals.size() + " rank" + (totals.size() == 1 ? "" : "s");
        out.add(ReportedEvent.message(String.format(Locale.ROOT,
                "summary: newest round %d; %s checkpoints per rank in the job%s (%s reported); %d disk generations"
                        + " committed, %d disk rounds written, %d failed", newestRound,
                jobMin == jobMax ? Long.toString(jobMax) : jobMin + "-" + jobMax, worlds == 1 ? ""
                        : ", " + (minCkpt == maxCkpt ? Long.toString(maxCkpt) : minCkpt + "-" + maxCkpt) + " in the last world",
                ranks, diskCommits, written, failed)));
        out.add(ReportedEvent.message(String.format(Locale.ROOT,
                "summary: checkpoints cost %.2f s = %.2f %% of the %.1f s run (the slowest rank's here() time, every world)",
                jobBlocked / 1000, checkpointShare, runSeconds)));
        out.add(ReportedEvent.message(String.format(Locale.ROOT,
                "summary: image up to %s per rank; here() blocked p50 %.3f ms, p99 %.3f ms (slowest rank);"
                        + " checkpoint overhead %.2f %% (%.1f ms blocked in %.1f s%s)",
                RankProgress.size(bytes), p50, p99, overhead, blocking, worldSeconds,
                worlds == 1 ? "" : " of the last world")));
        double lostSeconds = recovering + redone + unfinished;
        if (!recoveries.isEmpty() || unfinished > 0) {
            out.add(ReportedEvent.message(String.format(Locale.ROOT,
                    "summary: failures cost %.2f s = %.1f %% of the %.1f s run: %d recover%s (%.2f s from the failures to"
                            + " computing again, %.2f s of work redone)%s", lostSeconds,
                    runSeconds > 0 ? 100 * lostSeconds / runSeconds : 0, runSeconds, recoveries.size(),
                    recoveries.size() == 1 ? "y" : "ies", recovering, redone, unfinished == 0 ? ""
                            : String.format(Locale.ROOT, ", and %.2f s in the recovery the job ended in", unfinished))));
        }
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("run_s", runSeconds);
        fields.put("newest_round", newestRound);
        fields.put("last_world_s", worldSeconds);
        fields.put("ranks_reported", totals.size());
        fields.put("checkpoints_min", minCkpt);
        fields.put("checkpoints_max", maxCkpt);
        fields.put("checkpoints_job_min", jobMin);
        fields.put("checkpoints_job_max", jobMax);
        fields.put("blocking_ms_job_max", jobBlocked);
        fields.put("checkpoint_cost_percent", checkpointShare);
        fields.put("image_bytes_max", bytes);
        fields.put("disk_commits", diskCommits);
        fields.put("disk_written", written);
        fields.put("disk_failed", failed);
        fields.put("here_p50_ms", p50);
        fields.put("here_p99_ms", p99);
        fields.put("blocking_ms_max", blocking);
        fields.put("overhead_percent", overhead);
        fields.put("failures_lost_s", lostSeconds);
        fields.put("recovering_s", recovering);
        fields.put("redone_s", redone);
        fields.put("recoveries", lost);
        out.add(new ReportedEvent("summary", fields, ""));
        return out;
    }

    /**
     * What a failed job leaves for a restart and the command that resumes it: the node-local stores when
     * they are kept (the job had an explicit {@code --job-id}), the newest disk generation committed, or
     * nothing a restart could use, and why.
     *
     * @param worldSize   the job's ranks
     * @param jobId       the job's id
     * @param storesKept  whether the node-local stores outlive the job (an explicit {@code --job-id})
     * @param memoryDir   where the launcher keeps them
     * @param diskDir     the disk directory the launcher knows of, or null
     * @param commandLine the launcher's arguments as given
     * @return the {@code saved} event, its line {@code saved: ...; resume with: ckpt-run ...}
     */
    synchronized ReportedEvent saved(int worldSize, String jobId, boolean storesKept, java.nio.file.Path memoryDir,
                                     java.nio.file.Path diskDir, List<String> commandLine) {
        long everywhere = newestByRank.size() == worldSize
                ? newestByRank.values().stream().mapToLong(Long::longValue).min().orElse(0) : 0;
        List<String> kept = new ArrayList<>();
        if (storesKept) {
            kept.add((everywhere > 0 ? "round " + everywhere + " (complete on every rank)" : "what the ranks wrote")
                    + " in the node-local stores, " + memoryDir.resolve(jobId) + " on each rank's host");
        }
        if (newestDiskRound >= 0) {
            kept.add("the disk generation of round " + newestDiskRound + ", in "
                    + (diskDir != null ? diskDir.resolve(jobId).toString() : "the program's disk directory"));
        }
        if (kept.isEmpty()) {
            return ReportedEvent.of("saved", "saved: nothing a restart could use: node-local stores go with a job"
                    + " started without --job-id, and " + (diskCommits == 0 && diskDir == null
                    ? "the job has no disk level" : "no disk generation was committed")
                    + " (--job-id ID keeps the stores of a failed job; --disk DIR adds a disk level)",
                    "stores_round", null, "disk_round", null, "resume", null);
        }
        String resume = resumeCommand(jobId, commandLine);
        return ReportedEvent.of("saved", "saved: " + String.join(" and ", kept) + "; resume with: " + resume,
                "stores_round", storesKept ? everywhere : null, "disk_round", newestDiskRound >= 0 ? newestDiskRound : null,
                "resume", resume);
    }

    /**
     * The launcher's command line with {@code --job-id} (the restart finds the job's stores and disk
     * generations by it) and without the failures it injected ({@code --kill}, {@code --mtbf}).
     */
    static String resumeCommand(String jobId, List<String> commandLine) {
        List<String> words = new ArrayList<>(List.of("ckpt-run", "--job-id", jobId));
        for (int i = 0; i < commandLine.size(); i++) {
            String a = commandLine.get(i);
            if (a.equals("--job-id") || a.equals("--kill") || a.equals("--mtbf")) {
                i++; // and its value
            } else if (!a.startsWith("--job-id=") && !a.startsWith("--kill=") && !a.startsWith("--mtbf=")) {
                words.add(a.matches("[A-Za-z0-9_@%+=:,./-]+") ? a : "'" + a.replace("'", "'\\''") + "'");
            }
        }
        return String.join(" ", words);
    }

    private static Number number(Map<String, Object> fields, String name) {
        Object v = fields.get(name);
        return v instanceof Number n ? n : 0;
    }
}
