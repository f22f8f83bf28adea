package io.jckpt.testkit.hosts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The multi-host tests' fixture on real test hosts: its work directory shared with the hosts, hostfiles, the
 * remote shell, the left-behind check (a store on a live host fails it with the host named, a lost host's
 * memory does not count) and its clean-up. Skipped with the reason when test hosts cannot be made here.
 */
class HostedJobsTest {
    private static HostedJobs jobs;
    private static Path work;

    @BeforeAll
    static void start() throws IOException {
        TestHosts.assumeAvailable();
        jobs = HostedJobs.start(Path.of("target").toAbsolutePath(), "hostedjobs",
                dir -> TestHosts.builder().hosts(2).share(dir));
        work = jobs.work();
    }

    @AfterAll
    static void stop() throws IOException {
        if (jobs != null) {
            jobs.close();
            assertFalse(Files.exists(work), "work directory left: " + work);
        }
    }

    @Test
    void aHostfileInTheSharedWorkDirectoryNamesEveryHostByAddressAndTheRemoteShellReachesThem() throws Exception {
        TestHost h1 = jobs.hosts().host(0);
        TestHost h2 = jobs.hosts().host(1);
        Path file = jobs.hostfile("two", 3, h2, h1);
        assertEquals(jobs.work().resolve("two"), file);
        List<String> entries = Files.readAllLines(file).stream().filter(l -> !l.isBlank() && !l.startsWith("#")).toList();
        assertEquals(List.of(h2.address() + " slots=3", h1.address() + " slots=3"), entries);
        // the hosts see it at the same path (the work directory was created before the hosts, to be shared)
        assertEquals(Files.readString(file).strip(), h2.run("cat " + file).check("cat on h2").strip());
        assertThrows(IllegalArgumentException.class, () -> jobs.hostfile("none", 0, h1));

        // --rsh's value: that host's own /dev/shm is what the command sees
        String marker = "hostedjobs-marker-" + System.nanoTime();
        h2.writeShm(marker, new byte[] {1});
        try {
            List<String> command = new ArrayList<>(List.of(jobs.rsh().split(" ")));
            command.addAll(List.of(h2.address(), "ls /dev/shm"));
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "ssh to " + h2 + " did not end");
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(0, p.exitValue(), out);
            assertTrue(out.contains(marker), out);
        } finally {
            Files.deleteIfExists(h2.shm().resolve(marker));
        }
    }

    @Test
    void aStoreOfTheJobOnALiveHostIsLeftBehindAndALostHostsIsNot() throws Exception {
        String jobId = "hostedjobs-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        jobs.assertNothingLeft(jobId);
        TestHost h2 = jobs.hosts().host(1);
        h2.writeShm("jckpt/" + jobId + "/rank-0", new byte[] {1});
        try {
            AssertionError e = assertThrows(AssertionError.class, () -> jobs.assertNothingLeft(jobId));
            assertTrue(e.getMessage().startsWith(h2.address() + " keeps a store of " + jobId), e.getMessage());
            h2.loseNode();
            jobs.assertNothingLeft(jobId);
        } finally {
            if (!h2.isUp()) {
                h2.restart();
            }
        }
        jobs.assertNothingLeft(jobId);
    }
}
