package io.jckpt.runtime.hosts;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.jckpt.cli.UsageException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The check before any rank starts: every host reachable, with the launcher's Java and every shared
 * path. The hosts are played by the stand-in agent {@code fake-rsh} (an unreachable host, a host with
 * another Java, a host without the shared directory); the namespace hosts of the multi-host tests run
 * the same check over real ssh.
 */
class HostPreflightTest {
    private static final String JAVA = Path.of(System.getProperty("java.home"), "bin", "java").toString();
    private static final Path OTHER_JAVA = Path.of("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java");

    private static HostPreflight preflight(Path shared, List<String> paths) {
        RemoteShell agent = new RemoteShell(List.of("env", "FAKE_RSH_JAVA=" + JAVA, "FAKE_RSH_OTHER_JAVA=" + OTHER_JAVA,
                "FAKE_RSH_SHARED=" + shared, RemoteShellTest.fakeRsh().toString()));
        return new HostPreflight(agent, JAVA, System.getProperty("java.version"), paths, 20_000);
    }

    @Test
    void hostsWithEverythingPass(@TempDir Path tmp) throws Exception {
        Path jar = Files.createFile(tmp.resolve("app.jar"));
        preflight(tmp, List.of(tmp.toString(), jar.toString())).check(List.of("a", "b", "a"));
    }

    @Test
    void eachProblemNamesTheHostAndWhatIsMissing(@TempDir Path tmp) throws Exception {
        Path jar = Files.createFile(tmp.resolve("app.jar"));
        HostPreflight check = preflight(tmp, List.of(tmp.toString(), jar.toString()));
        UsageException unreachable = assertThrows(UsageException.class, () -> check.check(List.of("a", "unreachable")));
        assertTrue(unreachable.getMessage().startsWith("host unreachable cannot be reached with `env ")
                && unreachable.getMessage().endsWith("Connection refused"), unreachable.getMessage());
        UsageException bare = assertThrows(UsageException.class, () -> check.check(List.of("bare", "a")));
        assertTrue(bare.getMessage().startsWith("host bare lacks /nonexistent-on-bare")
                && bare.getMessage().contains("shared file system"), bare.getMessage());
        UsageException both = assertThrows(UsageException.class, () -> check.check(List.of("unreachable", "bare")));
        assertTrue(both.getMessage().startsWith("host unreachable") && both.getMessage().endsWith("(and 1 more host problem)"),
                both.getMessage());
        // the disk level's directory: made where missing, and refused by name where it cannot be
        Path disk = tmp.resolve("made/disk");
        preflight(tmp, List.of(tmp.toString())).writable(disk.toString(), "--disk " + disk).check(List.of("a"));
        assertTrue(Files.isDirectory(disk), "made on the host");
        UsageException unwritable = assertThrows(UsageException.class, () -> preflight(tmp, List.of(tmp.toString()))
                .writable("/proc/jckpt-test/disk", "--disk /proc/jckpt-test/disk").check(List.of("a")));
        assertTrue(unwritable.getMessage().equals("host a cannot write /proc/jckpt-test/disk (--disk"
                + " /proc/jckpt-test/disk): every host writes its ranks' checkpoints there"), unwritable.getMessage());
        assumeTrue(Files.isExecutable(OTHER_JAVA) && !System.getProperty("java.version").startsWith("25"),
                "another JDK at " + OTHER_JAVA + " for the other-Java case");
        UsageException oldJava = assertThrows(UsageException.class, () -> check.check(List.of("old-java")));
        assertTrue(oldJava.getMessage().startsWith("host old-java runs another Java at " + JAVA), oldJava.getMessage());
    }
}
