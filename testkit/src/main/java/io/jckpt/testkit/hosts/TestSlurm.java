package io.jckpt.testkit.hosts;

import io.jckpt.testkit.hosts.TestHosts.Result;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Assumptions;

/**
 * A real SLURM cluster on this one machine (docs/test-hosts.md, "A SLURM cluster"): a controller (slurmctld
 * and munged) and N compute nodes (slurmd), each a mount + PID + UTS namespace in a cgroup of its own with its
 * own {@code /dev/shm}, {@code /run} and {@code /tmp} and its own host name ({@code ctl}, {@code node1}, ...),
 * every daemon on 127.0.0.1 with a port of this run. Clients ({@code salloc}, {@code sbatch}, {@code srun},
 * {@code scontrol}) run from a "login" namespace whose host name resolves to 127.0.0.1 (SLURM needs that),
 * always with a hard limit: {@code salloc} ignores SIGTERM, so a client past its time gets SIGKILL with its
 * children, then every job of the cluster is cancelled.
 *
 * <p>A cluster is a run of {@link TestHosts} for clean-up purposes: named {@code jckpt_th_<pid>_<seq>}, locked
 * under {@code /tmp/jckpt-test-hosts}, its cgroups under the run's cgroup; {@link #close()} removes it all, and
 * what a killed JVM left is removed by the next run's start (each node's init also exits when the JVM's pipe
 * to it closes). Ports come in blocks of 100 below the ephemeral range, claimed with lock files.
 *
 * <p>Root only: call {@link #assumeAvailable()} first ({@code bin/setup-test-slurm} installs SLURM and munge).
 */
public final class TestSlurm implements AutoCloseable {
    /** The first port of the first block; blocks of {@link #BLOCK} ports up to the ephemeral range (32768). */
    private static final int FIRST_PORT = 20_000;
    private static final int BLOCK = SlurmFiles.BLOCK;
    private static final int BLOCKS = 120;
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration ADMIN_TIMEOUT = Duration.ofSeconds(20);
    private static final String[] TOOLS = {"slurmctld", "slurmd", "munged", "salloc", "sbatch", "srun", "scontrol",
            "scancel", "sinfo", "squeue"};
    private static volatile Optional<String> unavailable;

    private final String name;
    private final Path runDir;
    private final Path cgroupRoot;
    private final Path runCgroup;
    private final List<Path> shared;
    private final int cpus;
    private final Map<String, String> tools = new LinkedHashMap<>();
    private final SlurmNode controller;
    private final List<SlurmNode> nodes = new ArrayList<>();
    private FileLock runLock;
    private FileLock portLock;
    private int basePort;
    private boolean closed;

    private TestSlurm(Builder b) {
        this.name = TestHosts.nextRunName();
        this.runDir = TestHosts.BASE.resolve(name);
        this.cgroupRoot = TestHosts.Tools.get().cgroupRoot;
        this.runCgroup = cgroupRoot.resolve(name);
        this.shared = TestHosts.sharedDirectories(runDir, b.shared);
        this.cpus = b.cpus;
        for (String t : TOOLS) {
            tools.put(t, TestHosts.Tools.which(t));
        }
        this.controller = new SlurmNode(this, "ctl", true);
        for (int i = 1; i <= b.count; i++) {
            nodes.add(new SlurmNode(this, "node" + i, false));
        }
    }

    /** A builder: how many nodes, their CPUs, which directories they share. */
    public static Builder builder() {
        return new Builder();
    }

    /** Skips the calling test (a JUnit assumption) with the reason when a SLURM cluster cannot be made here. */
    public static void assumeAvailable() {
        Optional<String> reason = unavailableReason();
        Assumptions.assumeTrue(reason.isEmpty(), () -> "test SLURM cluster unavailable: " + reason.orElse(""));
    }

    /** Why a SLURM cluster cannot be made here (test hosts unavailable, SLURM or munge missing), or empty. */
    public static Optional<String> unavailableReason() {
        Optional<String> reason = unavailable;
        if (reason == null) {
            synchronized (TestSlurm.class) {
                if (unavailable == null) {
                    Optional<String> hosts = TestHosts.unavailableReason();
                    List<String> missing = Arrays.stream(TOOLS).filter(t -> TestHosts.Tools.which(t) == null).toList();
                    unavailable = hosts.isPresent() ? hosts
                            : missing.isEmpty() ? Optional.empty()
                            : Optional.of("missing " + String.join(", ", missing)
                                    + " (bin/setup-test-slurm installs slurmctld, slurmd, slurm-client and munge as root)");
                }
                reason = unavailable;
            }
        }
        return reason;
    }

