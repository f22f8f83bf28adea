package io.jckpt.perf;

import io.jckpt.testkit.Baselines;
import io.jckpt.testkit.LaunchedJob;
import io.jckpt.testkit.hosts.HostedJobs;
import io.jckpt.testkit.hosts.TestHost;
import io.jckpt.testkit.hosts.TestHosts;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Section 12: jckpt across hosts, on test hosts made with the test kit's harness ({@link TestHosts}: own
 * /dev/shm, own sshd, addresses enforced; root only), each figure beside its baseline from the same run:
 * replication between two hosts vs raw TCP between the same two hosts; kill → computing again after a
 * whole host is lost vs the single-host node loss of section 10; and section 9's comparison with a host
 * loss, where the hand-written checkpoint writes to the directory every host shares and restarts the
 * whole job on the hosts left.
 */
final class HostsBench {
    static final int HOSTS = 4;
    /** The host lost in the recovery runs: rank 2's (ranks by node, one a host). */
    static final int VICTIM = 2;
    /** Where each job with a host loss keeps its output (see {@link #keep}). */
    static final String LOGS = "perf/target/hosts-logs";
    private static final java.util.concurrent.atomic.AtomicInteger KEPT = new java.util.concurrent.atomic.AtomicInteger();
    private static final Pattern SAMPLE = Pattern.compile("sample tcp=([0-9]+) replication=([0-9]+) crc=([0-9]+) \\([0-9a-f]+\\) mac=([0-9]+)");
    /** {@code -Djckpt.bench.hosts.handWritten=false} leaves 12c out (a campaign on 12a and 12b). */
    static final String HAND_WRITTEN = "jckpt.bench.hosts.handWritten";

    /**
     * Replication between two hosts: raw TCP, the replication agent's time and one CRC32C pass over the same
     * bytes (rank 0's JVM), per measured round.
     */
    record Replication(int size, Samples tcp, Samples replication, Samples crc, Samples mac) {
    }

    /** The section's result ({@code handWritten} null when left out: {@link #HAND_WRITTEN}). */
    record Result(List<Replication> replication, List<LaunchedBench.Case> cases, List<LaunchedBench.Recovery> recovery,
                  HandWrittenBench.Result handWritten) {
    }

    /** The bench's whole-host loss: {@link TestHost#loseNode()}, then the host started again (empty /dev/shm). */
    private record HostLoss(TestHost host) implements LaunchedBench.Failure {
        @Override
        public void inject(LaunchedJob job) throws Exception {
            host.loseNode();
        }

        @Override
        public void repair() throws Exception {
            if (!host.isUp()) {
                host.restart();
            }
        }
    }

    private final Path repo;
    private final Path disk;

    /** @param disk the directory every host shares (the hand-written checkpoints' files) */
    HostsBench(Path repo, Path disk) {
        this.repo = repo;
        this.disk = disk;
    }

