package io.jckpt.chaos;

import io.jckpt.testkit.hosts.HostedJobs;
import io.jckpt.testkit.hosts.Partition;
import io.jckpt.testkit.hosts.TestHost;
import io.jckpt.testkit.hosts.TestHosts;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * The test hosts of a campaign across hosts ({@code bin/chaos --hosts N}, docs/test-hosts.md): N job hosts
 * of 2 slots and 2 spare hosts, made once for the whole campaign with addresses enforced (wrong peer
 * information fails instead of working by accident on one machine), the shared disk directory bound into
 * each. Per run: the hostfile (the job hosts, then as many spares as the scenario loses hosts), where a
 * rank's process and store are, the failures themselves (a host lost, several at once, a partition), the
 * check that the job left nothing on any host, and the hosts made whole again for the next run.
 */
final class CampaignHosts implements AutoCloseable {
    /** Slots (ranks) per job host. */
    static final int SLOTS = 2;
    /** The most spare hosts a scenario uses ({@link Scenario#spareHosts()}). */
    private static final int SPARES = 2;

    private final TestHosts hosts;
    private final int jobHosts;
    private final Path memoryRelative;
    private final List<Partition> partitions = new ArrayList<>();

    private CampaignHosts(TestHosts hosts, int jobHosts, Path memoryBase) {
        this.hosts = hosts;
        this.jobHosts = jobHosts;
        // the node-local store directory, as each host's ranks see it (under their own /dev/shm)
        this.memoryRelative = Path.of("/dev/shm").relativize(memoryBase);
    }

    /**
     * Starts {@code jobHosts} job hosts and the spares, sharing {@code shared} (the disk level).
     *
     * @throws IllegalStateException when test hosts cannot be made here, with the reason
     */
    static CampaignHosts start(int jobHosts, Path shared, Path memoryBase) throws IOException {
        Optional<String> unavailable = TestHosts.unavailableReason();
        if (unavailable.isPresent()) {
            throw new IllegalStateException("--hosts makes test hosts on this machine (Linux namespaces with their own"
                    + " /dev/shm and sshd) and cannot here: " + unavailable.get());
        }
        if (!memoryBase.startsWith("/dev/shm")) {
            throw new IllegalStateException("--hosts needs the node-local stores under /dev/shm (each host's own), not "
                    + memoryBase);
        }
        Files.createDirectories(shared);
        TestHosts made = TestHosts.builder().hosts(jobHosts + SPARES).share(shared).enforceAddresses(true).start();
        return new CampaignHosts(made, jobHosts, memoryBase);
    }

    /** Every test host of the campaign (job hosts first, then the spares). */
    List<TestHost> all() {
        return hosts.hosts();
    }

    /** The job hosts (those the hostfile maps ranks to). */
    List<TestHost> jobHosts() {
        return hosts.hosts().subList(0, jobHosts);
    }

    /** The spare hosts, in the hostfile's order (where the ranks of lost hosts restart). */
    List<TestHost> spares() {
        return hosts.hosts().subList(jobHosts, hosts.hosts().size());
    }

    /** Writes the hostfile of a run of {@code scenario}: the job hosts, then its spare hosts. */
    Path hostfile(Path file, Scenario scenario) throws IOException {
        return HostedJobs.writeHostfile(file, "bin/chaos --hosts " + jobHosts + ": " + scenario.label, SLOTS,
                hosts.hosts().subList(0, jobHosts + scenario.spareHosts()));
    }

    /** The launcher's {@code --rsh}: ssh with the hosts' configuration. */
    String rsh() {
        return HostedJobs.rsh(hosts);
    }

    /** The host whose cgroup holds {@code pid} (the machine's pid), or null (gone, or on the launcher's host). */
    TestHost hostOf(long pid) {
        for (TestHost h : hosts.hosts()) {
            if (h.isUp() && h.processes().contains(pid)) {
                return h;
            }
        }
        return null;
    }

    /** Rank {@code rank}'s store directory of job {@code jobId} on {@code host}, seen from here. */
    Path rankStore(TestHost host, String jobId, int rank) {
        return host.shm().resolve(memoryRelative).resolve(jobId).resolve("rank-" + rank);
    }

    /** Loses {@code lost} at the same instant ({@link TestHosts#loseNodes}). */
    void lose(TestHost... lost) throws IOException {
        hosts.loseNodes(lost);
    }

    /** Cuts {@code host} off from every other host and the launcher's host, until {@link #reset()}. */
    void isolate(TestHost host) throws IOException {
        partitions.add(hosts.isolate(host));
    }