    /** This run's name (its cgroup directory and run directory). */
    public String name() {
        return name;
    }

    /** The compute nodes, node1 first. */
    public List<SlurmNode> nodes() {
        return List.copyOf(nodes);
    }

    /** Compute node {@code index} (0-based: node(0) is node1). */
    public SlurmNode node(int index) {
        return nodes.get(index);
    }

    /** The controller's node (slurmctld, munged). */
    public SlurmNode controller() {
        return controller;
    }

    /** The run's directory (configuration, state, logs, the munge socket), shared by every node. */
    public Path runDirectory() {
        return runDir;
    }

    /** The directories every node sees at the same path (the run directory, those shared, class path, working directory). */
    public List<Path> sharedDirectories() {
        return shared;
    }

    /** The cgroup of this run named {@code cgroupName} ({@code login}: the clients'; a node's name: the node's). */
    public Path cgroup(String cgroupName) {
        return runCgroup.resolve(cgroupName);
    }

    /** The cluster's configuration file ({@code SLURM_CONF}). */
    public Path slurmConf() {
        return runDir.resolve("slurm.conf");
    }

    /** The controller's port (the first of this run's block of 100). */
    public int controllerPort() {
        return basePort;
    }

    /**
     * The script that runs a command as from a login node ({@code login COMMAND ARGS...}): in the run's login
     * cgroup, in a UTS + mount namespace named {@code login} whose {@code /etc/hosts} resolves every node to
     * 127.0.0.1, with {@code SLURM_CONF} set. A launcher under test can use it as a prefix.
     */
    public Path loginScript() {
        return runDir.resolve("login");
    }

    /** {@code command} wrapped in {@link #loginScript()}, with no {@code SLURM_*} variable of this JVM inherited. */
    public ProcessBuilder login(List<String> command) {
        List<String> c = new ArrayList<>();
        c.add(loginScript().toString());
        c.addAll(command);
        ProcessBuilder pb = new ProcessBuilder(c);
        pb.environment().keySet().removeIf(k -> k.startsWith("SLURM_"));
        return pb;
    }

    /** Runs {@code salloc ARGS...} from the login namespace; past {@code timeout}, SIGKILL and every job cancelled. */
    public Result salloc(Duration timeout, String... args) throws IOException {
        return client(timeout, "salloc", args);
    }

    /** Runs {@code sbatch ARGS...} (add {@code --wait} to wait for the job's end) from the login namespace. */
    public Result sbatch(Duration timeout, String... args) throws IOException {
        return client(timeout, "sbatch", args);
    }

    /** Runs {@code srun ARGS...} from the login namespace (outside an allocation it makes one). */
    public Result srun(Duration timeout, String... args) throws IOException {
        return client(timeout, "srun", args);
    }

    /** Runs {@code scontrol ARGS...} from the login namespace, bounded by 20 s. */
    public Result scontrol(String... args) throws IOException {
        return client(ADMIN_TIMEOUT, "scontrol", args);
    }

