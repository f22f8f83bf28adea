package io.jckpt.runtime.launcher;

import io.jckpt.runtime.control.ControlConnection;
import io.jckpt.runtime.control.ControlListener;
import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.runtime.control.ControlServer;
import io.jckpt.runtime.control.ExchangeFrames;
import io.jckpt.runtime.control.JobSecret;
import io.jckpt.runtime.control.RankExit;
import io.jckpt.runtime.rank.RankEnvironment;
import io.jckpt.runtime.rank.RankMain;
import io.jckpt.runtime.multicore.MulticoreHost;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * One run of a program on N ranks: starts the rank processes, supervises them, and ends the job.
 *
 * <p>Fail-fast supervision (the mode of this release): the first rank that exits non-zero, throws
 * out of main or dies by a signal is named and the whole job is torn down (SIGKILL to every rank,
 * bounded wait), exit status {@link #EXIT_JOB_FAILED}. Recovery (re-spawning a rank and starting a
 * fresh MPJ world for the survivors) plugs in where {@link #onRankFailure} decides.
 */
public final class Job {
    /** Every rank completed. */
    public static final int EXIT_OK = 0;
    /** A rank failed (or the job could not start); the job was torn down. */
    public static final int EXIT_JOB_FAILED = 1;
    /** Bad command line. */
    public static final int EXIT_USAGE = 2;

    private static final long TEARDOWN_MILLIS = 2_000;
    private static final long DRAIN_MILLIS = 1_000;

    private final LaunchSpec spec;
    private final JckptHome home;
    private final JobConsole console;
    private final String jobId;
    private final JobSecret secret = JobSecret.generate();
    private final BlockingQueue<JobEvent> events = new LinkedBlockingQueue<>();
    private final List<RankHost> hosts = new CopyOnWriteArrayList<>();
    private final Map<Integer, ControlConnection> controls = new ConcurrentHashMap<>();
    private final Map<Integer, RankExit> reports = new ConcurrentHashMap<>();
    private final ExchangeCoordinator exchanges;
    private volatile boolean tearingDown;

    Job(LaunchSpec spec, JckptHome home, JobConsole console) {
        this.spec = spec;
        this.home = home;
        this.console = console;
        byte[] id = new byte[6];
        new java.security.SecureRandom().nextBytes(id);
        this.jobId = HexFormat.of().formatHex(id);
        this.exchanges = new ExchangeCoordinator(spec.worldSize(), controls::get);
    }

    /** The job's id, also given to every rank. */
    String id() {
        return jobId;
    }

    /** Runs the job to its end and returns the launcher's exit status. */
    int run() throws IOException {
        InetAddress loopback = InetAddress.getByName(LaunchSpec.LOOPBACK);
        try (ControlServer control = new ControlServer(loopback, jobId, secret, spec.worldSize(), new Listener())) {
            console.event("job " + jobId + ": " + spec.worldSize() + " ranks of " + spec.mainClass() + " on "
                    + spec.device().cliName());
            PortExchange exchange = null;
            try {
                if (spec.device() == Device.NIODEV) {
                    exchange = new PortExchange(loopback, spec.hosts(), spec.startTimeoutMillis(), "jckpt-port-exchange-" + jobId);
                    for (int rank = 0; rank < spec.worldSize(); rank++) {
                        startNiodevRank(rank, control.port(), exchange.port());
                    }
                } else {
                    startMulticore(control.port());
                }
                return supervise(exchange);
            } finally {
                if (exchange != null) {
                    exchange.close();
                }
            }
        } finally {
            console.flush();
        }
    }

    private void startNiodevRank(int rank, int controlPort, int exchangePort) throws IOException {
        Map<String, String> env = commonEnvironment(controlPort);
        env.put(RankEnvironment.RANK, Integer.toString(rank));
        env.put(RankEnvironment.MPJ_CONF, "#Number of Processes;" + spec.worldSize()
                + ";#Protocol Switch Limit;131072;#Server Name;" + LaunchSpec.LOOPBACK + ";#Server Port;" + exchangePort);
        List<String> command = javaCommand(home.libClassPath(), RankMain.class.getName());
        startHost("rank-" + rank, List.of(rank), command, env, "[rank " + rank + "] ");
    }

    private void startMulticore(int controlPort) throws IOException {
        Map<String, String> env = commonEnvironment(controlPort);
        env.put(RankEnvironment.LIB_CLASSPATH, String.join(File.pathSeparator, home.libClassPath()));
        // The host JVM itself runs on the runtime's classes only; ranks get the library in their own loaders.
        List<String> command = javaCommand(home.libClassPath(), MulticoreHost.class.getName());
        List<Integer> ranks = new ArrayList<>();
        for (int rank = 0; rank < spec.worldSize(); rank++) {
            ranks.add(rank);
        }
        startHost("multicore", ranks, command, env, "");
    }

    private Map<String, String> commonEnvironment(int controlPort) {
        Map<String, String> env = new HashMap<>();
        env.put(RankEnvironment.SIZE, Integer.toString(spec.worldSize()));
        env.put(RankEnvironment.JOB_ID, jobId);
        env.put(RankEnvironment.SECRET, secret.toHex());
        env.put(RankEnvironment.CONTROL, LaunchSpec.LOOPBACK + ":" + controlPort);
        env.put(RankEnvironment.EPOCH, "0");
        env.put(RankEnvironment.NEW_RANK, "false");
        env.put(RankEnvironment.RECOVERY, "false");
        env.put(RankEnvironment.DEVICE, spec.device().cliName());
        env.put("MPJ_HOME", home.mpjHome().toString());
        env.put(RankEnvironment.MPJ_CLASSPATH, String.join(File.pathSeparator, home.mpjClassPath()));
        env.put(RankEnvironment.APP_CLASSPATH, String.join(File.pathSeparator, spec.classPath()));
        return env;
    }

    private List<String> javaCommand(List<String> classPath, String mainClass) {
        List<String> command = new ArrayList<>();
        command.add(JckptHome.javaExecutable());
        command.addAll(home.jvmFlags());
        command.addAll(spec.jvmOptions());
        command.add("-cp");
        command.add(String.join(File.pathSeparator, classPath));
        command.add(mainClass);
        command.add(spec.mainClass());
        command.addAll(spec.programArgs());
        return command;
    }

    private void startHost(String name, List<Integer> ranks, List<String> command, Map<String, String> env,
                           String prefix) throws IOException {
        RankHost[] self = new RankHost[1];
        RankHost host = RankHost.start(name, ranks, command, env, prefix, console,
                status -> events.add(new JobEvent.HostExited(self[0], status)));
        self[0] = host;
        hosts.add(host);
    }

    /** The supervisor loop: returns the exit status once the job is over. */
    private int supervise(PortExchange exchange) {
        Runtime.getRuntime().addShutdownHook(new Thread(this::onSignal, "jckpt-shutdown-" + jobId));
        long startDeadline = System.nanoTime() + spec.startTimeoutMillis() * 1_000_000L;
        int connected = 0;
        int running = hosts.size();
        boolean announced = false;
        while (running > 0) {
            JobEvent event;
            try {
                event = events.poll(100, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return fail("interrupted");
            }
            if (exchange != null && exchange.failure() != null) {
                return fail(exchange.failure());
            }
            if (!announced && System.nanoTime() > startDeadline) {
                return fail("only " + connected + " of " + spec.worldSize() + " ranks started within "
                        + spec.startTimeoutMillis() / 1000 + " s");
            }
            if (event instanceof JobEvent.RankConnected) {
                connected++;
                if (connected == spec.worldSize() && !announced) {
                    announced = true;
                    console.event("all " + connected + " ranks running (pids " + pids() + ")");
                }
            } else if (event instanceof JobEvent.RankReported reported) {
                if (reported.exit().status() != 0) {
                    return onRankFailure(reported.rank(), "rank " + reported.rank() + " " + reported.exit().reason());
                }
            } else if (event instanceof JobEvent.HostExited exited) {
                running--;
                RankHost host = exited.host();
                if (exited.status() != 0) {
                    return onRankFailure(host.ranks().get(0), describe(host, exited.status()));
                }
                host.drainOutput(DRAIN_MILLIS);
                if (host.ranks().size() == 1) {
                    console.event("rank " + host.ranks().get(0) + " finished");
                }
            }
        }
        console.event("job " + jobId + " finished: all " + spec.worldSize() + " ranks completed");
        return EXIT_OK;
    }

    private String describe(RankHost host, int status) {
        String who = host.ranks().size() == 1 ? "rank " + host.ranks().get(0) : "multicore JVM (ranks 0-"
                + (spec.worldSize() - 1) + ")";
        String what = Signals.describeExit(status);
        for (int rank : host.ranks()) {
            RankExit report = reports.get(rank);
            if (report != null && report.status() != 0) {
                return "rank " + rank + " " + report.reason() + "; " + who + " " + what;
            }
        }
        return who + " (pid " + host.pid() + ") " + what;
    }

    /** Fail-fast: the place where recovery will decide to re-spawn instead. */
    private int onRankFailure(int rank, String description) {
        return fail(description);
    }

    private int fail(String reason) {
        console.event("FAILURE: " + reason + "; stopping the job");
        long start = System.nanoTime();
        tearDown();
        console.event(String.format(java.util.Locale.ROOT, "job %s failed: %s (all ranks stopped in %.0f ms)",
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

    /** Ctrl-C / SIGTERM on the launcher (or its normal exit, where nothing is left to do). */
    private void onSignal() {
        if (tearingDown || hosts.stream().noneMatch(RankHost::isAlive)) {
            return;
        }
        console.event("launcher interrupted: stopping all ranks");
        tearDown();
        console.flush();
    }

    private String pids() {
        StringBuilder pids = new StringBuilder();
        for (RankHost host : hosts) {
            if (pids.length() > 0) {
                pids.append(' ');
            }
            pids.append(host.pid());
        }
        return pids.toString();
    }

    private final class Listener implements ControlListener {
        @Override
        public void connected(int rank, ControlConnection connection) {
            controls.put(rank, connection);
            events.add(new JobEvent.RankConnected(rank));
        }

        @Override
        public void frame(int rank, byte type, byte[] payload) {
            try {
                if (type == ControlProtocol.RANK_EXIT) {
                    RankExit exit = RankExit.decode(payload);
                    reports.put(rank, exit);
                    events.add(new JobEvent.RankReported(rank, exit));
                } else if (type == ControlProtocol.EXCHANGE) {
                    String problem = exchanges.contribute(rank, ExchangeFrames.Contribution.decode(payload));
                    if (problem != null) {
                        console.event("WARNING: " + problem);
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
            controls.remove(rank, connection);
        }
    }
}
