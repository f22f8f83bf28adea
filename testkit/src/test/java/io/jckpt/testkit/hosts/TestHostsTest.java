package io.jckpt.testkit.hosts;


import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.testkit.hosts.TestHosts.Result;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The test-host harness on real namespaces, sshd, cgroups and nftables: what later multi-host tests rely
 * on. Skipped (with the reason) when not root or when a tool is missing.
 */
class TestHostsTest {
    /** Long enough for a connect that works under load, short enough to keep blocked probes cheap. */
    private static final int PROBE_SECONDS = 3;
    private static TestHosts hosts;
    private static Path sharedDisk;

    @BeforeAll
    static void startHosts() throws IOException {
        TestHosts.assumeAvailable();
        sharedDisk = Files.createTempDirectory("jckpt-th-shared");
        hosts = TestHosts.builder().hosts(3).share(sharedDisk).enforceAddresses(true).start();
    }

    @AfterAll
    static void stopHosts() throws IOException {
        if (hosts != null) {
            hosts.close();
            assertRunGone(hosts.name(), Set.of());
        }
        if (sharedDisk != null) {
            TestHosts.deleteTree(sharedDisk);
        }
    }

    @Test
    void eachHostHasItsOwnShmAndSeesTheSharedDirectories() throws Exception {
        TestHost h1 = hosts.host(0);
        TestHost h2 = hosts.host(1);
        String file = "isolation-" + System.nanoTime();
        h1.writeShm(file, "only on h1".getBytes(StandardCharsets.UTF_8));
        assertEquals("only on h1", h1.run("cat /dev/shm/" + file).check("cat on h1"));
        Result onH2 = h2.run("test -e /dev/shm/" + file);
        assertEquals(1, onH2.exitCode(), "h2 sees h1's /dev/shm file");
        assertFalse(Files.exists(Path.of("/dev/shm", file)), "the launcher's host sees h1's /dev/shm file");
        assertFalse(h2.listShm().contains(file), h2.listShm().toString());
        // a file written in a host's /dev/shm from inside appears through its shm() only
        h2.run("echo from-h2 > /dev/shm/" + file).check("write on h2");
        assertEquals("from-h2\n", new String(h2.readShm(file), StandardCharsets.UTF_8));
        assertEquals("only on h1", new String(h1.readShm(file), StandardCharsets.UTF_8));
        // the shared disk directory (under /tmp, which each host has its own of) is the same everywhere
        Path shared = sharedDisk.resolve("from-h1");
        h1.run("echo shared > " + shared).check("write to the shared directory");
        assertEquals("shared\n", Files.readString(shared));
        assertEquals("shared\n", h2.run("cat " + shared).check("read on h2"));
        h1.run("touch /tmp/" + file).check("touch on h1");
        assertEquals(0, h1.run("test -e /tmp/" + file).exitCode());
        assertEquals(1, h2.run("test -e /tmp/" + file).exitCode(), "h2 sees h1's /tmp");
        assertFalse(Files.exists(Path.of("/tmp", file)), "the launcher's host sees h1's /tmp");
    }