    Result run(boolean quick) throws Exception {
        Path files = Files.createTempDirectory(disk, "hostfiles-");
        BenchSuite.deleteTree(repo.resolve(LOGS));
        try (TestHosts hosts = TestHosts.builder().hosts(HOSTS).share(disk).enforceAddresses(true).start()) {
            List<String> shell = List.of("--rsh", HostedJobs.rsh(hosts));
            List<Replication> replication = new ArrayList<>();
            for (int size : new int[] {BenchSuite.MB4, BenchSuite.MB64}) {
                int iterations = size == BenchSuite.MB4 ? (quick ? 11 : 31) : (quick ? 5 : 11);
                replication.add(replication(hosts.host(0), hosts.host(1), shell, files, size, iterations, 3));
                System.err.printf(Locale.ROOT, "bench: hosts replication %s done%n", Samples.size(size));
            }
            // ranks by node, one a host, a free slot on every host for a respawn
            List<String> placed = new ArrayList<>(List.of("--hostfile", hostfile(files, "all", hosts.hosts()).toString(),
                    "--map-by", "node"));
            placed.addAll(shell);
            List<TestHost> left = new ArrayList<>(hosts.hosts());
            left.remove(VICTIM);
            List<String> survivors = new ArrayList<>(List.of("--hostfile", hostfile(files, "left", left).toString(),
                    "--map-by", "node"));
            survivors.addAll(shell);
            HostLoss loss = new HostLoss(hosts.host(VICTIM));

            List<LaunchedBench.Case> cases = List.of(
                    new LaunchedBench.Case("one host: node loss (rank 2 and its store, section 10's row; once the warm"
                            + " standby is ready)", 1024, 2040, false, true, "respawn", 1, List.of(),
                            new LaunchedBench.LocalNodeLoss(io.jckpt.CkptOptions.defaultMemoryDirectory())),
                    new LaunchedBench.Case("one host: node loss, no standby (--standby 0: the replacement JVM is forked)",
                            1024, 2040, false, true, "respawn", 0),
                    new LaunchedBench.Case("across hosts: rank 2's whole host lost (4 hosts, one rank each, --standby 1:"
                            + " a warm standby on every host)", 1024, 2040, false, true, "respawn", 1, placed, loss),
                    new LaunchedBench.Case("across hosts: rank 2's whole host lost, no standby (--standby 0: the"
                            + " replacement JVM is started over ssh)", 1024, 2040, false, true, "respawn", 0, placed, loss));
            List<LaunchedBench.Recovery> recovery = new LaunchedBench(repo).recovery(cases, quick ? 1 : 3);

            HandWrittenBench.Result handWritten = null;
            if (Boolean.parseBoolean(System.getProperty(HAND_WRITTEN, "true"))) {
                HandWrittenBench hand = new HandWrittenBench(repo, disk, new HandWrittenBench.Hosts(placed, survivors, loss));
                List<String> variants = List.of("none", "jckpt", "kryo");
                handWritten = quick ? hand.run(512, 200, 20, 110, 1, variants) : hand.run(1024, 400, 20, 210, 3, variants);
            }
            return new Result(replication, cases, recovery, handWritten);
        } finally {
            BenchSuite.deleteTree(files);
        }
    }

    /**
     * Keeps a job's output with arrival times in {@code perf/target/hosts-logs/NN-NAME.log} (the section's raw
     * data: every job with a host loss, numbered in order).
     */
    static void keep(Path repo, String name, LaunchedJob job) throws java.io.IOException {
        Path logs = Files.createDirectories(repo.resolve(LOGS));
        Files.writeString(logs.resolve(String.format(Locale.ROOT, "%02d-%s.log", KEPT.incrementAndGet(), name)),
                job.timedOutput());
    }

    private static Path hostfile(Path dir, String name, List<TestHost> hosts) throws Exception {
        return HostedJobs.writeHostfile(dir.resolve(name), "bin/bench section 12: test hosts", 2, hosts);
    }

