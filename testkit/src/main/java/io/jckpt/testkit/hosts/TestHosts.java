package io.jckpt.testkit.hosts;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;

/**
 * Several test hosts on this one machine, for tests of multi-host behaviour (see docs/test-hosts.md).
 *
 * <p>A host is a mount + PID namespace in a cgroup v2 directory of its own, with its own tmpfs on
 * {@code /dev/shm} (its node-local memory), {@code /run} and {@code /tmp}, the shared directories bound back
 * in, its own address 127.0.0.N and (by default) its own sshd listening on that address only. The launcher's
 * host is the machine itself (the test JVM). Names are unique per run ({@code jckpt_th_<pid>_<seq>}: cgroup
 * directory, run directory, nftables tables) and addresses are claimed with file locks, so concurrent runs do
 * not collide. {@link #close()} removes everything; after a SIGKILL of the test JVM every host dies at once
 * (each host's init waits for end of file on a pipe from the JVM) and the next run removes what is left.
 *
 * <p>Root only (CI runs as root): call {@link #assumeAvailable()} first, which skips the test with the
 * reason when not root or when unshare, nsenter, sshd, ssh, ssh-keygen or nft is missing
 * ({@code bin/setup-test-hosts} installs them).
 *
 * <p><b>Size</b> (past 600 lines): one class owns every resource of a run (namespaces, cgroups, address and
 * mark locks, nftables tables, run directory) from start to {@link #close()} and the removal of what a killed
 * run left, so that nothing outlives it; a third of it is the small helpers private to that (its
 * {@link Builder}, process execution, cgroup removal, the tool check, the slot lists).
 */
