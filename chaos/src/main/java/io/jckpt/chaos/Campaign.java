package io.jckpt.chaos;

import io.jckpt.cli.CommandLines;

import io.jckpt.CkptOptions;
import io.jckpt.chaos.corpus.Corpus;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The project's own fault campaign ({@code bin/chaos}): runs {@link ChaosProgram} under a real
 * {@code bin/ckpt-run --on-failure respawn} again and again, each time injecting one
 * {@link Scenario}'s failure from outside the launcher at a seeded random moment, and classifies
 * every run:
 * <ul>
 * <li><b>identical</b>: exit 0 and rank 0's checksum equals the failure-free value
 *     ({@link ChaosState#reference}, which the reference run must also print);</li>
 * <li><b>clear error</b>: a non-zero exit with a recognised "cannot be restored" error, where the
 *     failure exceeded what the configuration survives (m + 1 adjacent stores or every store lost before
 *     the first disk generation);</li>
 * <li><b>wrong</b>: a checksum that differs, or exit 0 without one;</li>
 * <li><b>slow</b>: identical or a clear error, but after more than the budget: the failure-free time x
 *     (1 + restarts) + 5 s per injected failure + a margin (not held against the library when the load
 *     average at its end was above 1.5 per core: other work on the machine);</li>
 * <li><b>stall</b>: still running at 3 x the budget + 30 s (then the job is stopped);</li>
 * <li><b>unexpected</b>: any other failure, a clear error where the configuration survives included.</li>
 * </ul>
 * After each run no process of the job may be alive (<b>orphans</b>) and, after a successful run, its
 * node-local store directory must be gone (<b>leftovers</b>). The table by scenario goes to
 * {@code OUT/report.md} and stdout, every run's transcript to {@code OUT/runs/}; the exit status is 1
 * when any run was wrong, slow (on a machine not overloaded), stalled, failed unexpectedly, left an
 * orphan or a store. A {@link Scenario#CORPUS} run takes a program of the {@link Corpus} and a
 * {@link CorpusFailure}, both drawn from the run's seed; its reference is that program's own
 * failure-free run (made the first time the program is drawn), and every result line it prints must
 * equal that run's.
 *
 * <pre>
 * bin/chaos [--runs N] [--seed S] [--scenarios a,b] [--out DIR] [--quick] [--ranks N]
 *           [--iterations N] [--elements E] [--sleep MS] [--margin SECONDS] [--help]
 * </pre>
 * (read by picocli, {@link CommandLines}: {@code --opt=value} too; a mistake is one line, exit status 2)
 */
public final class Campaign {
    static final String CLEAR_ERROR_TEXT = "cannot be restored";
    private static final int HEARTBEAT_MILLIS = 2000;

    /** The campaign's settings. */
    record Settings(Path root, int runs, long seed, List<Scenario> scenarios, Path out, boolean quick, int ranks,
                    long iterations, int every, int elements, long sleepMillis, int diskRatio, double marginSeconds,
                    List<Corpus> corpus, int hosts) {
        /** The most job hosts of {@code --hosts} (2 rank JVMs each, all on this one machine). */
        static final int MAX_HOSTS = 6;

        /** The command line as picocli fills it in ({@code bin/chaos --help}); the field values are the defaults. */
        @Command(name = "bin/chaos", sortOptions = false, usageHelpWidth = 100, customSynopsis = "bin/chaos [OPTIONS]",
                description = {"jckpt's own fault campaign: runs a program with every data type and MPJ traffic under"
                        + " bin/ckpt-run --on-failure respawn, injects one scenario's failure per run from outside the"
                        + " launcher at a seeded random moment, classifies each run and writes a table by scenario"
                        + " (see docs/reliability.md).",
                        "Default: 500 runs into out/chaos/report.md; --quick: 30 small runs into out/chaos-quick/.",
                        "--hosts N: the jobs run across N test hosts made on this machine (root; 2 ranks on each, a"
                                + " spare host or two for the ranks of lost hosts; docs/test-hosts.md), with the host"
                                + " failures (host, kill-host, partition, hosts2) and sigstop, grow; every run is also"
                                + " checked for anything of the job left on any host (processes, ssh sessions and"
                                + " agents, stores in each host's /dev/shm).",
                        "Exit status: 0 no wrong result, stall, unexpected failure, orphan or leftover; 1 otherwise;"
                                + " 2 bad input.", ""})
        static final class Line {
            @Option(names = "--runs", paramLabel = "N", description = "runs after the failure-free reference run"
                    + " (default: 500, --quick 30)")
            Integer runs;
            @Option(names = "--seed", paramLabel = "S", description = "the scenario order and the injection moments"
                    + " (default: ${DEFAULT-VALUE})")
            long seed = 1;
            @Option(names = "--scenarios", paramLabel = "a,b", description = "only these scenarios (default: every one,"
                    + " listed below)")
            String scenarios;
            @Option(names = "--out", paramLabel = "DIR", description = "report.md and runs/ (default: out/chaos,"
                    + " --quick out/chaos-quick; with --hosts out/chaos-hosts, out/chaos-hosts-quick)")
            Path out;
            @Option(names = "--quick", description = "the short form: 30 smaller runs") boolean quick;
            @Option(names = "--ranks", paramLabel = "N", description = "ranks per job, at least 4 (default: 4;"
                    + " with --hosts 2 a host)")
            Integer ranks;
            @Option(names = "--hosts", paramLabel = "N", description = "run across N test hosts (2 to " + MAX_HOSTS
                    + ", root) with 2 ranks each, and the spare hosts the scenario needs; default scenarios host,"
                    + " kill-host, partition, hosts2, sigstop, grow (default: one host)")
            Integer hosts;
            @Option(names = "--iterations", paramLabel = "N", description = "the program's iterations (default: 80,"
                    + " --quick 40)")
            Long iterations;
            @Option(names = "--elements", paramLabel = "E", description = "elements per array (default: 8192,"
                    + " --quick 2048)")
            Integer elements;
            @Option(names = "--sleep", paramLabel = "MS", description = "the program's pause per iteration (default:"
                    + " ${DEFAULT-VALUE})")
            long sleep = 40;
            @Option(names = "--margin", paramLabel = "SECONDS", description = "added to each run's time budget"
                    + " (default: ${DEFAULT-VALUE})")
            double margin = 10;
            @Option(names = "--corpus", paramLabel = "a,b", description = "the corpus scenario's programs (default:"
                    + " every one, listed below)")
            String corpus;
            @Option(names = "--repo", paramLabel = "DIR", hidden = true, description = "the jckpt checkout") Path repo;
            @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit") boolean help;
        }

        /**
         * @throws IllegalArgumentException a bad command line, in one line naming the option
         * @throws CommandLines.HelpRequested for {@code --help}
         */
        static Settings parse(String[] args) {
            Line line = CommandLines.parse(new Line(), args);
            Path root = (line.repo != null ? line.repo : Paths.get(System.getProperty("jckpt.repo.root", ".")))
                    .toAbsolutePath().normalize();
            boolean quick = line.quick;
            int hosts = line.hosts == null ? 0 : line.hosts;
            if (line.hosts != null && (hosts < 2 || hosts > MAX_HOSTS)) {
                throw new IllegalArgumentException("--hosts must be 2 to " + MAX_HOSTS + " (job hosts of "
                        + CampaignHosts.SLOTS + " ranks each), got " + hosts);
            }
            int ranks = hosts > 0 ? CampaignHosts.SLOTS * hosts : line.ranks != null ? line.ranks : 4;
            if (line.ranks != null && line.ranks != ranks) {
                throw new IllegalArgumentException("--ranks " + line.ranks + " with --hosts " + hosts + ": the job has "
                        + CampaignHosts.SLOTS + " ranks on each host, " + ranks + " (leave --ranks out)");
            }
            if (ranks < 4) {
                throw new IllegalArgumentException("--ranks must be at least 4 (two spread ranks, m = 2), got " + ranks);
            }
            String out = (quick ? "out/chaos" + (hosts > 0 ? "-hosts" : "") + "-quick" : "out/chaos" + (hosts > 0 ? "-hosts" : ""));
            return new Settings(root, line.runs != null ? line.runs : quick ? 30 : 500, line.seed,
                    Scenario.parseList(line.scenarios, hosts > 0),
                    line.out != null ? line.out : root.resolve(out), quick, ranks,
                    line.iterations != null ? line.iterations : quick ? 40 : 80, 2,
                    line.elements != null ? line.elements : quick ? 2048 : 8192, line.sleep, 4, line.margin,
                    Corpus.parseList(line.corpus), hosts);
        }
    }

    /** How a run ended. */
    enum Outcome {
        IDENTICAL("identical"), CLEAR_ERROR("clear error"), WRONG("wrong"), SLOW("slow"), STALL("stall"),
        UNEXPECTED("unexpected"), SKIPPED("skipped");

        final String label;

        Outcome(String label) {
            this.label = label;
        }
    }

    /** One run's result. */
    record Result(int index, Scenario scenario, Outcome outcome, String injection, boolean missed, int injected,
                  double seconds, double budget, Integer exit, String detail, List<Long> orphans, boolean leftover,
                  double load, CorpusRun corpus) {
        /** This result with {@code more} added to its detail. */
        Result withDetail(String more) {
            return new Result(index, scenario, outcome, injection, missed, injected, seconds, budget, exit,
                    detail.isEmpty() ? more : detail + "; " + more, orphans, leftover, load, corpus);
        }

        boolean bad() {
            return outcome == Outcome.WRONG || outcome == Outcome.STALL || outcome == Outcome.UNEXPECTED
                    || (outcome == Outcome.SLOW && !overloaded()) || !orphans.isEmpty() || leftover;
        }

        /** A load average above 1.5 per core at the end of the run: a slow run is then not held against the library. */
        boolean overloaded() {
            return load > 1.5 * Runtime.getRuntime().availableProcessors();
        }
    }

    private final Settings settings;
    private final String expectedHex;
    /** The failure-free checksum of each growth per iteration ({@link Scenario#growBytes}), computed on first use. */
    private final Map<Integer, String> expectedByGrowth = new HashMap<>();
    private final Path memoryBase = CkptOptions.defaultMemoryDirectory();
    private final String campaignId = Long.toString(ProcessHandle.current().pid(), 36);
    private Injector.Timings reference;
    /** Per corpus program, its failure-free run (made the first time a run draws the program). */
    private final Map<Corpus, CorpusReference> corpusReferences = new EnumMap<>(Corpus.class);
    /** The run under way and its tmpfs, for the shutdown hook (the campaign stopped by a signal). */
    private volatile Injector active;
    private volatile Path activeMount;
    /** The test hosts of a campaign with {@code --hosts} (null: one host). */
    private volatile CampaignHosts hosts;

    private Campaign(Settings settings) {
        this.settings = settings;
        this.expectedHex = expectedHex(Scenario.NONE);
    }

    /** The checksum a failure-free run of {@code scenario}'s configuration prints ({@link ChaosState#reference}). */
    private String expectedHex(Scenario scenario) {
        int grow = scenario.growBytes(settings.elements());
        return expectedByGrowth.computeIfAbsent(grow, g -> String.format(Locale.ROOT, "%016x",
                ChaosState.reference(settings.ranks(), settings.iterations(), settings.elements(), g / 8)));
    }

    public static void main(String[] args) throws Exception {
        System.exit(run(args));
    }

    /** Runs a campaign; returns the exit status (0 all good, 1 a bad run, 2 bad input or no reference). */
    public static int run(String[] args) throws Exception {
        return CommandLines.run("chaos", () -> Settings.parse(args), out -> {
            out.println("Scenarios:");
            for (Scenario s : Scenario.values()) {
                out.printf(Locale.ROOT, "  %-14s %s%s%n", s.label, s.description, s.hostOnly() ? " (--hosts only)"
                        : s.acrossHosts() ? " (also --hosts)" : "");
            }
            out.println("Corpus programs (--corpus):");
            for (Corpus c : Corpus.values()) {
                out.printf(Locale.ROOT, "  %-14s %s%n", c.label, c.style);
            }
        }, Campaign::run);
    }

    private static int run(Settings settings) throws IOException, InterruptedException {
        if (!JobProcesses.available()) {
            System.err.println("chaos: /proc is not readable: the campaign finds rank processes there (Linux only)");
            return 2;
        }
        if (!Files.isDirectory(settings.root().resolve("chaos/target/classes/io/jckpt/chaos"))) {
            System.err.println("chaos: " + settings.root().resolve("chaos/target/classes") + " missing: run bin/build");
            return 2;
        }
        return new Campaign(settings).campaign();
    }

    private int campaign() throws IOException, InterruptedException {
        Files.createDirectories(settings.out().resolve("runs"));
        Thread cleanup = new Thread(this::stopActiveRun, "chaos-shutdown");
        Runtime.getRuntime().addShutdownHook(cleanup);
        if (settings.hosts() > 0) {
            try {
                long t0 = System.nanoTime();
                hosts = CampaignHosts.start(settings.hosts(), settings.out().resolve("disk").toAbsolutePath(), memoryBase);
                System.out.printf(Locale.ROOT, "chaos: %s, up in %.2f s%n", hosts, (System.nanoTime() - t0) / 1e9);
            } catch (IllegalStateException e) {
                System.err.println("chaos: " + e.getMessage());
                return 2;
            }
        }
        try {
            return campaignRuns();
        } finally {
            closeHosts();
        }
    }

    private void closeHosts() {
        CampaignHosts h = hosts;
        hosts = null;
        if (h != null) {
            try {
                h.close();
            } catch (IOException e) {
                System.err.println("chaos: removing the test hosts: " + e.getMessage());
            }
        }
    }

    private int campaignRuns() throws IOException, InterruptedException {
        boolean chaosProgram = settings.scenarios().stream().anyMatch(s -> s != Scenario.CORPUS);
        System.out.printf(Locale.ROOT, "chaos: seed %d, %d runs of %s on %d ranks%s%s%n", settings.seed(), settings.runs(),
                settings.scenarios().stream().map(s -> s.label).toList(), settings.ranks(), settings.hosts() > 0
                        ? " across " + settings.hosts() + " test hosts" : "", chaosProgram
                        ? String.format(Locale.ROOT, " (%d iterations, %d elements, %d ms per iteration), expected"
                        + " checksum %s", settings.iterations(), settings.elements(), settings.sleepMillis(), expectedHex)
                        : "");
        if (settings.scenarios().contains(Scenario.CORPUS)) {
            System.out.println("chaos: corpus programs " + settings.corpus().stream().map(c -> c.label).toList()
                    + ", each compared with its own failure-free run (made when first drawn)");
        }
        if (chaosProgram) {
            Result ref = runOne(0, Scenario.NONE, new Random(settings.seed()), Double.MAX_VALUE, null);
            System.out.println(line(ref));
            if (ref.outcome() != Outcome.IDENTICAL || reference == null) {
                System.out.println("chaos: the failure-free reference run was not identical to " + expectedHex
                        + "; no campaign (transcript in " + settings.out().resolve("runs") + ")");
                return 2;
            }
            System.out.printf(Locale.ROOT, "chaos: failure-free run %.2f s (ranks running at %.2f s, first checkpoint at"
                    + " %.2f s, result at %.2f s)%n", reference.total(), reference.running(), reference.firstRound(),
                    reference.checksum());
        }
        Random order = new Random(settings.seed());
        List<Scenario> cycle = new ArrayList<>();
        List<Result> results = new ArrayList<>();
        for (int i = 1; i <= settings.runs(); i++) {
            if (cycle.isEmpty()) {
                cycle.addAll(settings.scenarios());
                java.util.Collections.shuffle(cycle, order);
            }
            Scenario scenario = cycle.remove(0);
            // mixed: java.util.Random's first values for neighbouring seeds are nearly equal
            Random random = new Random(new java.util.SplittableRandom(settings.seed() * 1_000_003L + i).nextLong());
            Result result;
            if (scenario == Scenario.CORPUS) {
                // drawn first, so that the injector's draws stay the same whatever program comes
                CorpusRun run = new CorpusRun(settings.corpus().get(random.nextInt(settings.corpus().size())),
                        CorpusFailure.values()[random.nextInt(CorpusFailure.values().length)]);
                CorpusReference ref = corpusReference(run.program());
                result = ref.result() == null
                        ? new Result(i, scenario, Outcome.UNEXPECTED, run.label(), true, 0, 0, 0, null,
                                "no failure-free run of " + run.program().label + ": " + ref.failure(), List.of(), false,
                                loadAverage(), run)
                        : runOne(i, scenario, random, budget(run, ref), run);
            } else {
                result = runOne(i, scenario, random, budget(scenario), null);
            }
            results.add(result);
            System.out.println(line(result));
        }
        String report = new Report(settings, reference, expectedHex, corpusReferences).markdown(results);
        Files.writeString(settings.out().resolve("report.md"), report, StandardCharsets.UTF_8);
        System.out.println();
        System.out.print(report);
        return results.stream().anyMatch(Result::bad) ? 1 : 0;
    }

    /** On a signal to the campaign: the run's launcher gets SIGTERM (it stops its ranks), its tmpfs is unmounted. */
    private void stopActiveRun() {
        Injector run = active;
        if (run != null && run.current != null) {
            run.current.terminate();
        }
        Path mount = activeMount;
        if (mount != null) {
            try {
                unmount(mount);
            } catch (IOException | InterruptedException e) {
                System.err.println("chaos: could not unmount " + mount + ": " + e);
            }
        }
        closeHosts();
    }

    /**
     * The failure-free run of {@code program}, made now if it is the first run to draw it: its result line
     * (null with the reason when it failed) and its timings, which place and bound its failure runs.
     */
    private CorpusReference corpusReference(Corpus program) throws IOException, InterruptedException {
        CorpusReference known = corpusReferences.get(program);
        if (known != null) {
            return known;
        }
        Result ref = runOne(0, Scenario.CORPUS, new Random(settings.seed()), Double.MAX_VALUE,
                new CorpusRun(program, null));
        System.out.println(line(ref));
        CorpusReference made = corpusReferences.get(program);
        if (made == null) {
            made = new CorpusReference(null, null, ref.outcome().label + " " + ref.detail());
            corpusReferences.put(program, made);
        }
        return made;
    }

    private double budget(CorpusRun run, CorpusReference ref) {
        return ref.timings().total() + 5.0 * (run.failure() == CorpusFailure.NODE2 ? 2 : 1) + settings.marginSeconds()
                + (run.failure() == CorpusFailure.SIGSTOP ? HEARTBEAT_MILLIS / 1000.0 : 0);
    }

    private double budget(Scenario scenario) {
        return reference.total() * (1 + scenario.restarts) + 5.0 * scenario.failures + settings.marginSeconds()
                + (scenario.silent() ? HEARTBEAT_MILLIS / 1000.0 : 0);
    }

    /**
     * One run. {@code corpus} is the program and failure of a {@link Scenario#CORPUS} run (its failure
     * null: the program's failure-free run, which then becomes its reference), else null.
     */
    private Result runOne(int index, Scenario scenario, Random random, double budgetSeconds, CorpusRun corpus)
            throws IOException, InterruptedException {
        String jobId = "chaos-" + campaignId + "-" + (index == 0 && corpus != null ? "ref-" + corpus.program().label
                : Integer.toString(index));
        Path diskRoot = settings.out().resolve("disk").resolve("run-" + index).toAbsolutePath();
        Path storeJobDir = memoryBase.resolve(jobId);
        deleteTree(storeJobDir);
        deleteTree(diskRoot);
        Files.createDirectories(diskRoot);
        boolean mounted = false;
        long rounds = settings.iterations() / settings.every();
        // over the budget = slow; a run still going at 3 x budget + 30 s is a stall (hung): stopped there
        long hardNanos = budgetSeconds == Double.MAX_VALUE ? 600_000_000_000L : (long) ((3 * budgetSeconds + 30) * 1e9);
        long startNanos = System.nanoTime();
        long deadline = startNanos + hardNanos;
        CorpusReference corpusRef = corpus == null ? null : corpusReferences.get(corpus.program());
        Injector injector = new Injector(scenario, settings.ranks(), rounds, settings.iterations(),
                corpusRef != null ? corpusRef.timings() : reference, jobId, diskRoot.resolve(jobId), storeJobDir, random,
                deadline, corpus == null ? null : corpus.failure());
        CampaignHosts across = hosts;
        if (across != null) {
            injector.acrossHosts(across);
        }
        StringBuilder log = new StringBuilder();
        try {
            if (scenario == Scenario.DISK_FULL) {
                String why = mountTinyDisk(diskRoot, injector.fraction());
                if (why != null) {
                    return new Result(index, scenario, Outcome.SKIPPED, "skipped: " + why, true, 0, 0, budgetSeconds,
                            null, "", List.of(), false, loadAverage(), null);
                }
                mounted = true;
                activeMount = diskRoot;
            }
            active = injector;
            List<String> args = corpus != null ? corpusArgs(corpus, jobId) : launchArgs(scenario, jobId, diskRoot);
            if (across != null) {
                Path hostfile = across.hostfile(settings.out().resolve("hostfile-" + scenario.label + ".txt"), scenario);
                args.addAll(0, List.of("--hostfile", hostfile.toString(), "--rsh", across.rsh()));
            }
            log.append("scenario ").append(scenario.label).append(": ").append(scenario.description).append('\n')
                    .append(corpus == null ? "" : "corpus: " + corpus.label() + " (" + corpus.program().style + ")\n")
                    .append("bin/ckpt-run ").append(String.join(" ", args)).append('\n');
            LaunchedRun first = LaunchedRun.start(settings.root(), jobId, args, "run-" + index);
            injector.inject(first, () -> LaunchedRun.start(settings.root(), jobId, args, "run-" + index + "-restart"));
            LaunchedRun last = injector.current;
            Integer exit = last.awaitExit(deadline);
            double seconds = (System.nanoTime() - startNanos) / 1e9;
            if (exit == null) {
                last.stop();
            }
            if (last != first) {
                log.append("--- the launcher killed ---\n").append(first.transcript()).append("--- the restart ---\n");
            }
            log.append(last.transcript());
            if (scenario == Scenario.NONE && exit != null && exit == 0) {
                // every failure-free run refreshes the timings: moments and budgets follow the machine's load
                Injector.Timings measured = timings(last, seconds, t -> t.contains("chaos checksum "));
                if (measured != null) {
                    reference = measured;
                }
            }
            if (corpus != null && corpus.failure() == null && exit != null && exit == 0) {
                String result = corpus.program().result(last.texts());
                Injector.Timings measured = timings(last, seconds,
                        t -> t.contains("[rank 0] " + corpus.program().resultPrefix));
                if (result != null && measured != null) {
                    corpusReferences.put(corpus.program(), new CorpusReference(result, measured, null));
                }
            }
            List<String> texts = new ArrayList<>(first.texts());
            if (last != first) {
                texts.addAll(last.texts());
            }
            // orphans: nothing of the job may outlive its launcher (5 s for the JDK to reap them)
            List<Long> orphans = new ArrayList<>(injector.orphans);
            List<Long> alive = JobProcesses.awaitGone(
                    JobProcesses.of(jobId).stream().map(JobProcesses.Member::pid).toList(), 5_000);
            if (!alive.isEmpty()) {
                orphans.addAll(alive);
                JobProcesses.kill(alive);
                JobProcesses.awaitGone(alive, 2_000);
            }
            boolean leftover = exit != null && exit == 0 && Files.exists(storeJobDir);
            // across hosts: nothing of the job on any host (processes, ssh sessions, stores) nor an agent here
            List<String> left = across == null ? List.of() : across.leftovers(jobId, exit != null && exit == 0, 5_000);
            Result result = classify(index, scenario, injector, last.texts(), texts, exit, seconds, budgetSeconds,
                    hardNanos / 1e9, orphans, leftover || !left.isEmpty(), corpus);
            if (!left.isEmpty()) {
                result = result.withDetail("LEFTOVERS " + String.join("; ", left));
            }
            List<String> kept = across == null ? List.of() : across.keptOnCutOff(jobId);
            if (!kept.isEmpty()) {
                result = result.withDetail("store kept on the cut-off " + String.join(", ", kept));
            }
            log.append("--- ").append(line(result)).append('\n');
            return result;
        } finally {
            active = null;
            activeMount = null;
            String name = corpus == null ? String.format(Locale.ROOT, "run-%04d-%s.log", index, scenario.label)
                    : corpus.failure() == null ? "reference-" + corpus.program().label + ".log"
                    : String.format(Locale.ROOT, "run-%04d-%s-%s.log", index, scenario.label, corpus.program().label);
            Files.writeString(settings.out().resolve("runs").resolve(name), log, StandardCharsets.UTF_8);
            deleteTree(storeJobDir);
            if (across != null) {
                across.reset(jobId);
            }
            if (mounted) {
                unmount(diskRoot);
            }
            deleteTree(diskRoot);
        }
    }

    private List<String> launchArgs(Scenario scenario, String jobId, Path diskRoot) {
        List<String> args = new ArrayList<>(List.of("-np", Integer.toString(settings.ranks()), "--on-failure",
                scenario == Scenario.HOST_RELAUNCH ? "relaunch" : "respawn", "--job-id", jobId));
        if (scenario.silent()) {
            args.addAll(List.of("--detector", "heartbeat:" + HEARTBEAT_MILLIS));
        }
        args.addAll(List.of("-cp", settings.root().resolve("chaos/target/classes").toString(),
                ChaosProgram.class.getName(),
                "--iterations", Long.toString(settings.iterations()), "--every", Integer.toString(settings.every()),
                "--elements", Integer.toString(settings.elements()), "--sleep", Long.toString(settings.sleepMillis()),
                "--replicas", Integer.toString(scenario.replicas), "--disk", diskRoot.toString(),
                "--disk-ratio", Integer.toString(scenario == Scenario.FLUSH || scenario == Scenario.HOST_FLUSH ? 1
                        : settings.diskRatio())));
        if (scenario == Scenario.KRYO_UNREGISTERED) {
            args.add("--kryo-unregistered");
        }
        if (scenario.growBytes(settings.elements()) > 0) {
            args.addAll(List.of("--grow", Integer.toString(scenario.growBytes(settings.elements()))));
        }
        return args;
    }

    /** A corpus run's command line: the job's settings (m = 1, no disk), as issue 28's probe ran. */
    private List<String> corpusArgs(CorpusRun corpus, String jobId) {
        List<String> args = new ArrayList<>(List.of("-np", Integer.toString(settings.ranks()), "--on-failure", "respawn",
                "--replicas", "1", "--job-id", jobId));
        if (corpus.failure() == CorpusFailure.SIGSTOP) {
            args.addAll(List.of("--detector", "heartbeat:" + HEARTBEAT_MILLIS));
        }
        args.addAll(List.of("-cp", settings.root().resolve("chaos/target/classes").toString(), corpus.program().mainClass));
        args.addAll(corpus.program().args());
        return args;
    }

    private Result classify(int index, Scenario scenario, Injector injector, List<String> finalTexts,
                            List<String> allTexts, Integer exit, double seconds, double budget, double hardLimit,
                            List<Long> orphans, boolean leftover, CorpusRun corpus) {
        if (corpus != null) {
            return classifyCorpus(index, injector, allTexts, exit, seconds, budget, hardLimit, orphans, leftover, corpus);
        }
        String checksum = null;
        for (String text : finalTexts) {
            int at = text.indexOf("chaos checksum ");
            if (at >= 0) {
                checksum = text.substring(at + "chaos checksum ".length()).split(" ")[0];
            }
        }
        boolean clearError = allTexts.stream().anyMatch(t -> t.contains(CLEAR_ERROR_TEXT)
                || (injector.clearErrorText != null && t.contains(injector.clearErrorText)));
        Outcome outcome;
        String detail;
        if (exit == null) {
            outcome = Outcome.STALL;
            detail = String.format(Locale.ROOT, "still running after %.1f s; stopped. ", hardLimit) + details(allTexts);
        } else if (checksum != null) {
            String expected = expectedHex(scenario);
            if (!checksum.equals(expected)) {
                outcome = Outcome.WRONG;
                detail = "checksum " + checksum + ", expected " + expected + " (exit " + exit + ")";
            } else if (exit == 0) {
                outcome = Outcome.IDENTICAL;
                detail = "";
            } else {
                outcome = Outcome.UNEXPECTED;
                detail = "right checksum but exit " + exit + ": " + details(allTexts);
            }
        } else if (exit == 0) {
            outcome = Outcome.WRONG;
            detail = "exit 0 without a checksum line";
        } else if (clearError && injector.clearErrorAllowed) {
            outcome = Outcome.CLEAR_ERROR;
            detail = injector.clearErrorReason + ": " + allTexts.stream().filter(t -> injector.clearErrorText != null
                    && t.contains(injector.clearErrorText)).map(Campaign::shorten).findFirst().orElse(details(allTexts));
        } else {
            outcome = Outcome.UNEXPECTED;
            detail = (clearError ? "a clear error where the configuration survives the failure: " : "exit " + exit + ": ")
                    + details(allTexts);
        }
        String restored = "";
        for (String text : finalTexts) {
            int at = text.indexOf("rolled back to iteration ");
            if (at >= 0) {
                restored = text.substring(at + "rolled back to ".length()).replaceFirst(" \\(round", " (round");
            }
        }
        if (seconds > budget && (outcome == Outcome.IDENTICAL || outcome == Outcome.CLEAR_ERROR)) {
            detail = String.format(Locale.ROOT, "%s after %.1f s, over the budget of %.1f s%s", outcome.label, seconds,
                    budget, detail.isEmpty() ? "" : "; " + detail);
            outcome = Outcome.SLOW;
        }
        return new Result(index, scenario, outcome, injector.notes() + (restored.isEmpty() ? "" : "; restored "
                + restored), injector.missed, injector.injected, seconds,
                budget, exit, detail, orphans, leftover, loadAverage(), null);
    }

    /**
     * A corpus run: identical when it exits 0 and every result line it printed (a rank killed after the
     * result prints it again) equals the program's failure-free one; wrong when any differs, or exit 0
     * without one; no clear error is acceptable (m = 1 survives every corpus failure).
     */
    private Result classifyCorpus(int index, Injector injector, List<String> allTexts, Integer exit, double seconds,
                                  double budget, double hardLimit, List<Long> orphans, boolean leftover, CorpusRun corpus) {
        List<String> results = corpus.program().results(allTexts);
        CorpusReference ref = corpusReferences.get(corpus.program());
        String expected = ref == null || corpus.failure() == null ? null : ref.result();
        List<String> differing = expected == null ? List.of() : results.stream().filter(r -> !r.equals(expected)).toList();
        Outcome outcome;
        String detail;
        if (exit == null) {
            outcome = Outcome.STALL;
            detail = String.format(Locale.ROOT, "still running after %.1f s; stopped. ", hardLimit) + details(allTexts);
        } else if (!differing.isEmpty()) {
            outcome = Outcome.WRONG;
            detail = "result '" + differing.get(0) + "', expected '" + expected + "' (exit " + exit + ")";
        } else if (exit == 0 && !results.isEmpty()) {
            outcome = Outcome.IDENTICAL;
            detail = "";
        } else if (exit == 0) {
            outcome = Outcome.WRONG;
            detail = "exit 0 without a result line";
        } else {
            outcome = Outcome.UNEXPECTED;
            detail = "exit " + exit + ": " + details(allTexts);
        }
        if (seconds > budget && outcome == Outcome.IDENTICAL) {
            detail = String.format(Locale.ROOT, "identical after %.1f s, over the budget of %.1f s", seconds, budget);
            outcome = Outcome.SLOW;
        }
        String notes = injector.notes();
        return new Result(index, Scenario.CORPUS, outcome, corpus.label() + (notes.isEmpty() ? "" : ": " + notes),
                injector.missed && corpus.failure() != null, injector.injected, seconds, budget, exit, detail, orphans,
                leftover, loadAverage(), corpus);
    }

    /** The 1-minute load average (0 when unknown). */
    static double loadAverage() {
        try {
            return Double.parseDouble(Files.readString(Path.of("/proc/loadavg")).trim().split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /**
     * What went wrong, from a transcript: the launcher's "job ... failed" reason first, then the first
     * distinct error lines, leaving out the injected kills themselves and the echoes every survivor
     * prints when a peer dies (MPJ's ClosedChannelException, EOFException).
     */
    private static String details(List<String> texts) {
        Set<String> found = new LinkedHashSet<>();
        for (String text : texts) {
            if (text.contains("] job ") && text.contains(" failed: ")) {
                found.add(shorten(text));
            }
        }
        for (String text : texts) {
            boolean error = text.contains("FAILURE") || text.contains("Exception") || text.contains("Error")
                    || text.contains("WARNING") || text.contains(CLEAR_ERROR_TEXT);
            boolean echo = text.contains("killed by SIGKILL") || text.contains("ClosedChannelException")
                    || text.contains("EOFException") || text.contains("stopping the job") || text.contains("] job ");
            if (error && !echo && found.size() < 4) {
                found.add(shorten(text));
            }
        }
        return found.isEmpty() ? "(no error line)" : String.join(" | ", found);
    }

    private static String shorten(String text) {
        String t = text.replaceFirst("^\\[ckpt-run +[0-9.]+s\\] ", "").trim();
        return t.length() > 300 ? t.substring(0, 300) + "..." : t;
    }

    private static Injector.Timings timings(LaunchedRun run, double total, java.util.function.Predicate<String> result)
            throws InterruptedException {
        long now = System.nanoTime();
        LaunchedRun.Line running = run.await(t -> t.contains("ranks running (pids"), now);
        LaunchedRun.Line round = run.await(t -> t.contains("checkpoint round "), now);
        LaunchedRun.Line checksum = run.await(result, now);
        if (running == null || round == null || checksum == null) {
            return null;
        }
        return new Injector.Timings((running.nanos() - run.startNanos()) / 1e9, (round.nanos() - run.startNanos()) / 1e9,
                (checksum.nanos() - run.startNanos()) / 1e9, total);
    }

    /** Mounts a tmpfs of a few dozen KiB on {@code dir}; null when done, else why it cannot. */
    private String mountTinyDisk(Path dir, double fraction) throws IOException, InterruptedException {
        // from less than one rank file to about one generation of every rank's files
        long image = 28L * settings.elements();
        long size = Math.max(16 << 10, ((long) (fraction * image * settings.ranks()) + 4095) / 4096 * 4096);
        String output = command("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700", "tmpfs", dir.toString());
        if (output != null) {
            return "cannot mount a tmpfs on " + dir + " (needs root or CAP_SYS_ADMIN): " + output;
        }
        return null;
    }

    private static void unmount(Path dir) throws IOException, InterruptedException {
        if (command("umount", dir.toString()) != null) {
            command("umount", "-l", dir.toString());
        }
    }

    /** Runs a short command (bounded); null when it succeeded, else its output. */
    private static String command(String... command) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        p.getOutputStream().close();
        if (!p.waitFor(20, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return String.join(" ", command) + ": no answer within 20 s";
        }
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        return p.exitValue() == 0 ? null : output.isEmpty() ? "exit " + p.exitValue() : output;
    }

    /** Deletes {@code dir} and everything under it, if it exists. */
    static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        } catch (java.nio.file.NoSuchFileException e) {
            // deleted meanwhile
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    private static String line(Result r) {
        return String.format(Locale.ROOT, "run %4d %-13s %-11s %6.1f s of %s (load %.1f)%s%s%s%s", r.index(),
                r.corpus() != null && r.corpus().failure() == null ? "ref " + r.corpus().program().label
                        : r.scenario().label, r.outcome().label, r.seconds(), r.budget() == Double.MAX_VALUE ? "-"
                        : String.format(Locale.ROOT, "%.1f", r.budget()), r.load(),
                r.injection().isEmpty() ? "" : "  [" + r.injection() + "]",
                r.detail().isEmpty() ? "" : "  " + r.detail(), r.orphans().isEmpty() ? "" : "  ORPHANS " + r.orphans(),
                r.leftover() && !r.detail().contains("LEFTOVERS") ? "  LEFTOVER STORE" : "");
    }

    /** A corpus run's draw: the program and its failure (null: the program's failure-free reference run). */
    record CorpusRun(Corpus program, CorpusFailure failure) {
        String label() {
            return program.label + "/" + (failure == null ? "none" : failure.label);
        }
    }

    /** A corpus program's failure-free run: its result (null when it failed, then why) and its timings. */
    record CorpusReference(String result, Injector.Timings timings, String failure) {
    }
}
