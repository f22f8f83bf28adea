package io.jckpt.testkit.hosts;

import io.jckpt.testkit.hosts.TestHosts.Cgroups;
import io.jckpt.testkit.hosts.TestHosts.Exec;
import io.jckpt.testkit.hosts.TestHosts.Result;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * One test host of {@link TestHosts}: a mount + PID namespace with its own /dev/shm, /run and /tmp, its own
 * cgroup, address 127.0.0.N and sshd on that address. Commands run in it over ssh ({@link #ssh}) or, faster,
 * with nsenter ({@link #run}); both put them in the host's cgroup, so node loss and partitions cover them.
 */
public final class TestHost {
    private static final String READY = "jckpt-test-host ready";
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(60);
    private static final int LOG_LINES = 200;

    private final TestHosts run;
    private final String name;
    private final String address;
    private final int sshPort;
    private final Deque<String> log = new ArrayDeque<>();
    private Process unshare;
    private long initPid = -1;
    private Thread reader;
    private CompletableFuture<Void> ready;
    private volatile boolean sshdUp;
    private volatile boolean initUp;

    TestHost(TestHosts run, String name, String address, int sshPort) {
        this.run = run;
        this.name = name;
        this.address = address;
        this.sshPort = sshPort;
    }

    /** h1, h2, ...: its name in the ssh configuration and the nsenter remote shell. */
    public String name() {
        return name;
    }

    /** Its address, 127.0.0.N (its sshd listens there only). */
    public String address() {
        return address;
    }

    /** Its address as an {@link InetAddress}. */
    public InetAddress inetAddress() {
        try {
            return InetAddress.getByName(address);
        } catch (IOException e) {
            throw new IllegalStateException(address, e);
        }
    }

    /** The port of its sshd (on {@link #address()}). */
    public int sshPort() {
        return sshPort;
    }

    /** Its cgroup v2 directory (exists while the host is up). */
    public Path cgroup() {
        return run.runCgroup().resolve(name);
    }

    /** Whether it is up (started and not lost). */
    public synchronized boolean isUp() {
        return initPid > 0;
    }

    /** The PID of its init (PID 1 inside) in the machine's PID namespace; an exception when down. */
    public synchronized long initPid() {
        if (initPid <= 0) {
            throw new IllegalStateException(this + " is down");
        }
        return initPid;
    }

    /** The PIDs (machine namespace) of every process in its cgroup: init, sshd, commands, their children. */
    public Set<Long> processes() {
        return Cgroups.processes(cgroup());
    }

    /** Its /dev/shm as seen from the launcher's host (through its init's root); valid while it is up. */
    public Path shm() {
        return Path.of("/proc", Long.toString(initPid()), "root", "dev", "shm");
    }

    /** Writes a file under its /dev/shm (parent directories created). */
    public void writeShm(String relative, byte[] data) throws IOException {
        Path file = shm().resolve(relative);
        Files.createDirectories(file.getParent());
        Files.write(file, data);
    }

    /** Reads a file under its /dev/shm. */
    public byte[] readShm(String relative) throws IOException {
        return Files.readAllBytes(shm().resolve(relative));
    }

    /** The names directly under its /dev/shm, sorted. */
    public List<String> listShm() throws IOException {
        try (Stream<Path> s = Files.list(shm())) {
            return s.map(p -> p.getFileName().toString()).sorted().collect(Collectors.toList());
        }
    }

    /** Runs {@code sh -c command} in the host through nsenter (in its cgroup), bounded by 60 s. */
    public Result run(String command) throws IOException {
        return run(COMMAND_TIMEOUT, command);
    }

    /** Runs {@code sh -c command} in the host through nsenter, bounded by {@code timeout}. */
    public Result run(Duration timeout, String command) throws IOException {
        return Exec.run(nsenterCommand(command), timeout);
    }

    /** Runs {@code command} in the host over ssh ({@code ssh -F <config> hN command}), bounded by 60 s. */
    public Result ssh(String command) throws IOException {
        return Exec.run(sshCommand(command), COMMAND_TIMEOUT);
    }

    /**
     * Starts {@code sh -c command} in the host through nsenter; the caller owns the process. Destroying it
     * ends nsenter only: the command inside lives until its host is lost or closed, or until the caller
     * kills {@code process.toHandle().descendants()}.
     */
    public Process start(String command) throws IOException {
        return new ProcessBuilder(nsenterCommand(command)).start();
    }

    /**
     * The command line that runs {@code sh -c command} in this host: it moves itself into the host's cgroup,
     * then nsenter enters the host's mount and PID namespaces.
     */
    public List<String> nsenterCommand(String command) {
        return List.of("sh", "-c", "echo $$ > \"$1/cgroup.procs\" && exec \"$2\" -t \"$3\" -m -p -- sh -c \"$4\"",
                "nsenter-" + name, cgroup().toString(), run.tools().nsenter, Long.toString(initPid()), command);
    }

    /** The command line that runs {@code command} in this host over ssh with the run's configuration. */
    public List<String> sshCommand(String command) {
        List<String> c = new ArrayList<>(run.sshCommand());
        c.add(name);
        c.add(command);
        return c;
    }

    /**
     * Node loss: SIGKILL of its init (the kernel kills every process of its PID namespace and the tmpfs
     * mounts go with the mount namespace), then {@code cgroup.kill} as a sweep of anything else in its
     * cgroup, and the cgroup removed. Returns when all of it is gone.
     */
    public synchronized void loseNode() throws IOException {
        if (initPid <= 0) {
            throw new IllegalStateException(this + " is already down");
        }
        stop();
    }

    /** Starts the host again after a loss (or loses it first): same name, address and port, empty /dev/shm. */
    public void restart() throws IOException {
        synchronized (this) {
            if (initPid > 0) {
                stop();
            }
            Files.createDirectories(cgroup());
        }
        // rules name cgroups by inode: reload them for the new cgroup before anything runs in it
        // (outside this host's monitor: TestHosts.close() takes the run's, then the hosts')
        run.hostRestarted();
        synchronized (this) {
            start();
        }
        awaitReady(Duration.ofSeconds(30));
    }

    /** The last lines of its init's and sshd's output (for failure messages). */
    public String log() {
        synchronized (log) {
            return String.join("\n", log);
        }
    }

    @Override
    public String toString() {
        return "test host " + name + " (" + address + ")";
    }

    // ---- lifecycle ----

    synchronized void start() throws IOException {
        Path hostDir = run.runDirectory().resolve("hosts");
        Files.createDirectories(cgroup());
        Path sshdConfig = hostDir.resolve(name + ".sshd_config");
        Files.writeString(sshdConfig, sshdConfig());
        synchronized (log) {
            log.clear();
        }
        sshdUp = false;
        initUp = false;
        ready = new CompletableFuture<>();
        // the starter shell enters the host's cgroup, then becomes unshare; the child of unshare is the
        // host's init (PID 1 inside), whose standard input is a pipe from this JVM: end of file = JVM gone
        Path init = hostDir.resolve(name + ".init");
        Files.writeString(init, initScript(sshdConfig));
        unshare = new ProcessBuilder("sh", "-c", "echo $$ > \"$1/cgroup.procs\" && exec \"$2\" --mount --propagation private"
                + " --pid --fork --mount-proc --kill-child -- \"$3\" \"$4\"",
                "start-" + name, cgroup().toString(), run.tools().unshare, run.tools().bash, init.toString())
                .redirectErrorStream(true).start();
        Process p = unshare;
        reader = new Thread(() -> readOutput(p), "test-host-" + run.name() + "-" + name);
        reader.setDaemon(true);
        reader.start();
    }

    void awaitReady(Duration timeout) throws IOException {
        CompletableFuture<Void> r;
        synchronized (this) {
            r = ready;
        }
        try {
            r.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IOException(this + " not ready after " + timeout.toMillis() + " ms: " + log());
        } catch (ExecutionException e) {
            throw new IOException(this + " failed to start: " + e.getCause().getMessage() + "\n" + log());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while starting " + this, e);
        }
        synchronized (this) {
            List<ProcessHandle> children = unshare.toHandle().children().collect(Collectors.toList());
            if (children.size() != 1) {
                throw new IOException(this + ": unshare has " + children.size() + " children, expected its init");
            }
            initPid = children.get(0).pid();
            Path hostDir = run.runDirectory().resolve("hosts");
            for (String key : List.of(name, address)) {
                Files.writeString(hostDir.resolve(key + ".cgroup"), cgroup().toString());
                Files.writeString(hostDir.resolve(key + ".pid"), Long.toString(initPid));
            }
        }
    }

    /** SIGKILL to its init only (the kernel then kills its namespace's processes); {@link #stop()} does the rest. */
    synchronized void killInit() {
        if (initPid > 0) {
            ProcessHandle.of(initPid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Kills the host (init first, then the cgroup sweep), waits for it and removes its cgroup. */
    synchronized void stop() throws IOException {
        Path hostDir = run.runDirectory().resolve("hosts");
        for (String key : List.of(name, address)) {
            Files.deleteIfExists(hostDir.resolve(key + ".pid"));
        }
        if (initPid > 0) {
            // init first: unshare reaps it, and the kernel reaps the namespace's other processes
            ProcessHandle.of(initPid).ifPresent(ProcessHandle::destroyForcibly);
        }
        initPid = -1;
        if (unshare != null) {
            try (OutputStream stdin = unshare.getOutputStream()) {
                // closing the pipe is what a JVM's death does; the init is gone already or exits on it
            } catch (IOException ignored) {
                // the pipe is already broken: the init is gone
            }
            try {
                if (!unshare.waitFor(10, TimeUnit.SECONDS)) {
                    unshare.destroyForcibly();
                    unshare.waitFor(5, TimeUnit.SECONDS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while stopping " + this, e);
            }
        }
        Cgroups.killAndRemove(cgroup(), Duration.ofSeconds(10));
        if (reader != null) {
            try {
                reader.join(10_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while stopping " + this, e);
            }
            if (reader.isAlive()) {
                throw new IOException(this + ": its output did not end 10 s after it was killed");
            }
        }
        unshare = null;
        reader = null;
    }

    private void readOutput(Process p) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (log) { // not the host's monitor: stop() holds it while it waits for this thread
                    log.addLast(line);
                    if (log.size() > LOG_LINES) {
                        log.removeFirst();
                    }
                }
                if (line.startsWith("Server listening on " + address + " port " + sshPort)) {
                    sshdUp = true;
                } else if (line.equals(READY)) {
                    initUp = true;
                }
                if (sshdUp && initUp) {
                    ready.complete(null);
                }
            }
        } catch (IOException e) {
            ready.completeExceptionally(e);
        }
        ready.completeExceptionally(new IOException("its init exited before it was ready"));
    }

    private String sshdConfig() {
        Path dir = run.runDirectory();
        return "# test host " + name + " of run " + run.name() + "\n"
                + "ListenAddress " + address + ":" + sshPort + "\n"
                + "HostKey " + dir.resolve("host_key") + "\n"
                + "AuthorizedKeysFile " + dir.resolve("client_key.pub") + "\n"
                + "PidFile none\nUsePAM no\nStrictModes no\nPermitRootLogin prohibit-password\n"
                + "PasswordAuthentication no\nKbdInteractiveAuthentication no\nUseDNS no\nPrintMotd no\n"
                + "AcceptEnv JCKPT_*\nMaxStartups 100:30:200\nMaxSessions 100\nLogLevel INFO\n";
    }

    /**
     * The init: own tmpfs on /dev/shm, /run and /tmp; the shared directories they would hide bound back in
     * (through file descriptors opened before the tmpfs covers them); the user's ~/.bashrc hidden so that
     * ssh sessions start fast and quietly; sshd in the background; then it waits for end of file on its
     * standard input (the pipe from the JVM) and exits, which kills the whole PID namespace.
     */
    private String initScript(Path sshdConfig) {
        StringBuilder s = new StringBuilder("# init of test host " + name + " of run " + run.name() + "\nset -e\n");
        List<Path> binds = run.directoriesToBind();
        for (int i = 0; i < binds.size(); i++) {
            s.append("exec ").append(10 + i).append("< ").append(quote(binds.get(i))).append('\n');
        }
        s.append("mount -t tmpfs -o mode=1777 jckpt-shm /dev/shm\n")
                .append("mount -t tmpfs -o mode=755 jckpt-run /run\nmkdir -m 755 /run/sshd\n")
                .append("mount -t tmpfs -o mode=1777 jckpt-tmp /tmp\n");
        for (int i = 0; i < binds.size(); i++) {
            s.append("mkdir -p ").append(quote(binds.get(i))).append('\n')
                    .append("mount --no-canonicalize --bind /proc/self/fd/").append(10 + i).append(' ')
                    .append(quote(binds.get(i))).append('\n')
                    .append("exec ").append(10 + i).append("<&-\n");
        }
        Path bashrc = Path.of(System.getProperty("user.home"), ".bashrc");
        s.append("if [ -f ").append(quote(bashrc)).append(" ]; then mount --bind /dev/null ").append(quote(bashrc))
                .append("; fi\n");
        s.append(run.tools().sshd).append(" -D -e -f ").append(quote(sshdConfig)).append(" </dev/null &\n");
        s.append("set +e\necho '").append(READY).append("'\n");
        s.append("while read -r _; do :; done\n");
        return s.toString();
    }

    private static String quote(Path p) {
        return "'" + p.toString().replace("'", "'\\''") + "'";
    }
}