public final class TestHosts implements AutoCloseable {
    /** Prefix of every name a run creates: cgroup directory, run directory, lock file, nftables tables. */
    static final String PREFIX = "jckpt_th_";
    /** Where runs keep their files (keys, configurations, pid files) and their lock files. */
    static final Path BASE = Path.of("/tmp/jckpt-test-hosts");
    private static final List<Path> COVERED = List.of(Path.of("/dev/shm"), Path.of("/run"), Path.of("/tmp"));
    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);
    private static final AtomicInteger RUNS = new AtomicInteger();
    /** Run names alive in this JVM: their locks are held by this JVM (tryLock would throw, not fail). */
    private static final Set<String> ACTIVE = ConcurrentHashMap.newKeySet();
    private static volatile Optional<String> unavailable;

    private final String name;
    private final Path runDir;
    private final Path cgroupRoot;
    private final Path runCgroup;
    private final List<Path> shared;
    private final boolean enforceAddresses;
    private final List<TestHost> hosts = new ArrayList<>();
    private final List<FileLock> locks = new ArrayList<>();
    /** Concurrent: a partition heals itself (its monitor, then this list) while isolate() holds the run's monitor. */
    private final List<Partition> partitions = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final AtomicInteger partitionSeq = new AtomicInteger();
    private final Tools tools;
    private boolean closed;

    private TestHosts(Builder builder, Tools tools) {
        this.tools = tools;
        this.name = nextRunName();
        this.runDir = BASE.resolve(name);
        this.cgroupRoot = tools.cgroupRoot;
        this.runCgroup = cgroupRoot.resolve(name);
        this.enforceAddresses = builder.enforceAddresses;
        this.shared = sharedDirectories(runDir, builder.shared);
    }

    /** The directories every host of a run sees: the run directory, {@code extra}, the class path, the working directory. */
    static List<Path> sharedDirectories(Path runDir, List<Path> extra) {
        LinkedHashSet<Path> dirs = new LinkedHashSet<>();
        dirs.add(runDir);
        for (Path p : extra) {
            dirs.add(p.toAbsolutePath().normalize());
        }
        for (String entry : System.getProperty("java.class.path", "").split(java.io.File.pathSeparator)) {
            if (!entry.isEmpty()) {
                Path p = Path.of(entry).toAbsolutePath().normalize();
                dirs.add(Files.isDirectory(p) ? p : p.getParent());
            }
        }
        dirs.add(Path.of(System.getProperty("user.dir")).toAbsolutePath().normalize());
        return List.copyOf(dirs);
    }

    /** A builder: how many hosts, which directories they share, whether addresses are enforced. */
    public static Builder builder() {
        return new Builder();
    }

    /** Starts {@code count} hosts with ssh, no address enforcement and no extra shared directory. */
    public static TestHosts start(int count) throws IOException {
        return builder().hosts(count).start();
    }

    /**
     * Skips the calling test (a JUnit assumption) with the reason when test hosts cannot be made here:
     * not root, a missing tool, no writable cgroup v2 tree, or no permission for namespaces or nftables.
     */
    public static void assumeAvailable() {
        Optional<String> reason = unavailableReason();
        Assumptions.assumeTrue(reason.isEmpty(), () -> "test hosts unavailable: " + reason.orElse(""));
    }

    /** Why test hosts cannot be made on this machine, or empty when they can. Checked once per JVM. */
    public static Optional<String> unavailableReason() {
        Optional<String> reason = unavailable;
        if (reason == null) {
            synchronized (TestHosts.class) {
                if (unavailable == null) {
                    unavailable = Tools.check();
                }
                reason = unavailable;
            }
        }
        return reason;
    }

    /** This run's unique name (prefix of its cgroup directory and nftables tables). */
    public String name() {
        return name;
    }

    /** The hosts, in order h1, h2, ... */
    public List<TestHost> hosts() {
        return Collections.unmodifiableList(hosts);
    }

    /** Host {@code index} (0-based: host(0) is h1). */
    public TestHost host(int index) {
        return hosts.get(index);
    }

    /** The directories visible at the same path on every host (and on the launcher's host). */
    public List<Path> sharedDirectories() {
        return shared;
    }

    /** This run's directory (keys, configurations), shared by every host. */
    public Path runDirectory() {
        return runDir;
    }

    /** The ssh client configuration ({@code ssh -F} file): host names h1.. and addresses, port, key, no prompts. */
    public Path sshConfig() {
        return runDir.resolve("ssh_config");
    }

    /** The remote-shell command for ssh: {@code ssh -F <config>}; append the host and the command. */
    public List<String> sshCommand() {
        return List.of("ssh", "-F", sshConfig().toString());
    }

    /**
     * A remote-shell script used like ssh ({@code rsh HOST COMMAND...}, HOST a name or an address) that
     * enters the host with nsenter (~16 ms instead of ~0.4 s for ssh) and puts the command in the host's
     * cgroup. Exit 255 when the host is down. Its sessions are pipes: a partition does not cut them.
     */
    public Path nsenterRsh() {
        return runDir.resolve("rsh-nsenter");
    }

    /** Whether a new TCP connection to 127.0.0.N must reach a socket of host N (see docs/test-hosts.md). */
    public boolean enforcesAddresses() {
        return enforceAddresses;
    }

    /**
     * Loses several hosts at the same instant (a rack, a power feed): the init of each is SIGKILLed first,
     * all of them before any clean-up, then each host goes as with {@link TestHost#loseNode()}. With
     * {@code loseNode()} one after the other, a host would outlive the first by the first's clean-up.
     *
     * @throws IllegalStateException when one of them is already down (nothing is killed then)
     */
    public void loseNodes(TestHost... group) throws IOException {
        for (TestHost h : group) {
            if (!h.isUp()) {
                throw new IllegalStateException(h + " is already down");
            }
        }
        for (TestHost h : group) {
            h.killInit();
        }
        for (TestHost h : group) {
            h.loseNode();
        }
    }

    /**
     * Cuts {@code group} off from every other host and from the launcher's host (the test JVM and every
     * process outside the test hosts), both ways: packets are dropped, never reset. Hosts inside the group
     * still reach one another. {@link Partition#heal()} removes it; {@link #close()} heals what is left.
     */
    public synchronized Partition isolate(TestHost... group) throws IOException {
        if (group.length == 0) {
            throw new IllegalArgumentException("a partition needs at least one host");
        }
        for (TestHost h : group) {
            if (!hosts.contains(h)) {
                throw new IllegalArgumentException(h + " is not a host of run " + name);
            }
        }
        FileLock bits = claim(Slots.marks(), "mark bits for a partition (at most 16 at a time on the machine)");
        int slot = Integer.parseInt(slotOf(bits).substring("mark-".length()));
        Partition p = new Partition(this, name + "_p" + partitionSeq.incrementAndGet(), List.of(group), slot, bits);
        p.apply();
        partitions.add(p);
        return p;
    }

    /** The partitions in force. */
    public List<Partition> partitions() {
        return List.copyOf(partitions);
    }

    void removed(Partition p) {
        partitions.remove(p);
    }

    /** Stops every host (as a node loss), heals partitions, removes tables, cgroups and files. */
    @Override
    public synchronized void close() throws IOException {
        if (closed) {
            return;
        }
        closed = true;
        List<Exception> failures = new ArrayList<>();
        for (TestHost h : hosts) {
            try {
                h.stop();
            } catch (Exception e) {
                failures.add(e);
            }
        }
        for (Partition p : List.copyOf(partitions)) {
            try {
                p.heal();
            } catch (Exception e) {
                failures.add(e);
            }
        }
        try {
            removeRun(name, cgroupRoot);
        } catch (Exception e) {
            failures.add(e);
        }
        for (FileLock l : locks) {
            try {
                release(l);
            } catch (IOException e) {
                failures.add(e);
            }
        }
        try {
            Files.deleteIfExists(BASE.resolve(name + ".lock"));
        } catch (IOException e) {
            failures.add(e);
        }
        ACTIVE.remove(name);
        if (!failures.isEmpty()) {
            IOException e = new IOException("closing test hosts " + name + ": " + failures.get(0).getMessage(), failures.get(0));
            failures.stream().skip(1).forEach(e::addSuppressed);
            throw e;
        }
    }

    @Override
    public String toString() {
        return "test hosts " + name + " " + hosts;
    }

    // ---- package-private plumbing used by TestHost and Partition ----

    Tools tools() {
        return tools;
    }

    Path cgroupRoot() {
        return cgroupRoot;
    }

    Path runCgroup() {
        return runCgroup;
    }

    /** Re-applies the rules that name cgroups by their inode (a restarted host has a new cgroup). */
    synchronized void hostRestarted() throws IOException {
        if (enforceAddresses) {
            loadRules(addressRules());
        }
        for (Partition p : partitions) {
            p.apply();
        }
    }

    /** Loads an nft script; cgroupv2 paths in it are relative to the cgroup v2 root. */
    void loadRules(String script) throws IOException {
        Path file = runDir.resolve("rules-" + System.nanoTime() + ".nft");
        Files.writeString(file, script);
        try {
            List<String> cmd;
            if (cgroupRoot.equals(Path.of("/sys/fs/cgroup"))) {
                cmd = List.of(tools.nft, "-f", file.toString());
            } else {
                // nft resolves cgroupv2 paths under /sys/fs/cgroup only: show it the v2 tree there, privately
                cmd = List.of(tools.unshare, "--mount", "--propagation", "private", "sh", "-c",
                        "mount --bind \"$1\" /sys/fs/cgroup && exec \"$2\" -f \"$3\"", "nft-load",
                        cgroupRoot.toString(), tools.nft, file.toString());
            }
            Result r = Exec.run(cmd, Duration.ofSeconds(20));
            if (r.exitCode() != 0) {
                throw new IOException("nft rejected the rules of " + name + " (exit " + r.exitCode() + "): " + r.stderr()
                        + "\n" + script);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    void deleteTable(String table) throws IOException {
        Result r = Exec.run(List.of(tools.nft, "delete", "table", "inet", table), Duration.ofSeconds(20));
        if (r.exitCode() != 0 && !r.stderr().contains("No such file or directory")) {
            throw new IOException("nft delete table inet " + table + " failed: " + r.stderr());
        }
    }

    /** {@code "<run>/hN"}: a host's cgroup path as nft's cgroupv2 matcher names it. */
    String cgroupName(TestHost h) {
        return name + "/" + h.name();
    }

    // ---- start ----

    private void startAll(int count) throws IOException {
        clearStale(cgroupRoot);
        Files.createDirectories(BASE);
        locks.add(lock(BASE.resolve(name + ".lock")));
        ACTIVE.add(name);
        Files.createDirectories(runDir.resolve("hosts"));
        Files.createDirectories(runCgroup);
        keygen(runDir.resolve("host_key"));
        keygen(runDir.resolve("client_key"));
        writeRsh();
        List<String> addresses = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            FileLock address = claimAddress();
            locks.add(address);
            String a = slotOf(address);
            addresses.add(a);
            hosts.add(new TestHost(this, "h" + (i + 1), a, freePort(a)));
        }
        writeSshConfig();
        for (TestHost h : hosts) {
            Files.createDirectories(h.cgroup()); // before the rules: nft resolves cgroup paths when it loads them
        }
        if (enforceAddresses) {
            loadRules(addressRules());
        }
        for (TestHost h : hosts) {
            h.start();
        }
        for (TestHost h : hosts) {
            h.awaitReady(START_TIMEOUT);
        }
    }

    private void keygen(Path key) throws IOException {
        Result r = Exec.run(List.of(tools.sshKeygen, "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", key.toString()),
                Duration.ofSeconds(20));
        if (r.exitCode() != 0) {
            throw new IOException("ssh-keygen failed for " + key + ": " + r.stderr());
        }
    }

    private void writeSshConfig() throws IOException {
        StringBuilder c = new StringBuilder("# test hosts of run " + name + " (ssh -F this file)\n");
        for (TestHost h : hosts) {
            c.append("Host ").append(h.name()).append(' ').append(h.address()).append('\n')
                    .append("  HostName ").append(h.address()).append('\n')
                    .append("  Port ").append(h.sshPort()).append('\n');
        }
        c.append("Host *\n  User root\n  IdentityFile ").append(runDir.resolve("client_key")).append('\n')
                .append("  IdentitiesOnly yes\n  StrictHostKeyChecking no\n  UserKnownHostsFile /dev/null\n")
                .append("  GlobalKnownHostsFile /dev/null\n  CheckHostIP no\n  LogLevel ERROR\n  BatchMode yes\n")
                .append("  ServerAliveInterval 2\n  ServerAliveCountMax 3\n  ConnectTimeout 10\n  ControlMaster no\n")
                .append("  SendEnv JCKPT_*\n");
        Files.writeString(sshConfig(), c.toString());
    }

    private void writeRsh() throws IOException {
        String script = "#!/bin/bash\n"
                + "# test hosts of run " + name + ": rsh HOST COMMAND... (like ssh) through nsenter\n"
                + "dir=" + runDir.resolve("hosts") + "\n"
                + "host=\"$1\"; shift\n"
                + "pid=$(cat \"$dir/$host.pid\" 2>/dev/null) && cg=$(cat \"$dir/$host.cgroup\" 2>/dev/null) "
                + "&& [ -n \"$pid\" ] || { echo \"rsh-nsenter: test host $host is not up\" >&2; exit 255; }\n"
                + "echo $$ > \"$cg/cgroup.procs\" 2>/dev/null || { echo \"rsh-nsenter: test host $host is down\" >&2; exit 255; }\n"
                + "exec " + tools.nsenter + " -t \"$pid\" -m -p -- sh -c \"$*\"\n";
        Path rsh = nsenterRsh();
        Files.writeString(rsh, script);
        rsh.toFile().setExecutable(true);
    }

    /** The address-enforcement table: a new TCP connection to 127.0.0.N reaches host N's sockets only. */
    private String addressRules() {
        String table = name + "_addr";
        StringBuilder s = new StringBuilder();
        s.append("table inet ").append(table).append(" {}\ndelete table inet ").append(table).append('\n');
        s.append("table inet ").append(table).append(" {\n");
        // a host that is down has no cgroup (nft could not resolve it): nothing may answer at its address
        List<TestHost> up = hosts.stream().filter(h -> Files.isDirectory(h.cgroup())).collect(Collectors.toList());
        for (TestHost h : hosts) {
            s.append("  chain to_").append(h.name()).append(" {\n");
            if (up.contains(h)) {
                s.append("    socket cgroupv2 level 2 \"").append(cgroupName(h)).append("\" return\n");
            }
            s.append("    socket cgroupv2 level 0 \"/\" drop\n  }\n");
        }
        s.append("  chain in {\n    type filter hook input priority -5; policy accept;\n");
        for (TestHost h : hosts) {
            String syn = "    tcp flags & (syn | ack) == syn ";
            s.append(syn).append("ip daddr ").append(h.address()).append(" jump to_").append(h.name()).append('\n');
            if (!up.contains(h)) {
                continue;
            }
            s.append(syn).append("ip daddr != ").append(h.address()).append(" socket cgroupv2 level 2 \"")
                    .append(cgroupName(h)).append("\" drop\n");
            s.append(syn).append("meta nfproto ipv6 socket cgroupv2 level 2 \"").append(cgroupName(h)).append("\" drop\n");
        }
        s.append("  }\n}\n");
        return s.toString();
    }

    /** A port free on this address now (its sshd binds it moments later; no other run uses the address). */
    private static int freePort(String address) throws IOException {
        try (java.net.ServerSocket s = new java.net.ServerSocket(0, 1, java.net.InetAddress.getByName(address))) {
            return s.getLocalPort();
        }
    }

    // ---- locks and stale runs ----

    private static FileLock lock(Path file) throws IOException {
        FileChannel ch = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
        FileLock l = ch.tryLock();
        if (l == null) {
            ch.close();
            throw new IOException(file + " is locked by another process");
        }
        return l;
    }

    /** Claims the first free lock among {@code names} (files under BASE); the lock's file name is its slot. */
    static FileLock claimAddress() throws IOException {
        return claim(Slots.addresses(), "a free address 127.0.0.2-254 for a test host");
    }

    private static FileLock claim(List<String> names, String what) throws IOException {
        Files.createDirectories(BASE);
        for (String n : names) {
            if (SLOTS.containsValue(n)) {
                continue; // held by this JVM: opening and closing the file again would drop the lock
            }
            FileChannel ch = FileChannel.open(BASE.resolve(n + ".lock"), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            try {
                FileLock l = ch.tryLock();
                if (l != null) {
                    SLOTS.put(l, n);
                    return l;
                }
            } catch (OverlappingFileLockException held) {
                // held by this JVM
            }
            ch.close();
        }
        throw new IOException("no " + what + " is free: every lock under " + BASE + " is held");
    }

    private static final java.util.Map<FileLock, String> SLOTS = new ConcurrentHashMap<>();

    static String slotOf(FileLock l) {
        return SLOTS.get(l);
    }

    static void release(FileLock l) throws IOException {
        SLOTS.remove(l);
        l.channel().close();
    }

    /**
     * Removes what runs that are no longer alive left behind: their run lock is free (its JVM is gone) or
     * missing. Cgroups (processes killed first), nftables tables, run directories.
     */
    static void clearStale(Path cgroupRoot) throws IOException {
        Set<String> stale = new LinkedHashSet<>();
        Set<String> candidates = new LinkedHashSet<>();
        try (Stream<Path> s = Files.list(cgroupRoot)) {
            s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(PREFIX)).forEach(candidates::add);
        }
        if (Files.isDirectory(BASE)) {
            try (Stream<Path> s = Files.list(BASE)) {
                s.map(p -> p.getFileName().toString()).filter(n -> n.startsWith(PREFIX))
                        .map(n -> n.endsWith(".lock") ? n.substring(0, n.length() - 5) : n).forEach(candidates::add);
            }
        }
        Tools tools = Tools.get();
        Result tables = Exec.run(List.of(tools.nft, "list", "tables"), Duration.ofSeconds(20));
        Set<String> tableNames = Arrays.stream(tables.stdout().split("\n")).map(String::trim)
                .filter(l -> l.startsWith("table inet " + PREFIX)).map(l -> l.substring("table inet ".length()))
                .collect(Collectors.toCollection(LinkedHashSet::new));
        for (String t : tableNames) {
            candidates.add(runOfTable(t));
        }
        for (String run : candidates) {
            if (ACTIVE.contains(run)) {
                continue;
            }
            Path lockFile = BASE.resolve(run + ".lock");
            if (!Files.exists(lockFile)) {
                stale.add(run); // a run creates its lock file first and deletes it last
                continue;
            }
            if (lockOnly(run, cgroupRoot, tableNames) && !olderThanAMinute(lockFile)) {
                continue; // a run starting now: it may not hold its lock yet
            }
            try (FileChannel ch = FileChannel.open(lockFile, StandardOpenOption.WRITE)) {
                FileLock l = ch.tryLock();
                if (l != null) {
                    stale.add(run);
                    l.release();
                }
            } catch (OverlappingFileLockException | IOException held) {
                // alive
            }
        }
        for (String run : stale) {
            for (String t : tableNames) {
                if (runOfTable(t).equals(run)) {
                    Exec.run(List.of(tools.nft, "delete", "table", "inet", t), Duration.ofSeconds(20));
                }
            }
            removeRun(run, cgroupRoot);
            Files.deleteIfExists(BASE.resolve(run + ".lock"));
        }
    }

    private static boolean lockOnly(String run, Path cgroupRoot, Set<String> tableNames) {
        return !Files.exists(cgroupRoot.resolve(run)) && !Files.exists(BASE.resolve(run))
                && tableNames.stream().noneMatch(t -> runOfTable(t).equals(run));
    }

    private static boolean olderThanAMinute(Path file) {
        try {
            return Files.getLastModifiedTime(file).toMillis() < System.currentTimeMillis() - 60_000;
        } catch (IOException gone) {
            return false;
        }
    }

    /** A table is named {@code <run>_addr} or {@code <run>_pK}; a run is {@code jckpt_th_<pid>_<seq>}. */
    private static String runOfTable(String table) {
        String[] parts = table.split("_");
        return parts.length >= 4 ? String.join("_", Arrays.asList(parts).subList(0, 4)) : table;
    }

    /** Kills what is left in a run's cgroups, removes them, its tables and its run directory. */
    private static void removeRun(String run, Path cgroupRoot) throws IOException {
        Tools tools = Tools.get();
        Result tables = Exec.run(List.of(tools.nft, "list", "tables"), Duration.ofSeconds(20));
        for (String line : tables.stdout().split("\n")) {
            String l = line.trim();
            if (l.startsWith("table inet " + run + "_")) {
                Exec.run(List.of(tools.nft, "delete", "table", "inet", l.substring("table inet ".length())),
                        Duration.ofSeconds(20));
            }
        }
        Path cg = cgroupRoot.resolve(run);
        if (Files.isDirectory(cg)) {
            try (Stream<Path> s = Files.list(cg)) {
                for (Path child : s.filter(Files::isDirectory).collect(Collectors.toList())) {
                    Cgroups.killAndRemove(child, Duration.ofSeconds(10));
                }
            }
            Cgroups.remove(cg, Duration.ofSeconds(10));
        }
        deleteTree(BASE.resolve(run));
    }

    /** Deletes a directory tree (used by tests for their shared directories); absent is fine. */
    public static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).collect(Collectors.toList())) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** Directories among the shared ones that a host's own tmpfs would hide, outermost first. */
    List<Path> directoriesToBind() {
        return directoriesToBind(shared);
    }

    /** A new run's unique name, {@code jckpt_th_<jvm pid>_<seq>} (a {@link TestSlurm} cluster's too). */
    static String nextRunName() {
        return PREFIX + ProcessHandle.current().pid() + "_" + RUNS.incrementAndGet();
    }

    /**
     * Starts run {@code run}: removes what dead runs left, then takes the run's lock (before anything else
     * of it exists, so that no other run removes it as stale). {@link #endRun} undoes it.
     */
    static FileLock beginRun(String run, Path cgroupRoot) throws IOException {
        clearStale(cgroupRoot);
        Files.createDirectories(BASE);
        FileLock l = lock(BASE.resolve(run + ".lock"));
        ACTIVE.add(run);
        return l;
    }

    /** Ends run {@code run}: kills what is left in its cgroups, removes them and its files, frees its lock. */
    static void endRun(String run, Path cgroupRoot, FileLock lock) throws IOException {
        try {
            removeRun(run, cgroupRoot);
        } finally {
            if (lock != null) {
                lock.channel().close();
            }
            Files.deleteIfExists(BASE.resolve(run + ".lock"));
            ACTIVE.remove(run);
        }
    }

    /** Claims the first free lock among {@code names} (files under {@link #BASE}); {@link #slotOf} names it. */
    static FileLock claimSlot(List<String> names, String what) throws IOException {
        return claim(names, what);
    }

    /** Directories among {@code shared} that a namespace's own tmpfs on /tmp, /run, /dev/shm would hide. */
    static List<Path> directoriesToBind(List<Path> shared) {
        List<Path> covered = shared.stream().filter(p -> COVERED.stream().anyMatch(p::startsWith))
                .sorted(Comparator.comparingInt(Path::getNameCount)).collect(Collectors.toList());
        List<Path> result = new ArrayList<>();
        for (Path p : covered) {
            if (result.stream().noneMatch(p::startsWith) && Files.isDirectory(p)) {
                result.add(p);
            }
        }
        return result;
    }

    /** Lock-file names (slots) for addresses and partition mark bits. */
    static final class Slots {
        private Slots() {
        }

        static List<String> addresses() {
            List<String> l = new ArrayList<>();
            for (int i = 2; i <= 254; i++) {
                l.add("127.0.0." + i);
            }
            return l;
        }

        static List<String> marks() {
            List<String> l = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                l.add("mark-" + i);
            }
            return l;
        }
    }

    /** How to start test hosts. */
    public static final class Builder {
        private int count = 3;
        private final List<Path> shared = new ArrayList<>();
        private boolean enforceAddresses;

        private Builder() {
        }

        /** How many hosts (1-100, default 3). */
        public Builder hosts(int count) {
            if (count < 1 || count > 100) {
                throw new IllegalArgumentException("test hosts: count must be 1-100, got " + count);
            }
            this.count = count;
            return this;
        }

        /**
         * A directory every host sees at the same path (a shared disk directory). The run directory, the
         * class path and the working directory are always shared.
         */
        public Builder share(Path directory) {
            if (!Files.isDirectory(directory)) {
                throw new IllegalArgumentException("test hosts: shared directory " + directory + " does not exist");
            }
            shared.add(directory);
            return this;
        }

        /**
         * Enforce addresses: a new TCP connection to 127.0.0.N is dropped unless it reaches a socket of host
         * N, and a socket of host N is reachable through 127.0.0.N only. Wrong peer information then fails
         * (the connect hangs: drop, never reset) instead of working by accident on one machine.
         */
        public Builder enforceAddresses(boolean enforce) {
            this.enforceAddresses = enforce;
            return this;
        }

        /** Starts the hosts (each with its sshd ready) or fails with the reason, leaving nothing behind. */
        public TestHosts start() throws IOException {
            Optional<String> reason = unavailableReason();
            if (reason.isPresent()) {
                throw new IllegalStateException("test hosts unavailable: " + reason.get());
            }
            TestHosts hosts = new TestHosts(this, Tools.get());
            try {
                hosts.startAll(count);
                return hosts;
            } catch (IOException | RuntimeException e) {
                try {
                    hosts.close();
                } catch (IOException c) {
                    e.addSuppressed(c);
                }
                throw e;
            }
        }
    }

    /** The result of a command: exit code, standard output and standard error. */
    public record Result(int exitCode, String stdout, String stderr) {
        /** The standard output, or an exception naming the exit code and standard error. */
        public String check(String what) {
            if (exitCode != 0) {
                throw new IllegalStateException(what + " failed with exit " + exitCode + ": " + stderr.strip());
            }
            return stdout;
        }
    }

    /** Runs a command to its end with a bounded wait; its output goes through files (no reader threads). */
    static final class Exec {
        private static final AtomicInteger SEQ = new AtomicInteger();

        private Exec() {
        }

        static Result run(List<String> command, Duration timeout) throws IOException {
            return run(new ProcessBuilder(command), timeout);
        }

        static Result run(ProcessBuilder pb, Duration timeout) throws IOException {
            Path dir = Files.createTempDirectory("jckpt-th-exec");
            Path out = dir.resolve("out");
            Path err = dir.resolve("err");
            try {
                Process p = pb.redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                        .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
                try {
                    if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                        p.destroyForcibly();
                        p.waitFor(5, TimeUnit.SECONDS);
                        throw new IOException("timed out after " + timeout.toMillis() + " ms: " + pb.command());
                    }
                } catch (InterruptedException e) {
                    p.destroyForcibly();
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while running " + pb.command(), e);
                }
                return new Result(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                        Files.readString(err, StandardCharsets.UTF_8));
            } finally {
                Files.deleteIfExists(out);
                Files.deleteIfExists(err);
                Files.deleteIfExists(dir);
            }
        }
    }

    /** Cgroup v2 directories: kill everything in one, wait until it is empty, remove it. */
    static final class Cgroups {
        private Cgroups() {
        }

        static Set<Long> processes(Path cgroup) {
            try {
                return Files.readAllLines(cgroup.resolve("cgroup.procs")).stream().filter(l -> !l.isBlank())
                        .map(Long::parseLong).collect(Collectors.toCollection(LinkedHashSet::new));
            } catch (IOException e) {
                return Set.of();
            }
        }

        static void killAndRemove(Path cgroup, Duration timeout) throws IOException {
            if (!Files.isDirectory(cgroup)) {
                return;
            }
            Path kill = cgroup.resolve("cgroup.kill");
            if (Files.exists(kill)) {
                Files.writeString(kill, "1");
            } else {
                for (long pid : processes(cgroup)) {
                    ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
                }
            }
            remove(cgroup, timeout);
        }

        /** Removes an empty cgroup; processes just killed take a moment to leave it (bounded polling). */
        static void remove(Path cgroup, Duration timeout) throws IOException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (true) {
                try {
                    Files.deleteIfExists(cgroup);
                    return;
                } catch (IOException busy) {
                    if (System.nanoTime() > deadline) {
                        throw new IOException("cgroup " + cgroup + " still busy after " + timeout.toMillis()
                                + " ms (processes " + processes(cgroup) + ")", busy);
                    }
                    try {
                        Thread.sleep(2);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                        throw new IOException("interrupted while removing " + cgroup, e);
                    }
                }
            }
        }
    }

    /** Paths of the tools and the cgroup v2 root, found once. */
    static final class Tools {
        private static volatile Tools found;
        final String unshare;
        final String nsenter;
        final String sshd;
        final String ssh;
        final String sshKeygen;
        final String nft;
        final String bash;
        final Path cgroupRoot;

        private Tools(String unshare, String nsenter, String sshd, String ssh, String sshKeygen, String nft, String bash,
                Path cgroupRoot) {
            this.unshare = unshare;
            this.nsenter = nsenter;
            this.sshd = sshd;
            this.ssh = ssh;
            this.sshKeygen = sshKeygen;
            this.nft = nft;
            this.bash = bash;
            this.cgroupRoot = cgroupRoot;
        }

        static Tools get() {
            if (unavailableReason().isPresent()) {
                throw new IllegalStateException("test hosts unavailable: " + unavailableReason().get());
            }
            return found;
        }

        static Optional<String> check() {
            if (!System.getProperty("os.name", "").toLowerCase().contains("linux")) {
                return Optional.of("not Linux");
            }
            try {
                String uid = Files.readAllLines(Path.of("/proc/self/status")).stream().filter(l -> l.startsWith("Uid:"))
                        .findFirst().orElse("Uid: -1").split("\\s+")[1];
                if (!uid.equals("0")) {
                    return Optional.of("not root (uid " + uid + "): test hosts need root for namespaces, cgroups,"
                            + " sshd and nftables; CI runs as root");
                }
                List<String> missing = new ArrayList<>();
                String[] names = {"unshare", "nsenter", "sshd", "ssh", "ssh-keygen", "nft", "bash"};
                String[] paths = new String[names.length];
                for (int i = 0; i < names.length; i++) {
                    paths[i] = which(names[i]);
                    if (paths[i] == null) {
                        missing.add(names[i]);
                    }
                }
                if (!missing.isEmpty()) {
                    return Optional.of("missing " + String.join(", ", missing)
                            + " (bin/setup-test-hosts installs openssh-server and nftables as root)");
                }
                Path root = cgroup2Root();
                if (root == null || !Files.isWritable(root)) {
                    return Optional.of("no writable cgroup v2 tree (looked at /sys/fs/cgroup and /sys/fs/cgroup/unified)");
                }
                Result ns = Exec.run(List.of(paths[0], "--mount", "--pid", "--fork", "true"), Duration.ofSeconds(20));
                if (ns.exitCode() != 0) {
                    return Optional.of("unshare --mount --pid refused: " + ns.stderr().strip());
                }
                Result nft = Exec.run(List.of(paths[5], "list", "tables"), Duration.ofSeconds(20));
                if (nft.exitCode() != 0) {
                    return Optional.of("nft refused (no CAP_NET_ADMIN?): " + nft.stderr().strip());
                }
                found = new Tools(paths[0], paths[1], paths[2], paths[3], paths[4], paths[5], paths[6], root);
                return Optional.empty();
            } catch (IOException | RuntimeException e) {
                return Optional.of("checking for test-host tools failed: " + e);
            }
        }

        static String which(String name) {
            List<String> dirs = new ArrayList<>(Arrays.asList(System.getenv().getOrDefault("PATH", "").split(":")));
            dirs.addAll(List.of("/usr/sbin", "/sbin", "/usr/bin", "/bin"));
            for (String d : dirs) {
                if (!d.isEmpty() && Files.isExecutable(Path.of(d, name))) {
                    return Path.of(d, name).toString();
                }
            }
            return null;
        }

        /** The cgroup v2 mount: /sys/fs/cgroup on a pure v2 machine, /sys/fs/cgroup/unified on a hybrid one. */
        private static Path cgroup2Root() throws IOException {
            for (String line : Files.readAllLines(Path.of("/proc/self/mountinfo"))) {
                String[] f = line.split(" ");
                int dash = Arrays.asList(f).indexOf("-");
                if (dash > 0 && dash + 1 < f.length && f[dash + 1].equals("cgroup2")
                        && (f[4].equals("/sys/fs/cgroup") || f[4].equals("/sys/fs/cgroup/unified"))) {
                    return Path.of(f[4]);
                }
            }
            return null;
        }
    }
}
