package io.jckpt.advisor;

import io.jckpt.cli.CommandLines;
import io.jckpt.codes.Redundancy;
import io.jckpt.policy.interval.FailureModel.Placement;
import io.jckpt.policy.interval.FailureModel.Protection;
import io.jckpt.policy.interval.FailureModel.Scheme;
import io.jckpt.policy.interval.FailureModel;
import io.jckpt.policy.interval.SlowProfile;
import java.io.IOException;
import java.io.PrintStream;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/ckpt-advisor}: predicts, from a job's measured figures and failure parameters, what each
 * replication degree m, with and without the disk level (its ratio chosen as the policy would), costs
 * and risks at 10 to 10^5 ranks, and recommends one configuration per scale, in one table.
 *
 * <p>Figures: {@code --stats FILE} reads the {@code interval-history.properties} that rank 0 of a job
 * with an interval policy keeps beside its checkpoints (cost of a checkpoint and its blocking part, disk
 * round cost, recovery time, image size, the job's learned MTBF); flags override or replace it. The
 * model is {@link FailureModel}; {@code --simulate} adds the {@link Simulator}'s figure per row.
 * Assumptions, printed with the table: the per-rank cost of a checkpoint does not grow with the ranks
 * (ring replication: each rank sends to and receives from its neighbours only) and its background part
 * grows with m; the disk round's cost grows with the ranks only when an aggregate disk bandwidth is
 * given; every failure is the loss of a node and its memory.
 */
public final class Advisor {
    private Advisor() {
    }

    /** The inputs, after the stats file and the flags. */
    static final class Inputs {
        double cost = Double.NaN;
        double blocking = Double.NaN;
        double diskCost = Double.NaN;
        double restart = Double.NaN;
        double slowdown;
        double slowWindow;
        /** The pace after a restart, phase by phase (--slow-pace); null: the even phase of slowdown and slowWindow. */
        SlowProfile pace;
        double diskRestart = Double.NaN;
        double imageBytes = Double.NaN;
        double nodeMtbf = Double.NaN;
        double diskBandwidth = Double.NaN;
        int measuredReplicas = 1;
        int ranksPerNode = 1;
        int maxReplicas = 3;
        int versions = 2;
        int maxDiskRatio = 100_000;
        double jobHours = 24;
        double maxLoss = 1e-3;
        double nodeMemory = Double.NaN;
        boolean simulate;
        Placement placement = Placement.RANK_ORDER;
        /** Redundancy codes to compare beside the copies ({@code --codes}): xor:K, rs:K+P. */
        List<String> codes = new ArrayList<>();
        List<Integer> ranks = new ArrayList<>(List.of(10, 100, 1_000, 10_000, 100_000));
    }

    /** One row of the table. */
    record Row(int ranks, int nodes, String redundancy, int diskRatio, double tau, double overhead, double lost,
               double loss, double memory, double simulated) {
        /** @return whether the library runs this redundancy today (codes are the model's only, issue 30) */
        boolean available() {
            return !redundancy.contains(":");
        }

        /** @return the copies m, or -1 for a code */
        int m() {
            return available() ? Integer.parseInt(redundancy) : -1;
        }
    }

    /** The command line as picocli reads it ({@link CommandLines}); values stay text, checked by {@link #parse}. */
    @Command(name = "bin/ckpt-advisor", sortOptions = false, usageHelpWidth = 100,
            customSynopsis = "bin/ckpt-advisor [--stats FILE | --log FILE] --node-mtbf DURATION [OPTIONS]",
            description = {"Predicts what each replication degree m and disk ratio costs and risks at 10 to 10^5 ranks,"
                    + " from a job's measured figures and failure parameters, and recommends one configuration per"
                    + " scale. Flags override the figures of --stats and --log.", ""})
    static final class Line {
        @Option(names = "--stats", paramLabel = "FILE", description = "a job's interval-history.properties (in"
                + " <diskDirectory>/<jobId>/, else <memoryDirectory>/<jobId>/ of rank 0's node): its measured figures")
        Path stats;
        @Option(names = "--log", paramLabel = "FILE", description = "a launcher log (ckpt-run --log): the figures rank 0"
                + " reports at close")
        Path log;
        @Option(names = "--cost", paramLabel = "SECONDS", description = "cost of one in-memory checkpoint: here()'s"
                + " blocking time + the background CPU it takes (replication), per rank")
        String cost;
        @Option(names = "--blocking", paramLabel = "SECONDS", description = "the blocking part of --cost (default: all"
                + " of it)")
        String blocking;
        @Option(names = "--measured-m", paramLabel = "M", description = "the m the figures were measured with (default"
                + " 1; the background part is scaled by m)")
        String measuredReplicas;
        @Option(names = "--disk-cost", paramLabel = "SECONDS", description = "extra cost of a disk round per rank"
                + " (default: image / 1 GB/s)")
        String diskCost;
        @Option(names = "--disk-bandwidth", paramLabel = "B/s", description = "aggregate bandwidth of the shared disk"
                + " (then a disk round costs at least ranks x image / bandwidth)")
        String diskBandwidth;
        @Option(names = "--restart", paramLabel = "SECONDS", description = "restart after a failure memory survives"
                + " (default 1)")
        String restart;
        @Option(names = "--slowdown", paramLabel = "SECONDS", description = "extra time of the computation after each"
                + " restart (cold JIT of a re-spawned JVM, the first here() re-joining the ring; default 0)")
        String slowdown;
        @Option(names = "--slow-window", paramLabel = "SECONDS", description = "the computation done while it runs"
                + " slower (default 0: no progress during the slowdown)")
        String slowWindow;
        @Option(names = "--slow-pace", paramLabel = "PACE", description = "the computation's pace after a restart,"
                + " phase by phase: STEP:SPEED:SPEED:... (each phase STEP seconds of wall time at SPEED times the steady"
                + " pace, e.g. 0.5:0.31:0.51:0.58:0.75; what rank 0 reports at close); replaces --slowdown and"
                + " --slow-window, whose even phase costs less per failure when failures are frequent (0: use them)")
        String slowPace;
        @Option(names = "--disk-restart", paramLabel = "SECONDS", description = "restart from the disk level (default"
                + " restart + disk cost)")
        String diskRestart;
        @Option(names = "--image", paramLabel = "BYTES", description = "one rank's checkpoint (suffix K, M, G; default"
                + " 1M)")
        String image;
        @Option(names = "--node-mtbf", paramLabel = "DURATION", description = "MTBF of one node (e.g. 5y, 30d, 12h, 90m,"
                + " 3600s)")
        String nodeMtbf;
        @Option(names = "--ranks-per-node", paramLabel = "P", description = "default 1") String ranksPerNode;
        @Option(names = "--ranks", paramLabel = "LIST", description = "default 10,100,1000,10000,100000") String ranks;
        @Option(names = "--max-m", paramLabel = "M", description = "largest m to consider (default 3)") String maxM;
        @Option(names = "--codes", paramLabel = "LIST", description = "also compare redundancy codes beside the"
                + " copies, e.g. xor:8,rs:8+2 (sets of K, or K+P, members on as many nodes; the model's figures only:"
                + " the library keeps full copies today, so a code is never the recommendation)") String codes;
        @Option(names = "--placement", paramLabel = "rank-order|spread", description = "where the m copies go (default"
                + " rank-order: the next ranks)")
        String placement;
        @Option(names = "--job-hours", paramLabel = "H", description = "the job's failure-free length (default 24), for"
                + " P(loss)")
        String jobHours;
        @Option(names = "--max-loss", paramLabel = "P", description = "acceptable probability of losing the job"
                + " (default 1e-3)")
        String maxLoss;
        @Option(names = "--node-memory", paramLabel = "BYTES", description = "memory a node can give to checkpoints"
                + " (rows above it are not recommended)")
        String nodeMemory;
        @Option(names = "--max-disk-ratio", paramLabel = "K", description = "largest disk ratio (default 100000)")
        String maxDiskRatio;
        @Option(names = "--simulate", description = "add the Monte Carlo simulator's overhead per row") boolean simulate;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit") boolean help;
    }

    /**
     * @param args see {@code bin/ckpt-advisor --help}
     */
    public static void main(String[] args) throws Exception {
        System.exit(CommandLines.run("ckpt-advisor", () -> parse(args), null, in -> {
            print(in, rows(in), System.out);
            return 0;
        }));
    }

    /**
     * Reads the command line: the figures of {@code --log}, then of {@code --stats}, then the flags.
     *
     * @throws IllegalArgumentException bad input, in one line naming the option
     * @throws CommandLines.HelpRequested for {@code --help}
     */
    static Inputs parse(String[] given) throws IOException {
        Line line = CommandLines.parse(new Line(), given);
        if (line.log != null) {
            // the log's flags first, so that the given ones (the last of a repeated option wins) override them
            List<String> all = logFlags(line.log);
            all.addAll(List.of(given));
            line = CommandLines.parse(new Line(), all.toArray(new String[0]));
        }
        Inputs in = new Inputs();
        // the stats file first, so that flags override it
        if (line.stats != null) {
            readStats(in, line.stats);
        }
        if (line.cost != null) {
            in.cost = seconds("--cost", line.cost);
        }
        if (line.blocking != null) {
            in.blocking = seconds("--blocking", line.blocking);
        }
        if (line.measuredReplicas != null) {
            in.measuredReplicas = integer("--measured-m", line.measuredReplicas, 0);
        }
        if (line.diskCost != null) {
            in.diskCost = seconds("--disk-cost", line.diskCost);
        }
        if (line.diskBandwidth != null) {
            in.diskBandwidth = positive("--disk-bandwidth", bytes("--disk-bandwidth", line.diskBandwidth));
        }
        if (line.restart != null) {
            in.restart = seconds("--restart", line.restart);
        }
        if (line.diskRestart != null) {
            in.diskRestart = seconds("--disk-restart", line.diskRestart);
        }
        if (line.slowdown != null) {
            in.slowdown = seconds("--slowdown", line.slowdown);
        }
        if (line.slowWindow != null) {
            in.slowWindow = seconds("--slow-window", line.slowWindow);
        }
        if (line.slowPace != null) {
            // 0: no pace, the even phase of --slowdown and --slow-window (as without the flag)
            in.pace = line.slowPace.equals("0") ? null : pace(line.slowPace);
        }
        if (line.image != null) {
            in.imageBytes = positive("--image", bytes("--image", line.image));
        }
        if (line.nodeMtbf != null) {
            in.nodeMtbf = positive("--node-mtbf", duration("--node-mtbf", line.nodeMtbf));
        }
        if (line.ranksPerNode != null) {
            in.ranksPerNode = integer("--ranks-per-node", line.ranksPerNode, 1);
        }
        if (line.ranks != null) {
            in.ranks = list("--ranks", line.ranks);
        }
        if (line.maxM != null) {
            in.maxReplicas = integer("--max-m", line.maxM, 0);
        }
        if (line.placement != null) {
            in.placement = placement(line.placement);
        }
        if (line.codes != null) {
            for (String code : line.codes.split(",")) {
                protection(code.trim(), 1000); // checked now, named as given
                in.codes.add(code.trim());
            }
        }
        if (line.jobHours != null) {
            in.jobHours = positive("--job-hours", number("--job-hours", line.jobHours));
        }
        if (line.maxLoss != null) {
            in.maxLoss = number("--max-loss", line.maxLoss);
        }
        if (line.nodeMemory != null) {
            in.nodeMemory = positive("--node-memory", bytes("--node-memory", line.nodeMemory));
        }
        if (line.maxDiskRatio != null) {
            in.maxDiskRatio = integer("--max-disk-ratio", line.maxDiskRatio, 1);
        }
        in.simulate = line.simulate;
        if (Double.isNaN(in.nodeMtbf)) {
            throw new IllegalArgumentException("--node-mtbf is needed (the MTBF of one node), or a --stats file"
                    + " with jobMtbfSeconds and failureNodes; see bin/ckpt-advisor --help");
        }
        if (Double.isNaN(in.cost)) {
            throw new IllegalArgumentException("--cost is needed (a checkpoint's cost per rank), or a --stats file");
        }
        if (!(in.maxLoss > 0 && in.maxLoss < 1)) {
            throw new IllegalArgumentException("--max-loss must be > 0 and < 1, got " + in.maxLoss);
        }
        if (Double.isNaN(in.blocking) || in.blocking > in.cost) {
            in.blocking = in.cost;
        }
        if (Double.isNaN(in.imageBytes)) {
            in.imageBytes = 1 << 20;
        }
        if (Double.isNaN(in.diskCost)) {
            in.diskCost = in.imageBytes / 1e9;
        }
        if (Double.isNaN(in.restart)) {
            in.restart = 1;
        }
        return in;
    }

    /** The flags in the newest {@code interval policy ...} line of a launcher log (rank 0's figures at close). */
    static List<String> logFlags(Path file) throws IOException {
        String line = null;
        for (String l : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            if (l.contains("interval policy ") && l.contains("--restart")) {
                line = l;
            }
        }
        if (line == null) {
            throw new IllegalArgumentException("no 'interval policy' line in " + file
                    + " (a job with an interval policy reports its figures at close)");
        }
        List<String> flags = new ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(--[a-z-]+) ([^ ,]+)").matcher(line);
        while (m.find()) {
            flags.add(m.group(1));
            flags.add(m.group(2));
        }
        return flags;
    }

    private static void readStats(Inputs in, Path file) throws IOException {
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(file, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException e) {
            throw new IOException("cannot read the stats file " + file + ": " + e.getMessage(), e);
        }
        in.cost = stat(p, "costSeconds", in.cost);
        in.blocking = stat(p, "blockingSeconds", in.blocking);
        in.diskCost = stat(p, "diskCostSeconds", in.diskCost);
        in.restart = stat(p, "recoverySeconds", in.restart);
        in.slowdown = stat(p, "slowdownSeconds", in.slowdown);
        in.slowWindow = stat(p, "slowWindowSeconds", in.slowWindow);
        in.imageBytes = stat(p, "imageBytes", in.imageBytes);
        in.measuredReplicas = (int) stat(p, "replicas", in.measuredReplicas);
        double jobMtbf = stat(p, "jobMtbfSeconds", Double.NaN);
        double nodes = stat(p, "failureNodes", Double.NaN);
        if (!Double.isNaN(jobMtbf) && !Double.isNaN(nodes)) {
            in.nodeMtbf = jobMtbf * nodes;
        }
        double ranks = stat(p, "ranks", Double.NaN);
        if (!Double.isNaN(ranks) && !Double.isNaN(nodes) && nodes > 0) {
            in.ranksPerNode = (int) Math.max(1, Math.round(ranks / nodes));
        }
    }

    private static double stat(Properties p, String key, double fallback) {
        String v = p.getProperty(key);
        if (v == null) {
            return fallback;
        }
        try {
            return Double.parseDouble(v.trim());
        } catch (NumberFormatException e) {
            return fallback;
        }
    }

    /**
     * A code as {@code --codes} gives it ({@link Redundancy#parse}, the library's own form), for a job on
     * {@code nodes} nodes.
     *
     * @throws IllegalArgumentException naming the code and the form expected
     */
    static Protection protection(String code, int nodes) {
        Redundancy r = Redundancy.parse("--codes", code);
        return switch (r.kind()) {
            case XOR -> Protection.xor(r.count(), nodes);
            case RS -> Protection.reedSolomon(r.count(), r.parity(), nodes);
            case COPIES -> throw new IllegalArgumentException("--codes '" + code + "': list codes (xor:K, rs:K+P);"
                    + " the copies m = 0 to --max-m are rows already");
        };
    }

    /** The table: for each scale, each m and each code of --codes, disk off and disk at the policy's ratio. */
    static List<Row> rows(Inputs in) {
        List<Row> rows = new ArrayList<>();
        for (int n : in.ranks) {
            int nodes = Math.max(1, (n + in.ranksPerNode - 1) / in.ranksPerNode);
            double rate = nodes / in.nodeMtbf;
            List<Protection> protections = new ArrayList<>();
            for (int m = 0; m <= Math.min(in.maxReplicas, n - 1); m++) {
                protections.add(Protection.copies(m, in.ranksPerNode, nodes, in.placement));
            }
            for (String code : in.codes) {
                Protection p = protection(code, nodes);
                if (p.setNodes() <= n) {
                    protections.add(p);
                }
            }
            for (Protection protection : protections) {
                boolean copies = protection.ring();
                int m = copies ? (int) protection.sentPerImage() : 0;
                // the background part grows with the bytes sent: m copies, or a code's parts
                double background = (in.cost - in.blocking) * Math.max(protection.sentPerImage(), 1)
                        / Math.max(in.measuredReplicas, 1);
                double c = in.blocking + background;
                double diskCost = Double.isNaN(in.diskBandwidth) ? in.diskCost
                        : Math.max(in.diskCost, in.imageBytes * n / in.diskBandwidth);
                double diskRestart = Double.isNaN(in.diskRestart) ? in.restart + diskCost : in.diskRestart;
                double tau = FailureModel.dalyInterval(c, 1 / rate);
                double window = in.restart + tau + c;
                double unsurvivable = FailureModel.unsurvivableRate(in.nodeMtbf, nodes, protection, window);
                double survivable = Math.max(0, rate - unsurvivable);
                int auto = FailureModel.diskRatio(tau, c, diskCost, unsurvivable, in.maxDiskRatio);
                double memory = FailureModel.memoryPerNode(in.imageBytes, in.ranksPerNode, protection, in.versions);
                for (int k : new int[] {0, auto}) {
                    Scheme s = new Scheme(tau, c, k, diskCost, in.restart, diskRestart, survivable, unsurvivable,
                            in.slowdown, in.slowWindow);
                    SlowProfile pace = in.pace != null ? in.pace : SlowProfile.even(in.slowdown, in.slowWindow);
                    double simulated = Double.NaN;
                    if (in.simulate) {
                        long segments = Math.min(2000, Math.max(50, Math.round(in.jobHours * 3600 / tau)));
                        simulated = Simulator.run(s, segments * tau, 200, 1234 + n * 31L + m * 7L + k, 0, pace)
                                .wallPerWork() - 1;
                    }
                    rows.add(new Row(n, nodes, copies ? Integer.toString(m) : protection.name(), k, tau, FailureModel.wallPerWork(s, 0, pace) - 1,
                            FailureModel.lostPerFailure(s, pace),
                            FailureModel.lossProbability(s, in.jobHours * 3600), memory, simulated));
                }
            }
        }
        return rows;
    }

    /** @return per scale, the index of the recommended row: the lowest overhead that is safe enough and fits */
    static int recommended(Inputs in, List<Row> rows, int ranks) {
        int best = -1;
        int safest = -1;
        for (int i = 0; i < rows.size(); i++) {
            Row r = rows.get(i);
            if (r.ranks() != ranks || !fits(in, r) || !r.available()) {
                continue;
            }
            if (safest < 0 || r.loss() < rows.get(safest).loss()
                    || r.loss() == rows.get(safest).loss() && r.overhead() < rows.get(safest).overhead()) {
                safest = i;
            }
            if (r.loss() <= in.maxLoss && (best < 0 || r.overhead() < rows.get(best).overhead() - 1e-12)) {
                best = i;
            }
        }
        return best >= 0 ? best : safest;
    }

    private static boolean fits(Inputs in, Row r) {
        return Double.isNaN(in.nodeMemory) || r.memory() <= in.nodeMemory;
    }

    static void print(Inputs in, List<Row> rows, PrintStream out) {
        out.printf(Locale.ROOT, "jckpt advisor: checkpoint %.3g s per rank (blocking %.3g s, background scaled by m from m = %d),"
                        + " disk round %.3g s, restart %.3g s (then %.3g s slower over %.3g s of computation%s), image %s,"
                        + " node MTBF %s, %d rank(s) per node, copies %s, job of %.3g h, acceptable P(loss) %.2g%n",
                in.cost, in.blocking, in.measuredReplicas, in.diskCost, in.restart,
                in.pace == null ? in.slowdown : in.pace.slowdown(), in.pace == null ? in.slowWindow : in.pace.window(),
                in.pace == null ? "" : ", at the pace " + in.pace, bytes(in.imageBytes),
                duration(in.nodeMtbf), in.ranksPerNode, in.placement == Placement.SPREAD ? "on m other nodes"
                        : "on the next m ranks", in.jobHours, in.maxLoss);
        out.println("interval = Daly's optimum for the checkpoint's cost and the job's MTBF (what `auto` picks);"
                + " disk ratio = the policy's optimum for the failures memory cannot survive (0 = no disk level);"
                + " overhead = expected run time / failure-free run time - 1; lost = expected time lost per failure;"
                + " P(loss) = probability that a failure neither level survives ends the job.");
        out.println();
        List<String> head = new ArrayList<>(List.of("ranks", "nodes", in.codes.isEmpty() ? "m" : "m / code", "disk ratio", "interval", "overhead", "lost/failure",
                "P(loss)", "memory/node"));
        if (in.simulate) {
            head.add("simulated");
        }
        head.add("advice");
        List<List<String>> cells = new ArrayList<>();
        for (int n : in.ranks) {
            int rec = recommended(in, rows, n);
            for (int i = 0; i < rows.size(); i++) {
                Row r = rows.get(i);
                if (r.ranks() != n) {
                    continue;
                }
                List<String> c = new ArrayList<>(List.of(Integer.toString(r.ranks()), Integer.toString(r.nodes()),
                        r.redundancy(), r.diskRatio() == 0 ? "off" : Integer.toString(r.diskRatio()),
                        duration(r.tau()), percent(r.overhead()), duration(r.lost()),
                        String.format(Locale.ROOT, "%.1e", r.loss()), bytes(r.memory())));
                if (in.simulate) {
                    c.add(percent(r.simulated()));
                }
                c.add(advice(in, rows, i, rec));
                cells.add(c);
            }
        }
        table(head, cells, out);
    }

    private static String advice(Inputs in, List<Row> rows, int i, int rec) {
        Row r = rows.get(i);
        if (i == rec) {
            return r.loss() <= in.maxLoss ? "RECOMMENDED: lowest overhead with P(loss) <= " + in.maxLoss
                    + (r.diskRatio() == 0 ? "" : "; disk every " + r.diskRatio() + " checkpoints")
                    : "RECOMMENDED: none is safe enough; this is the safest (add copies, the disk level or spread placement)";
        }
        if (!fits(in, r)) {
            return "does not fit --node-memory";
        }
        if (!r.available()) {
            return String.format(Locale.ROOT, "model only (the library keeps full copies today); overhead %+.2f points"
                    + " vs recommended", 100 * (r.overhead() - rows.get(rec).overhead()));
        }
        if (r.loss() > in.maxLoss) {
            return "P(loss) above " + in.maxLoss + (r.diskRatio() == 0 ? ": needs the disk level or more copies" : "");
        }
        Row best = rows.get(rec);
        return String.format(Locale.ROOT, "safe, overhead %+.2f points vs recommended", 100 * (r.overhead() - best.overhead()));
    }

    private static void table(List<String> head, List<List<String>> rows, PrintStream out) {
        int[] w = new int[head.size()];
        for (int j = 0; j < w.length; j++) {
            w[j] = head.get(j).length();
            for (List<String> r : rows) {
                w[j] = Math.max(w[j], r.get(j).length());
            }
        }
        StringBuilder line = new StringBuilder("|");
        StringBuilder rule = new StringBuilder("|");
        for (int j = 0; j < w.length; j++) {
            line.append(' ').append(pad(head.get(j), w[j])).append(" |");
            rule.append('-').append("-".repeat(w[j])).append("-|");
        }
        out.println(line);
        out.println(rule);
        for (List<String> r : rows) {
            StringBuilder l = new StringBuilder("|");
            for (int j = 0; j < w.length; j++) {
                l.append(' ').append(pad(r.get(j), w[j])).append(" |");
            }
            out.println(l);
        }
    }

    private static String pad(String s, int w) {
        return s + " ".repeat(w - s.length());
    }

    static String percent(double f) {
        if (Double.isNaN(f)) {
            return "-";
        }
        if (f > 100) {
            return "> 10^4 % (no progress)"; // the job spends its time failing and restarting
        }
        return String.format(Locale.ROOT, "%.2f %%", 100 * f);
    }

    static String duration(double s) {
        if (Double.isNaN(s)) {
            return "-";
        }
        if (s < 1) {
            return String.format(Locale.ROOT, "%.0f ms", s * 1000);
        }
        if (s < 120) {
            return String.format(Locale.ROOT, "%.1f s", s);
        }
        if (s < 7200) {
            return String.format(Locale.ROOT, "%.1f min", s / 60);
        }
        if (s < 2 * 86400) {
            return String.format(Locale.ROOT, "%.1f h", s / 3600);
        }
        if (s < 2 * 365 * 86400) {
            return String.format(Locale.ROOT, "%.0f d", s / 86400);
        }
        return String.format(Locale.ROOT, "%.1f y", s / (365 * 86400.0));
    }

    static String bytes(double b) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        while (b >= 1024 && u < units.length - 1) {
            b /= 1024;
            u++;
        }
        return String.format(Locale.ROOT, u == 0 ? "%.0f %s" : "%.1f %s", b, units[u]);
    }

    private static double number(String option, String v) {
        try {
            return Double.parseDouble(v);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + v + ": not a number");
        }
    }

    private static double positive(String option, double v) {
        if (!(v > 0) || Double.isInfinite(v)) {
            throw new IllegalArgumentException(option + " must be > 0, got " + v);
        }
        return v;
    }

    /** --slow-pace STEP:SPEED:SPEED:... as a profile of equal phases. */
    static SlowProfile pace(String v) {
        String[] parts = v.split(":");
        if (parts.length < 2) {
            throw new IllegalArgumentException("--slow-pace must be STEP:SPEED:SPEED:... (e.g. 0.5:0.31:0.51:0.75),"
                    + " got " + v);
        }
        double step = seconds("--slow-pace's step", parts[0]);
        double[] speeds = new double[parts.length - 1];
        for (int k = 1; k < parts.length; k++) {
            speeds[k - 1] = number("--slow-pace's speed " + k, parts[k]);
        }
        try {
            return SlowProfile.everySeconds(step, speeds);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("--slow-pace " + v + ": " + e.getMessage(), e);
        }
    }

    private static double seconds(String option, String v) {
        double s = number(option, v.endsWith("s") ? v.substring(0, v.length() - 1) : v);
        if (!(s >= 0) || Double.isInfinite(s)) {
            throw new IllegalArgumentException(option + " must be >= 0 seconds, got " + v);
        }
        return s;
    }

    private static int integer(String option, String v, int min) {
        try {
            int x = Integer.parseInt(v);
            if (x < min) {
                throw new IllegalArgumentException(option + " must be >= " + min + ", got " + v);
            }
            return x;
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(option + " " + v + ": not an integer");
        }
    }

    static double bytes(String option, String v) {
        String t = v.trim().toUpperCase(Locale.ROOT).replace("IB", "").replace("B", "");
        double f = 1;
        if (t.endsWith("K")) {
            f = 1024;
        } else if (t.endsWith("M")) {
            f = 1024 * 1024;
        } else if (t.endsWith("G")) {
            f = 1024.0 * 1024 * 1024;
        }
        return f * number(option, f == 1 ? t : t.substring(0, t.length() - 1));
    }

    static double duration(String option, String v) {
        String t = v.trim().toLowerCase(Locale.ROOT);
        double f;
        if (t.endsWith("y")) {
            f = 365 * 86400.0;
        } else if (t.endsWith("d")) {
            f = 86400;
        } else if (t.endsWith("h")) {
            f = 3600;
        } else if (t.endsWith("ms")) {
            f = 0.001;
            t = t.substring(0, t.length() - 1);
        } else if (t.endsWith("m")) {
            f = 60;
        } else if (t.endsWith("s")) {
            f = 1;
        } else {
            return number(option, t);
        }
        return f * number(option, t.substring(0, t.length() - 1));
    }

    private static List<Integer> list(String option, String v) {
        List<Integer> out = new ArrayList<>();
        for (String p : v.split(",")) {
            out.add(integer(option, p.trim(), 1));
        }
        return out;
    }

    private static Placement placement(String v) {
        return switch (v) {
            case "rank-order" -> Placement.RANK_ORDER;
            case "spread" -> Placement.SPREAD;
            default -> throw new IllegalArgumentException("--placement must be rank-order or spread, got " + v);
        };
    }
}
