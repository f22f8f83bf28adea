package io.jckpt.runtime.launcher;

import io.jckpt.CkptOptions;
import io.jckpt.JobSettings;
import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlListener;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ControlServer;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.control.RankExit;
import io.jckpt.runtime.control.RecoverFrame;
import io.jckpt.runtime.multicore.MulticoreHost;
import io.jckpt.runtime.rank.RankEnvironment;
import io.jckpt.runtime.rank.RankMain;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
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
 * state (ranks, hosts, epoch, recovery in progress) is that thread's alone; the pure parts live beside
 * it ({@link FailureTriage}, {@link ExchangeCoordinator}, {@link StandbyPool}, {@link KillSpec}). Rank
 * start-up and failure injection are the next to move out.
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
    private final InetAddress loopback;
    private final BlockingQueue<JobEvent> events = new LinkedBlockingQueue<>();
    private final List<RankHost> hosts = new CopyOnWriteArrayList<>();
    private final Map<Integer, RankHost> currentHost = new ConcurrentHashMap<>();
    private final Map<Integer, ControlConnection> controls = new ConcurrentHashMap<>();
    private final Map<Integer, RankExit> reports = new ConcurrentHashMap<>();
    private final ExchangeCoordinator exchanges;
    private volatile boolean tearingDown;
    /** Set by a signal's teardown, which also deals with the node-local stores. */
    private volatile boolean signalled;

    // supervisor-thread state
    private int controlPort;
    private PortExchange exchange;
    private int epoch;
    private int recoveries;
    private final TreeSet<Integer> completed = new TreeSet<>();
    private final TreeSet<Integer> exitedOk = new TreeSet<>();
    private boolean jobCompleteSent;
    private long jobCompleteNanos;
    private final FailureTriage triage = new FailureTriage(System::nanoTime, COALESCE_MILLIS, PROGRAM_ERROR_GRACE_MILLIS);
    private Recovery recovery;
    private final List<KillSpec> pendingKills = new ArrayList<>();
    private final Map<Integer, long[]> progress = new ConcurrentHashMap<>();
    private long shownRound;
    private long shownAtNanos;
    private int exitStatus = -1;
    private boolean rollingBack;
    private final java.util.Random chaos;
    private final Map<Integer, Long> lastHeard = new ConcurrentHashMap<>();
    private final Map<Integer, Integer> spawnEpoch = new ConcurrentHashMap<>();
    private int[] lastFailed = new int[0];
    private final StandbyPool standbys;
    /** The ranks' SLF4J binding: the program's own, else the launcher's slf4j-simple. */
    private final RankLogging logging;
    /** The checkpoint settings as the launcher sees them (its options, then the environment). */
    private final JobSettings settings;
    private final FailureDetector.View detectorView = new FailureDetector.View() {
        @Override
        public int worldSize() {
            return spec.worldSize();
        }

        @Override
        public long lastHeardNanos(int rank) {
            return lastHeard.getOrDefault(rank, System.nanoTime());
        }

        @Override
        public long localPid(int rank) {
            RankHost host = currentHost.get(rank);
            return host == null ? -1 : host.pid();
        }

        @Override
        public boolean expectedAlive(int rank) {
            RankHost host = currentHost.get(rank);
            // silence counts from the rank's connection on: a JVM still starting is bounded by the start timeout
            return host != null && host.isAlive() && controls.containsKey(rank) && !completed.contains(rank)
                    && !jobCompleteSent && !triage.isPending(rank);
        }
    };
    private double nextRandomKill;

    /** Timings of one recovery, reported when every rank runs again. */
    private static final class Recovery {
        final int epoch;
        final long detectedNanos;
        long respawnedNanos;
        /** When the new world's port exchange completed: every rank is in MPI.Init of the new world. */
        long worldNanos;
        /** Ranks whose program (re-)started in the new epoch. */
        int ready;
        /** Replacements that came from warm standbys. */
        int fromStandby;

        Recovery(int epoch, long detectedNanos) {
            this.epoch = epoch;
            this.detectedNanos = detectedNanos;
        }
    }

    Job(LaunchSpec spec, JckptHome home, JobConsole console) throws IOException {
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
        this.pendingKills.addAll(spec.kills());
        this.chaos = new java.util.Random(spec.seed());
        this.nextRandomKill = spec.mtbfSeconds() > 0 ? exponential() : Double.MAX_VALUE;
        this.loopback = InetAddress.getByName(LaunchSpec.LOOPBACK);
        this.exchanges = new ExchangeCoordinator(spec.worldSize(), controls::get);
        this.standbys = new StandbyPool(this::startStandby, console);
        this.logging = RankLogging.decide(spec.classPath(), home.simpleBinding(), spec.logLevel(), spec.jvmOptions());
        Map<String, String> seen = new HashMap<>(System.getenv());
        spec.settings().forEach((setting, value) -> seen.put(setting.launcherVariable(), value));
        // system properties of this JVM are not the ranks' (theirs come with --jvm-opt -Djckpt.*)
        this.settings = JobSettings.of(seen, new java.util.Properties());
    }

    /** Runs the job to its end and returns the launcher's exit status. */
    int run() throws IOException {
        try (ControlServer control = new ControlServer(loopback, jobId, secret, spec.worldSize(), new Listener())) {
            controlPort = control.port();
            console.event("job " + jobId + ": " + spec.worldSize() + " ranks of " + spec.mainClass() + " on "
                    + spec.device().cliName() + (spec.onFailure() == LaunchSpec.FailurePolicy.RESPAWN
                    ? ", failed ranks re-spawned (at most " + spec.maxRecoveries() + " recoveries)"
                    : spec.onFailure() == LaunchSpec.FailurePolicy.RELAUNCH
                    ? ", every rank relaunched after a failure (at most " + spec.maxRecoveries() + " recoveries)" : "")
                    + (spec.detectors().isEmpty() ? "" : "; failure detectors: process exit, "
                    + String.join(", ", spec.detectors().stream().map(FailureDetector::name).toList()))
                    + (spec.onFailure() != LaunchSpec.FailurePolicy.FAIL && spec.device() == Device.NIODEV
                    ? "; " + (spec.standbys() == 0 ? "no warm standby" : spec.standbys() + " warm standby")
                    + " (" + Runtime.getRuntime().availableProcessors() + " cores)" : ""));
            console.event("checkpoint settings (the program's own builder calls win): " + settingsLine());
            console.event("logging: " + logging.description());
            // this launcher owns the job's node-local stores from now on; stores of jobs whose
            // launcher is gone (killed, or a machine reboot left /dev/shm alone) are removed
            NodeLocalStores.claim(memoryDirectory(), jobId, spec.jobId() != null);
            NodeLocalStores.removeStale(memoryDirectory(), null, false, jobId, console::event);
            try {
                if (spec.device() == Device.NIODEV) {
                    exchange = newExchange();
                    for (int rank = 0; rank < spec.worldSize(); rank++) {
                        startNiodevRank(rank, false);
                    }
                } else {
                    startMulticore();
                }
                exitStatus = supervise();
                return exitStatus;
            } finally {
                standbys.stop();
                if (exchange != null) {
                    exchange.close();
                }
                // node-local stores are for recoveries within this job; a failed job started with
                // --job-id keeps them, so that a restart with the same id can restore from them
                if (signalled) {
                    // onSignal deleted or kept them
                } else if (exitStatus == EXIT_OK || spec.jobId() == null) {
                    NodeLocalStores.wipeJob(memoryDirectory(), jobId);
                } else {
                    console.event("node-local stores of job " + jobId + " kept for a restart with --job-id " + jobId
                            + " (ckpt-run --clean --job-id " + jobId + " removes them)");
                }
            }
        } finally {
            console.flush();
        }
    }

    private PortExchange newExchange() throws IOException {
        return new PortExchange(loopback, spec.hosts(), spec.startTimeoutMillis(),
                "jckpt-port-exchange-" + jobId + "-" + epoch);
    }

    private void startNiodevRank(int rank, boolean respawned) throws IOException {
        Map<String, String> env = commonEnvironment();
        env.put(RankEnvironment.RANK, Integer.toString(rank));
        env.put(RankEnvironment.NEW_RANK, Boolean.toString(respawned));
        env.put(RankEnvironment.RECOVERY, Boolean.toString(respawned));
        env.put(RankEnvironment.MPJ_CONF, exchange.mpjConf(LaunchSpec.LOOPBACK));
        List<String> command = javaCommand(rankClassPath(), RankMain.class.getName());
        RankHost host = startHost("rank-" + rank + "-epoch-" + epoch, List.of(rank), command, env, "[rank " + rank + "] ");
        currentHost.put(rank, host);
        spawnEpoch.put(rank, epoch);
        lastHeard.put(rank, System.nanoTime());
    }

    private void startMulticore() throws IOException {
        Map<String, String> env = commonEnvironment();
        env.put(RankEnvironment.NEW_RANK, "false");
        env.put(RankEnvironment.RECOVERY, "false");
        env.put(RankEnvironment.LIB_CLASSPATH, String.join(File.pathSeparator, rankClassPath()));
        List<String> command = javaCommand(rankClassPath(), MulticoreHost.class.getName());
        List<Integer> ranks = new ArrayList<>();
        for (int rank = 0; rank < spec.worldSize(); rank++) {
            ranks.add(rank);
        }
        RankHost host = startHost("multicore", ranks, command, env, "");
        for (int rank : ranks) {
            currentHost.put(rank, host);
        }
    }

    /** Starts the JVM of warm standby {@code id} (see {@link io.jckpt.runtime.rank.RankMain}). */
    private RankHost startStandby(int id) throws IOException {
        Map<String, String> env = commonEnvironment();
        env.put(RankEnvironment.STANDBY, Integer.toString(id));
        List<String> command = javaCommand(rankClassPath(), RankMain.class.getName());
        return startHost("standby-" + id, List.of(), command, env, "[standby " + id + "] ");
    }

    /** Whether rank 0 reported a checkpoint round other than {@code round}: its program runs. */
    private boolean roundAdvancedFrom(long round) {
        long[] p = progress.get(0);
        return p != null && p[0] != round;
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
        lastHeard.put(rank, System.nanoTime());
        if (!StandbyPool.assign(standby, rank, recoverFrame)) {
            return false; // the caller forks instead; this host's exit is that of a replaced process
        }
        console.event("rank " + rank + " taken over by standby " + standby.id + " (pid " + standby.host.pid() + ")");
        return true;
    }

    private Map<String, String> commonEnvironment() {
        Map<String, String> env = new HashMap<>();
        env.put(RankEnvironment.SIZE, Integer.toString(spec.worldSize()));
        env.put(RankEnvironment.JOB_ID, jobId);
        env.put(RankEnvironment.SECRET, secret.toHex());
        env.put(RankEnvironment.CONTROL, LaunchSpec.LOOPBACK + ":" + controlPort);
        env.put(RankEnvironment.EPOCH, Integer.toString(epoch));
        env.put(RankEnvironment.DEVICE, spec.device().cliName());
        env.put(RankEnvironment.ON_FAILURE, spec.onFailure() == LaunchSpec.FailurePolicy.FAIL ? "fail" : "respawn");
        spec.detectors().stream().filter(d -> d instanceof HeartbeatDetector).map(d -> (HeartbeatDetector) d)
                .mapToLong(HeartbeatDetector::periodMillis).min()
                .ifPresent(period -> env.put(RankEnvironment.HEARTBEAT_MILLIS, Long.toString(period)));
        env.put("MPJ_HOME", home.mpjHome().toString());
        env.put(RankEnvironment.MPJ_CLASSPATH, String.join(File.pathSeparator, home.mpjClassPath()));
        env.put(RankEnvironment.APP_CLASSPATH, String.join(File.pathSeparator, spec.classPath()));
        spec.settings().forEach((setting, value) -> env.put(setting.launcherVariable(), value));
        if (spec.ringOrder() != null) {
            env.put(RankEnvironment.RING_ORDER, spec.ringOrder().text()); // unset: the identity
        }
        return env;
    }

    /** The class path of rank, standby and multicore JVMs: the library's, then the ranks' SLF4J binding. */
    private List<String> rankClassPath() {
        List<String> classPath = new ArrayList<>(home.libClassPath());
        classPath.addAll(logging.classPath());
        return classPath;
    }

    /** The launcher's view of the settings: each with its value and origin, or the default. */
    private String settingsLine() {
        List<String> parts = new ArrayList<>();
        for (JobSettings.Setting setting : JobSettings.Setting.values()) {
            parts.add(settings.lookup(setting).map(v -> setting.label() + "=" + v.text() + " (" + v.origin() + ")")
                    .orElse(setting.label() + "=default"));
        }
        return String.join(", ", parts);
    }

    /**
     * Where the ranks keep their node-local stores unless the program sets another directory: the
     * launcher's {@code --memory-dir}, else {@code JCKPT_MEMORY_DIR}, else the default.
     */
    private java.nio.file.Path memoryDirectory() {
        return settings.lookup(JobSettings.Setting.MEMORY_DIR).map(v -> java.nio.file.Path.of(v.text()))
                .orElseGet(CkptOptions::defaultMemoryDirectory);
    }

    private List<String> javaCommand(List<String> classPath, String mainClass) {
        List<String> command = new ArrayList<>();
        command.add(JckptHome.javaExecutable());
        command.addAll(home.jvmFlags());
        command.addAll(logging.jvmFlags());
        command.addAll(spec.jvmOptions());
        command.add("-cp");
        command.add(String.join(File.pathSeparator, classPath));
        command.add(mainClass);
        command.add(spec.mainClass());
        command.addAll(spec.programArgs());
        return command;
    }

    private RankHost startHost(String name, List<Integer> ranks, List<String> command, Map<String, String> env,
                               String prefix) throws IOException {
        RankHost[] self = new RankHost[1];
        RankHost host = RankHost.start(name, ranks, command, env, prefix, console,
                status -> events.add(new JobEvent.HostExited(self[0], status)));
        self[0] = host;
        hosts.add(host);
        if (tearingDown) {
            host.kill(); // started by the supervisor while a signal's teardown ran: not left behind
        }
        return host;
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
            if (tearingDown) {
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
            if (recovery != null && recovery.worldNanos == 0 && exchange.completedNanos() != 0) {
                recovery.worldNanos = exchange.completedNanos();
            }
            if (recovery != null && recovery.worldNanos != 0 && recovery.ready >= spec.worldSize()) {
                reportRecovered();
            }
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
                    console.event("all " + connected + " ranks running (pids " + pids() + ")");
                    // standbys start once the ranks run: their warm-up must not slow the job's start
                    standbys.owe(spec.standbys(), 0, () -> true);
                    standbys.replenish();
                }
            } else if (event instanceof JobEvent.StandbyReady ready) {
                standbys.ready(ready.id(), ready.warmNanos());
            } else if (event instanceof JobEvent.RankReady) {
                if (recovery != null) {
                    recovery.ready++;
                }
            } else if (event instanceof JobEvent.RankReported reported) {
                RankExit exit = reported.exit();
                if (exit.epoch() != epoch) {
                    continue; // a program of an abandoned world: its end means nothing
                }
                if (exit.status() != 0) {
                    Integer status = onProgramError(reported.rank(), "rank " + reported.rank() + " " + exit.reason(),
                            exit.detail());
                    if (status != null) {
                        return status;
                    }
                } else if (completed.add(reported.rank()) && completed.size() == spec.worldSize()) {
                    jobComplete();
                }
            } else if (event instanceof JobEvent.HostExited exited) {
                RankHost host = exited.host();
                if (host.ranks().isEmpty()) {
                    standbys.exited(host, exited.status(), tearingDown || jobCompleteSent);
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
                        console.event("rank " + rank + " finished");
                    }
                    continue;
                }
                // System.exit(n) or a JVM that could not start: the program's own doing, unless it
                // echoes another rank's death; death by a signal: a process failure
                Integer status = Signals.bySignal(exited.status())
                        ? onRankFailure(rank, describe(host, exited.status()))
                        : onProgramError(rank, describe(host, exited.status()), "");
                if (status != null) {
                    return status;
                }
            }
        }
        console.event("job " + jobId + " finished: all " + spec.worldSize() + " ranks completed"
                + (recoveries > 0 ? " after " + recoveries + " recover" + (recoveries == 1 ? "y" : "ies") : ""));
        return EXIT_OK;
    }

    /** Seconds until the next random failure: exponential with mean --mtbf. */
    private double exponential() {
        return -spec.mtbfSeconds() * Math.log(1 - chaos.nextDouble());
    }

    /**
     * Fires the --kill specs that are due, and the random failures of --mtbf: SIGKILL, and for node
     * loss the node-local store wiped.
     */
    private void injectDueFailures() {
        if (console.elapsedSeconds() >= nextRandomKill && !jobCompleteSent && recovery == null
                && triage.pending().isEmpty()) {
            int victim = chaos.nextInt(spec.worldSize());
            pendingKills.add(new KillSpec(List.of(victim), 0, -1, false, false,
                    String.format(Locale.ROOT, "%d@%.2fs (random, mtbf %.1fs)", victim, console.elapsedSeconds(),
                            spec.mtbfSeconds())));
            nextRandomKill = console.elapsedSeconds() + exponential();
        }
        if (pendingKills.isEmpty()) {
            return;
        }
        boolean rollbackUnderWay = rollingBack;
        rollingBack = false;
        long newest = progress.values().stream().mapToLong(p -> p[0]).max().orElse(0);
        for (java.util.Iterator<KillSpec> it = pendingKills.iterator(); it.hasNext(); ) {
            KillSpec kill = it.next();
            if (!kill.due(console.elapsedSeconds(), newest, rollbackUnderWay)) {
                continue;
            }
            it.remove();
            List<RankHost> victims = new ArrayList<>();
            for (int rank : kill.ranks()) {
                RankHost host = currentHost.get(rank);
                // a rank whose program completed is not part of the computation any more: killing it
                // would start a recovery of a finished job
                if (host != null && host.isAlive() && !completed.contains(rank) && !jobCompleteSent
                        && !victims.contains(host)) {
                    victims.add(host);
                }
            }
            if (victims.isEmpty()) {
                console.event("failure " + kill.text() + " not injected: rank" + (kill.ranks().size() > 1 ? "s " : " ")
                        + kill.ranks().toString().replaceAll("[\\[\\]]", "") + " already completed or gone");
                continue;
            }
            console.event("injecting failure " + kill.text() + ": SIGKILL to rank" + (kill.ranks().size() > 1 ? "s " : " ")
                    + kill.ranks().toString().replaceAll("[\\[\\]]", "") + (kill.wipe() ? " and their node-local stores wiped"
                    : "") + (newest > 0 ? " (newest checkpoint round " + newest + ")" : ""));
            victims.forEach(RankHost::kill);
            for (RankHost host : victims) {
                host.awaitExit(TEARDOWN_MILLIS); // gone before its store is wiped and before recovery starts
            }
            if (kill.wipe()) {
                for (int rank : kill.ranks()) {
                    NodeLocalStores.wipe(memoryDirectory(), jobId, rank);
                }
            }
            // the victims of one injection are recovered together, however late the reaper reports them
            for (RankHost host : victims) {
                onRankFailure(host.ranks().get(0), "rank " + host.ranks().get(0) + " (pid " + host.pid() + ") "
                        + "killed by the injected failure " + kill.text());
            }
        }
    }

    /** At most one progress line a second: the newest round rank 0 reported. */
    private void showProgress() {
        long[] p = progress.get(0);
        long now = System.nanoTime();
        // nothing during a recovery (a survivor of the old world may still report its rounds) nor
        // once every rank completed
        if (p == null || p[0] == shownRound || now - shownAtNanos < 1_000_000_000L || recovery != null
                || jobCompleteSent || tearingDown) {
            return;
        }
        shownRound = p[0];
        shownAtNanos = now;
        console.event(String.format(Locale.ROOT, "checkpoint round %d: %s per rank, here() blocked %.3f ms (rank 0)",
                p[0], bytes(p[1]), p[2] / 1e6));
    }

    private static String bytes(long n) {
        if (n < 10_000) {
            return n + " B";
        }
        if (n < 10_000_000) {
            return (n / 1024) + " KiB";
        }
        return (n >> 20) + " MiB";
    }

    /**
     * A rank re-spawned for an epoch that a newer recovery replaced before the rank had connected
     * never heard that recovery's RECOVER: send it now, so that it joins the current world.
     */
    private void catchUp(int rank) {
        Integer spawned = spawnEpoch.get(rank);
        ControlConnection connection = controls.get(rank);
        if (spawned != null && spawned < epoch && connection != null) {
            try {
                connection.send(ControlProtocol.RECOVER, new RecoverFrame(epoch, exchange.mpjConf(LaunchSpec.LOOPBACK),
                        lastFailed).encode());
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
        for (ControlConnection connection : controls.values()) {
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
            RankExit report = reports.get(rank);
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
        if (spec.onFailure() == LaunchSpec.FailurePolicy.FAIL || spec.device() != Device.NIODEV) {
            return fail(description);
        }
        for (String line : triage.failure(rank, description, epoch, processFailure)) {
            console.event(line);
        }
        return null;
    }

    /**
     * A rank's program threw out of main, or its process exited with a code of its own: a program
     * error that fails the job {@link #PROGRAM_ERROR_GRACE_MILLIS} later, unless it echoes a process
     * failure of another rank detected within that window before or after it (then it is recovered
     * like that failure, or under --on-failure fail the job fails naming that process failure), or
     * unless --retry-program-errors.
     */
    private Integer onProgramError(int rank, String description, String stackTrace) {
        if (spec.device() != Device.NIODEV
                || (spec.onFailure() != LaunchSpec.FailurePolicy.FAIL && spec.retryProgramErrors())) {
            return onRankFailure(rank, description, false);
        }
        for (String line : triage.programError(rank, description, stackTrace, epoch)) {
            console.event(line);
        }
        return null;
    }

    /** No process failed around the held program errors: the job fails, naming them. */
    private int failProgramError() {
        TreeMap<Integer, FailureTriage.HeldError> heldErrors = triage.held();
        Map.Entry<Integer, FailureTriage.HeldError> first = heldErrors.firstEntry();
        FailureTriage.HeldError error = first.getValue();
        boolean recoveryFailed = heldErrors.values().stream().anyMatch(e -> duringRecovery(e));
        if (!error.stackTrace().isEmpty()) {
            // the only place a rank's stack trace is printed (RankMain prints just the one-line "threw")
            console.event("rank " + first.getKey() + "'s program failed:\n" + error.stackTrace().stripTrailing());
        }
        String others = heldErrors.size() > 1 ? " (and " + (heldErrors.size() - 1) + " more rank"
                + (heldErrors.size() > 2 ? "s" : "") + ")" : "";
        heldErrors.clear();
        if (recoveryFailed) {
            String after = epoch > 0 ? "epoch " + epoch + ", after the failure of rank" + (lastFailed.length > 1 ? "s " : " ")
                    + java.util.Arrays.toString(lastFailed).replaceAll("[\\[\\]]", "")
                    : "restoring the checkpoint of job " + jobId;
            return fail("recovery failed (" + after + "): " + error.description() + others + "; not retried");
        }
        if (spec.onFailure() == LaunchSpec.FailurePolicy.FAIL) {
            return fail(error.description() + others);
        }
        return fail(error.description() + others + ": a program error, not retried (no rank process failed within "
                + PROGRAM_ERROR_GRACE_MILLIS + " ms of it; --retry-program-errors recovers such errors too)");
    }

    /**
     * Whether a program error happened while restoring a checkpoint: a {@code NotRecoverableException},
     * or anything thrown out of {@code Ckpt.open} or {@code Ckpt.rollback} after a recovery started
     * (missing copies, an exchange that timed out, a store that could not be opened).
     */
    private boolean duringRecovery(FailureTriage.HeldError error) {
        String text = error.description() + "\n" + error.stackTrace();
        if (text.contains("io.jckpt.NotRecoverableException")) {
            return true;
        }
        return epoch > 0 && (text.contains("at io.jckpt.Ckpt.open(") || text.contains("at io.jckpt.Ckpt.rollback(")
                || text.contains("at io.jckpt.Ckpt.rollbackObject("));
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
        triage.recovered();
        if (recoveries >= spec.maxRecoveries()) {
            return fail(what + " (recovery limit of " + spec.maxRecoveries() + " reached)", false);
        }
        recoveries++;
        epoch++;
        completed.clear();
        exchanges.startEpoch(epoch);
        exchange.close();
        exchange = newExchange();
        recovery = new Recovery(epoch, detected);
        console.event("recovering: epoch " + epoch + (failed.length == spec.worldSize()
                ? ", every rank failed: relaunching all (they restore from node-local stores or disk)"
                : ", re-spawning rank" + (failed.length > 1 ? "s " : " ")
                + java.util.Arrays.toString(failed).replaceAll("[\\[\\]]", "")));
        lastFailed = failed;
        byte[] frame = new RecoverFrame(epoch, exchange.mpjConf(LaunchSpec.LOOPBACK), failed).encode();
        // replacements first: a replacement has the longest way into the new world
        for (int rank : failed) {
            StandbyPool.Standby standby = standbys.take();
            if (standby != null && assign(standby, rank, frame)) {
                recovery.fromStandby++;
            } else {
                startNiodevRank(rank, true);
            }
        }
        recovery.respawnedNanos = System.nanoTime();
        for (Map.Entry<Integer, ControlConnection> entry : controls.entrySet()) {
            if (java.util.Arrays.binarySearch(failed, entry.getKey()) < 0) {
                try {
                    entry.getValue().send(ControlProtocol.RECOVER, frame);
                } catch (IOException e) {
                    // that rank died meanwhile: its exit starts another recovery
                }
            }
        }
        return -1;
    }

    private void reportRecovered() throws IOException {
        Recovery r = recovery;
        recovery = null;
        rollingBack = true; // for --kill RANKS@recovery: the ranks are rolling back now
        console.event(String.format(Locale.ROOT,
                "recovered: all %d ranks in a new MPJ world (epoch %d) %.0f ms after the failure was detected"
                        + " (respawn started after %.0f ms%s)",
                spec.worldSize(), r.epoch, (r.worldNanos - r.detectedNanos) / 1e6,
                (r.respawnedNanos - r.detectedNanos) / 1e6,
                r.fromStandby == 0 ? "" : r.fromStandby == 1 ? ", 1 rank from a standby"
                        : ", " + r.fromStandby + " ranks from standbys"));
        // replacements for the used standbys, once the program runs again: their warm-up must not
        // take the CPU from the ranks' rollback
        long[] p = progress.get(0);
        long round = p == null ? 0 : p[0];
        standbys.owe(r.fromStandby, System.nanoTime() + STANDBY_AFTER_RECOVERY_MILLIS * 1_000_000L,
                () -> roundAdvancedFrom(round));
    }

    private int fail(String reason) {
        return fail(reason, true);
    }

    /** As {@link #fail(String)}; {@code announce} false when the failure had its FAILURE line already. */
    private int fail(String reason, boolean announce) {
        console.event(announce ? "FAILURE: " + reason + "; stopping the job" : "stopping the job: " + reason);
        long start = System.nanoTime();
        tearDown();
        console.event(String.format(Locale.ROOT, "job %s failed: %s (all ranks stopped in %.0f ms)",
                jobId, reason, (System.nanoTime() - start) / 1e6));
        return EXIT_JOB_FAILED;
    }

    /** SIGKILL to every rank, then a bounded wait for them to be gone and their output forwarded. */
    private void tearDown() {
        tearingDown = true;
        for (RankHost host : hosts) {
            host.kill();
        }
        long deadline = System.nanoTime() + TEARDOWN_MILLIS * 1_000_000L;
        for (RankHost host : hosts) {
            long left = Math.max(1, (deadline - System.nanoTime()) / 1_000_000L);
            if (!host.awaitExit(left)) {
                console.event("WARNING: " + host.name() + " (pid " + host.pid() + ") still alive after SIGKILL");
            }
        }
        for (RankHost host : hosts) {
            host.drainOutput(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
        }
    }

    /**
     * Ctrl-C / SIGTERM on the launcher (or its normal exit, where nothing is left to do): every rank
     * and standby SIGKILLed, then the job's node-local stores deleted, unless the job has an
     * explicit --job-id (it is meant to be restarted with it; ckpt-run --clean removes them).
     */
    private void onSignal() {
        if (tearingDown || hosts.stream().noneMatch(RankHost::isAlive)) {
            return;
        }
        signalled = true;
        console.event("launcher interrupted: stopping all ranks" + (spec.standbys() > 0 ? " and standbys" : ""));
        tearDown();
        if (spec.jobId() == null) {
            NodeLocalStores.wipeJob(memoryDirectory(), jobId);
            console.event("node-local stores of job " + jobId + " deleted");
        } else {
            console.event("node-local stores of job " + jobId + " kept for a restart with --job-id " + jobId
                    + " (ckpt-run --clean --job-id " + jobId + " removes them)");
        }
        console.flush();
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

    private final class Listener implements ControlListener {
        @Override
        public void connected(int rank, ControlConnection connection) {
            if (rank < 0) {
                standbys.connected(ControlProtocol.STANDBY_CLAIM_BASE - rank, connection);
                return;
            }
            controls.put(rank, connection);
            events.add(new JobEvent.RankConnected(rank));
        }

        @Override
        public void frame(int rank, byte type, byte[] payload) {
            if (rank < 0) {
                int id = ControlProtocol.STANDBY_CLAIM_BASE - rank;
                long warmNanos = standbys.frame(id, type, payload);
                if (warmNanos >= 0) {
                    events.add(new JobEvent.StandbyReady(id, warmNanos));
                }
                return;
            }
            lastHeard.put(rank, System.nanoTime());
            try {
                if (type == ControlProtocol.RANK_ROUND) {
                    ByteBuffer b = ByteBuffer.wrap(payload);
                    progress.put(rank, new long[] {b.getLong(), b.getLong(), b.getLong()});
                } else if (type == ControlProtocol.RANK_READY) {
                    // its program (re)starts: rounds it reported before belong to an abandoned world
                    // (frames of one connection arrive in order)
                    progress.remove(rank);
                    events.add(new JobEvent.RankReady(rank));
                } else if (type == ControlProtocol.RANK_EXIT) {
                    RankExit exit = RankExit.decode(payload);
                    reports.put(rank, exit);
                    events.add(new JobEvent.RankReported(rank, exit));
                } else if (type == ControlProtocol.EXCHANGE) {
                    String problem = exchanges.contribute(rank, ExchangeFrames.Contribution.decode(payload));
                    if (problem != null) {
                        console.event((problem.startsWith("collective") ? "ERROR: " : "WARNING: ") + problem);
                    }
                } else if (type == ControlProtocol.RANK_EVENT) {
                    console.event("rank " + rank + ": " + new java.io.DataInputStream(
                            new java.io.ByteArrayInputStream(payload)).readUTF());
                }
            } catch (IOException e) {
                console.event("WARNING: malformed control frame from rank " + rank + ": " + e.getMessage());
            }
        }

        @Override
        public void disconnected(int rank, ControlConnection connection) {
            if (rank >= 0) {
                controls.remove(rank, connection);
            } // a standby's connection ends when it becomes a rank or dies (its process exit says which)
        }
    }
}

