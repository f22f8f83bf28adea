package io.jckpt.testkit.hosts;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * A {@link TestSlurm} cluster per test class, as a JUnit extension, with a work directory that every node
 * shares (jobs' output, batch scripts, working directories):
 *
 * <pre>{@code
 * @RegisterExtension
 * static final TestSlurmExtension slurm = new TestSlurmExtension(Path.of("target"), "slurm", b -> b.nodes(3));
 * }</pre>
 *
 * <p>Before all cases it skips the class with the reason when a cluster cannot be made here
 * ({@link TestSlurm#assumeAvailable()}), makes the work directory (outside {@code /tmp}, which is each node's
 * own) and starts the cluster; after all cases it closes the cluster and deletes the work directory, even when
 * a case failed or timed out.
 */
public final class TestSlurmExtension implements BeforeAllCallback, AfterAllCallback {
    private final Path parent;
    private final String prefix;
    private final UnaryOperator<TestSlurm.Builder> configure;
    private volatile TestSlurm cluster;
    private volatile Path work;

    /** {@code configure} gets a builder that already shares the work directory. */
    public TestSlurmExtension(Path parent, String prefix, UnaryOperator<TestSlurm.Builder> configure) {
        this.parent = Objects.requireNonNull(parent, "parent");
        this.prefix = Objects.requireNonNull(prefix, "prefix");
        this.configure = Objects.requireNonNull(configure, "configure");
    }

    @Override
    public void beforeAll(ExtensionContext context) throws IOException {
        TestSlurm.assumeAvailable();
        Path dir = Files.createTempDirectory(Files.createDirectories(parent.toAbsolutePath()), prefix);
        work = dir;
        cluster = Objects.requireNonNull(configure.apply(TestSlurm.builder().share(dir)), "configure: no builder").start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws IOException {
        TestSlurm c = cluster;
        Path dir = work;
        cluster = null;
        work = null;
        try {
            if (c != null) {
                c.close();
            }
        } finally {
            if (dir != null) {
                TestHosts.deleteTree(dir);
            }
        }
    }

    /** The started cluster. @throws IllegalStateException outside the test class's run */
    public TestSlurm cluster() {
        TestSlurm c = cluster;
        if (c == null) {
            throw new IllegalStateException("test SLURM cluster " + prefix + ": not started (only while the test class runs)");
        }
        return c;
    }

    /** The work directory every node shares (deleted after the class). */
    public Path work() {
        Path dir = work;
        if (dir == null) {
            throw new IllegalStateException("test SLURM cluster " + prefix + ": not started (only while the test class runs)");
        }
        return dir;
    }
}
