package io.jckpt.testkit.hosts;

import io.jckpt.testkit.LaunchedJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;

/**
 * The fixture of tests that launch jobs ({@code bin/ckpt-run --hostfile}) on test hosts: the {@link TestHosts},
 * a work directory for the jobs' files (hostfiles, events, hooks), hostfiles written there, the remote-shell
 * option, and the check that a job left nothing behind on any host. Typically one per test class, opened in
 * {@code @BeforeAll} (after {@link TestHosts#assumeAvailable()}) and closed in {@code @AfterAll}:
 *
 * <pre>{@code
 * jobs = HostedJobs.start(LaunchedJob.repoRoot().resolve("runtime/target"), "multihost",
 *         work -> TestHosts.builder().hosts(4).enforceAddresses(true));
 * LaunchedJob.start("-np", "6", "--hostfile", jobs.hostfile("three", 2, jobs.hosts().host(0), ...).toString(),
 *         "--rsh", jobs.rsh(), ...);
 * jobs.assertNothingLeft(job.jobId());
 * }</pre>
 *
 * <p>A test class whose cases share the hosts registers it as {@link HostedJobsExtension} instead (started
 * before all cases, closed after them). Needs no JUnit: a failed check throws an {@link AssertionError} with
 * the details. Mains that make test hosts themselves (benchmarks, the demo) use the static
 * {@link #writeHostfile} and {@link #rsh(TestHosts)}.
 */
public final class HostedJobs implements AutoCloseable {
    /** How long {@link #assertNothingLeft} waits for the job's processes to be reaped. */
    private static final long PROCESSES_MILLIS = 10_000;

    private final Path work;
    private final TestHosts hosts;

    private HostedJobs(Path work, TestHosts hosts) {
        this.work = work;
        this.hosts = hosts;
    }

    /**
     * Creates the work directory (a new directory named {@code prefix...} under {@code parent}, created if
     * absent), then starts the hosts that {@code hosts} configures: it gets the work directory, so that the
     * builder may {@link TestHosts.Builder#share share} it. On failure nothing is left (hosts closed, the work
     * directory deleted).
     *
     * @param parent where the work directory goes: outside {@code /tmp}, which is each host's own (e.g. the
     *     module's {@code target})
     * @throws IllegalStateException when test hosts cannot be made here (see {@link TestHosts#unavailableReason()})
     */
    public static HostedJobs start(Path parent, String prefix, Function<Path, TestHosts.Builder> hosts)
            throws IOException {
        Objects.requireNonNull(hosts, "hosts");
        Path work = Files.createTempDirectory(Files.createDirectories(parent), prefix);
        try {
            TestHosts.Builder builder = Objects.requireNonNull(hosts.apply(work), "hosts: no builder");
            return new HostedJobs(work, builder.start());
        } catch (IOException | RuntimeException | Error e) {
            try {
                TestHosts.deleteTree(work);
            } catch (IOException d) {
                e.addSuppressed(d);
            }
            throw e;
        }
    }

    /** The test hosts. */
    public TestHosts hosts() {
        return hosts;
    }

    /** Host {@code index} of {@link #hosts()} (0-based). */
    public TestHost host(int index) {
        return hosts.host(index);
    }

    /** The work directory (deleted by {@link #close()}). */
    public Path work() {
        return work;
    }

    /** Writes hostfile {@code name} in the work directory: each host by address, {@code slots} each. */
    public Path hostfile(String name, int slots, List<TestHost> list) throws IOException {
        return writeHostfile(work.resolve(name), "test hosts", slots, list);
    }

    /** {@link #hostfile(String, int, List)} of the hosts given. */
    public Path hostfile(String name, int slots, TestHost... list) throws IOException {
        return hostfile(name, slots, List.of(list));
    }

    /** The launcher's {@code --rsh} value for these hosts: {@link TestHosts#sshCommand()} as one string. */
    public String rsh() {
        return rsh(hosts);
    }

    /**
     * Writes a hostfile for {@code bin/ckpt-run --hostfile}: a comment line, then one line
     * {@code ADDRESS slots=N} per host, in order. Hosts are named by address: MPJ's peers connect to what the
     * mapping names, and with addresses enforced only a host's own address reaches it.
     *
     * @throws IllegalArgumentException when {@code slots} is below 1 or {@code list} is empty
     */
    public static Path writeHostfile(Path file, String comment, int slots, List<TestHost> list) throws IOException {
        if (slots < 1) {
            throw new IllegalArgumentException("hostfile " + file + ": slots must be at least 1, got " + slots);
        }
        if (list.isEmpty()) {
            throw new IllegalArgumentException("hostfile " + file + ": no hosts");
        }
        List<String> lines = new ArrayList<>(List.of("# " + comment, ""));
        for (TestHost h : list) {
            lines.add(h.address() + " slots=" + slots);
        }
        return Files.write(file, lines);
    }

    /**
     * The launcher's lines saying that {@code rank} restarts off host {@code from}, found lost or not answering
     * yet ({@code rank R: host H lost, restarts on ...} / {@code rank R: host H does not answer, restarts on ...}):
     * which of the two depends on whether the host's probe ended within the launcher's grace (a refused
     * connection on a loaded machine may not), the move is the same.
     */
    public static List<String> moves(LaunchedJob job, int rank, String from) {
        String prefix = "rank " + rank + ": host " + from + " ";
        return job.linesContaining(prefix).stream().filter(l -> {
            String rest = l.substring(l.indexOf(prefix) + prefix.length());
            return rest.startsWith("lost, restarts on ") || rest.startsWith("does not answer, restarts on ");
        }).toList();
    }

    /** The launcher's {@code --rsh} value for {@code hosts}: {@link TestHosts#sshCommand()} as one string. */
    public static String rsh(TestHosts hosts) {
        return String.join(" ", hosts.sshCommand());
    }

    /**
     * Checks that job {@code jobId} left nothing: no process of it (every host's processes are in the machine's
     * {@code /proc}; waits up to 10 s for rank JVMs to be reaped) and no store of it in the {@code /dev/shm} of
     * a host that is up (a lost host's processes and memory went with it).
     *
     * @throws AssertionError naming the processes left, or the host and what its {@code /dev/shm} holds
     */
    public void assertNothingLeft(String jobId) throws IOException, InterruptedException {
        List<Long> left = LaunchedJob.processesLeft(jobId, PROCESSES_MILLIS);
        if (!left.isEmpty()) {
            throw new AssertionError("processes of job " + jobId + " left behind: " + left);
        }
        for (TestHost h : hosts.hosts()) {
            if (h.isUp()) {
                String stores = h.run("ls -R /dev/shm").stdout();
                if (stores.contains(jobId)) {
                    throw new AssertionError(h.address() + " keeps a store of " + jobId + ": " + stores);
                }
            }
        }
    }

    /** Stops the hosts (as {@link TestHosts#close()}) and deletes the work directory, even if the former fails. */
    @Override
    public void close() throws IOException {
        try {
            hosts.close();
        } finally {
            TestHosts.deleteTree(work);
        }
    }

    @Override
    public String toString() {
        return "HostedJobs " + work + " on " + hosts;
    }
}