    /**
     * Runs a SLURM client ({@code salloc}, {@code sinfo}, ...) with {@code args} from the login namespace. Past
     * {@code timeout} the client and its children get SIGKILL, every job of the cluster is cancelled, and an
     * {@link IOException} names the command and what it printed.
     */
    public Result client(Duration timeout, String tool, String... args) throws IOException {
        List<String> command = new ArrayList<>();
        String path = tools.get(tool);
        command.add(path != null ? path : tool);
        command.addAll(List.of(args));
        Path dir = Files.createTempDirectory("jckpt-slurm-client");
        Path out = dir.resolve("out");
        Path err = dir.resolve("err");
        try {
            Process p = login(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
            boolean ended;
            try {
                ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                killTree(p);
                Thread.currentThread().interrupt();
                throw new IOException("interrupted while running " + command, e);
            }
            if (!ended) {
                killTree(p);
                cancelAllJobs();
                throw new IOException("SLURM client timed out after " + timeout.toMillis() + " ms (killed, every job"
                        + " cancelled): " + command + "\nstdout: " + read(out) + "\nstderr: " + read(err));
            }
            return new Result(p.exitValue(), read(out), read(err));
        } finally {
            Files.deleteIfExists(out);
            Files.deleteIfExists(err);
            Files.deleteIfExists(dir);
        }
    }

    /**
     * Submits a batch script ({@code sbatch --parsable ARGS... SCRIPT}) and returns its job id; see
     * {@link #awaitJob}. ({@code sbatch --wait} polls at seconds; this polls at 20 ms.)
     */
    public String submit(String... args) throws IOException {
        List<String> a = new ArrayList<>(List.of("--parsable"));
        a.addAll(List.of(args));
        return sbatch(ADMIN_TIMEOUT, a.toArray(String[]::new)).check("sbatch " + a).strip();
    }

    /**
     * Waits until job {@code jobId} is over (no longer PENDING, RUNNING, CONFIGURING, COMPLETING, REQUEUED or
     * SUSPENDED) and returns its state ({@code COMPLETED}, {@code FAILED}, {@code NODE_FAIL}, ...). Past
     * {@code timeout}, every job is cancelled and an {@link IOException} says the job's last state.
     */
    public String awaitJob(String jobId, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        String state = "";
        while (true) {
            Result r = scontrol("-o", "show", "job", jobId);
            state = Arrays.stream(r.stdout().split("\\s+")).filter(f -> f.startsWith("JobState=")).findFirst()
                    .map(f -> f.substring("JobState=".length())).orElse("unknown (" + r.stderr().strip() + ")");
            if (!Set.of("PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "REQUEUED", "SUSPENDED", "RESIZING")
                    .contains(state)) {
                return state;
            }
            if (System.nanoTime() > deadline) {
                cancelAllJobs();
                throw new IOException("job " + jobId + " still " + state + " after " + timeout.toMillis()
                        + " ms (every job cancelled)");
            }
            pause(20);
        }
    }

    /** Cancels every job of the cluster ({@code scancel --user=root}; the cluster is this run's alone). */
    public void cancelAllJobs() throws IOException {
        ProcessBuilder pb = login(List.of(tools.get("scancel"), "--user=root"));
        TestHosts.Exec.run(pb, ADMIN_TIMEOUT);
    }

    /**
     * Each node's SLURM state as {@code sinfo} reports it ({@code idle}, {@code alloc}, {@code mix},
     * {@code down*}, ...), by node name.
     */
    public Map<String, String> nodeStates() throws IOException {
        String out = client(ADMIN_TIMEOUT, "sinfo", "-h", "-N", "-o", "%N %t").check("sinfo");
        Map<String, String> states = new LinkedHashMap<>();
        for (String line : out.split("\n")) {
            String[] f = line.trim().split("\\s+");
            if (f.length == 2) {
                states.put(f[0], f[1]);
            }
        }
        return states;
    }

    /**
     * Node loss: SIGKILL of the node's init (its slurmd, every job step on it and its /dev/shm go with its
     * namespaces), its cgroup swept and removed, then the node set DOWN at once ({@code scontrol update
     * state=down}; the controller would otherwise notice after 8-10 s). A job without {@code --no-kill} is
     * killed by that; with it, its allocation shrinks.
     */
    public void loseNode(SlurmNode node) throws IOException {
        if (!node.isUp()) {
            throw new IllegalStateException(node + " is already down");
        }
        node.stop();
        scontrol("update", "nodename=" + node.name(), "state=down", "reason=jckpt-test-node-lost")
                .check("scontrol update nodename=" + node.name() + " state=down");
    }

    /**
     * Loses several nodes at the same instant (a rack, a power feed; all of them: a total loss): every init is
     * SIGKILLed before any clean-up, then each node goes and is set DOWN as with {@link #loseNode}.
     */
    public void loseNodes(SlurmNode... group) throws IOException {
        for (SlurmNode n : group) {
            if (!n.isUp()) {
                throw new IllegalStateException(n + " is already down");
            }
        }
        for (SlurmNode n : group) {
            n.killInit();
        }
        for (SlurmNode n : group) {
            n.stop();
        }
        for (SlurmNode n : group) {
            scontrol("update", "nodename=" + n.name(), "state=down", "reason=jckpt-test-node-lost")
                    .check("scontrol update nodename=" + n.name() + " state=down");
        }
    }

    /** Starts a lost node again (empty /dev/shm, a fresh slurmd) and waits until SLURM has it idle. */
    public void restartNode(SlurmNode node) throws IOException {
        restartNodes(node);
    }

    /** Starts lost nodes again, all at once, and waits until SLURM has every one idle. */
    public void restartNodes(SlurmNode... group) throws IOException {
        for (SlurmNode n : group) {
            if (n.isUp()) {
                throw new IllegalStateException(n + " is up");
            }
        }
        for (SlurmNode n : group) {
            n.start();
        }
        for (SlurmNode n : group) {
            n.awaitInit(START_TIMEOUT);
        }
        awaitIdle(List.of(group), START_TIMEOUT);
    }

    /** Stops every node and the controller (SIGKILL of each init), removes cgroups, files and locks. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        List<Exception> failures = new ArrayList<>();
        List<SlurmNode> all = new ArrayList<>(nodes);
        all.add(controller);
        for (SlurmNode n : all) {
            n.killInit(); // all at once: no node's slurmd reports another's end
        }
        for (SlurmNode n : all) {
            try {
                n.stop();
            } catch (IOException | RuntimeException e) {
                failures.add(e);
            }
        }
        try {
            TestHosts.endRun(name, cgroupRoot, runLock); // the login cgroup's clients too
        } catch (IOException | RuntimeException e) {
            failures.add(e);
        }
        if (portLock != null) {
            try {
                TestHosts.release(portLock);
            } catch (IOException e) {
                failures.add(e);
            }
        }
        if (!failures.isEmpty()) {
            IOException e = new IOException("closing SLURM cluster " + name + ": " + failures.get(0).getMessage(),
                    failures.get(0));
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    @Override
    public String toString() {
        return "test SLURM cluster " + name + " (controller port " + basePort + ", nodes "
                + nodes.stream().map(SlurmNode::name).collect(Collectors.joining(",")) + ")";
    }

    // ---- start ----

    private void startAll() throws IOException {
        runLock = TestHosts.beginRun(name, cgroupRoot);
        claimPorts();
        for (String d : List.of("munge", "state", "spool", "log")) {
            Files.createDirectories(runDir.resolve(d));
        }
        for (SlurmNode n : nodes) {
            Files.createDirectories(runDir.resolve("spool").resolve(n.name()));
        }
        Files.setPosixFilePermissions(runDir.resolve("munge"), java.nio.file.attribute.PosixFilePermissions.fromString("rwx------"));
        Path key = runDir.resolve("munge/munge.key");
        byte[] secret = new byte[1024];
        new java.security.SecureRandom().nextBytes(secret);
        Files.write(key, secret);
        Files.setPosixFilePermissions(key, java.nio.file.attribute.PosixFilePermissions.fromString("r--------"));
        Files.writeString(runDir.resolve("hosts"), "127.0.0.1 localhost login ctl "
                + nodes.stream().map(SlurmNode::name).collect(Collectors.joining(" ")) + "\n");
        SlurmFiles files = new SlurmFiles(name, runDir, runCgroup, nodes.stream().map(SlurmNode::name).toList(), cpus,
                TestHosts.directoriesToBind(shared), tools);
        Files.writeString(slurmConf(), files.slurmConf(basePort));
        writeScript(runDir.resolve("node-init"), files.initScript());
        writeScript(loginScript(), files.loginScript());
        Files.createDirectories(runCgroup.resolve("login"));
        controller.start();
        controller.awaitInit(START_TIMEOUT);
        awaitPort(basePort, START_TIMEOUT); // the controller listening first: a node would retry after 1 s
        for (SlurmNode n : nodes) {
            n.start();
        }
        for (SlurmNode n : nodes) {
            n.awaitInit(START_TIMEOUT);
        }
        awaitIdle(nodes, START_TIMEOUT);
    }

    /** Claims a free block of ports (a lock file per block; its daemons' ports checked free now). */
    private void claimPorts() throws IOException {
        List<String> slots = new ArrayList<>();
        for (int i = 0; i < BLOCKS; i++) {
            slots.add("slurm-ports-" + (FIRST_PORT + i * BLOCK));
        }
        List<FileLock> busy = new ArrayList<>();
        try {
            while (true) {
                FileLock l = TestHosts.claimSlot(slots, "block of 100 ports in " + FIRST_PORT + "-"
                        + (FIRST_PORT + BLOCKS * BLOCK - 1) + " for a SLURM cluster");
                int base = Integer.parseInt(TestHosts.slotOf(l).substring("slurm-ports-".length()));
                if (portsFree(base, nodes.size() + 1)) {
                    portLock = l;
                    basePort = base;
                    return;
                }
                busy.add(l); // held until a free block is found, so that the next claim skips it
            }
        } finally {
            for (FileLock l : busy) {
                TestHosts.release(l);
            }
        }
    }

    private static boolean portsFree(int base, int count) {
        for (int p = base; p < base + count; p++) {
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p), 1);
            } catch (IOException inUse) {
                return false;
            }
        }
        return true;
    }

    private void awaitIdle(List<SlurmNode> which, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<String, String> states = Map.of();
        while (System.nanoTime() < deadline) {
            states = nodeStates();
            Map<String, String> s = states;
            if (which.stream().allMatch(n -> "idle".equals(s.get(n.name())))) {
                return;
            }
            pause(20);
        }
        throw new IOException(this + ": nodes " + which + " not idle after " + timeout.toMillis() + " ms: " + states
                + "\n" + logs());
    }

    private void awaitPort(int port, Duration timeout) throws IOException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress(InetAddress.getLoopbackAddress(), port), 200);
                return;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IOException(this + ": slurmctld not listening on port " + port + " after "
                            + timeout.toMillis() + " ms\n" + logs());
                }
                pause(5);
            }
        }
    }

    /** The last lines of the daemons' logs, for failure messages. */
    public String logs() {
        StringBuilder b = new StringBuilder();
        try (var files = Files.list(runDir.resolve("log"))) {
            for (Path f : files.sorted().toList()) {
                List<String> lines = Files.readAllLines(f, StandardCharsets.UTF_8);
                b.append("== ").append(f.getFileName()).append('\n');
                lines.subList(Math.max(0, lines.size() - 15), lines.size()).forEach(l -> b.append(l).append('\n'));
            }
        } catch (IOException | RuntimeException e) {
            b.append("(logs unreadable: ").append(e).append(")\n");
        }
        return b.toString();
    }

    private static void killTree(Process p) {
        p.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        try {
            p.waitFor(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static void pause(long millis) throws IOException {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }

    private static String read(Path f) throws IOException {
        return Files.exists(f) ? Files.readString(f, StandardCharsets.UTF_8) : "";
    }

    private static void writeScript(Path file, String text) throws IOException {
        Files.writeString(file, text);
        if (!file.toFile().setExecutable(true)) {
            throw new IOException("cannot make " + file + " executable");
        }
    }

    static String quote(Path p) {
        return "'" + p.toString().replace("'", "'\\''") + "'";
    }

    /** How to start a cluster. */
    public static final class Builder {
        private int count = 3;
        private int cpus = 2;
        private final List<Path> shared = new ArrayList<>();

        private Builder() {
        }

        /** How many compute nodes (1-9, default 3). */
        public Builder nodes(int count) {
            if (count < 1 || count > 9) {
                throw new IllegalArgumentException("test SLURM cluster: nodes must be 1-9, got " + count);
            }
            this.count = count;
            return this;
        }

        /** CPUs (slots) of each node as SLURM counts them (1-64, default 2). */
        public Builder cpusPerNode(int cpus) {
            if (cpus < 1 || cpus > 64) {
                throw new IllegalArgumentException("test SLURM cluster: cpusPerNode must be 1-64, got " + cpus);
            }
            this.cpus = cpus;
            return this;
        }

        /** A directory every node sees at the same path (jobs' output, working directories). */
        public Builder share(Path directory) {
            if (!Files.isDirectory(directory)) {
                throw new IllegalArgumentException("test SLURM cluster: shared directory " + directory + " does not exist");
            }
            shared.add(directory);
            return this;
        }

        /** Starts the controller, then the nodes, and waits until SLURM has every node idle; on failure nothing is left. */
        public TestSlurm start() throws IOException {
            Optional<String> reason = unavailableReason();
            if (reason.isPresent()) {
                throw new IllegalStateException("test SLURM cluster unavailable: " + reason.get());
            }
            TestSlurm c = new TestSlurm(this);
            try {
                c.startAll();
                return c;
            } catch (IOException | RuntimeException e) {
                try {
                    c.close();
                } catch (IOException x) {
                    e.addSuppressed(x);
                }
                throw e;
            }
        }
    }
}
