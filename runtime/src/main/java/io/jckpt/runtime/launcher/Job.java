package io.jckpt.runtime.launcher;

import io.jckpt.runtime.control.ControlChannel;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ControlServer;
import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.RankExit;
import io.jckpt.runtime.control.RecoverFrame;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.HexFormat;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run of a program on N ranks: starts the rank processes, supervises them, recovers or fails,
 * and ends the job. All decisions are taken on the supervisor thread (the one calling
 * {@link #run()}), from events the reaper, control and signal threads queue.
 *
 * <ul>
 *   <li>{@link LaunchSpec.FailurePolicy#FAIL}: the first rank that exits non-zero, throws out of
 *   main or dies by a signal is named and the whole job is torn down (SIGKILL to every rank,
 *   bounded wait); exit status {@link #EXIT_JOB_FAILED}.</li>
 *   <li>{@link LaunchSpec.FailurePolicy#RESPAWN}: failed ranks (all that fail within
 *   {@link #COALESCE_MILLIS} of the first) are re-spawned with the same rank numbers and marked
 *   new; survivors are told to abandon the broken MPJ world; everyone joins a fresh world (epoch + 1)
 *   and re-enters the program. At most {@link LaunchSpec#maxRecoveries()} times.</li>
 * </ul>
 * A rank whose program completed waits until every rank completed in the same epoch
 * ({@link ControlProtocol#JOB_COMPLETE}), so a late failure elsewhere can still be recovered.
 * Failed ranks are handed to warm standbys when one is ready ({@link StandbyPool}), else forked.
 * A program's own error fails the job unless it echoes a process failure
 * ({@link #PROGRAM_ERROR_GRACE_MILLIS}); under fail the job then fails for that process failure,
 * under respawn and relaunch it is recovered with it. One failure gives one FAILURE line.
 *
 * <p><b>Size</b> (past 600 lines): the supervisor loop keeps every decision on one thread, and its
 * state (which process hosts which rank, epoch, completion, recovery in progress) is that thread's
 * alone. What it delegates lives beside it: {@link RankLauncher} (the processes' command lines,
 * start and teardown), {@link RankChannels} (what the control threads hear), {@link FailureTriage}
 * (which failures go together, which program errors are echoes), {@link FailureInjector} (--kill,
 * --mtbf), {@link RecoveryReport}, {@link RankProgress}, {@link ExchangeCoordinator},
 * {@link StandbyPool}, {@link HostCheck} and {@link RemoteCalls} (which hosts live at a recovery across
 * hosts, the remote commands not waited for). What is left is the loop's own state and decisions: the
 * next seams are the current world (epoch, port exchange, which process hosts each rank and for which
 * epoch, the catch-up of a late replacement) with the respawn of {@code recover()}, and the job's hosts
 * (where each rank runs, lost and silent hosts, kills owed on them, the respawn plan).
 */
public final class Job {
    /** Every rank completed. */
    public static final int EXIT_OK = 0;
    /** A rank failed (or the job could not start); the job was torn down. */
    public static final int EXIT_JOB_FAILED = 1;
    /** Bad command line. */
    public static final int EXIT_USAGE = 2;

    /** Failures this close to the first one are recovered together (several ranks killed at once). */
    static final long COALESCE_MILLIS = 30;
    /**
     * A program's own error (an exception out of main, System.exit(non-zero)) is the echo of
     * another rank's death when a process failure is detected within this window of it; else it
     * fails the job (unless --retry-program-errors).
     */
    static final long PROGRAM_ERROR_GRACE_MILLIS = 1_000;
    /**
     * A standby that replaces a used one starts once the program runs again after the recovery
     * (rank 0 reports a new checkpoint round) or this long after the ranks joined the new world,
     * whichever comes first: its warm-up must not take the CPU from the ranks' rollback.
     */
    static final long STANDBY_AFTER_RECOVERY_MILLIS = 2_000;
    private static final long TEARDOWN_MILLIS = 2_000;
    /** After a signal, how long remote ranks may take to halt once their control connections are closed. */
    private static final long REMOTE_HALT_MILLIS = 3_000;
    /** The exit status of ssh (and most agents) when the connection or the host is lost. */
    static final int REMOTE_SHELL_LOST = 255;
    /** How long a host may take to answer the remote shell at a recovery before it counts as lost. */
    static final long HOST_PROBE_MILLIS = 10_000;
    /**
     * How long ranks may take to exit once every rank completed and was told so (they halt within
     * milliseconds); a rank still there then (stopped, hung in its exit) is SIGKILLed: the result stands.
     */
    static final long EXIT_AFTER_COMPLETE_MILLIS = 5_000;
    private static final long DRAIN_MILLIS = 1_000;
    private static final long POLL_MILLIS = 20;

    private final LaunchSpec spec;
    private final JckptHome home;
    private final JobConsole console;
    private final String jobId;
    private final JobSecret secret = JobSecret.random();
    /** Where the control server and the port exchange listen: 127.0.0.1 on one host, else {@code --bind} or its default. */
    private final InetAddress loopback;
    private final String bindAddress;
    /** The host each rank runs on now (respawns may move a rank off a lost host); supervisor thread. */
    private final java.util.List<String> rankHosts;
    /** Hosts found lost (they did not answer the remote shell at a recovery). */
    private final java.util.Set<String> lostHosts = new java.util.HashSet<>();
    /** Hosts whose rank agent ended with {@link #REMOTE_SHELL_LOST} since the last recovery's host probe. */
    private final java.util.Set<String> sessionsLost = new java.util.HashSet<>();
    /** Hosts whose verdict a recovery's check did not wait for: no rank is placed on them until they answer. */
    private final java.util.Set<String> unansweredHosts = new java.util.TreeSet<>();
    /** Remote commands the launcher does not wait for: host probes, kills of failed ranks' processes. */
    private final RemoteCalls remoteCalls;
    /**
     * The next recovery's check of hosts, begun at its first failure across hosts: the failed rank's host is
     * probed at once when no other rank or standby there can answer a ping, so that the coalescing window
     * hides the probe (null between recoveries; supervisor thread).
     */
    private HostCheck forming;
    /** Failed ranks' processes to kill on their hosts: host -> pid -> rank (supervisor thread). */
    private final Map<String, Map<Long, Integer>> owedKills = new java.util.TreeMap<>();
    /** The job hosts' capacities and the spares left, as the last respawn plan left them (null: the mapping's). */
    private java.util.Map<String, Integer> hostCapacities;
    private java.util.List<io.jckpt.runtime.hosts.Host> spareHosts;
    private final BlockingQueue<JobEvent> events = new LinkedBlockingQueue<>();
    private final Map<Integer, RankHost> currentHost = new ConcurrentHashMap<>();
    /** Adds up the job's events for the end-of-job summary. */
    private final JobSummary summary;
    /** The launcher's arguments as given. */
    private final java.util.List<String> commandLine;
    /** Each recovery end to end: its line once the last rank rolled back, and the summary's totals. */
    private final RecoveryLedger ledger;
    private final RankChannels channels;
    private final ExchangeCoordinator exchanges;
    private final RankLauncher launcher;
    /** Set by a signal's teardown, which also deals with the node-local stores. */
    private volatile boolean signalled;

    // supervisor-thread state
    private PortExchange exchange;
    private int epoch;
    private int recoveries;
    private final TreeSet<Integer> completed = new TreeSet<>();
    private final TreeSet<Integer> exitedOk = new TreeSet<>();
    private boolean jobCompleteSent;
    private long jobCompleteNanos;
    private final FailureTriage triage = new FailureTriage(System::nanoTime, COALESCE_MILLIS, PROGRAM_ERROR_GRACE_MILLIS);
    private RecoveryReport recovery;
    private final FailureInjector injector;
    private long shownRound;
    private long shownAtNanos;
    private int exitStatus = -1;
    private final Map<Integer, Integer> spawnEpoch = new ConcurrentHashMap<>();
    private int[] lastFailed = new int[0];
    /** When the failure that started the newest recovery was detected ({@link System#nanoTime()}). */
    private long lastDetectedNanos;
    private final StandbyPool standbys;
    /** The ranks' SLF4J binding: the program's own, else the launcher's slf4j-simple. */
    private final RankLogging logging;
    private final LauncherSettings settings;
    private final FailureDetector.View detectorView = new FailureDetector.View() {
        @Override
        public int worldSize() {
            return spec.worldSize();
        }

        @Override
        public long lastHeardNanos(int rank) {
            return channels.lastHeardNanos(rank, System.nanoTime());
        }

        @Override
        public long localPid(int rank) {
            RankHost host = currentHost.get(rank);
            // a remote rank's local process is its remote shell's agent: its state says nothing of the rank
            return host == null || spec.remote() ? -1 : host.pid();
        }

        @Override
        public boolean expectedAlive(int rank) {
            RankHost host = currentHost.get(rank);
            // from its process's start (channels.heard at the spawn): a rank stopped before it could connect
            // is failed like one stopped later (the detector tells a starting JVM from a stopped one)
            return host != null && host.isAlive() && !completed.contains(rank) && !jobCompleteSent
                    && !triage.isPending(rank);
        }

        @Override
        public boolean joined(int rank) {
            return channels.control(rank) != null;
        }
    };

    /**
     * @param commandLine the launcher's arguments as given: a failed job's end says how to resume it
     */
    Job(LaunchSpec spec, JckptHome home, JobConsole console, java.util.List<String> commandLine) throws IOException {
        this.commandLine = java.util.List.copyOf(commandLine);
        this.spec = spec;
        this.home = home;
        this.console = console;
        if (spec.jobId() != null) {
            this.jobId = spec.jobId();
        } else {
            byte[] id = new byte[6];
            new java.security.SecureRandom().nextBytes(id);
            this.jobId = HexFormat.of().formatHex(id);
        }
        this.injector = new FailureInjector(spec.kills(), spec.mtbfSeconds(), spec.seed(), spec.worldSize());
        this.bindAddress = spec.bindAddress();
        this.loopback = InetAddress.getByName(bindAddress);
        this.rankHosts = new java.util.ArrayList<>(spec.hosts());
        this.logging = RankLogging.decide(spec.classPath(), home.simpleBinding(), spec.logLevel(), spec.jvmOptions());
        this.launcher = new RankLauncher(spec, home, logging, jobId, secret, console, events::add);
        this.remoteCalls = new RemoteCalls(launcher::startOn);
        this.standbys = new StandbyPool((id, host) -> launcher.startStandby(id, epoch, host), console,
                StandbyPool.hostsOf(spec), host -> host == null || !lostHosts.contains(host));
        this.ledger = new RecoveryLedger(spec.worldSize());
        this.summary = new JobSummary(console::elapsedSeconds, ledger);
        java.util.List<String> rankJvmOptions = new java.util.ArrayList<>(home.jvmFlags());
        rankJvmOptions.addAll(logging.jvmFlags());
        rankJvmOptions.addAll(spec.jvmOptions());
        this.settings = new LauncherSettings(spec, System.getenv(), rankJvmOptions);
        this.channels = new RankChannels(spec.worldSize(), standbys, console, events::add, settings.line());
        this.exchanges = channels.exchanges();
    }

    /** Runs the job to its end and returns the launcher's exit status. */
    int run() throws IOException {
        try (ControlServer control = new ControlServer(loopback, jobId, secret, spec.worldSize(), channels)) {
            launcher.controlPort(control.port());
            launcher.controlHost(bindAddress);
            openEvents();
            console.observe(summary);
            console.derive(ledger::accept);
            String startLine = "job " + jobId + ": " + spec.worldSize() + " ranks of " + spec.mainClass() + " on "
                    + spec.device().cliName() + (spec.onFailure() == LaunchSpec.FailurePolicy.RESPAWN
                    ? ", failed ranks re-spawned (at most " + spec.maxRecoveries() + " recoveries)"
                    : spec.onFailure() == LaunchSpec.FailurePolicy.RELAUNCH
                    ? ", every rank relaunched after a failure (at most " + spec.maxRecoveries() + " recoveries)" : "")
                    + (spec.detectors().isEmpty() ? "" : "; failure detectors: process exit, "
                    + String.join(", ", spec.detectors().stream().map(FailureDetector::name).toList()))
                    + (spec.onFailure() != LaunchSpec.FailurePolicy.FAIL && spec.device() == Device.NIODEV
                    ? "; " + (spec.standbys() == 0 ? "no warm standby" : spec.standbys() + " warm standby")
                    + (spec.remote() ? (spec.standbys() == 0 ? "" : " per host (" + standbys.hosts().size() + " hosts)")
                    : " (" + Runtime.getRuntime().availableProcessors() + " cores)") : "");
            console.event(LauncherEvents.start(startLine, jobId, spec, Runtime.getRuntime().availableProcessors()));
            console.event(LauncherEvents.settings("checkpoint settings (the program's own builder calls win): "
                    + settings.line(), settings.fields()));
            console.event("logging: " + logging.description());
            if (spec.remote()) {
                console.event("hosts: " + spec.mapping().describe() + "; remote shell: " + spec.remoteShell()
                        + "; the launcher listens on " + bindAddress);
                console.event(spec.placement().summary());
                spec.placement().warning().ifPresent(w -> console.event("WARNING: " + w));
            }
            // this launcher owns the job's node-local stores from now on; stores of jobs whose
            // launcher is gone (killed, or a machine reboot left /dev/shm alone) are removed
            NodeLocalStores.claim(settings.memoryDirectory(), jobId, spec.jobId() != null);
            NodeLocalStores.removeStale(settings.memoryDirectory(), null, false, jobId, console::event);
            // the key the job's checkpoints are authenticated with: the same for every start of a job that
            // may be restarted (kept beside its stores, or read from its disk directory)
            launcher.jobKey(LauncherJobKey.resolve(settings.memoryDirectory(), jobId, spec.jobId() != null,
                    settings.diskDirectory(), console::event));
            try {
                if (spec.device() == Device.NIODEV) {
                    exchange = newExchange();
                    for (int rank = 0; rank < spec.worldSize(); rank++) {
                        startNiodevRank(rank, -1);
                    }
                } else {
                    RankHost host = launcher.startMulticore(epoch);
                    for (int rank = 0; rank < spec.worldSize(); rank++) {
                        currentHost.put(rank, host);
                    }
                }
                exitStatus = supervise();
                return exitStatus;
            } finally {
                standbys.stop();
                remoteCalls.stopAll();
                if (exchange != null) {
                    exchange.close();
                }
                // node-local stores are for recoveries within this job; a failed job started with
                // --job-id keeps them, so that a restart with the same id can restore from them
                if (signalled) {
                    // onSignal deleted or kept them
                } else if (exitStatus == EXIT_OK || spec.jobId() == null) {
                    NodeLocalStores.wipeJob(settings.memoryDirectory(), jobId);
                    if (spec.remote()) {
                        cleanRemoteHosts(true);
                    }
                } else {
                    if (spec.remote()) {
                        cleanRemoteHosts(false); // no process of the job is left on any host, its stores are
                    }
                    console.event("node-local stores of job " + jobId + " kept for a restart with --job-id " + jobId
                            + " (ckpt-run --clean --job-id " + jobId + " removes them)");
                }
            }
        } finally {
            console.flush();
        }
    }

    private PortExchange newExchange() throws IOException {
        int world = epoch;
        return new PortExchange(loopback, java.util.List.copyOf(rankHosts), spec.startTimeoutMillis(),
                "jckpt-port-exchange-" + jobId + "-" + epoch, () -> console.event(LauncherEvents.worldFormed(world)));
    }

    /** Starts rank {@code rank}'s JVM; {@code detectedNanos} when a failure was detected, -1 at the job's start. */
    private void startNiodevRank(int rank, long detectedNanos) throws IOException {
        currentHost.put(rank, launcher.startRank(rank, epoch, detectedNanos >= 0, exchange.mpjConf(bindAddress),
                spec.remote() ? rankHosts.get(rank) : null,
                detectedNanos >= 0 ? RecoverFrame.ageMicros(detectedNanos, System.nanoTime()) : -1));
        spawnEpoch.put(rank, epoch);
        channels.heard(rank);
    }

    /** Whether rank 0 reported a checkpoint round other than {@code round}: its program runs. */
    private boolean roundAdvancedFrom(long round) {
        RankProgress p = channels.progress(0);
        return p != null && p.round() != round;
    }

    /**
     * Hands {@code rank} of the new epoch to a standby; {@code false} when it could not be told
     * (it died meanwhile: it is stopped and the caller forks a process instead).
     */
    private boolean assign(StandbyPool.Standby standby, int rank, byte[] recoverFrame) {
        // the host is the rank's before the standby can connect as it or exit as it
        standby.host.assign(rank, "[rank " + rank + "] ");
        currentHost.put(rank, standby.host);
        spawnEpoch.put(rank, epoch);
        channels.heard(rank);
        if (!StandbyPool.assign(standby, rank, recoverFrame)) {
            return false; // the caller forks instead; this host's exit is that of a replaced process
        }
        console.event(LauncherEvents.takeover("rank " + rank + " taken over by standby " + standby.id + " (pid "
                + standby.host.pid() + ")" + standby.where(), rank, standby.id, standby.host.pid()));
        return true;
    }

    /** The supervisor loop: returns the exit status once the job is over. */
    private int supervise() throws IOException {
        Runtime.getRuntime().addShutdownHook(new Thread(this::onSignal, "jckpt-shutdown-" + jobId));
        long startDeadline = System.nanoTime() + spec.startTimeoutMillis() * 1_000_000L;
        int connected = 0;
        boolean announced = false;
        while (exitedOk.size() < spec.worldSize()) {
            JobEvent event;
            try {
                event = events.poll(pollMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return fail("interrupted");
            }
            if (launcher.tearingDown()) {
                // a signal's teardown (onSignal) runs: its SIGKILLs are not failures to recover
                return EXIT_JOB_FAILED;
            }
            if (exchange != null && exchange.failure() != null) {
                return fail(exchange.failure());
            }
            if (!announced && System.nanoTime() > startDeadline) {
                return fail("only " + connected + " of " + spec.worldSize() + " ranks started within "
                        + spec.startTimeoutMillis() / 1000 + " s");
            }
            if (recovery != null) {
                recovery.worldFormed(exchange.completedNanos());
                if (recovery.complete()) {
                    reportRecovered();
                }
            }
            remoteCalls.expireOverdue(System.nanoTime());
            for (String problem : exchanges.expireOverdue(System.nanoTime())) {
                console.event("ERROR: " + problem);
            }
            if (jobCompleteSent && System.nanoTime() - jobCompleteNanos > EXIT_AFTER_COMPLETE_MILLIS * 1_000_000L) {
                endRanksThatDoNotExit();
            }
            injectDueFailures();
            showProgress();
            if (recovery == null && !jobCompleteSent) {
                standbys.replenish();
            }
            for (FailureDetector detector : spec.detectors()) {
                for (Map.Entry<Integer, String> found : detector.poll(detectorView).entrySet()) {
                    RankHost host = currentHost.get(found.getKey());
                    console.event("detector " + detector.name() + ": " + found.getValue() + "; SIGKILL to its process");
                    host.kill(); // a hung or stopped process must not come back into the job
                    host.awaitExit(TEARDOWN_MILLIS);
                    Integer status = onRankFailure(found.getKey(), found.getValue());
                    if (status != null) {
                        return status;
                    }
                }
            }
            String deadlock = deadlock();
            if (deadlock != null) {
                return fail(deadlock);
            }
            if (triage.programErrorDue()) {
                return failProgramError();
            }
            if (triage.recoveryDue()) {
                int status = recover();
                if (status >= 0) {
                    return status;
                }
            }
            if (event instanceof JobEvent.RankConnected joined) {
                catchUp(joined.rank());
                connected++;
                if (connected == spec.worldSize() && !announced) {
                    announced = true;
                    console.event(LauncherEvents.ranksRunning("all " + connected + " ranks running (pids " + pids() + ")",
                            epoch, java.util.Arrays.stream(pids().split(" ")).map(Long::valueOf).toList()));
                    // standbys start once the ranks run: their warm-up must not slow the job's start
                    standbys.owe(spec.standbys(), 0, () -> true);
                    standbys.replenish();
                }
            } else if (event instanceof JobEvent.HostVerdict verdict) {
                onHostVerdict(verdict);
            } else if (event instanceof JobEvent.RemoteKill kill) {
                console.event(describeKill(kill));
            } else if (event instanceof JobEvent.StandbyReady ready) {
                standbys.ready(ready.id(), ready.warmNanos());
            } else if (event instanceof JobEvent.RankReady) {
                if (recovery != null) {
                    recovery.rankReady();
                }
            } else if (event instanceof JobEvent.RankReported reported) {
                RankExit exit = reported.exit();
                if (exit.epoch() != epoch) {
                    continue; // a program of an abandoned world: its end means nothing
                }
                if (exit.status() != 0) {
                    Integer status = onProgramError(reported.rank(), "rank " + reported.rank() + " " + exit.reason(),
                            exit.detail(), exit.status());
                    if (status != null) {
                        return status;
                    }
                } else if (completed.add(reported.rank())) {
                    console.event(LauncherEvents.rankCompleted(reported.rank(), epoch)); // events file only
                    if (completed.size() == spec.worldSize()) {
                        jobComplete();
                    }
                }
            } else if (event instanceof JobEvent.HostExited exited) {
                RankHost host = exited.host();
                if (host.ranks().isEmpty()) {
                    standbys.exited(host, exited.status(), launcher.tearingDown() || jobCompleteSent, REMOTE_SHELL_LOST);
                    continue;
                }
                int rank = host.ranks().get(0);
                if (currentHost.get(rank) != host) {
                    continue; // a replaced process
                }
                if (jobCompleteSent && exited.status() != 0) {
                    // its program had completed and every rank knew it: the result stands
                    console.event("WARNING: rank " + rank + " " + Signals.describeExit(exited.status())
                            + " while exiting after the job completed");
                }
                if (jobCompleteSent || (exited.status() == 0 && (spec.device() == Device.MULTICORE
                        || completed.contains(rank)))) {
                    host.drainOutput(DRAIN_MILLIS);
                    exitedOk.addAll(host.ranks());
                    if (host.ranks().size() == 1 && !jobCompleteSent) {
                        console.event(LauncherEvents.rankFinished("rank " + rank + " finished", rank));
                    }
                    continue;
                }
                // System.exit(n) or a JVM that could not start: the program's own doing, unless it
                // echoes another rank's death; death by a signal: a process failure
                // through a remote shell, 255 is the agent's own failure: the host or the session is gone
                if (spec.remote() && exited.status() == REMOTE_SHELL_LOST) {
                    sessionsLost.add(rankHosts.get(rank));
                }
                Integer status = Signals.bySignal(exited.status()) || (spec.remote() && exited.status() == REMOTE_SHELL_LOST)
                        ? onRankFailure(rank, describe(host, exited.status()))
                        : onProgramError(rank, describe(host, exited.status()), "", exited.status());
                if (status != null) {
                    return status;
                }
            }
        }
        summary.report(console.elapsedSeconds()).forEach(console::event);
        console.event(LauncherEvents.end("job " + jobId + " finished: all " + spec.worldSize() + " ranks completed"
                + (recoveries > 0 ? " after " + recoveries + " recover" + (recoveries == 1 ? "y" : "ies") : ""),
                true, EXIT_OK, recoveries, null));
        return EXIT_OK;
    }

    /**
     * @return why the job fails when every rank of the current world has waited in a communication call
     *         for the deadlock timeout ({@link DeadlockWatch}), or null
     */
    private String deadlock() {
        if (spec.deadlockMillis() <= 0 || recovery != null || jobCompleteSent || spec.device() != Device.NIODEV) {
            return null;
        }
        String waits = channels.waits().verdict(spec.worldSize(), spec.deadlockMillis() * 1_000_000L, System.nanoTime());
        if (waits == null) {
            return null;
        }
        return "deadlock: every rank has waited at least " + spec.deadlockMillis() / 1000
                + " s in a communication call, using no CPU: " + waits
                + (epoch > 0 ? ". After a recovery (epoch " + epoch + ") the usual cause is a here() one rank skipped"
                        + " or added: before the failure (the ranks resumed at different steps; here(step) names that"
                        + " at its round), or at the first here() after the recovery, which every rank enters together"
                        : "")
                + "; not retried (--deadlock-timeout 0 turns this check off)";
    }

    /** Fires the --kill and --mtbf failures that are due ({@link FailureInjector}). */
    private void injectDueFailures() {
        injector.injectDue(console.elapsedSeconds(), channels.newestRound(), !jobCompleteSent && recovery == null
                && triage.pending().isEmpty(), new FailureInjector.Target() {
                    @Override
                    public RankHost victim(int rank) {
                        RankHost host = currentHost.get(rank);
                        return host != null && host.isAlive() && !completed.contains(rank) && !jobCompleteSent
                                ? host : null;
                    }

                    @Override
                    public void wipe(int rank) {
                        if (spec.remote()) {
                            // the rank's own host's store; its JVM is stopped first (its agent's death did not)
                            fenceRemote(rank);
                            String store = settings.memoryDirectory().resolve(jobId).resolve("rank-" + rank).toString();
                            if (!launcher.runOn(rankHosts.get(rank), java.util.List.of("rm", "-rf", "--", store), HOST_PROBE_MILLIS)) {
                                console.event("WARNING: could not wipe " + store + " on " + rankHosts.get(rank));
                            }
                            return;
                        }
                        NodeLocalStores.wipe(settings.memoryDirectory(), jobId, rank);
                    }

                    @Override
                    public void killed(int rank, String description) {
                        onRankFailure(rank, description);
                    }
                }, console);
    }

    /** At most one progress line a second: the newest round rank 0 reported. */
    private void showProgress() {
        RankProgress p = channels.progress(0);
        long now = System.nanoTime();
        // nothing during a recovery (a survivor of the old world may still report its rounds) nor
        // once every rank completed
        if (p == null || p.round() == shownRound || now - shownAtNanos < 1_000_000_000L || recovery != null
                || jobCompleteSent || launcher.tearingDown()) {
            return;
        }
        shownRound = p.round();
        shownAtNanos = now;
        console.event(LauncherEvents.progress(p));
    }

    /**
     * A rank re-spawned for an epoch that a newer recovery replaced before the rank had connected
     * never heard that recovery's RECOVER: send it now, so that it joins the current world.
     */
    private void catchUp(int rank) {
        Integer spawned = spawnEpoch.get(rank);
        ControlChannel connection = channels.control(rank);
        if (spawned != null && spawned < epoch && connection != null) {
            try {
                connection.send(ControlProtocol.RECOVER, new RecoverFrame(epoch, exchange.mpjConf(bindAddress),
                        lastFailed, 0).agedAt(lastDetectedNanos, System.nanoTime()).encode());
            } catch (IOException e) {
                // it died meanwhile: its exit starts another recovery
            }
        }
    }

    /** Every rank completed, but some did not exit in time: each is SIGKILLed and counted as exited. */
    private void endRanksThatDoNotExit() {
        for (int rank = 0; rank < spec.worldSize(); rank++) {
            RankHost host = currentHost.get(rank);
            if (exitedOk.contains(rank) || host == null) {
                continue;
            }
            console.event("WARNING: rank " + rank + " (pid " + host.pid() + ") did not exit within "
                    + EXIT_AFTER_COMPLETE_MILLIS + " ms after the job completed (stopped or hung); SIGKILL to it");
            host.kill();
            host.awaitExit(TEARDOWN_MILLIS);
            host.drainOutput(DRAIN_MILLIS);
            exitedOk.addAll(host.ranks());
        }
    }

    private void jobComplete() {
        jobCompleteSent = true;
        jobCompleteNanos = System.nanoTime();
        console.event("all " + spec.worldSize() + " ranks completed" + (epoch > 0 ? " in epoch " + epoch : ""));
        byte[] payload = ByteBuffer.allocate(4).putInt(epoch).array();
        for (ControlChannel connection : channels.controls().values()) {
            try {
                connection.send(ControlProtocol.JOB_COMPLETE, payload);
            } catch (IOException e) {
                // that rank is gone: its exit is reported by the reaper
            }
        }
    }

    private String describe(RankHost host, int status) {
        String who = host.ranks().size() == 1 ? "rank " + host.ranks().get(0) : "multicore JVM (ranks 0-"
                + (spec.worldSize() - 1) + ")";
        String what = Signals.describeExit(status);
        for (int rank : host.ranks()) {
            RankExit report = channels.report(rank);
            if (report != null && report.status() != 0 && report.epoch() == epoch) {
                return "rank " + rank + " " + report.reason() + "; " + who + " " + what;
            }
        }
        return who + " (pid " + host.pid() + ") " + what;
    }

    /**
     * A rank failed: fail the job, or queue the rank for recovery. Returns the exit status when
     * the job is over, {@code null} when it goes on.
     */
    private Integer onRankFailure(int rank, String description) {
        return onRankFailure(rank, description, true);
    }

    /**
     * As {@link #onRankFailure(int, String)}; {@code processFailure} is false for a program error
     * recovered as the echo of one (or with --retry-program-errors).
     */
    private Integer onRankFailure(int rank, String description, boolean processFailure) {
        if (spec.remote() && processFailure) {
            probeEarly(rank);
            fenceRemote(rank);
        }
        if (spec.onFailure() == LaunchSpec.FailurePolicy.FAIL || spec.device() != Device.NIODEV) {
            return fail(description);
        }
        for (String line : triage.failure(rank, description, epoch, processFailure)) {
            console.event(LauncherEvents.triageLine(line, rank, epoch));
        }
        return null;
    }

    /**
     * Killing the agent of a remote rank (its ssh client) leaves the remote JVM running: closing the
     * failed rank's control connection stops it, since a rank halts as soon as its control connection
     * ends (and, should the connection be cut instead, its epoch fences it out of the new world). A JVM
     * that is stopped (SIGSTOP) or hung cannot halt itself: its process is also owed a kill on its host,
     * sent once the host answers ({@link #killOwed}; the job's end kills whatever of the job is left).
     */
    private void fenceRemote(int rank) {
        ControlChannel connection = channels.control(rank);
        Long pid = channels.pid(rank); // its process on its host, known before the connection closes
        if (pid != null) {
            owedKills.computeIfAbsent(rankHosts.get(rank), h -> new java.util.TreeMap<>()).put(pid, rank);
        }
        if (connection != null) {
            connection.close();
        }
    }

    /**
     * A rank's program threw out of main, or its process exited with a code of its own: a program
     * error that fails the job {@link #PROGRAM_ERROR_GRACE_MILLIS} later, unless it echoes a process
     * failure of another rank detected within that window before or after it (then it is recovered
     * like that failure, or under --on-failure fail the job fails naming that process failure), or
     * unless --retry-program-errors.
     */
    private Integer onProgramError(int rank, String description, String stackTrace, int exitStatus) {
        boolean mistake = FailureTriage.collectiveMistake(description, stackTrace) != null; // retrying repeats it
        if (spec.device() != Device.NIODEV
                || (spec.onFailure() != LaunchSpec.FailurePolicy.FAIL && spec.retryProgramErrors() && !mistake)) {
            return onRankFailure(rank, description, false);
        }
        for (String line : triage.programError(rank, description, stackTrace, epoch, exitStatus)) {
            console.event(LauncherEvents.triageLine(line, rank, epoch));
        }
        return null;
    }

    /** No process failed around the held program errors: the job fails, naming them. */
    private int failProgramError() {
        FailureTriage.Verdict verdict = triage.programErrorVerdict(epoch, lastFailed, jobId,
                spec.onFailure() == LaunchSpec.FailurePolicy.FAIL);
        if (!verdict.stackTrace().isEmpty()) {
            // the only place a rank's stack trace is printed (RankMain prints just the one-line "threw")
            console.event("rank " + verdict.rank() + "'s program failed:\n" + verdict.stackTrace().stripTrailing());
        }
        return fail(verdict.reason(), true, verdict.exitStatus());
    }

    /** How long the supervisor may wait for the next event: never past a pending decision. */
    private long pollMillis() {
        return triage.pollMillis(POLL_MILLIS);
    }

    /** Re-spawns the pending failed ranks into a new epoch; returns an exit status or -1 to go on. */
    private int recover() throws IOException {
        // A rank whose program threw while its process lives is, when another rank died in the same
        // window, a survivor hit by that death (MPJ Express fails sends to a dead peer): it stays and
        // re-enters the program. Alone, it failed by itself: its process is replaced.
        if (spec.remote() && !checkHosts()) {
            return fail("interrupted");
        }
        if (spec.onFailure() == LaunchSpec.FailurePolicy.RELAUNCH) {
            for (int r = 0; r < spec.worldSize(); r++) {
                RankHost host = currentHost.get(r);
                if (host.isAlive()) {
                    host.kill();
                    host.awaitExit(TEARDOWN_MILLIS);
                }
                triage.pending().putIfAbsent(r, "relaunched with the others");
            }
        }
        boolean anyDead = triage.pending().keySet().stream().anyMatch(r -> !currentHost.get(r).isAlive());
        if (anyDead) {
            triage.pending().keySet().removeIf(r -> currentHost.get(r).isAlive());
        } else {
            for (int r : triage.pending().keySet()) {
                RankHost host = currentHost.get(r);
                host.kill();
                host.awaitExit(TEARDOWN_MILLIS);
            }
        }
        int[] failed = triage.pending().keySet().stream().mapToInt(Integer::intValue).toArray();
        String what = String.join("; ", triage.pending().values());
        long detected = triage.pendingSinceNanos();
        // survivors' errors that their broken world caused: one mention in the recovery's line, each in
        // the events file
        java.util.TreeMap<Integer, String> folded = new java.util.TreeMap<>(triage.folded());
        folded.keySet().removeIf(r -> java.util.Arrays.binarySearch(failed, r) >= 0);
        for (Map.Entry<Integer, String> echo : folded.entrySet()) {
            console.event(ReportedEvent.of("message", "", "text", echo.getValue()
                    + " (the echo of the failure above: recovered with it)", "rank", echo.getKey()));
        }
        String echoes = folded.isEmpty() ? "" : " (the errors it caused on rank" + (folded.size() > 1 ? "s " : " ")
                + RecoveryReport.ranks(folded.keySet().stream().mapToInt(Integer::intValue).toArray())
                + " are in the events file)";
        triage.recovered();
        if (recoveries >= spec.maxRecoveries()) {
            return fail(what + " (recovery limit of " + spec.maxRecoveries() + " reached; --max-recoveries N raises it)", false);
        }
        recoveries++;
        epoch++;
        completed.clear();
        exchanges.startEpoch(epoch);
        if (spec.remote()) {
            String problem = placeRespawns(failed);
            if (problem != null) {
                return fail(what + "; " + problem, false);
            }
        }
        exchange.close();
        exchange = newExchange();
        recovery = new RecoveryReport(epoch, spec.worldSize(), detected);
        console.event(LauncherEvents.recoveryStart(RecoveryReport.startLine(epoch, failed, spec.worldSize()) + echoes,
                epoch, failed));
        lastFailed = failed;
        lastDetectedNanos = detected;
        // each send carries the failure's age then: a rank counts its restart from the detection
        RecoverFrame frame = new RecoverFrame(epoch, exchange.mpjConf(bindAddress), failed, 0);
        // replacements first: a replacement has the longest way into the new world
        for (int rank : failed) {
            // a standby of the host the rank restarts on (its own, or where placeRespawns moved it)
            StandbyPool.Standby standby = standbys.take(spec.remote() ? rankHosts.get(rank) : null);
            if (standby != null && assign(standby, rank, frame.agedAt(detected, System.nanoTime()).encode())) {
                recovery.fromStandby();
            } else {
                startNiodevRank(rank, detected);
            }
        }
        recovery.respawned(System.nanoTime());
        for (Map.Entry<Integer, ControlChannel> entry : channels.controls().entrySet()) {
            if (java.util.Arrays.binarySearch(failed, entry.getKey()) < 0) {
                try {
                    entry.getValue().send(ControlProtocol.RECOVER, frame.agedAt(detected, System.nanoTime()).encode());
                } catch (IOException e) {
                    // that rank died meanwhile: its exit starts another recovery
                }
            }
        }
        if (spec.remote()) {
            // the failed ranks' old processes on hosts that answer: a stopped or hung JVM cannot halt itself
            for (String host : new java.util.ArrayList<>(owedKills.keySet())) {
                if (!unansweredHosts.contains(host)) {
                    killOwed(host);
                }
            }
        }
        return -1;
    }

    /**
     * Where the failed ranks restart ({@link RespawnPlanner}): their own host if it lives (found by
     * {@link #checkHosts}), else a live job host with a free slot or a spare host. Moves them in {@link #rankHosts}; returns why some rank cannot be placed,
     * or null.
     */
    private String placeRespawns(int[] failed) {
        if (hostCapacities == null) {
            hostCapacities = spec.mapping().capacities();
            spareHosts = spec.mapping().spares();
        }
        java.util.List<Integer> failedRanks = java.util.Arrays.stream(failed).boxed().toList();
        io.jckpt.runtime.hosts.RespawnPlan plan = io.jckpt.runtime.hosts.RespawnPlanner.plan(
                java.util.List.copyOf(rankHosts), hostCapacities, spareHosts, lostHosts, unansweredHosts, failedRanks,
                spec.placement().ring(), spec.placement().replicas());
        if (!plan.complete()) {
            return "no host can take " + plan.unplaced();
        }
        // the next recovery plans from these: a spare that joined keeps its slots, lost hosts are gone
        hostCapacities = plan.capacities();
        spareHosts = plan.spares();
        for (io.jckpt.runtime.hosts.RespawnTarget target : plan.targets()) {
            if (!target.host().equals(rankHosts.get(target.rank()))) {
                console.event(target.describe());
            }
            rankHosts.set(target.rank(), target.host());
        }
        return null;
    }

    /**
     * At a recovery across hosts, before the respawns are placed: which hosts live ({@link HostCheck}). The
     * failed ranks' hosts and every job host still running a rank are asked at once, each by a PING to its
     * ranks and standbys (a round trip on an open connection), by the remote shell ({@code true},
     * {@link #HOST_PROBE_MILLIS}) when it has none or they stay silent; spare hosts without a standby once a
     * host is found lost, or at once when a failed rank's agent ended with 255 (its session or its host is
     * gone): hosts are often lost together (a switch, a rack, a power feed) but their ranks' agents end one
     * by one, and a rank must not be placed on a host that is gone. The ranks of every lost host fail now,
     * in this recovery. A host still silent (one that hangs instead of refusing) does not hold the recovery
     * when the failed ranks fit elsewhere: a failed rank's own host past the pings' grace (its verdict would
     * only keep the rank in place), another after {@link HostCheck#HANG_GRACE_MILLIS}; nothing is placed on
     * it until its probe's verdict comes ({@link #onHostVerdict}).
     *
     * @return false when interrupted
     */
    private boolean checkHosts() {
        java.util.Set<Integer> pending = triage.pending().keySet();
        java.util.Set<String> suspects = new java.util.TreeSet<>();
        for (int rank : pending) {
            suspects.add(rankHosts.get(rank));
        }
        suspects.removeAll(lostHosts);
        java.util.Map<String, java.util.Map<Integer, ControlChannel>> connections = standbys.connectionsByHost();
        for (int r = 0; r < spec.worldSize(); r++) {
            ControlChannel connection = channels.control(r);
            if (connection != null && !pending.contains(r)) {
                connections.computeIfAbsent(rankHosts.get(r), h -> new java.util.HashMap<>()).put(r, connection);
            }
        }
        java.util.Set<String> others = new java.util.TreeSet<>(rankHosts);
        spec.mapping().spares().forEach(h -> others.add(h.name()));
        others.removeAll(suspects);
        others.removeAll(lostHosts);
        boolean sessionLost = suspects.stream().anyMatch(sessionsLost::contains);
        sessionsLost.clear();
        HostCheck check = forming != null ? forming : newHostCheck(); // its early probes run already
        forming = null;
        channels.watch(check); // before the pings: every answer from now on counts
        HostCheck.Outcome outcome;
        try {
            for (String host : suspects) {
                if (!runsLiveRanks(host, pending)) {
                    // its verdict would only let the failed ranks restart in place: the pings' grace is enough
                    check.suspect(host);
                }
                check.ask(host, connections.getOrDefault(host, Map.of()));
            }
            java.util.List<String> later = new java.util.ArrayList<>();
            for (String host : others) {
                if (connections.containsKey(host)) {
                    check.ask(host, connections.get(host));
                } else {
                    later.add(host);
                }
            }
            check.later(later);
            if (sessionLost) {
                check.probeOthers();
            }
            outcome = check.await(this::placeable);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the job is being stopped
            return false;
        } finally {
            channels.watch(null);
        }
        unansweredHosts.clear();
        unansweredHosts.addAll(outcome.unanswered());
        console.event(String.format(Locale.ROOT, "hosts checked in %.0f ms: %s", outcome.tookNanos() / 1e6,
                describeHosts(outcome)));
        for (String host : outcome.lost()) {
            hostLost(host, outcome.lostWhy().get(host));
        }
        return true;
    }

    /**
     * @return whether {@code host} runs a rank not failed yet: lost, it fails them in this recovery, so a
     *         silent one is waited for {@link HostCheck#HANG_GRACE_MILLIS}, not the pings' grace (their
     *         agents' ends may come later than the failed rank's: a whole host lost, recovered twice)
     */
    private boolean runsLiveRanks(String host, java.util.Set<Integer> pending) {
        for (int r = 0; r < spec.worldSize(); r++) {
            if (!pending.contains(r) && host.equals(rankHosts.get(r))) {
                return true;
            }
        }
        return false;
    }

    /**
     * Rank {@code rank} failed across hosts: unless another rank of its host can answer the recovery's ping,
     * its host's probe starts now, in the check the recovery will wait on ({@link #forming}), not after the
     * coalescing window. A standby there does not count: it is likely gone with the rank (its connection
     * may not have ended yet).
     */
    private void probeEarly(int rank) {
        String host = rankHosts.get(rank);
        if (spec.device() != Device.NIODEV || spec.onFailure() == LaunchSpec.FailurePolicy.FAIL
                || lostHosts.contains(host)) {
            return;
        }
        for (int r = 0; r < spec.worldSize(); r++) {
            if (r != rank && host.equals(rankHosts.get(r)) && !triage.isPending(r) && channels.control(r) != null) {
                return; // it will answer the ping
            }
        }
        if (forming == null) {
            forming = newHostCheck();
        }
        forming.ask(host, Map.of());
    }

    private HostCheck newHostCheck() {
        return new HostCheck(remoteCalls, spec.remoteShell().toString(), HOST_PROBE_MILLIS, events::add);
    }

    /** "a, b answer; c lost; d not answering yet". */
    private static String describeHosts(HostCheck.Outcome outcome) {
        java.util.List<String> parts = new java.util.ArrayList<>();
        java.util.Set<String> alive = new java.util.TreeSet<>();
        outcome.verdicts().forEach((h, v) -> {
            if (v == HostCheck.Verdict.ALIVE) {
                alive.add(h);
            }
        });
        if (!alive.isEmpty()) {
            parts.add(String.join(", ", alive) + (alive.size() == 1 ? " answers" : " answer"));
        }
        if (!outcome.lost().isEmpty()) {
            parts.add(String.join(", ", outcome.lost()) + " lost");
        }
        if (!outcome.unanswered().isEmpty()) {
            parts.add(String.join(", ", outcome.unanswered()) + " not answering yet");
        }
        return String.join("; ", parts);
    }

    /** Whether the pending failed ranks and those of {@code lost} hosts fit on hosts neither lost nor {@code unanswered}. */
    private boolean placeable(java.util.Set<String> lost, java.util.Set<String> unanswered) {
        java.util.Set<String> allLost = new java.util.HashSet<>(lostHosts);
        allLost.addAll(lost);
        java.util.Set<Integer> failedNow = new java.util.TreeSet<>(triage.pending().keySet());
        for (int r = 0; r < spec.worldSize(); r++) {
            if (allLost.contains(rankHosts.get(r))) {
                failedNow.add(r);
            }
        }
        return io.jckpt.runtime.hosts.RespawnPlanner.plan(java.util.List.copyOf(rankHosts),
                hostCapacities != null ? hostCapacities : spec.mapping().capacities(),
                spareHosts != null ? spareHosts : spec.mapping().spares(), allLost, unanswered, failedNow,
                spec.placement().ring(), spec.placement().replicas()).complete();
    }

    /** {@code host} is lost: its live ranks fail now (in the recovery under way, or the next one). */
    private void hostLost(String host, String why) {
        lostHosts.add(host);
        unansweredHosts.remove(host);
        console.event("host " + host + " lost: " + why);
        for (int r = 0; r < spec.worldSize(); r++) {
            RankHost agent = currentHost.get(r);
            if (host.equals(rankHosts.get(r)) && !triage.pending().containsKey(r) && agent != null) {
                onRankFailure(r, "rank " + r + " (pid " + agent.pid() + ") lost with its host " + host, true);
                fenceRemote(r); // a partitioned host's rank may still live: its control connection ends it
                agent.kill(); // its agent, which has not noticed yet
                agent.awaitExit(TEARDOWN_MILLIS);
            }
        }
        owedKills.remove(host); // a lost host is tried once more at the job's end
    }

    /** A host's verdict came after its recovery went on without it. */
    private void onHostVerdict(JobEvent.HostVerdict verdict) {
        if (lostHosts.contains(verdict.host())) {
            return;
        }
        if (!verdict.alive()) {
            hostLost(verdict.host(), verdict.why());
            return;
        }
        if (unansweredHosts.remove(verdict.host())) {
            console.event("host " + verdict.host() + " answers again: ranks may be placed on it");
        }
        killOwed(verdict.host());
    }

    /** Kills, on {@code host} and without waiting, the processes of failed ranks it still holds. */
    private void killOwed(String host) {
        Map<Long, Integer> owed = owedKills.remove(host);
        if (owed == null) {
            return;
        }
        owed.forEach((pid, rank) -> remoteCalls.start(host, launcher.killCommand(pid), HOST_PROBE_MILLIS,
                ended -> events.add(new JobEvent.RemoteKill(rank, host, pid, ended))));
    }

    private static String describeKill(JobEvent.RemoteKill kill) {
        String what = "rank " + kill.rank() + "'s failed process on " + kill.host() + " (pid " + kill.pid() + ")";
        if (kill.ended().ok()) {
            return what + " killed";
        }
        if (!kill.ended().overdue() && kill.ended().status() == RankLauncher.KILL_GONE) {
            return what + " had already ended";
        }
        return "WARNING: cannot kill " + what + " (" + (kill.ended().overdue() ? "no answer within "
                + HOST_PROBE_MILLIS / 1000 + " s" : "exit status " + kill.ended().status())
                + "); the job's end tries again";
    }

    private void reportRecovered() throws IOException {
        RecoveryReport r = recovery;
        recovery = null;
        injector.worldRebuilt(); // for --kill RANKS@recovery: the ranks are rolling back now
        console.event(LauncherEvents.recovered(r));
        // replacements for the used standbys, once the program runs again: their warm-up must not
        // take the CPU from the ranks' rollback
        RankProgress p = channels.progress(0);
        long round = p == null ? 0 : p.round();
        standbys.oweTaken(System.nanoTime() + STANDBY_AFTER_RECOVERY_MILLIS * 1_000_000L, () -> roundAdvancedFrom(round));
    }

    private int fail(String reason) {
        return fail(reason, true);
    }

    /** As {@link #fail(String)}; {@code announce} false when the failure had its FAILURE line already. */
    private int fail(String reason, boolean announce) {
        return fail(reason, announce, EXIT_JOB_FAILED);
    }

    /** As {@link #fail(String, boolean)}, exiting with {@code exitStatus} (a rank program's own, passed on). */
    private int fail(String reason, boolean announce, int exitStatus) {
        console.event(announce ? LauncherEvents.jobFailure("FAILURE: " + reason + "; stopping the job", reason)
                : ReportedEvent.message("stopping the job: " + reason));
        long start = System.nanoTime();
        launcher.tearDown();
        summary.report(console.elapsedSeconds()).forEach(console::event);
        console.event(summary.saved(spec.worldSize(), jobId, spec.jobId() != null, settings.memoryDirectory(),
                settings.diskDirectory(), commandLine));
        console.event(LauncherEvents.end(String.format(Locale.ROOT, "job %s failed: %s (all ranks stopped in %.0f ms)",
                jobId, reason, (System.nanoTime() - start) / 1e6), false, exitStatus, recoveries, reason));
        return exitStatus;
    }

    /**
     * Ctrl-C / SIGTERM on the launcher (or its normal exit, where nothing is left to do): every rank
     * and standby SIGKILLed (remote ones halted first by closing their control connections, bounded),
     * then the job's node-local stores deleted, on every host, unless the job has an explicit --job-id
     * (it is meant to be restarted with it; ckpt-run --clean removes them).
     */
    private void onSignal() {
        if (launcher.tearingDown() || !launcher.anyAlive()) {
            return;
        }
        signalled = true;
        console.event("launcher interrupted: stopping all ranks" + (spec.standbys() > 0 ? " and standbys" : ""));
        launcher.beginTearDown();
        if (spec.remote()) {
            // killing an ssh client leaves its remote JVM running: closing the control connections halts
            // the remote ranks (the standbys: stop()), then their sessions end by themselves
            channels.controls().values().forEach(ControlChannel::close);
            standbys.stop();
            launcher.awaitAllExit(REMOTE_HALT_MILLIS);
        }
        launcher.tearDown();
        remoteCalls.stopAll();
        if (spec.jobId() == null) {
            NodeLocalStores.wipeJob(settings.memoryDirectory(), jobId);
            if (spec.remote()) {
                cleanRemoteHosts(true);
            }
            console.event("node-local stores of job " + jobId + " deleted" + (spec.remote() ? " on every host" : ""));
        } else {
            if (spec.remote()) {
                cleanRemoteHosts(false);
            }
            console.event("node-local stores of job " + jobId + " kept for a restart with --job-id " + jobId
                    + " (ckpt-run --clean --job-id " + jobId + " removes them)");
        }
        console.flush();
    }

    /**
     * Ends every process of the job left on a host it used (the ranks' and the standbys' hosts, the lost
     * ones tried too) and, when {@code removeStores}, removes its stores there.
     */
    private void cleanRemoteHosts(boolean removeStores) {
        java.util.Set<String> hosts = new java.util.LinkedHashSet<>(spec.mapping().hostNames()); // ranks moved off some
        hosts.addAll(rankHosts); // spare hosts that joined
        if (spec.standbys() > 0) {
            hosts.addAll(standbys.hosts()); // spare hosts ran standbys
        }
        // a host still silent since a recovery went on without it (a partition never healed) is waited for
        // as a lost one, not as a job host: it held up the end of the job 10 s
        java.util.Set<String> silent = new java.util.LinkedHashSet<>(lostHosts);
        silent.addAll(unansweredHosts);
        hosts.removeAll(silent);
        // a lost host may be back (a healed partition) with its old ranks and their stores: tried too
        launcher.cleanRemoteHosts(hosts, silent, settings.memoryDirectory(), removeStores);
    }

    /**
     * Attaches the job's events file: {@code --events FILE}, else {@code events.jsonl} in the job's output
     * directory ({@code --output-dir}, default {@code out/<job id>}). Best effort: a file that cannot be
     * created is one warning, and the job runs without it.
     */
    private void openEvents() {
        java.nio.file.Path file = spec.eventsFile() != null ? spec.eventsFile()
                : (spec.outputDirectory() != null ? spec.outputDirectory() : java.nio.file.Path.of("out", jobId))
                .resolve("events.jsonl");
        try {
            console.recordEventsIn(new EventLog(file), !spec.noReport());
        } catch (IOException e) {
            console.event("WARNING: no events file: " + file + " cannot be created (" + e.getMessage() + ")");
        }
    }

    private String pids() {
        StringBuilder pids = new StringBuilder();
        for (int rank = 0; rank < spec.worldSize(); rank++) {
            RankHost host = currentHost.get(rank);
            if (host != null && (pids.length() == 0 || host.ranks().size() == 1)) {
                pids.append(pids.length() == 0 ? "" : " ").append(host.pid());
            }
        }
        return pids.toString();
    }
}
