package io.jckpt.chaos;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.DirectoryStream;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Injects one run's failure from outside the launcher, at a moment drawn from the run's own seeded
 * random numbers (drawn up front, so the same seed gives the same scenario and moments whatever the
 * timing of earlier runs). Moments are relative to the launcher's "all N ranks running" event (to
 * {@code startup}'s launch), scaled by the failure-free reference run's timings. Records what it did,
 * how many failures really landed, and whether a clear error is acceptable for what landed. A
 * {@link Scenario#CORPUS} run places its failure by time instead (its programs print no progress of
 * the campaign's kind): a seeded fraction of the program's own failure-free run, from "ranks running"
 * to its result, after this run's "ranks running" (the opening, Ckpt.open and the computation alike).
 */
final class Injector {
    private static final Pattern RANK_FILE = Pattern.compile("round-(\\d+)\\.rank-(\\d+)\\.jckpt(\\.tmp)?");
    private static final Pattern COMMIT = Pattern.compile("round-(\\d+)\\.commit");
    /** Rank 0's event of a slot growth: the new layout's first round. */
    private static final Pattern GROWN =
            Pattern.compile("store layout switched from .* to m=\\d+, slot \\d+ bytes, from round (\\d+)");

    /** What the failure-free reference run took (seconds from the launch). */
    record Timings(double running, double firstRound, double checksum, double total) {
        /** From "ranks running" to the first checkpoint round (the ranks open the library meanwhile). */
        double openingWindow() {
            return Math.max(0, firstRound - running);
        }

        /** The window in which the program computes and checkpoints: from its first round to rank 0's result. */
        double computeWindow() {
            return Math.max(0.5, checksum - firstRound);
        }
    }

    /** Where rank {@code rank}'s store is, from its live process (asked before the process is killed); null: unknown. */
    interface StoreLocator {
        Path rankStore(int rank, long pid);
    }

    private final Scenario scenario;
    final int ranks;
    final Timings reference;
    private final Path diskJobDir;
    private final String jobId;
    private final long rounds;
    final long iterations;
    final long deadlineNanos;
    final double u;
    final double v;
    final int r;
    final int r2;
    /** Drawn after the others (the draws of a run on one host stay what they were): where a host failure lands. */
    final double w;
    private StoreLocator stores;
    /** The host failures of a run across test hosts (null: one host). */
    private HostInjections hosts;
    /** The failure of a {@link Scenario#CORPUS} run (null: none, the program's failure-free run). */
    private final CorpusFailure corpusFailure;
    private final StringBuilder notes = new StringBuilder();
    private final List<Long> stopped = new ArrayList<>();
    /** Processes of the killed launcher's job still alive 5 s after it died (then SIGKILLed). */
    final List<Long> orphans = new ArrayList<>();
    int injected;
    boolean missed;
    boolean clearErrorAllowed;
    String clearErrorReason = "";
    /** The text of the clear error this run may end in, besides "cannot be restored" (null: that one only). */
    String clearErrorText;
    /** The launcher whose result counts: the restarted one after a launcher kill. */
    volatile LaunchedRun current;

    Injector(Scenario scenario, int ranks, long rounds, long iterations, Timings reference, String jobId,
             Path diskJobDir, Path storeJobDir, Random random, long deadlineNanos) {
        this(scenario, ranks, rounds, iterations, reference, jobId, diskJobDir, storeJobDir, random, deadlineNanos, null);
    }

    /** As above, for a {@link Scenario#CORPUS} run whose failure is {@code corpusFailure} (null: none). */
    Injector(Scenario scenario, int ranks, long rounds, long iterations, Timings reference, String jobId,
             Path diskJobDir, Path storeJobDir, Random random, long deadlineNanos, CorpusFailure corpusFailure) {
        this.corpusFailure = corpusFailure;
        this.jobId = jobId;
        this.rounds = rounds;
        this.iterations = iterations;
        this.scenario = scenario;
        this.ranks = ranks;
        this.reference = reference;
        this.diskJobDir = diskJobDir;
        this.stores = (rank, pid) -> storeJobDir.resolve("rank-" + rank);
        this.deadlineNanos = deadlineNanos;
        this.u = random.nextDouble();
        this.v = random.nextDouble();
        this.r = random.nextInt(ranks);
        this.r2 = random.nextInt(ranks);
        this.w = random.nextDouble();
    }

    /** Runs across test hosts: host failures go to {@code hosts}, a rank's store is in its host's /dev/shm. */
    Injector acrossHosts(CampaignHosts hosts) {
        this.hosts = new HostInjections(this, hosts, jobId);
        this.stores = (rank, pid) -> {
            io.jckpt.testkit.hosts.TestHost h = hosts.hostOf(pid);
            return h == null ? null : hosts.rankStore(h, jobId, rank);
        };
        return this;
    }

    /** A random fraction in [0, 1) drawn for this run (for the caller's own choices, e.g. a tmpfs size). */
    double fraction() {
        return v;
    }

    String notes() {
        String text = notes.toString().trim();
        return text.endsWith(";") ? text.substring(0, text.length() - 1) : text;
    }

    /** Runs the scenario's injection against {@code run}; {@code restart} starts the same job again. */
    void inject(LaunchedRun run, Restart restart) throws IOException, InterruptedException {
        current = run;
        switch (scenario) {
            case NONE -> { }
            case KILL1, NODE1, DISK_FULL, KRYO_UNREGISTERED -> {
                if (atMoment(run)) {
                    kill(run, scenario != Scenario.KILL1, r);
                }
            }
            case KILL2_ADJACENT, NODE2_ADJACENT, BEYOND_M -> {
                if (atMoment(run)) {
                    kill(run, scenario != Scenario.KILL2_ADJACENT, r, (r + 1) % ranks);
                    if (scenario == Scenario.BEYOND_M) {
                        allowClearErrorWithoutGenerations(1);
                    }
                }
            }
            case KILL2_SPREAD, NODE2_SPREAD -> {
                if (atMoment(run)) {
                    kill(run, scenario == Scenario.NODE2_SPREAD, r, (r + 2) % ranks);
                }
            }
            case KILL_ALL, TOTAL -> {
                if (atMoment(run)) {
                    kill(run, scenario == Scenario.TOTAL, all());
                    if (scenario == Scenario.TOTAL) {
                        allowClearErrorWithoutGenerations(1);
                    }
                }
            }
            case SIGSTOP -> {
                if (hosts != null ? hosts.atMoment(run) : atMoment(run)) {
                    stop(run, r);
                }
            }
            case HOST, KILL_HOST, PARTITION, HOSTS2, HOST_RELAUNCH, HOST_RESTART, HOST_ROLLBACK, HOST_FLUSH -> {
                if (hosts == null) {
                    missed("no test hosts (bin/chaos --hosts N)");
                } else {
                    hosts.inject(run, scenario);
                }
            }
            case STARTUP, STARTUP_STOP -> startup(run, scenario == Scenario.STARTUP_STOP);
            case RECOVERY -> recovery(run);
            case FLUSH -> flush(run);
            case FLIP -> flip(run);
            case LAUNCHER, LAUNCHER_WIPE -> launcher(run, restart);
            case GROW -> afterGrowth(run);
            case CORPUS -> corpus(run);
        }
    }

    private void corpus(LaunchedRun run) throws IOException, InterruptedException {
        if (corpusFailure == null || !atTime(run)) {
            return;
        }
        switch (corpusFailure) {
            case KILL -> kill(run, false, r);
            case NODE -> kill(run, true, r);
            case NODE2 -> kill(run, true, r, (r + 2) % ranks);
            case SIGSTOP -> stop(run, r);
        }
    }

    /**
     * Waits for a {@link Scenario#CORPUS} run's moment: after this run's "ranks running", a seeded
     * fraction (up to 0.75, so that a run faster than the reference still gets its failure) of the time
     * from "ranks running" to the result line in the program's failure-free run; false when the job
     * ended first.
     */
    private boolean atTime(LaunchedRun run) throws InterruptedException {
        LaunchedRun.Line running = run.await(t -> t.contains("ranks running (pids"), deadlineNanos);
        if (running == null) {
            missed("the ranks were never all running");
            return false;
        }
        double window = Math.max(0.5, reference.checksum() - reference.running());
        long at = running.nanos() + (long) (u * 0.75 * window * 1e9);
        if (!run.sleepUntil(Math.min(at, deadlineNanos)) || run.ended()) {
            missed("the job ended before the moment");
            return false;
        }
        return true;
    }

    void stop(LaunchedRun run, int target) throws IOException, InterruptedException {
        long pid = run.rankPid(target);
        if (pid > 0) {
            JobProcesses.signal("STOP", pid);
            stopped.add(pid);
            injected++;
            note("SIGSTOP rank %d (pid %d) at %s", target, pid, since(run));
        } else {
            missed("rank " + target + " has no process");
        }
    }

    /** Starts the same job again (same arguments, same --job-id). */
    interface Restart {
        LaunchedRun start() throws IOException;
    }

    /** Pids SIGSTOPped by this run (the caller checks they did not outlive the job). */
    List<Long> stopped() {
        return stopped;
    }

    private int[] all() {
        int[] all = new int[ranks];
        for (int i = 0; i < ranks; i++) {
            all[i] = i;
        }
        return all;
    }

    /**
     * Waits for the run's moment, placed by the program's progress rather than by the clock (a loaded
     * machine runs slower than the reference did): rank 0's "iteration k" line for a seeded k in
     * the first 90 % of the iterations, then a seeded part of one iteration's time; false when the
     * job ended first. ({@code startup} covers the time before the first iteration.)
     */
    boolean atMoment(LaunchedRun run) throws InterruptedException {
        long k = 1 + (long) (u * Math.max(1, (long) (0.9 * iterations) - 1));
        String line = "[rank 0] iteration " + k;
        LaunchedRun.Line seen = run.await(t -> t.endsWith(line), deadlineNanos);
        if (seen == null) {
            missed("the job ended before iteration " + k);
            return false;
        }
        double perIteration = reference.computeWindow() / Math.max(1, iterations);
        long at = seen.nanos() + (long) (v * perIteration * 1e9);
        if (!run.sleepUntil(Math.min(at, deadlineNanos)) || run.ended()) {
            missed("the job ended before the moment");
            return false;
        }
        return true;
    }

    void kill(LaunchedRun run, boolean wipe, int... targets) throws InterruptedException {
        List<Long> pids = new ArrayList<>();
        List<Integer> found = new ArrayList<>();
        List<Path> wiped = new ArrayList<>();
        for (int target : targets) {
            long pid = run.rankPid(target);
            if (pid > 0) {
                pids.add(pid);
                found.add(target);
                if (wipe) {
                    wiped.add(stores.rankStore(target, pid));
                }
            }
        }
        if (pids.isEmpty()) {
            missed("no live process for ranks " + java.util.Arrays.toString(targets));
            return;
        }
        JobProcesses.kill(pids);
        String when = since(run);
        if (wipe) {
            // the stores go with the processes: wipe once they are gone (bounded), before a replacement
            // could have started
            JobProcesses.awaitGone(pids, 300);
            for (Path store : wiped) {
                if (store != null) {
                    Campaign.deleteTree(store);
                }
            }
        }
        injected++;
        note("SIGKILL%s rank%s %s (pids %s) at %s", wipe ? " + store wiped," : "", found.size() > 1 ? "s" : "",
                join(found), join(pids), when);
    }

    /**
     * A failure at a seeded moment of the start-up: from the launch (a JVM that has not connected yet)
     * through MPI.Init, the port exchange, Ckpt.open's exchange, to the first here() (5 % to 115 % of
     * the reference run's first checkpoint), SIGKILL or SIGSTOP.
     */
    private void startup(LaunchedRun run, boolean stop) throws IOException, InterruptedException {
        long at = run.startNanos() + (long) ((0.05 + 1.1 * u) * reference.firstRound() * 1e9);
        if (!run.sleepUntil(at)) {
            missed("the job ended before the moment");
            return;
        }
        long pid = run.awaitRankPid(r, deadlineNanos);
        if (pid <= 0) {
            missed("rank " + r + " never had a process");
            return;
        }
        if (stop) {
            JobProcesses.signal("STOP", pid);
            stopped.add(pid);
        } else {
            JobProcesses.kill(List.of(pid));
        }
        injected++;
        note("%s rank %d (pid %d) during start-up at %s", stop ? "SIGSTOP" : "SIGKILL", r, pid, since(run));
    }

    private void recovery(LaunchedRun run) throws InterruptedException {
        if (!atMoment(run)) {
            return;
        }
        kill(run, false, r);
        if (injected == 0) {
            return;
        }
        LaunchedRun.Line recovering = run.await(t -> t.contains("recovering: epoch"), deadlineNanos);
        if (recovering == null) {
            note("no recovery started: second kill not injected");
            return;
        }
        if (!run.sleepUntil(recovering.nanos() + (long) (v * 600e6))) {
            note("the job ended before the second kill");
            return;
        }
        long pid = run.awaitRankPid(r2, Math.min(deadlineNanos, System.nanoTime() + 5_000_000_000L));
        if (pid <= 0) {
            note("rank %d had no process during the recovery: second kill not injected", r2);
            return;
        }
        JobProcesses.kill(List.of(pid));
        injected++;
        note("then SIGKILL rank %d (pid %d) %.0f ms after 'recovering' (at %s)", r2, pid,
                (System.nanoTime() - recovering.nanos()) / 1e6, since(run));
    }

    /**
     * {@link Scenario#GROW}: rank {@code r} is killed (its store wiped in half the runs) one to three
     * rounds after the first round of the first grown layout, which rank 0's event names ("store layout
     * switched ... to m=1, slot S bytes, from round F"), so that the round restored is one of that
     * layout's and the state outgrows it again after the recovery, once the restored round's slot has
     * been written again.
     */
    private void afterGrowth(LaunchedRun run) throws InterruptedException {
        LaunchedRun.Line grown = run.await(t -> GROWN.matcher(t).find(), deadlineNanos);
        if (grown == null) {
            missed("no slot growth before the job ended");
            return;
        }
        Matcher m = GROWN.matcher(grown.text());
        m.find();
        long first = Long.parseLong(m.group(1));
        long every = Math.max(1, iterations / Math.max(1, rounds));
        long k = every * (first + 1) + 1 + (long) (u * 2 * every); // after round first + 1, before first + 3
        if (k > iterations) {
            missed("the first slot growth came too late (round " + first + ")");
            return;
        }
        String line = "[rank 0] iteration " + k;
        LaunchedRun.Line seen = run.await(t -> t.endsWith(line), deadlineNanos);
        double perIteration = reference.computeWindow() / Math.max(1, iterations);
        if (seen == null || !run.sleepUntil(Math.min(seen.nanos() + (long) (v * perIteration * 1e9), deadlineNanos))
                || run.ended()) {
            missed("the job ended before iteration " + k);
            return;
        }
        kill(run, r2 % 2 == 1, r);
        note("at iteration %d, the slots grown at round %d", k, first);
    }

    private void flush(LaunchedRun run) throws IOException, InterruptedException {
        awaitFlush(run, (owner, file, which) -> {
            long pid = run.rankPid(owner);
            if (pid > 0) {
                JobProcesses.kill(List.of(pid));
                injected++;
                note("SIGKILL rank %d (pid %d) as it created %s (flush %d) at %s", owner, pid, file, which, since(run));
            } else {
                missed("rank " + owner + " had no process at its flush");
            }
        });
    }

    /** What a run does at the drawn flush: {@code owner} created {@code file}, the run's {@code which}-th rank file. */
    interface AtFlush {
        void at(int owner, String file, int which) throws IOException;
    }

    /**
     * Waits until a rank creates the drawn one (the first to half the rounds) of the rank files of disk
     * generations being written, then calls {@code action}; missed when the job ends first.
     */
    void awaitFlush(LaunchedRun run, AtFlush action) throws IOException, InterruptedException {
        Files.createDirectories(diskJobDir.getParent());
        if (!Files.isDirectory(diskJobDir)) {
            Files.createDirectory(diskJobDir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        int which = 1 + (int) (u * Math.max(1, rounds / 2));
        int seen = 0;
        try (WatchService watch = FileSystems.getDefault().newWatchService()) {
            diskJobDir.register(watch, StandardWatchEventKinds.ENTRY_CREATE);
            while (System.nanoTime() < deadlineNanos && !run.ended()) {
                WatchKey key = watch.poll(200, TimeUnit.MILLISECONDS);
                if (key == null) {
                    continue;
                }
                for (WatchEvent<?> event : key.pollEvents()) {
                    Matcher m = RANK_FILE.matcher(String.valueOf(event.context()));
                    if (m.matches() && m.group(3) != null && ++seen == which) {
                        action.at(Integer.parseInt(m.group(2)), String.valueOf(event.context()), which);
                        return;
                    }
                }
                key.reset();
            }
        } catch (ClosedWatchServiceException e) {
            // closed on the way out
        }
        missed("flush " + which + " never started (" + seen + " seen)");
    }

    private void flip(LaunchedRun run) throws IOException, InterruptedException {
        // two committed generations first, so that an older one exists to fall back on
        while (commits().size() < 2) {
            if (run.ended() || System.nanoTime() >= deadlineNanos) {
                missed("fewer than two disk generations were committed");
                return;
            }
            Thread.sleep(20);
        }
        if (!run.sleepUntil(System.nanoTime() + (long) (u * 500e6))) {
            missed("the job ended before the moment");
            return;
        }
        List<Long> rounds = commits();
        if (rounds.isEmpty()) {
            missed("no committed generation at the moment");
            return;
        }
        long newest = rounds.get(rounds.size() - 1);
        Path file = diskJobDir.resolve(String.format(Locale.ROOT, "round-%019d.rank-%06d.jckpt", newest, r));
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            long size = channel.size();
            long offset = (long) (v * size);
            ByteBuffer one = ByteBuffer.allocate(1);
            channel.read(one, offset);
            one.put(0, (byte) (one.get(0) ^ 0x5A)).rewind();
            channel.write(one, offset);
            channel.force(true);
            note("flipped byte %d of %d in %s", offset, size, file.getFileName());
        } catch (IOException e) {
            note("could not flip a byte in %s: %s", file.getFileName(), e);
        }
        kill(run, true, all());
        if (commits().size() < 2) {
            clearErrorAllowed = true;
            clearErrorReason = "fewer than two committed generations at the total loss, one of them damaged";
        }
    }

    private void launcher(LaunchedRun run, Restart restart) throws IOException, InterruptedException {
        if (!atMoment(run)) {
            return;
        }
        run.killLauncher();
        injected++;
        note("SIGKILL launcher (pid %d) at %s", run.pid(), since(run));
        if (run.awaitExit(System.nanoTime() + 5_000_000_000L) == null) {
            note("launcher still alive 5 s after SIGKILL");
        }
        // its ranks halt when their control connection closes; the restart must not meet them
        List<Long> members = JobProcesses.of(jobId).stream().map(JobProcesses.Member::pid).toList();
        List<Long> left = JobProcesses.awaitGone(members, 5_000);
        if (!left.isEmpty()) {
            orphans.addAll(left);
            note("ORPHANS: pids %s still alive 5 s after the launcher was killed", join(left));
            JobProcesses.kill(left);
            JobProcesses.awaitGone(left, 2_000);
        }
        if (scenario == Scenario.LAUNCHER_WIPE) {
            Campaign.deleteTree(stores.rankStore(0, 0).getParent());
            note("every store wiped");
            allowClearErrorWithoutGenerations(1);
        }
        current = restart.start();
        note("restarted");
    }

    void allowClearErrorWithoutGenerations(int needed) {
        int present = commits().size();
        if (present < needed) {
            clearErrorAllowed = true;
            clearErrorReason = "no committed disk generation when the failure exceeded m";
        }
    }

    /** Committed disk rounds (ascending) of this job. */
    List<Long> commits() {
        List<Long> rounds = new ArrayList<>();
        if (!Files.isDirectory(diskJobDir)) {
            return rounds;
        }
        try (DirectoryStream<Path> files = Files.newDirectoryStream(diskJobDir)) {
            for (Path f : files) {
                Matcher m = COMMIT.matcher(f.getFileName().toString());
                if (m.matches()) {
                    rounds.add(Long.parseLong(m.group(1)));
                }
            }
        } catch (IOException e) {
            // a directory being changed: the caller retries or takes what it got
        }
        rounds.sort(null);
        return rounds;
    }

    void missed(String why) {
        if (injected == 0) {
            missed = true;
        }
        note("not injected: %s", why);
    }

    void note(String format, Object... args) {
        notes.append(String.format(Locale.ROOT, format, args)).append("; ");
    }

    static String since(LaunchedRun run) {
        return String.format(Locale.ROOT, "+%.2f s", (System.nanoTime() - run.startNanos()) / 1e9);
    }

    private static String join(List<?> items) {
        return items.stream().map(String::valueOf).reduce((a, b) -> a + "," + b).orElse("");
    }
}
