package io.jckpt.testkit.hosts;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * {@link HostedJobs} as a JUnit extension, for a test class whose cases share one set of hosts:
 *
 * <pre>{@code
 * @RegisterExtension
 * static final HostedJobsExtension jobs = new HostedJobsExtension(LaunchedJob.repoRoot().resolve("runtime/target"),
 *         "multihost", work -> TestHosts.builder().hosts(4).enforceAddresses(true));
 * }</pre>
 *
 * <p>Before all cases it skips the class with the reason when test hosts cannot be made here
 * ({@link TestHosts#assumeAvailable()}), then starts the fixture; after all cases it closes it. Its methods
 * are the fixture's ({@link HostedJobs}). Uses JUnit, an optional dependency of the kit: mains never load it.
 */
public final class HostedJobsExtension implements BeforeAllCallback, AfterAllCallback {
    private final Path parent;
    private final String prefix;
    private final Function<Path, TestHosts.Builder> hosts;
    private volatile HostedJobs jobs;

    /** The arguments of {@link HostedJobs#start(Path, String, Function)}, used before all cases. */
    public HostedJobsExtension(Path parent, String prefix, Function<Path, TestHosts.Builder> hosts) {
        this.parent = Objects.requireNonNull(parent, "parent");
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.hosts = Objects.requireNonNull(hosts, "hosts");
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        TestHosts.assumeAvailable();
        jobs = HostedJobs.start(parent, prefix, hosts);
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        HostedJobs started = jobs;
        jobs = null;
        if (started != null) {
            started.close();
        }
    }

    /** The started fixture. @throws IllegalStateException outside the test class's run */
    public HostedJobs jobs() {
        HostedJobs started = jobs;
        if (started == null) {
            throw new IllegalStateException("hosted jobs " + prefix + ": not started (only while the test class runs)");
        }
        return started;
    }

    /** {@link HostedJobs#hosts()}. */
    public TestHosts hosts() {
        return jobs().hosts();
    }

    /** {@link HostedJobs#host(int)}. */
    public TestHost host(int index) {
        return jobs().host(index);
    }

    /** {@link HostedJobs#work()}. */
    public Path work() {
        return jobs().work();
    }

    /** {@link HostedJobs#hostfile(String, int, List)}. */
    public Path hostfile(String name, int slots, List<TestHost> list) throws IOException {
        return jobs().hostfile(name, slots, list);
    }

    /** {@link HostedJobs#hostfile(String, int, TestHost...)}. */
    public Path hostfile(String name, int slots, TestHost... list) throws IOException {
        return jobs().hostfile(name, slots, list);
    }

    /** {@link HostedJobs#rsh()}. */
    public String rsh() {
        return jobs().rsh();
    }

    /** {@link HostedJobs#assertNothingLeft(String)}. */
    public void assertNothingLeft(String jobId) throws IOException, InterruptedException {
        jobs().assertNothingLeft(jobId);
    }
}
