package io.jckpt.runtime.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.LongSupplier;
import java.util.regex.Pattern;

/**
 * The launcher's triage of what goes wrong in a job, apart from what it then does: which failures
 * are recovered together (all within the coalescing window of the first), and whether a program's own
 * error (an exception out of main, an exit code) is the echo of another rank's death (a process
 * failure within the program-error window before or after it: MPJ Express fails the peers of a dead
 * rank) or an error of its own that fails the job once the window has passed. One failure gives one
 * FAILURE line; its echoes get a line of their own that says so. A mistake in how the ranks call the
 * checkpoint API together ({@link #COLLECTIVE_MISTAKES}: ranks at different steps or rounds, tags left
 * unrestored) is reported as the library words it, naming the rank that differs, not as the error of
 * whichever rank reported it, and is never retried. Pure: time comes from the injected clock, so the
 * windows are unit-tested without processes.
 */
final class FailureTriage {
    /**
     * The API's exceptions for a mistake in the program's collective checkpoint calls: thrown on every
     * rank with one message that names the rank that differs; retrying restores the same mistake.
     */
    static final List<String> COLLECTIVE_MISTAKES = List.of("io.jckpt.StepMismatchException",
            "io.jckpt.CollectiveMismatchException", "io.jckpt.UnrestoredTagsException");
    private static final Pattern REPORTING_RANK = Pattern.compile("^rank \\d+(, collective exchange #\\d+)?: ");
    /**
     * What a survivor's program throws because its world broke under it: MPJ Express's exceptions, the
     * library's lost ring connection and its fence of an abandoned world. Such an echo is folded into
     * the recovery's line (the events file keeps it); any other echo keeps a line of its own.
     */
    static final List<String> WORLD_ERRORS = List.of("mpi.MPIException", "xdev.XDevException",
            "mpjdev.MPJDevException", "io.jckpt.runtime.rank.WorldAbandonedError",
            "a peer failed or left the replication ring", "abandoned after a failure");

    /** A program's error (or exit) held until it is known whether it echoes a process failure. */
    record HeldError(String description, String stackTrace, long sinceNanos, int exitStatus) {
        /** An error without a status of its own (an exception out of main: 1). */
        HeldError(String description, String stackTrace, long sinceNanos) {
            this(description, stackTrace, sinceNanos, 1);
        }

        /** @return the mistake as the library words it, without the reporting rank; null when not a collective mistake */
        String collectiveMistake() {
            return FailureTriage.collectiveMistake(description, stackTrace);
        }

        /**
         * Whether it happened while restoring a checkpoint: a {@code NotRecoverableException}, or
         * anything thrown out of {@code Ckpt.open} or {@code Ckpt.rollback} in a recovery's epoch
         * ({@code epoch > 0}: missing copies, an exchange that timed out, a store that could not be opened).
         */
        boolean duringRecovery(int epoch) {
            String text = description + "\n" + stackTrace;
            if (text.contains("io.jckpt.NotRecoverableException")) {
                return true;
            }
            return epoch > 0 && (text.contains("at io.jckpt.Ckpt.open(") || text.contains("at io.jckpt.Ckpt.rollback(")
                    || text.contains("at io.jckpt.Ckpt.rollbackObject("));
        }
    }

    /**
     * @param description what the launcher knows of a rank's error ("rank 0 threw X: message")
     * @param stackTrace  its stack trace (the cause's line when the program wrapped it), may be empty
     * @return the message of the collective mistake it is, without the reporting rank's prefix; null when it is none
     */
    static String collectiveMistake(String description, String stackTrace) {
        for (String text : new String[] {description, stackTrace}) {
            for (String name : COLLECTIVE_MISTAKES) {
                int at = text.indexOf(name + ": ");
                if (at >= 0) {
                    String message = text.substring(at + name.length() + 2);
                    int end = message.indexOf('\n');
                    message = end < 0 ? message : message.substring(0, end);
                    return REPORTING_RANK.matcher(message.strip()).replaceFirst("");
                }
            }
        }
        return null;
    }

    private final LongSupplier clock;
    private final long coalesceNanos;
    private final long programErrorGraceNanos;
    private final TreeMap<Integer, String> pending = new TreeMap<>();
    /** The pending failures that are process failures (not program errors taken for their echoes). */
    private final TreeSet<Integer> pendingProcess = new TreeSet<>();
    private long pendingSinceNanos;
    private final TreeMap<Integer, HeldError> held = new TreeMap<>();
    /** The pending echoes folded into the recovery's line ({@link #WORLD_ERRORS}), rank to description. */
    private final TreeMap<Integer, String> folded = new TreeMap<>();
    private long lastProcessFailureNanos;
    private int lastProcessFailureEpoch = -1;

