package io.jckpt.samples.demo;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jckpt.samples.heat.HeatProblem;
import io.jckpt.testkit.hosts.HostedJobs;
import io.jckpt.testkit.hosts.TestHost;
import io.jckpt.testkit.hosts.TestHosts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * {@code bin/demo --hosts N}: the demo's heat job across N hosts. The hosts are made on this machine by the
 * test-host harness ({@link TestHosts}, docs/test-hosts.md: Linux namespaces, each with its own processes,
 * its own {@code /dev/shm}, its own sshd on 127.0.0.K, addresses enforced so that wrong peer information
 * fails), so it needs root. The launcher starts 2 ranks on each host over ssh from a hostfile (3 slots each,
 * mapped by node: a free slot on every host), places each rank's copies on other hosts, and when rank 0 has
 * reported 2/5 of the checkpoint rounds the demo loses the last host whole (its init SIGKILLed: its ranks, its
 * sshd and its node-local memory gone at once). The launcher finds the host lost, restarts its ranks on the
 * other hosts' free slots from the copies held there, and the checksum is compared with the failure-free
 * sequential reference. The summary and the report page are the one-host demo's ({@code OUT/demo-hosts-job}).
 * Everything is removed at the end, also on Ctrl-C or SIGTERM (a shutdown hook stops the launcher, then the
 * hosts); after a SIGKILL the hosts die with this JVM and the next run of the harness removes what is left.
 */
final class DemoAcrossHosts {
    /** The most hosts the demo makes (2 ranks and a JVM each on this one machine). */
    static final int MAX_HOSTS = 8;
    private static final int RANKS_PER_HOST = 2;

    private DemoAcrossHosts() {
    }