    /**
     * What job {@code jobId} left on the hosts, one line each (empty: nothing): on every host that is up
     * (a cut-off one included), any process but its init and its sshd listener (a rank, a standby, an sshd
     * session of the job's remote shell; on a host cut off by a partition, an sshd process with nothing but sshd
     * under it is left to sshd's own timeouts: its client is behind the partition, nothing of the job runs in
     * it) and, when {@code stores}, the job's store directory in its
     * /dev/shm, but on a host cut off by a partition (its ranks halted without their launcher, which they cannot
     * tell from a launcher crash, whose restart needs the stores: {@link #keptOnCutOff}); on the launcher's host, a remote-shell agent whose command line names the job (the job's
     * JVMs, found by their environment wherever they run, are the campaign's orphan check). Waits up to
     * {@code millis} for what is still going away.
     */
    List<String> leftovers(String jobId, boolean stores, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        for (;;) {
            List<String> found = new ArrayList<>();
            for (TestHost h : hosts.hosts()) {
                if (!h.isUp()) {
                    continue;
                }
                boolean cutOff = partitions.stream().anyMatch(p -> p.group().contains(h));
                for (long pid : strangers(h)) {
                    if (cutOff && idleSshd(pid)) {
                        continue; // its client is behind the partition: sshd's own timeouts end it
                    }
                    found.add(String.format(Locale.ROOT, "%s (%s): process %d '%s'", h.name(), h.address(), pid,
                            cmdline(pid)));
                }
                Path store = h.shm().resolve(memoryRelative).resolve(jobId);
                if (stores && Files.exists(store) && !cutOff) {
                    found.add(String.format(Locale.ROOT, "%s (%s): store %s", h.name(), h.address(),
                            Path.of("/dev/shm").resolve(memoryRelative).resolve(jobId)));
                }
            }
            for (long pid : agentsOf(jobId)) {
                found.add(String.format(Locale.ROOT, "launcher's host: remote-shell agent %d '%s'", pid,
                        shorten(cmdline(pid))));
            }
            if (found.isEmpty() || System.nanoTime() >= deadline) {
                return found;
            }
            Thread.sleep(50);
        }
    }

    /**
     * Makes every host whole for the next run: partitions healed, lost hosts started again (empty
     * /dev/shm), and on the others anything a run left (its processes killed, its stores removed).
     */
    void reset(String jobId) throws IOException, InterruptedException {
        for (Partition p : partitions) {
            p.heal();
        }
        partitions.clear();
        for (TestHost h : hosts.hosts()) {
            if (!h.isUp()) {
                h.restart();
                continue;
            }
            List<Long> left = strangers(h);
            JobProcesses.kill(left);
            JobProcesses.awaitGone(left, 5_000);
            Campaign.deleteTree(h.shm().resolve(memoryRelative).resolve(jobId));
        }
        List<Long> agents = agentsOf(jobId);
        JobProcesses.kill(agents);
        JobProcesses.awaitGone(agents, 5_000);
    }

    /**
     * The processes of {@code host} other than its init, the init's parent (unshare, in the host's cgroup too)
     * and the init's children named sshd (its listener).
     */
    private static List<Long> strangers(TestHost host) {
        long init = host.initPid();
        long unshare = ProcessHandle.of(init).flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L);
        List<Long> found = new ArrayList<>();
        for (long pid : host.processes()) {
            if (pid == init || pid == unshare || !JobProcesses.alive(pid)) {
                continue;
            }
            Optional<ProcessHandle> p = ProcessHandle.of(pid);
            boolean listener = p.flatMap(ProcessHandle::parent).map(ProcessHandle::pid).orElse(-1L) == init
                    && p.flatMap(x -> x.info().command()).map(c -> c.endsWith("/sshd")).orElse(false);
            if (!listener) {
                found.add(pid);
            }
        }
        return found;
    }

    /**
     * Whether {@code pid} is an sshd process (before or after authentication: {@code sshd: [accepted]},
     * {@code [net]}, {@code root@notty}) under which only sshd processes run: no shell, no JVM.
     */
    private static boolean idleSshd(long pid) {
        return cmdline(pid).startsWith("sshd: ") && ProcessHandle.of(pid)
                .map(p -> p.descendants().allMatch(d -> cmdline(d.pid()).startsWith("sshd: "))).orElse(true);
    }

    /** The hosts cut off in this run that keep job {@code jobId}'s store (by design: see {@link #leftovers}). */
    List<String> keptOnCutOff(String jobId) {
        List<String> kept = new ArrayList<>();
        for (Partition p : partitions) {
            for (TestHost h : p.group()) {
                if (h.isUp() && Files.exists(h.shm().resolve(memoryRelative).resolve(jobId))) {
                    kept.add(h.name() + " (" + h.address() + ")");
                }
            }
        }
        return kept;
    }

    /** Processes of the machine whose command line names job {@code jobId} (the launcher's ssh clients). */
    static List<Long> agentsOf(String jobId) {
        String mark = "JCKPT_JOB_ID=" + jobId;
        List<Long> found = new ArrayList<>();
        ProcessHandle.allProcesses().forEach(p -> {
            String line = cmdline(p.pid());
            int at = line.indexOf(mark);
            while (at >= 0) {
                int end = at + mark.length();
                // chaos-x-3 must not match chaos-x-30
                if (end == line.length() || !(Character.isLetterOrDigit(line.charAt(end)) || line.charAt(end) == '-')) {
                    if (p.pid() != ProcessHandle.current().pid() && JobProcesses.alive(p.pid())) {
                        found.add(p.pid());
                    }
                    return;
                }
                at = line.indexOf(mark, end);
            }
        });
        return found;
    }

    private static String cmdline(long pid) {
        try {
            return new String(Files.readAllBytes(Path.of("/proc", Long.toString(pid), "cmdline")),
                    StandardCharsets.UTF_8).replace('\0', ' ').trim();
        } catch (IOException e) {
            return "";
        }
    }

    private static String shorten(String text) {
        return text.length() > 160 ? text.substring(0, 160) + "..." : text;
    }

    /** Stops every host (their processes, memory, sshd, cgroups, rules and files). */
    @Override
    public void close() throws IOException {
        hosts.close();
    }

    @Override
    public String toString() {
        return jobHosts + " job hosts and " + SPARES + " spares: " + hosts;
    }
}