    /**
     * Rank 0 on {@code a}, rank 1 on {@code b} ({@link HostReplication}), and the raw baseline's receiving JVM
     * on {@code b}, listening on b's address.
     */
    private Replication replication(TestHost a, TestHost b, List<String> shell, Path files, int size, int iterations,
                                    int warmup) throws Exception {
        Process peer = b.start(String.join(" ", Baselines.TwoJvmPair.peerCommand(size, b.address())));
        try {
            int port = Baselines.TwoJvmPair.awaitPort(peer, 60_000);
            String cp = repo.resolve("perf/target/classes") + ":"
                    + Path.of(Baselines.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            List<String> args = new ArrayList<>(List.of("--no-report", "-np", "2", "--replicas", "1", "--hostfile",
                    hostfile(files, "pair", List.of(a, b)).toString()));
            args.addAll(shell);
            args.addAll(List.of("-cp", cp, HostReplication.class.getName(), "--size", Integer.toString(size),
                    "--iterations", Integer.toString(iterations), "--warmup", Integer.toString(warmup),
                    "--peer", b.address() + ":" + port));
            Samples tcp = new Samples();
            Samples repl = new Samples();
            Samples crc = new Samples();
            Samples mac = new Samples();
            try (LaunchedJob job = LaunchedJob.start(repo, args, Map.of())) {
                int status = job.awaitExit(180_000);
                if (status != 0) {
                    throw new IllegalStateException("replication across hosts (" + Samples.size(size) + ") exited "
                            + status + ":\n" + job.output());
                }
                for (String line : job.linesContaining("sample tcp=")) {
                    Matcher m = SAMPLE.matcher(line);
                    if (m.find()) {
                        tcp.add(Double.parseDouble(m.group(1)));
                        repl.add(Double.parseDouble(m.group(2)));
                        crc.add(Double.parseDouble(m.group(3)));
                        mac.add(Double.parseDouble(m.group(4)));
                    }
                }
            }
            if (repl.count() != iterations) {
                throw new IllegalStateException("replication across hosts: " + repl.count() + " samples of " + iterations);
            }
            return new Replication(size, tcp, repl, crc, mac);
        } finally {
            peer.getOutputStream().close(); // the peer's watchdog: end of its stdin
            if (!peer.waitFor(10, TimeUnit.SECONDS)) {
                peer.descendants().forEach(ProcessHandle::destroyForcibly);
                peer.destroyForcibly();
            }
        }
    }

    static String setup() {
        return "Test hosts made by the test kit's harness (`io.jckpt.testkit.hosts`, docs/test-hosts.md): " + HOSTS
                + " hosts on this machine, each a mount + PID namespace with its own /dev/shm (its node-local "
                + "memory), its own sshd on its own address 127.0.0.N and its own cgroup, address enforcement on "
                + "(a connection to 127.0.0.N must reach a socket of host N), the perf directory shared by every "
                + "host (the shared disk directory). Ranks are started by `bin/ckpt-run --hostfile FILE --rsh "
                + "\"ssh -F <run's config>\"` over ssh (the default remote shell's path). A node loss is the harness's `loseNode()`: the host's every process and its "
                + "/dev/shm gone at once; the host is started again (empty) after the run. The machine has 2 cores: "
                + "the hosts share them, so the network between them is loopback and costs CPU, not wire time.";
    }

    static void report(Report report, Result r) {
        report.paragraph(setup());
        report.heading(3, "12a. Replication between two hosts vs raw TCP between the same two hosts (m = 1)");
        report.paragraph("`bin/ckpt-run -np 2 --replicas 1 --hostfile` (rank 0 on h1, rank 1 on h2) running "
                + "`HostReplication` (perf): rank 0 checkpoints one byte[] of the size shown, rank 1 8 bytes, so every "
                + "round moves rank 0's image to h2. Per iteration (after a barrier and 3 warm-up rounds), "
                + "interleaved in the same rank 0 JVM, before or after the round in turn: one raw TCP transfer of the "
                + "same bytes to a `TcpPeerMain` JVM running in h2 and listening on h2's address (the test kit's "
                + "two-JVM baseline of section 1: 4-byte length, direct buffers, 1-byte ack); here(); the wait until "
                + "replicated; then one CRC32C pass over the same bytes off-heap. Replication time = the agent's own "
                + "(`CkptStats.lastReplicationNanos`, hand-off → replicated, as in section 3): the background CRC32C, "
                + "framing, the holder's verification and the round's completion. The checksummed transfer is raw TCP "
                + "plus the work a copy adds at its two ends, one CRC32C pass each (the owner's over its image before "
                + "it sends, below 8 MiB, or one chunk ahead of the send above; the holder's over each chunk as it "
                + "arrives): from one pass (the two ends' passes fully overlapped with each other and the transfer) "
                + "to two (none overlapped), on the same two cores. The authenticated transfer adds the owner's "
                + "HMAC-SHA256 pass (the image MAC, docs/design.md 'Authenticated checkpoints': the agent seals the "
                + "round before or, above 8 MiB, chunk by chunk just ahead of its send) to one CRC32C pass: the "
                + "floor for a copy that is authenticated, since the MAC is one sequential pass.");
        List<List<String>> rows = new ArrayList<>();
        for (Replication x : r.replication()) {
            double oneEnd = x.tcp().median() + x.crc().median();
            double bothEnds = x.tcp().median() + 2 * x.crc().median();
            rows.add(List.of(Samples.size(x.size()), Integer.toString(x.replication().count()),
                    x.tcp().timeCell() + " (" + Samples.gbps(x.size(), x.tcp().median()) + ")",
                    x.replication().timeCell() + " (" + Samples.gbps(x.size(), x.replication().median()) + ")",
                    "**" + Samples.ratio(x.tcp().median(), x.replication().median()) + "**",
                    x.crc().timeCell() + " (" + Samples.gbps(x.size(), x.crc().median()) + ")",
                    Samples.time(oneEnd) + " – " + Samples.time(bothEnds),
                    "**" + Samples.ratio(oneEnd, x.replication().median()) + " – "
                            + Samples.ratio(bothEnds, x.replication().median()) + "**",
                    x.mac().timeCell() + " (" + Samples.gbps(x.size(), x.mac().median()) + ")",
                    Samples.time(oneEnd + x.mac().median()),
                    "**" + Samples.ratio(oneEnd + x.mac().median(), x.replication().median()) + "**"));
        }
        report.table(List.of("size", "n", "raw TCP h1 → h2, two JVMs (baseline)", "replication h1 → h2 (agent time)",
                "throughput vs raw TCP (target ≥ 0.80)", "one CRC32C pass (rank 0)",
                "checksummed transfer: raw TCP + 1 – 2 CRC32C passes", "throughput vs checksummed transfer",
                "one HMAC-SHA256 pass (rank 0)", "authenticated transfer: raw TCP + 1 CRC32C + 1 HMAC pass",
                "throughput vs authenticated transfer"), rows);

        report.heading(3, "12b. Node loss across hosts: kill → computing again, vs the single-host node loss (same run)");
        report.paragraph("Section 10's recovery run (`HeatSolver`, 4 MiB per rank, `--iterations "
                + LaunchedBench.RECOVERY_ITERATIONS + " --ckpt-every " + LaunchedBench.RECOVERY_EVERY
                + " --sleep-ms 3`, m = 1, `--on-failure respawn`), cases interleaved: on one host, rank 2's node "
                + "loss made by the bench when rank 0 prints sweep 30 once the warm standby is ready (rank 2 stopped, "
                + "its node-local store deleted where the launcher's `:wipe` deletes it, then SIGKILL: a warm standby "
                + "takes over), and the same by the launcher with `--standby 0` (`--kill 2@round=3:wipe`, a forked "
                + "JVM); across hosts, the same two ways (`--standby 1`: one "
                + "warm standby on every host; `--standby 0`), `--hostfile` with "
                + HOSTS + " hosts (2 slots each) `--map-by node` (rank r on host r + 1, a free slot on every host), "
                + "rank 2's whole host lost by the bench when rank 0 prints sweep 30 (after checkpoint round 3): "
                + "times from `loseNode()` (with standbys, once every host's standby is ready: the case measured is a "
                + "failure that meets warm standbys). The lost rank restarts on a free slot of another host and receives its "
                + "image from the copy held on a third host.");
        LaunchedBench.reportRecovery(report, r.cases(), r.recovery());

        report.heading(3, "12c. jckpt vs a hand-written checkpoint to the shared directory, a host lost");
        HandWrittenBench.Result h = r.handWritten();
        if (h == null) {
            report.paragraph("Left out in this run (-D" + HAND_WRITTEN + "=false).");
            return;
        }
        report.paragraph(String.format(Locale.ROOT, "Section 9 across the %d hosts (`--hostfile`, 2 slots each, "
                + "`--map-by node`: one rank a host): `--nx %d --ny %d --iterations %d --report 10`, checkpoint every %d "
                + "sweeps, 4 ranks. **jckpt**: `HeatSolver`, m = 1, memory level only, `--on-failure respawn` (the "
                + "lost rank restarts on a free slot of another host from the copy on a third). **Kryo**: "
                + "`HandWrittenHeat`, whose files must go to the directory every host shares (node-local files die "
                + "with the node), `--on-failure fail`; after the loss the harness restarts the whole job at once on "
                + "the %d hosts left (their hostfile, ranks by node) from the newest complete set. The failure: rank "
                + "2's whole host lost when rank 0 prints sweep %d; the host is started again after the run. The "
                + "shared directory is this machine's disk (page cache, no fsync), as fast as a local one: a real "
                + "shared file system (NFS, Lustre) makes the hand-written checkpoint and its restart slower, so its "
                + "figures here are its best case.", HOSTS, h.nx(), h.nx(), h.iterations(), h.every(), HOSTS - 1,
                h.killAt()));
        HandWrittenBench.tables(report, h);
        report.paragraph(HandWrittenBench.NOISE);
    }

    static void keyFigures(Result r) {
        for (Replication x : r.replication()) {
            BenchSuite.key("across hosts: replication of " + Samples.size(x.size()) + ", m = 1 (target: raw / ours ≥ "
                    + "0.80, i.e. ≤ 1.25x here)", x.replication().median(), "raw TCP between the same two hosts",
                    x.tcp().median(), "12a");
            BenchSuite.key("across hosts: replication of " + Samples.size(x.size()) + ", m = 1, vs the authenticated "
                    + "transfer's floor", x.replication().median(), "raw TCP + 1 CRC32C + 1 HMAC-SHA256 pass (same run)",
                    x.tcp().median() + x.crc().median() + x.mac().median(), "12a");
        }
        Map<LaunchedBench.Case, Samples> totals = LaunchedBench.totals(r.recovery());
        double single = median(totals, r.cases().get(0));
        double forked = median(totals, r.cases().get(1));
        double across = median(totals, r.cases().get(2));
        double acrossForked = median(totals, r.cases().get(3));
        BenchSuite.key("across hosts: kill → computing again, 4 MiB per rank, a whole host lost, warm standbys"
                + " (target ≤ 1.25x)", across, "one host: node loss, warm standby", single, "12b");
        BenchSuite.key("across hosts: kill → computing again, 4 MiB per rank, a whole host lost, no standby",
                acrossForked, "one host: node loss, forked replacement (--standby 0)", forked, "12b");
        if (r.handWritten() == null) {
            return;
        }
        List<HandWrittenBench.Variant> v = r.handWritten().variants();
        HandWrittenBench.Variant jckpt = v.get(1);
        HandWrittenBench.Variant kryo = v.get(2);
        BenchSuite.key("across hosts: time lost to a host loss (first progress line → checksum line, paired), jckpt "
                + "(target ≤ 0.5x)", jckpt.lostComputing.median(), "hand-written Kryo to the shared directory, whole-job "
                + "restart", kryo.lostComputing.median(), "12c");
        BenchSuite.key("across hosts: time lost to a host loss (job wall times, paired), jckpt", jckpt.lost.median(),
                "hand-written Kryo to the shared directory, whole-job restart", kryo.lost.median(), "12c");
        BenchSuite.key("across hosts: host loss → computing again, jckpt", jckpt.backAfterKill.median(),
                "hand-written Kryo to the shared directory, whole-job restart", kryo.backAfterKill.median(), "12c");
    }

    private static double median(Map<LaunchedBench.Case, Samples> totals, LaunchedBench.Case c) {
        Samples s = totals.get(c);
        return s == null ? Double.NaN : s.median();
    }
}