    /**
     * @param clock              System::nanoTime, or a test's clock
     * @param coalesceMillis     failures this close to the first one are recovered together
     * @param programErrorMillis the window around a process failure in which a program error is its echo
     */
    FailureTriage(LongSupplier clock, long coalesceMillis, long programErrorMillis) {
        this.clock = clock;
        this.coalesceNanos = coalesceMillis * 1_000_000L;
        this.programErrorGraceNanos = programErrorMillis * 1_000_000L;
    }

    /**
     * A rank failed in {@code epoch} and is queued for recovery.
     *
     * @param processFailure false for a program error recovered as a failure (--retry-program-errors)
     * @return the lines to print: its FAILURE line, then the echoes it explains (empty when the rank
     *         was already queued)
     */
    List<String> failure(int rank, String description, int epoch, boolean processFailure) {
        List<String> lines = new ArrayList<>();
        if (pending.containsKey(rank)) {
            return lines;
        }
        queue(rank, description);
        lines.add("FAILURE: " + description);
        if (processFailure) {
            pendingProcess.add(rank);
            lastProcessFailureNanos = clock.getAsLong();
            lastProcessFailureEpoch = epoch;
            held.remove(rank);
            for (Map.Entry<Integer, HeldError> echo : held.entrySet()) {
                lines.addAll(echo(echo.getKey(), echo.getValue().description(), echo.getValue().stackTrace()));
            }
            held.clear();
        }
        return lines;
    }

    /**
     * A rank's program threw or exited with a code of its own in {@code epoch}: the echo of a process
     * failure pending or detected within the window before it (queued with it), else held until the
     * window has passed.
     *
     * @return the lines to print now
     */
    List<String> programError(int rank, String description, String stackTrace, int epoch) {
        return programError(rank, description, stackTrace, epoch, 1);
    }

    /**
     * As {@link #programError(int, String, String, int)}, with the status the rank's program exited with
     * (1 for an exception out of main), which the launcher passes on when the job fails for it.
     */
    List<String> programError(int rank, String description, String stackTrace, int epoch, int exitStatus) {
        boolean processFailureRecent = lastProcessFailureEpoch == epoch
                && clock.getAsLong() - lastProcessFailureNanos < programErrorGraceNanos;
        if (!pendingProcess.isEmpty() || processFailureRecent) {
            return echo(rank, description, stackTrace);
        }
        HeldError was = held.get(rank);
        if (was == null) {
            held.put(rank, new HeldError(description, stackTrace, clock.getAsLong(), exitStatus));
        } else if (was.stackTrace().isEmpty() && !stackTrace.isEmpty()) {
            // the rank's own report (what it threw) came after its exit status: it names the error better
            held.put(rank, new HeldError(description, stackTrace, was.sinceNanos(),
                    was.exitStatus() != 1 ? was.exitStatus() : exitStatus));
        }
        return List.of();
    }

    private List<String> echo(int rank, String description, String stackTrace) {
        if (pending.containsKey(rank)) {
            return List.of();
        }
        queue(rank, description);
        if (worldError(description, stackTrace)) {
            folded.put(rank, description);
            return List.of();
        }
        return List.of(description + " (the echo of the failure above: recovered with it)");
    }

    /**
     * @return whether an error is one a survivor's program throws because its world broke: named in
     *         {@link #WORLD_ERRORS} by what it threw or by a cause of it
     */
    static boolean worldError(String description, String stackTrace) {
        List<String> texts = new ArrayList<>();
        texts.add(description);
        stackTrace.lines().filter(l -> l.strip().startsWith("Caused by: ")).forEach(texts::add);
        return texts.stream().anyMatch(t -> WORLD_ERRORS.stream().anyMatch(t::contains));
    }

    /**
     * @return the pending echoes folded into the recovery's line, rank to description (cleared by
     *         {@link #recovered()})
     */
    TreeMap<Integer, String> folded() {
        return folded;
    }

    private void queue(int rank, String description) {
        if (pending.isEmpty()) {
            pendingSinceNanos = clock.getAsLong();
        }
        pending.put(rank, description);
    }

    /** @return whether the pending failures' coalescing window has passed: recover them now */
    boolean recoveryDue() {
        return !pending.isEmpty() && clock.getAsLong() - pendingSinceNanos >= coalesceNanos;
    }

