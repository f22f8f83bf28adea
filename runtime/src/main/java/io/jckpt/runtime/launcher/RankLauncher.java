package io.jckpt.runtime.launcher;

import io.jckpt.imem.JobSecret;
import io.jckpt.runtime.multicore.MulticoreHost;
import io.jckpt.runtime.rank.RankEnvironment;
import io.jckpt.runtime.rank.RankMain;
import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * Starts the job's processes and stops them: a rank JVM (niodev), the one JVM of every rank
 * (multicore) and warm standby JVMs, each with its command line (java, the JVM flags, the class
 * path, the launcher-side main class, then the program and its arguments) and its environment
 * ({@link RankEnvironment}). Owns every process it started ({@link #tearDown()}); a process's exit
 * reaches the job as a {@link JobEvent.HostExited}. Which process hosts which rank is the job's
 * business.
 */
final class RankLauncher {
    private static final long TEARDOWN_MILLIS = 2_000;

    private final LaunchSpec spec;
    private final JckptHome home;
    private final RankLogging logging;
    private final String jobId;
    private final JobSecret secret;
    private final JobConsole console;
    private final Consumer<JobEvent> events;
    private final List<RankHost> hosts = new CopyOnWriteArrayList<>();
    /** util-linux's setsid, which starts the remote shells' agents in sessions of their own; null when absent. */
    private static final String SETSID = java.util.stream.Stream.of("/usr/bin/setsid", "/bin/setsid")
            .filter(p -> new File(p).canExecute()).findFirst().orElse(null);
    private volatile int controlPort;
    private volatile String controlHost = LaunchSpec.LOOPBACK;
    /** The job's key in hex, given to every rank and standby (never on a command line, never logged). */
    private volatile String jobKeyHex;
    private volatile boolean tearingDown;

    /** How long the end-of-job clean-up waits for a lost host's answer (it may be back, or still down). */
    static final long LOST_HOST_WIPE_MILLIS = 3_000;

    /**
     * @param logging the ranks' SLF4J binding (its jars and flags)
     * @param events  where process exits go (called from the JDK's process reaper)
     */
    RankLauncher(LaunchSpec spec, JckptHome home, RankLogging logging, String jobId, JobSecret secret,
                 JobConsole console, Consumer<JobEvent> events) {
        this.spec = spec;
        this.home = home;
        this.logging = logging;
        this.jobId = jobId;
        this.secret = secret;
        this.console = console;
        this.events = events;
    }

    /** The launcher's control server listens on {@code port}: every process started from now on connects there. */
    void controlPort(int port) {
        this.controlPort = port;
    }

    /** The launcher's control server listens on {@code host} (its bind address): ranks connect there. */
    void controlHost(String host) {
        this.controlHost = host;
    }

    /** Every process started from now on authenticates the job's checkpoints with {@code key} ({@link LauncherJobKey}). */
    void jobKey(byte[] key) {
        this.jobKeyHex = java.util.HexFormat.of().formatHex(key);
    }

    /** Starts the JVM of niodev rank {@code rank} in {@code epoch}, in the MPJ world {@code mpjConf} describes. */
    RankHost startRank(int rank, int epoch, boolean respawned, String mpjConf) throws IOException {
        return startRank(rank, epoch, respawned, mpjConf, null, -1);
    }

    /**
     * As above, on {@code host} through the remote shell when it is not null ({@link LaunchSpec#remote()}):
     * the job secret and key go to the remote shell's standard input, the rest of the environment on its
     * command line; the remote JVM's output comes back through the agent's pipes. A re-spawned rank gets
     * {@code failureAgeMicros} (how long ago the launcher detected the failure; -1: none) in
     * {@link RankEnvironment#FAILURE_AGE_MICROS}: it counts its restart from the detection.
     */
    RankHost startRank(int rank, int epoch, boolean respawned, String mpjConf, String host, long failureAgeMicros)
            throws IOException {
        Map<String, String> env = rankEnvironment(rank, epoch, respawned, mpjConf);
        if (failureAgeMicros >= 0) {
            env.put(RankEnvironment.FAILURE_AGE_MICROS, Long.toString(failureAgeMicros));
        }
        String name = "rank-" + rank + "-epoch-" + epoch;
        List<String> command = javaCommand(RankMain.class.getName());
        if (host == null) {
            return startHost(name, List.of(rank), command, env, null, "[rank " + rank + "] ");
        }
        return startRemote(name, host, List.of(rank), command, env, "[rank " + rank + "] ");
    }

    /**
     * Starts {@code command} on {@code host} through the remote shell: {@code JCKPT_HOST_ADDRESS} = the
     * host, the job secret and key on the agent's standard input (read by the remote shell, never on a
     * command line), the rest of {@code env} on the remote {@code env} line.
     */
    private RankHost startRemote(String name, String host, List<Integer> ranks, List<String> command,
                                 Map<String, String> env, String prefix) throws IOException {
        env.put(RankEnvironment.HOST_ADDRESS, host);
        // a partition may keep the close of its control connection from reaching it: it halts itself
        // once the launcher has not answered its heartbeats for the heartbeat timeout
        spec.detectors().stream().filter(d -> d instanceof HeartbeatDetector).map(d -> (HeartbeatDetector) d)
                .mapToLong(HeartbeatDetector::timeoutMillis).min()
                .ifPresent(timeout -> env.put(RankEnvironment.LAUNCHER_TIMEOUT_MILLIS, Long.toString(timeout)));
        String secretHex = env.remove(RankEnvironment.SECRET);
        String keyHex = env.remove(RankEnvironment.JOB_KEY);
        List<String> remote = new ArrayList<>();
        if (SETSID != null) {
            // a session of its own: Ctrl-C in the launcher's terminal must not end the agent (its exit 255
            // would read as a lost host); the launcher stops its remote JVM through the control connection
            remote.add(SETSID);
        }
        remote.addAll(spec.remoteShell().commandReportingExit(host, env,
                List.of(RankEnvironment.SECRET, RankEnvironment.JOB_KEY), command));
        return startHost(name + "@" + host, ranks, remote, Map.of(),
                io.jckpt.runtime.hosts.RemoteShell.stdinSecrets(List.of(secretHex, keyHex)), prefix,
                spec.remoteShell()::localExit);
    }

    /**
     * Best effort, bounded, on every host at once through the remote shell: SIGKILL to every process of the
     * job still there (its environment names the job: a rank the launcher declared failed that its host
     * kept, stopped or cut off; the end of a failed job), then, when {@code removeStores}, the removal of
     * the job's node-local store directory (each host's own /dev/shm; a host that is gone has nothing left).
     * 10 s for the job's hosts, {@value #LOST_HOST_WIPE_MILLIS} ms for the {@code lost} ones (one that came
     * back, a healed partition, holds its old ranks and their stores; one still down must not hold the
     * job's end for long). Each process killed is named on the console.
     */
    void cleanRemoteHosts(java.util.Collection<String> hostNames, java.util.Collection<String> lost,
                          java.nio.file.Path memoryDirectory, boolean removeStores) {
        Map<String, Process> cleaners = new java.util.LinkedHashMap<>();
        Map<String, Long> deadlines = new HashMap<>();
        String dir = memoryDirectory.resolve(jobId).toString();
        String script = sweepScript() + (removeStores ? "; rm -rf -- " + io.jckpt.runtime.hosts.RemoteShell.quote(dir) : "");
        long start = System.nanoTime();
        java.util.Set<String> all = new java.util.LinkedHashSet<>(hostNames);
        all.addAll(lost);
        for (String host : all) {
            try {
                Process p = new ProcessBuilder(spec.remoteShell().command(host, Map.of(), List.of(),
                        List.of("sh", "-c", script))).redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
                cleaners.put(host, p);
                deadlines.put(host, start + (lost.contains(host) ? LOST_HOST_WIPE_MILLIS : 10_000L) * 1_000_000L);
            } catch (IOException e) {
                console.event("WARNING: cannot clean up on " + host + ": " + e.getMessage());
            }
        }
        for (Map.Entry<String, Process> cleaner : cleaners.entrySet()) {
            Process p = cleaner.getValue();
            try {
                if (!p.waitFor(Math.max(1, (deadlines.get(cleaner.getKey()) - System.nanoTime()) / 1_000_000L),
                        java.util.concurrent.TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    continue;
                }
                String killed = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8)
                        .lines().filter(l -> l.matches("[0-9]+")).collect(java.util.stream.Collectors.joining(", "));
                if (!killed.isEmpty()) {
                    console.event("host " + cleaner.getKey() + ": processes of job " + jobId + " left there killed (pid "
                            + killed + ")");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                p.destroyForcibly();
            } catch (IOException e) {
                // its output is lost: the clean-up itself ran
            }
        }
    }

    /**
     * A POSIX shell script that SIGKILLs every process of this host whose environment holds this job's id
     * (its own shell excepted) and prints each one's pid on a line.
     */
    private String sweepScript() {
        return "s=$$; for f in $(grep -lzxF -e " + io.jckpt.runtime.hosts.RemoteShell.quote(RankEnvironment.JOB_ID + "=" + jobId)
                + " /proc/[0-9]*/environ 2>/dev/null); do p=${f#/proc/}; p=${p%/environ}; "
                + "if [ \"$p\" != \"$s\" ] && kill -KILL \"$p\" 2>/dev/null; then echo \"$p\"; fi; done";
    }

    /** Exit status of {@link #killCommand} when the process had ended already (or is not one of the job's). */
    static final int KILL_GONE = 3;

    /**
     * The remote command that SIGKILLs process {@code pid} of its host when its environment holds this job's
     * id (a process id reused by another process is left alone): exit 0 when killed, {@value #KILL_GONE} when
     * no such process of the job is there.
     */
    List<String> killCommand(long pid) {
        return List.of("sh", "-c", "p=" + pid + "; if grep -qzxF -e "
                + io.jckpt.runtime.hosts.RemoteShell.quote(RankEnvironment.JOB_ID + "=" + jobId)
                + " /proc/$p/environ 2>/dev/null; then kill -KILL $p; else exit " + KILL_GONE + "; fi");
    }

    /** Starts {@code command} on {@code host} through the remote shell, no input, its output discarded. */
    Process startOn(String host, List<String> command) throws IOException {
        return new ProcessBuilder(spec.remoteShell().command(host, Map.of(), List.of(), command))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    }

    /** @return whether {@code command} ran on {@code host} through the remote shell and exited 0 within {@code millis} */
    boolean runOn(String host, List<String> command, long millis) {
        try {
            Process p = startOn(host, command);
            if (!p.waitFor(millis, java.util.concurrent.TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return false;
            }
            return p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** Starts the one JVM that hosts every rank (multicore device). */
    RankHost startMulticore(int epoch) throws IOException {
        Map<String, String> env = commonEnvironment(epoch);
        env.put(RankEnvironment.NEW_RANK, "false");
        env.put(RankEnvironment.RECOVERY, "false");
        env.put(RankEnvironment.LIB_CLASSPATH, String.join(File.pathSeparator, rankClassPath()));
        List<Integer> ranks = new ArrayList<>();
        for (int rank = 0; rank < spec.worldSize(); rank++) {
            ranks.add(rank);
        }
        return startHost("multicore", ranks, javaCommand(MulticoreHost.class.getName()), env, null, "");
    }

    /**
     * Starts the JVM of warm standby {@code id} (see {@link io.jckpt.runtime.rank.RankMain}): on the
     * launcher's host, or on {@code host} through the remote shell when it is not null, the way a rank
     * starts there ({@link #startRank(int, int, boolean, String, String, long)}): the standby binds that host's
     * address and can only become a rank of that host.
     */
    RankHost startStandby(int id, int epoch, String host) throws IOException {
        Map<String, String> env = commonEnvironment(epoch);
        env.put(RankEnvironment.STANDBY, Integer.toString(id));
        List<String> command = javaCommand(RankMain.class.getName());
        if (host == null) {
            return startHost("standby-" + id, List.of(), command, env, null, "[standby " + id + "] ");
        }
        return startRemote("standby-" + id, host, List.of(), command, env, "[standby " + id + "] ");
    }

    /** The environment of niodev rank {@code rank}'s JVM. */
    Map<String, String> rankEnvironment(int rank, int epoch, boolean respawned, String mpjConf) {
        Map<String, String> env = commonEnvironment(epoch);
        env.put(RankEnvironment.RANK, Integer.toString(rank));
        env.put(RankEnvironment.NEW_RANK, Boolean.toString(respawned));
        env.put(RankEnvironment.RECOVERY, Boolean.toString(respawned));
        env.put(RankEnvironment.MPJ_CONF, mpjConf);
        return env;
    }

    private Map<String, String> commonEnvironment(int epoch) {
        Map<String, String> env = new HashMap<>();
        env.put(RankEnvironment.SIZE, Integer.toString(spec.worldSize()));
        env.put(RankEnvironment.JOB_ID, jobId);
        env.put(RankEnvironment.SECRET, secret.toHex());
        if (jobKeyHex == null) {
            throw new IllegalStateException("the job key is set before any rank starts");
        }
        env.put(RankEnvironment.JOB_KEY, jobKeyHex);
        env.put(RankEnvironment.CONTROL, controlHost + ":" + controlPort);
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

    /** The command line of a job JVM whose launcher-side main class is {@code mainClass}. */
    List<String> javaCommand(String mainClass) {
        List<String> command = new ArrayList<>();
        command.add(JckptHome.javaExecutable());
        command.addAll(home.jvmFlags());
        command.addAll(logging.jvmFlags());
        command.addAll(spec.jvmOptions());
        command.add("-cp");
        command.add(String.join(File.pathSeparator, rankClassPath()));
        command.add(mainClass);
        command.add(spec.mainClass());
        command.addAll(spec.programArgs());
        return command;
    }

    private RankHost startHost(String name, List<Integer> ranks, List<String> command, Map<String, String> env,
                               String stdin, String prefix) throws IOException {
        return startHost(name, ranks, command, env, stdin, prefix, status -> status);
    }

    /** As above; {@code exitStatus} maps the process's exit status to the one the job sees (a remote agent's). */
    private RankHost startHost(String name, List<Integer> ranks, List<String> command, Map<String, String> env,
                               String stdin, String prefix, java.util.function.IntUnaryOperator exitStatus)
            throws IOException {
        RankHost[] self = new RankHost[1];
        RankHost host = RankHost.start(name, ranks, command, env, stdin, prefix, console,
                status -> events.accept(new JobEvent.HostExited(self[0], exitStatus.applyAsInt(status))));
        self[0] = host;
        hosts.add(host);
        if (tearingDown) {
            host.kill(); // started by the supervisor while a signal's teardown ran: not left behind
        }
        return host;
    }

    /** @return whether {@link #tearDown()} started: the processes' deaths are not failures to recover */
    boolean tearingDown() {
        return tearingDown;
    }

    /** @return whether any process it started is still alive */
    boolean anyAlive() {
        return hosts.stream().anyMatch(RankHost::isAlive);
    }

    /**
     * From now on the processes it started end because the launcher stops them (a signal's teardown):
     * their exits are not failures, and a process started after this is killed at once.
     */
    void beginTearDown() {
        tearingDown = true;
    }

    /** Waits, bounded by {@code millis} in all, for every process it started to end by itself; @return whether all did */
    boolean awaitAllExit(long millis) {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        boolean all = true;
        for (RankHost host : hosts) {
            all &= host.awaitExit(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
        }
        return all;
    }

    /** SIGKILL to every process it started, then a bounded wait for them to be gone and their output forwarded. */
    void tearDown() {
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
}