    /** Runs the demo; returns the exit status: 0 recovered and identical, 1 not, 2 no test hosts here. */
    static int run(Demo.Options options) throws Exception {
        Optional<String> unavailable = TestHosts.unavailableReason();
        if (unavailable.isPresent()) {
            System.err.println("demo: --hosts makes test hosts on this machine (Linux namespaces with their own /dev/shm"
                    + " and sshd) and cannot here: " + unavailable.get() + ". On a real cluster, run bin/ckpt-run --hostfile"
                    + " (README, \"Running on a cluster\").");
            return 2;
        }
        int hostCount = options.hosts;
        int ranks = RANKS_PER_HOST * hostCount;
        int rounds = options.iterations / options.every;
        int lossRound = Math.max(1, rounds * 2 / 5);
        Path out = options.out.toAbsolutePath();
        Path jobDir = out.resolve("demo-hosts-job");
        Files.createDirectories(jobDir);
        Path eventsFile = jobDir.resolve("events.jsonl");
        Files.deleteIfExists(eventsFile);
        Files.deleteIfExists(jobDir.resolve("report.html"));

        System.out.printf(Locale.ROOT, "== reference: the same %d x %d grid, %d sweeps, sequentially, no failure%n",
                options.nx, options.ny, options.iterations);
        long t0 = System.nanoTime();
        double[] grid = new HeatProblem(options.nx, options.ny).solveSequentially(options.iterations);
        String reference = String.format(Locale.ROOT, "%016x", HeatProblem.checksum(grid, 0, grid.length));
        System.out.printf(Locale.ROOT, "reference checksum %s (%.2f s)%n%n", reference, (System.nanoTime() - t0) / 1e9);

        Cleanup cleanup = new Cleanup();
        Thread hook = new Thread(cleanup::run, "jckpt-demo-cleanup");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            System.out.printf("== making %d test hosts on this machine (namespaces: own processes, /dev/shm, sshd)%n",
                    hostCount);
            t0 = System.nanoTime();
            TestHosts hosts = TestHosts.builder().hosts(hostCount).enforceAddresses(true).start();
            cleanup.hosts(hosts);
            for (TestHost h : hosts.hosts()) {
                System.out.printf("   %s: %s, sshd on port %d%n", h.name(), h.address(), h.sshPort());
            }
            System.out.printf(Locale.ROOT, "   ready in %.2f s; ssh config %s%n%n", (System.nanoTime() - t0) / 1e9,
                    hosts.sshConfig());
            Path hostfile = HostedJobs.writeHostfile(jobDir.resolve("hosts.txt"),
                    "bin/demo --hosts " + hostCount + ": test hosts on this machine", RANKS_PER_HOST + 1, hosts.hosts());
            TestHost lost = hosts.host(hostCount - 1);

            Path root = Paths.get(System.getProperty("jckpt.repo.root", ".")).toAbsolutePath().normalize();
            List<String> command = new ArrayList<>(List.of(root.resolve("bin/ckpt-run").toString(), "-np",
                    Integer.toString(ranks), "--hostfile", hostfile.toString(), "--map-by", "node",
                    "--rsh", HostedJobs.rsh(hosts), "--on-failure", "respawn", "--replicas",
                    Integer.toString(options.replicas), "--events", eventsFile.toString(), "-cp",
                    root.resolve("samples/target/classes").toString(), "io.jckpt.samples.heat.HeatSolver", "--nx",
                    Integer.toString(options.nx), "--ny", Integer.toString(options.ny), "--iterations",
                    Integer.toString(options.iterations), "--ckpt-every", Integer.toString(options.every),
                    "--report", "200", "--sleep-ms", "2"));
            System.out.printf("== %d ranks on %d hosts under bin/ckpt-run (2 a host, over ssh), m = %d; host %s (%s) will"
                    + " be lost whole once the launcher reports checkpoint round %d of %d or later%n", ranks, hostCount,
                    options.replicas, lost.name(), lost.address(), lossRound, rounds);
            System.out.println("$ " + String.join(" ", command));
            Process launcher = new ProcessBuilder(command).redirectErrorStream(true).start();
            cleanup.launcher(launcher);
            launcher.getOutputStream().close();
            String checksum = null;
            HostLoss loss = new HostLoss(eventsFile, lossRound, lost, launcher);
            Thread watcher = new Thread(loss, "jckpt-demo-host-loss");
            watcher.setDaemon(true);
            watcher.start();
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(launcher.getInputStream(),
                    StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    System.out.println(line);
                    checksum = Demo.checksumOf(line, checksum);
                    if (checksum != null) {
                        loss.jobEnded(); // rank 0 completed: a loss now would restart nothing
                    }
                }
            } finally {
                loss.jobEnded();
                watcher.join(5_000);
            }
            boolean lostDone = loss.lostAt() > 0;
            if (!launcher.waitFor(10, TimeUnit.MINUTES)) {
                launcher.destroyForcibly();
            }
            int status = launcher.exitValue();
            List<JsonNode> events = Demo.readEvents(eventsFile);
            System.out.println();
            System.out.println(Summary.table(events, reference, checksum, status));
            Path page = jobDir.resolve("report.html");
            System.out.println(Files.isRegularFile(page) ? "report page (timeline, summary, here() times): " + page.toUri()
                    : "no report page at " + page + " (see the launcher's warning above)");
            boolean ok = lostDone && status == 0 && reference.equals(checksum);
            System.out.println(ok ? "demo: OK, host " + lost.address() + " was lost whole and the checksum after the"
                    + " recovery equals the failure-free reference"
                    : !lostDone ? "demo: FAILED (the job ended before round " + lossRound + ": no host was lost; exit status "
                    + status + ")" : "demo: FAILED (launcher exit status " + status + ", checksum " + checksum + " vs "
                    + reference + ")");
            return ok ? 0 : 1;
        } finally {
            cleanup.run();
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook runs or ran: nothing left to do
            }
        }
    }

    /**
     * Loses the host once rank 0 has reported checkpoint round {@code lossRound} or later. It reads the
     * launcher's events file, where every rank's progress report is an event (at most every 20 ms), not the
     * console, which shows rank 0's round at most once a second: a short job could end between two console
     * lines. Polls every {@value #POLL_MILLIS} ms while the launcher runs; stops at the job's end.
     */
    private static final class HostLoss implements Runnable {
        private static final long POLL_MILLIS = 10;
        private final Path eventsFile;
        private final long lossRound;
        private final TestHost host;
        private final Process launcher;
        private final ObjectMapper json = new ObjectMapper();
        private volatile boolean ended;
        private volatile long lostAt;
        private long offset;

        HostLoss(Path eventsFile, long lossRound, TestHost host, Process launcher) {
            this.eventsFile = eventsFile;
            this.lossRound = lossRound;
            this.host = host;
            this.launcher = launcher;
        }

        /** The job ended or rank 0 completed: no loss from now on. */
        void jobEnded() {
            ended = true;
        }

        /** @return the round at which the host was lost, or 0 */
        long lostAt() {
            return lostAt;
        }

        @Override
        public void run() {
            try {
                while (!ended && launcher.isAlive()) {
                    long round = newestRankZeroRound();
                    if (round >= lossRound && !ended) {
                        host.loseNode();
                        lostAt = round;
                        System.out.printf("== demo: host %s (%s) lost at round %d: its init SIGKILLed, every process on"
                                + " it and its /dev/shm gone%n", host.name(), host.address(), round);
                        return;
                    }
                    Thread.sleep(POLL_MILLIS);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (IOException e) {
                System.err.println("demo: losing host " + host.name() + ": " + e.getMessage());
            }
        }

        /** Reads the whole events appended since the last call; the newest round rank 0 reported in them, or 0. */
        private long newestRankZeroRound() throws IOException {
            if (!Files.isRegularFile(eventsFile)) {
                return 0;
            }
            byte[] appended;
            try (FileChannel in = FileChannel.open(eventsFile, StandardOpenOption.READ)) {
                long size = in.size();
                if (size <= offset) {
                    return 0;
                }
                ByteBuffer buf = ByteBuffer.allocate((int) Math.min(size - offset, 1 << 24));
                in.read(buf, offset);
                appended = Arrays.copyOf(buf.array(), buf.position());
            }
            int whole = appended.length;
            while (whole > 0 && appended[whole - 1] != '\n') {
                whole--; // a line still being written is read next time
            }
            offset += whole;
            long newest = 0;
            for (String line : new String(appended, 0, whole, StandardCharsets.UTF_8).split("\n")) {
                try {
                    JsonNode e = json.readTree(line);
                    if (e != null && "checkpoint".equals(e.path("type").asText()) && e.path("rank").asInt(-1) == 0) {
                        newest = Math.max(newest, e.path("round").asLong());
                    }
                } catch (JsonProcessingException notAnEvent) {
                    // the demo's trigger ignores it; Demo.readEvents reads the file for the summary
                }
            }
            return newest;
        }
    }

    /**
     * What the demo started, stopped once: the launcher (SIGTERM: it stops its ranks, then it is waited for,
     * bounded) and then the hosts (every process on them, their memory, sshd, cgroups, rules and files).
     */
    private static final class Cleanup {
        private Process launcher;
        private TestHosts hosts;
        private boolean done;

        synchronized void hosts(TestHosts h) {
            hosts = h;
        }

        synchronized void launcher(Process p) {
            launcher = p;
        }

        synchronized void run() {
            if (done) {
                return;
            }
            done = true;
            if (launcher != null && launcher.isAlive()) {
                // the handle's SIGTERM leaves the launcher's output open: the demo shows its last lines
                launcher.toHandle().destroy();
                try {
                    if (!launcher.waitFor(15, TimeUnit.SECONDS)) {
                        launcher.destroyForcibly();
                    }
                } catch (InterruptedException e) {
                    launcher.destroyForcibly();
                    Thread.currentThread().interrupt();
                }
            }
            if (hosts != null) {
                try {
                    hosts.close();
                    System.out.println("demo: test hosts removed (processes, /dev/shm, sshd, cgroups, rules, files)");
                } catch (IOException e) {
                    System.err.println("demo: removing the test hosts: " + e.getMessage());
                }
            }
        }
    }
}