    /** @return whether a held program error outlived its window with no failure pending: the job fails */
    boolean programErrorDue() {
        if (held.isEmpty() || !pending.isEmpty()) {
            return false;
        }
        long oldest = held.values().stream().mapToLong(HeldError::sinceNanos).min().orElseThrow();
        return clock.getAsLong() - oldest >= programErrorGraceNanos;
    }

    /** @return the failures queued for the next recovery, rank to description (the recovery edits it) */
    TreeMap<Integer, String> pending() {
        return pending;
    }

    /** @return whether {@code rank} is queued for the next recovery */
    boolean isPending(int rank) {
        return pending.containsKey(rank);
    }

    /** @return when the first pending failure was queued (the recovery's detection time) */
    long pendingSinceNanos() {
        return pendingSinceNanos;
    }

    /** The pending failures were recovered. */
    void recovered() {
        pending.clear();
        pendingProcess.clear();
        folded.clear();
    }

    /** @return the held program errors, by rank */
    TreeMap<Integer, HeldError> held() {
        return held;
    }

    /**
     * Why the job fails for its held program errors.
     *
     * @param rank       the first held error's rank
     * @param stackTrace its stack trace (empty when it only exited), printed before the failure line
     * @param reason     the failure's reason
     * @param exitStatus the launcher's exit status for it: the rank program's own exit status (as mpirun
     *                   passes it on) when it exited with one from 2 to 125, else 1
     */
    record Verdict(int rank, String stackTrace, String reason, int exitStatus) {
    }

    /**
     * The held program errors outlived their window ({@link #programErrorDue()}): the job fails for
     * the first of them, as a failed recovery when any happened while restoring a checkpoint. The
     * held errors are cleared.
     *
     * @param epoch      the current epoch (0: the job's first world)
     * @param lastFailed the ranks the last recovery replaced (sorted)
     * @param jobId      the job, named when the restore of its checkpoint at the start failed
     * @param failPolicy whether the job runs under --on-failure fail
     */
    Verdict programErrorVerdict(int epoch, int[] lastFailed, String jobId, boolean failPolicy) {
        Map.Entry<Integer, HeldError> first = held.firstEntry();
        HeldError error = first.getValue();
        boolean recoveryFailed = held.values().stream().anyMatch(e -> e.duringRecovery(epoch));
        String others = held.size() > 1 ? " (and " + (held.size() - 1) + " more rank" + (held.size() > 2 ? "s" : "") + ")"
                : "";
        Map.Entry<Integer, HeldError> mistake = held.entrySet().stream()
                .filter(e -> e.getValue().collectiveMistake() != null).findFirst().orElse(null);
        List<Integer> reporters = held.entrySet().stream().filter(e -> e.getValue().collectiveMistake() != null)
                .map(Map.Entry::getKey).toList();
        held.clear();
        String reason;
        if (mistake != null) {
            // the same message on every rank, naming the rank that differs: said once, as the library words it
            String after = epoch > 0 ? ", found restoring after the failure of rank" + (lastFailed.length > 1 ? "s " : " ")
                    + RecoveryReport.ranks(lastFailed) + " (epoch " + epoch + ")" : "";
            reason = mistake.getValue().collectiveMistake() + " (reported by " + io.jckpt.spi.Collective.describeRanks(reporters)
                    + after + "): a mistake in the program's checkpoint calls, not retried";
            return new Verdict(mistake.getKey(), mistake.getValue().stackTrace(), reason, 1);
        }
        if (recoveryFailed) {
            String after = epoch > 0 ? "epoch " + epoch + ", after the failure of rank" + (lastFailed.length > 1 ? "s " : " ")
                    + RecoveryReport.ranks(lastFailed) : "restoring the checkpoint of job " + jobId;
            reason = "recovery failed (" + after + "): " + error.description() + others + "; not retried";
        } else if (failPolicy) {
            reason = error.description() + others;
        } else {
            reason = error.description() + others + ": a program error, not retried (no rank process failed within "
                    + programErrorGraceNanos / 1_000_000L + " ms of it; --retry-program-errors recovers such errors too)";
        }
        int status = !recoveryFailed && error.exitStatus() >= 2 && error.exitStatus() <= 125 ? error.exitStatus() : 1;
        return new Verdict(first.getKey(), error.stackTrace(), reason, status);
    }

    /** @return how long the supervisor may wait for its next event without missing a window */
    long pollMillis(long max) {
        long wait = max;
        if (!pending.isEmpty()) {
            wait = Math.min(wait, (pendingSinceNanos + coalesceNanos - clock.getAsLong()) / 1_000_000L + 1);
        }
        return Math.max(1, wait);
    }
}