    @Test
    void aCommandOverSshRunsInsideItsHost() throws Exception {
        List<String> markers = new ArrayList<>();
        for (TestHost h : hosts.hosts()) {
            String marker = h.name() + "-" + System.nanoTime();
            h.writeShm("marker", marker.getBytes(StandardCharsets.UTF_8));
            markers.add(marker);
        }
        List<Process> sessions = new ArrayList<>();
        for (TestHost h : hosts.hosts()) {
            ProcessBuilder pb = new ProcessBuilder(h.sshCommand(
                    "cat /dev/shm/marker; echo; echo $SSH_CONNECTION; grep '^0::' /proc/self/cgroup; echo $JCKPT_PROBE;"
                            + " cat /proc/1/comm"))
                    .redirectErrorStream(true);
            pb.environment().put("JCKPT_PROBE", "sent-to-" + h.name());
            sessions.add(pb.start());
        }
        for (int i = 0; i < sessions.size(); i++) {
            TestHost h = hosts.host(i);
            Process p = sessions.get(i);
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "ssh to " + h + " did not end");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), out + h.log());
            String[] lines = out.split("\n");
            assertEquals(markers.get(i), lines[0], "ssh to " + h + " ran elsewhere: " + out);
            assertEquals(h.address(), lines[1].split(" ")[2], "the sshd that answered is not on " + h.address() + ": " + out);
            assertTrue(lines[2].endsWith("/" + hosts.name() + "/" + h.name()), "not in " + h + "'s cgroup: " + out);
            assertEquals("sent-to-" + h.name(), lines[3], "JCKPT_* not passed through ssh: " + out);
            assertEquals("bash", lines[4], "PID 1 of the session's namespace is not the host's init: " + out);
        }
        // the nsenter remote shell reaches the same hosts, by name or by address
        for (TestHost h : hosts.hosts()) {
            for (String target : List.of(h.name(), h.address())) {
                Result r = TestHosts.Exec.run(List.of(hosts.nsenterRsh().toString(), target, "cat", "/dev/shm/marker"),
                        java.time.Duration.ofSeconds(30));
                assertEquals(new String(h.readShm("marker"), StandardCharsets.UTF_8), r.check("rsh-nsenter " + target));
            }
        }
        Result unknown = TestHosts.Exec.run(List.of(hosts.nsenterRsh().toString(), "h99", "true"),
                java.time.Duration.ofSeconds(30));
        assertEquals(255, unknown.exitCode(), unknown.toString());
    }

    @Test
    void nodeLossKillsEveryProcessOfTheHostAndFreesItsShm() throws Exception {
        TestHost h3 = hosts.host(2);
        h3.writeShm("store/big", new byte[8 << 20]);
        String shmDevice = deviceOf(h3.shm());
        assertTrue(mountedAnywhere(shmDevice), "h3's /dev/shm tmpfs " + shmDevice + " not found in any mount table");
        Process sshSession = new ProcessBuilder(h3.sshCommand("sleep 600")).redirectErrorStream(true).start();
        Process entered = h3.start("sleep 600 & sleep 601");
        awaitCommands(h3, "sleep", 3);
        Set<Long> before = h3.processes();
        long init = h3.initPid();
        h3.loseNode();
        assertFalse(h3.isUp());
        for (long pid : before) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " of h3 survived");
        }
        assertFalse(ProcessHandle.of(init).isPresent(), "h3's init survived");
        assertFalse(Files.exists(h3.cgroup()), "h3's cgroup left: " + h3.cgroup());
        assertFalse(mountedAnywhere(shmDevice), "h3's /dev/shm tmpfs is still mounted somewhere after the node loss");
        assertTrue(sshSession.waitFor(30, TimeUnit.SECONDS), "the ssh client did not notice the node loss");
        assertEquals(255, sshSession.exitValue(), "ssh client after node loss");
        assertTrue(entered.waitFor(30, TimeUnit.SECONDS), "the nsenter session did not end");
        Result down = TestHosts.Exec.run(List.of(hosts.nsenterRsh().toString(), "h3", "true"), java.time.Duration.ofSeconds(30));
        assertEquals(255, down.exitCode(), "rsh to a lost host: " + down);

        h3.restart();
        assertTrue(h3.isUp());
        assertNotEquals(init, h3.initPid());
        assertEquals(List.of(), h3.listShm(), "a restarted host starts with an empty /dev/shm");
        assertEquals("", h3.ssh("ls -A /dev/shm").check("ssh to the restarted h3"));
        assertEquals(h3.address(), h3.ssh("echo $SSH_CONNECTION").check("ssh").split(" ")[2]);
    }

    @Test
    void aPartitionBlocksTcpBothWaysUntilHealed() throws Exception {
        TestHost h1 = hosts.host(0);
        TestHost h2 = hosts.host(1);
        TestHost h3 = hosts.host(2);
        try (ServerSocket launcher = new ServerSocket(0, 50, InetAddress.getByName("127.0.0.1"));
                Socket open = new Socket()) {
            String launcherEndpoint = "127.0.0.1:" + launcher.getLocalPort();
            Map<String, Boolean> all = probes(h1, h2, h3, launcherEndpoint);
            assertTrue(all.values().stream().allMatch(b -> b), "before the partition: " + all);

            // a connection from the launcher to h2's sshd, open before the partition: its sshd has sent its banner
            open.connect(new InetSocketAddress(h2.address(), h2.sshPort()), 30_000);
            open.setSoTimeout(30_000);
            BufferedReader fromSshd = new BufferedReader(new InputStreamReader(open.getInputStream(), StandardCharsets.US_ASCII));
            assertTrue(fromSshd.readLine().startsWith("SSH-2.0-"));

            Partition p = hosts.isolate(h2);
            assertEquals(List.of(p), hosts.partitions());
            Map<String, Boolean> cut = probes(h1, h2, h3, launcherEndpoint);
            Map<String, Boolean> expected = new LinkedHashMap<>();
            for (String key : cut.keySet()) {
                expected.put(key, !key.contains("h2"));
            }
            assertEquals(expected, cut, "during the partition of h2 (true = connected)");
            // the same host still reaches itself
            assertTrue(connects(h2, h2.address() + ":" + h2.sshPort()), "h2 cannot reach its own sshd");

            // the client's banner is sent into the partition: sshd answers it (KEXINIT) only once it arrives
            open.getOutputStream().write("SSH-2.0-jckpt_partition_probe\r\n".getBytes(StandardCharsets.US_ASCII));
            open.getOutputStream().flush();
            open.setSoTimeout(1000);
            assertThrows(SocketTimeoutException.class, fromSshd::read,
                    "an established connection crossed the partition");

            p.heal();
            assertTrue(p.isHealed());
            // dropped, not reset: the stalled connection resumes (TCP retransmits) and sshd answers
            open.setSoTimeout(30_000);
            assertTrue(fromSshd.read() >= 0, "the connection did not resume after healing");
            assertEquals(List.of(), hosts.partitions());
            Map<String, Boolean> healed = probes(h1, h2, h3, launcherEndpoint);
            assertTrue(healed.values().stream().allMatch(b -> b), "after healing: " + healed);
        }
    }

    @Test
    void enforcedAddressesMakeAWrongPeerAddressFail() throws Exception {
        TestHost h1 = hosts.host(0);
        TestHost h2 = hosts.host(1);
        int port;
        try (ServerSocket free = new ServerSocket(0)) {
            port = free.getLocalPort();
        }
        // a listener on the wildcard address in h1, as MPJ niodev listens
        Process listener = h1.start("exec perl -MIO::Socket::INET -e '$| = 1; my $s = IO::Socket::INET->new(Listen => 50,"
                + " LocalAddr => \"0.0.0.0\", LocalPort => " + port + ", ReuseAddr => 1) or die \"listen: $!\";"
                + " print \"listening\\n\"; while (my $c = $s->accept) { close $c }'");
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(listener.getInputStream(), StandardCharsets.UTF_8));
            assertEquals("listening", out.readLine(), "the listener in h1 did not start");
            Map<String, Process> started = new LinkedHashMap<>();
            started.put("h2 -> h1's address", probe(h2, h1.address() + ":" + port));
            started.put("launcher -> h1's address", probe(null, h1.address() + ":" + port));
            started.put("h1 -> h1's address", probe(h1, h1.address() + ":" + port));
            started.put("h2 -> 127.0.0.1", probe(h2, "127.0.0.1:" + port));
            started.put("launcher -> 127.0.0.1", probe(null, "127.0.0.1:" + port));
            started.put("h1 -> 127.0.0.1", probe(h1, "127.0.0.1:" + port));
            started.put("h2 -> h2's address", probe(h2, h2.address() + ":" + port));
            started.put("h2 -> h3's address", probe(h2, hosts.host(2).address() + ":" + port));
            Map<String, Boolean> result = results(started);
            Map<String, Boolean> expected = new LinkedHashMap<>();
            for (String key : result.keySet()) {
                expected.put(key, key.endsWith("h1's address"));
            }
            assertEquals(expected, result, "with enforced addresses only h1's address reaches h1's socket (true = connected)");
        } finally {
            listener.toHandle().descendants().forEach(ProcessHandle::destroyForcibly);
            listener.destroyForcibly();
            listener.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void closeLeavesNoProcessCgroupTableMountOrFile() throws Exception {
        Set<Long> pids;
        String name;
        try (TestHosts own = TestHosts.builder().hosts(2).enforceAddresses(true).start()) {
            name = own.name();
            own.host(0).writeShm("x", new byte[1 << 20]);
            own.host(1).start("sleep 600");
            own.isolate(own.host(0));
            assertTrue(nftTables().stream().anyMatch(t -> t.startsWith(name + "_p")), nftTables().toString());
            assertTrue(nftTables().contains(name + "_addr"), nftTables().toString());
            assertTrue(mountTablesMention(name), "the hosts' mount tables do not show the run directory");
            awaitCommands(own.host(1), "sleep", 1);
            pids = Stream.concat(own.host(0).processes().stream(), own.host(1).processes().stream()).collect(Collectors.toSet());
        }
        assertRunGone(name, pids);
    }

    @Test
    void aKilledTestJvmTakesItsHostsWithItAndTheNextRunClearsTheRest() throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process child = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                HostsUntilKilled.class.getName()).redirectErrorStream(true).start();
        String name;
        List<Long> inits = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(child.getInputStream(), StandardCharsets.UTF_8));
            // bounded: the child either prints its run or fails to start its hosts (bounded too) and exits
            StringBuilder skipped = new StringBuilder();
            String line;
            while ((line = out.readLine()) != null && !line.startsWith("run ")) {
                skipped.append(line).append('\n');
            }
            assertTrue(line != null, "the child JVM did not start its hosts: " + skipped);
            String[] f = line.split(" ");
            name = f[1];
            for (int i = 2; i < f.length; i++) {
                inits.add(Long.parseLong(f[i]));
            }
            assertEquals(2, inits.size(), line);
            assertTrue(nftTables().contains(name + "_addr"), nftTables().toString());
        } finally {
            child.destroyForcibly(); // SIGKILL: no close(), no shutdown hook
            assertTrue(child.waitFor(30, TimeUnit.SECONDS));
        }
        for (long init : inits) {
            ProcessHandle.of(init).ifPresent(h -> h.onExit().orTimeout(30, TimeUnit.SECONDS).join());
            assertFalse(ProcessHandle.of(init).isPresent(), "host init " + init + " outlived its JVM");
        }
        assertTrue(Files.isDirectory(hosts.cgroupRoot().resolve(name)), "nothing left for the next run to clear?");
        TestHosts.clearStale(hosts.cgroupRoot());
        assertRunGone(name, Set.of());
        // the live run of this class was left alone
        assertTrue(hosts.host(0).isUp() && Files.isDirectory(hosts.host(0).cgroup()));
        assertTrue(nftTables().contains(hosts.name() + "_addr"), nftTables().toString());
    }

    // ---- helpers ----

    /** Starts a connect probe from a host (or the launcher's host when null) to ADDRESS:PORT. */
    private static Process probe(TestHost from, String endpoint) throws IOException {
        String[] ap = endpoint.split(":");
        String cmd = "timeout " + PROBE_SECONDS + " bash -c 'exec 3<>/dev/tcp/" + ap[0] + "/" + ap[1] + "' 2>/dev/null";
        return from == null ? new ProcessBuilder("sh", "-c", cmd).start() : from.start(cmd);
    }

    private static boolean connects(TestHost from, String endpoint) throws Exception {
        return results(Map.of("probe", probe(from, endpoint))).get("probe");
    }

    private static Map<String, Boolean> results(Map<String, Process> started) throws InterruptedException {
        Map<String, Boolean> result = new LinkedHashMap<>();
        for (Map.Entry<String, Process> e : started.entrySet()) {
            Process p = e.getValue();
            assertTrue(p.waitFor(PROBE_SECONDS + 30, TimeUnit.SECONDS), e.getKey() + " did not end");
            result.put(e.getKey(), p.exitValue() == 0);
        }
        return result;
    }

    /** Every pair among the three hosts (both ways, to their sshd) and between each host and the launcher. */
    private static Map<String, Boolean> probes(TestHost h1, TestHost h2, TestHost h3, String launcher) throws Exception {
        Map<String, Process> started = new LinkedHashMap<>();
        for (TestHost from : List.of(h1, h2, h3)) {
            for (TestHost to : List.of(h1, h2, h3)) {
                if (from != to) {
                    started.put(from.name() + " -> " + to.name(), probe(from, to.address() + ":" + to.sshPort()));
                }
            }
            started.put("launcher -> " + from.name(), probe(null, from.address() + ":" + from.sshPort()));
            started.put(from.name() + " -> launcher", probe(from, launcher));
        }
        return results(started);
    }

    /** Waits (bounded) until the host's cgroup holds at least {@code count} processes running {@code command}. */
    private static void awaitCommands(TestHost h, String command, int count) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (h.processes().stream().filter(pid -> command.equals(comm(pid))).count() < count) {
            assertTrue(System.nanoTime() < deadline, h + " runs fewer than " + count + " " + command + ": "
                    + h.processes().stream().map(TestHostsTest::comm).collect(Collectors.toList()) + "\n" + h.log());
            Thread.sleep(20);
        }
    }

    private static String comm(long pid) {
        try {
            return Files.readString(Path.of("/proc", Long.toString(pid), "comm")).strip();
        } catch (IOException gone) {
            return "";
        }
    }

    private static String deviceOf(Path dir) throws IOException {
        long dev = (Long) Files.getAttribute(dir, "unix:dev");
        // st_dev as the kernel's new encoding; mountinfo shows major:minor
        long major = ((dev >>> 8) & 0xfff) | ((dev >>> 32) & ~0xfffL);
        long minor = (dev & 0xff) | ((dev >>> 12) & ~0xffL);
        return major + ":" + minor;
    }

    /** Whether any process's mount table on the machine has a mount of this device. */
    private static boolean mountedAnywhere(String device) throws IOException {
        return anyMountInfo(line -> line.split(" ")[2].equals(device));
    }

    private static boolean mountTablesMention(String text) throws IOException {
        return anyMountInfo(line -> line.contains(text));
    }

    private static boolean anyMountInfo(java.util.function.Predicate<String> match) throws IOException {
        try (Stream<Path> procs = Files.list(Path.of("/proc"))) {
            for (Path p : procs.filter(p -> p.getFileName().toString().matches("\\d+")).collect(Collectors.toList())) {
                List<String> lines;
                try {
                    lines = Files.readAllLines(p.resolve("mountinfo"));
                } catch (IOException gone) {
                    continue;
                }
                if (lines.stream().anyMatch(match)) {
                    return true;
                }
            }
        }
        return false;
    }

    private static List<String> nftTables() throws IOException {
        Result r = TestHosts.Exec.run(List.of("nft", "list", "tables"), java.time.Duration.ofSeconds(20));
        return r.stdout().lines().map(String::trim).filter(l -> l.startsWith("table inet "))
                .map(l -> l.substring("table inet ".length())).collect(Collectors.toList());
    }

    private static void assertRunGone(String name, Set<Long> pids) throws IOException {
        for (long pid : pids) {
            assertFalse(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false), "process " + pid + " left");
        }
        Path cgroupRoot = TestHosts.Tools.get().cgroupRoot;
        assertFalse(Files.exists(cgroupRoot.resolve(name)), "cgroup left: " + cgroupRoot.resolve(name));
        assertTrue(nftTables().stream().noneMatch(t -> t.startsWith(name + "_")), "nft tables left: " + nftTables());
        assertFalse(mountTablesMention(name), "a mount of run " + name + " is left");
        assertFalse(Files.exists(TestHosts.BASE.resolve(name)), "run directory left");
        assertFalse(Files.exists(TestHosts.BASE.resolve(name + ".lock")), "run lock file left");
    }
}
