package io.jckpt.samples.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jckpt.cli.CommandLines;
import io.jckpt.samples.heat.HeatProblem;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The README's main job: the heat solver on 4 ranks under {@code bin/ckpt-run}, a rank killed with
 * SIGKILL part-way (its node's memory wiped too, by default), recovered in place, and the result
 * compared with a failure-free sequential run. Shows what happens as it happens, then reads the job's
 * events file (JSON Lines, {@code docs/events.md}) for its summary and prints where the launcher's report
 * page (timeline, summary, here() times) is: {@code OUT/demo-job/report.html}. With {@code --hosts N} the
 * same job runs across N test hosts made on this machine, one of which is lost whole
 * ({@link DemoAcrossHosts}).
 *
 * <pre>
 * bin/demo [--replicas m] [--kill SPEC] [--total-loss] [--hosts N] [--nx N] [--ny N] [--iterations N]
 *          [--ckpt-every N] [--out DIR] [--help]
 * </pre>
 * (read by picocli: {@code --opt=value} too; a mistyped option is one line naming the closest ones, exit status 2)
 */
public final class Demo {
    private Demo() {
    }

    /** The demo's command line as picocli fills it in ({@code bin/demo --help}); the field values are the defaults. */
    @Command(name = "bin/demo", sortOptions = false, usageHelpWidth = 100, customSynopsis = "bin/demo [OPTIONS]",
            description = {"The heat solver on 4 ranks under bin/ckpt-run: one rank killed with SIGKILL part-way"
                    + " (its node-local memory wiped too), recovered in place, the result compared with a"
                    + " failure-free sequential run; prints a summary from the job's events file and the path of its"
                    + " report page, OUT/demo-job/report.html.",
                    "Exit status: 0 recovered and identical, 1 not, 2 bad options (or, with --hosts, no test hosts here).", ""})
    static final class Options {
        @Option(names = "--replicas", paramLabel = "M",
                description = "in-memory copies of each checkpoint on other ranks (default: ${DEFAULT-VALUE})")
        int replicas = 1;
        @Option(names = "--kill", paramLabel = "RANKS@WHEN[:wipe]", description = "the failure to inject, as"
                + " bin/ckpt-run --kill (default: rank 2 at 2/5 of the checkpoint rounds, with its memory wiped)")
        String kill;
        @Option(names = "--total-loss", description = "kill every rank and wipe every node's memory: recovery from"
                + " the disk level (then written every 5 checkpoints)")
        boolean totalLoss;
        @Option(names = "--hosts", paramLabel = "N", description = "run across N test hosts made on this machine"
                + " (2-8; root only: namespaces with their own /dev/shm and sshd), 2 ranks on each over ssh, and lose the"
                + " last host whole (every process and its memory) part-way; the page goes to OUT/demo-hosts-job")
        Integer hosts;
        @Option(names = "--nx", paramLabel = "N", description = "grid columns (default: ${DEFAULT-VALUE})") int nx = 512;
        @Option(names = "--ny", paramLabel = "N", description = "grid rows (default: ${DEFAULT-VALUE})") int ny = 512;
        @Option(names = "--iterations", paramLabel = "N", description = "Jacobi sweeps (default: ${DEFAULT-VALUE})")
        int iterations = 1600;
        @Option(names = "--ckpt-every", paramLabel = "N",
                description = "checkpoint every this many sweeps, even (default: ${DEFAULT-VALUE})")
        int every = 20;
        @Option(names = "--out", paramLabel = "DIR",
                description = "where the job's events, its report page and the disk level go (default: ${DEFAULT-VALUE})")
        Path out = Paths.get("out");
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit") boolean help;

        /**
         * @throws IllegalArgumentException a bad command line, in one line naming the option
         * @throws CommandLines.HelpRequested for {@code --help}
         */
        static Options parse(String[] args) {
            Options o = CommandLines.parse(new Options(), args);
            if (o.replicas < 0 || o.nx < 3 || o.ny < 3 || o.iterations < 1 || o.every < 2 || o.every % 2 != 0) {
                throw new IllegalArgumentException("--replicas must not be negative, --nx and --ny at least 3,"
                        + " --iterations positive and --ckpt-every even and positive; see bin/demo --help");
            }
            if (o.hosts != null) {
                if (o.hosts < 2 || o.hosts > DemoAcrossHosts.MAX_HOSTS) {
                    throw new IllegalArgumentException("--hosts must be 2-" + DemoAcrossHosts.MAX_HOSTS + ", got " + o.hosts
                            + "; see bin/demo --help");
                }
                if (o.kill != null || o.totalLoss) {
                    throw new IllegalArgumentException((o.kill != null ? "--kill" : "--total-loss") + " is for the"
                            + " one-host demo: --hosts loses a whole host itself; see bin/demo --help");
                }
                if (o.ny < 2 * o.hosts) {
                    throw new IllegalArgumentException("--ny " + o.ny + " is fewer rows than the " + 2 * o.hosts
                            + " ranks of --hosts " + o.hosts + "; see bin/demo --help");
                }
            }
            return o;
        }
    }

    public static void main(String[] args) throws Exception {
        Options options;
        try {
            options = Options.parse(args);
        } catch (CommandLines.HelpRequested help) {
            System.out.print(help.usage());
            System.exit(0);
            return;
        } catch (IllegalArgumentException e) {
            System.err.println("demo: " + e.getMessage());
            System.exit(2);
            return;
        }
        if (options.hosts != null) {
            System.exit(DemoAcrossHosts.run(options));
            return;
        }
        int ranks = 4;
        int replicas = options.replicas;
        int nx = options.nx;
        int ny = options.ny;
        int iterations = options.iterations;
        int every = options.every;
        String kill = options.kill;
        boolean totalLoss = options.totalLoss;
        Path out = options.out;
        int rounds = iterations / every;
        if (kill == null) {
            kill = totalLoss ? "all@round=" + Math.max(1, rounds * 2 / 5) + ":wipe" : "2@round=" + Math.max(1, rounds * 2 / 5) + ":wipe";
        }
        Files.createDirectories(out);
        Path disk = out.resolve("demo-disk");
        Path eventsFile = out.resolve("demo-job").resolve("events.jsonl").toAbsolutePath();
        Files.deleteIfExists(eventsFile);
        Files.deleteIfExists(eventsFile.resolveSibling("report.html"));

        System.out.printf(Locale.ROOT, "== reference: the same %d x %d grid, %d sweeps, sequentially, no failure%n", nx, ny,
                iterations);
        long t0 = System.nanoTime();
        double[] grid = new HeatProblem(nx, ny).solveSequentially(iterations);
        String reference = String.format(Locale.ROOT, "%016x", HeatProblem.checksum(grid, 0, grid.length));
        System.out.printf(Locale.ROOT, "reference checksum %s (%.2f s)%n%n", reference, (System.nanoTime() - t0) / 1e9);

        Path root = Paths.get(System.getProperty("jckpt.repo.root", ".")).toAbsolutePath().normalize();
        // the checkpoint settings are the job's (the launcher's options), the program's arguments its own
        List<String> command = new ArrayList<>(List.of(root.resolve("bin/ckpt-run").toString(), "-np",
                Integer.toString(ranks), "--on-failure", "respawn", "--kill", kill, "--events", eventsFile.toString(),
                "--replicas", Integer.toString(replicas)));
        if (totalLoss) {
            command.addAll(List.of("--disk", disk.toAbsolutePath().toString(), "--disk-ratio", "5"));
        }
        command.addAll(List.of("-cp", root.resolve("samples/target/classes").toString(),
                "io.jckpt.samples.heat.HeatSolver", "--nx", Integer.toString(nx), "--ny", Integer.toString(ny),
                "--iterations", Integer.toString(iterations), "--ckpt-every", Integer.toString(every), "--report", "200",
                "--sleep-ms", "2"));
        System.out.printf("== %d ranks under bin/ckpt-run, m = %d, injected failure: %s%n", ranks, replicas, kill);
        System.out.println("$ " + String.join(" ", command));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String checksum = null;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                System.out.println(line);
                checksum = checksumOf(line, checksum);
            }
        }
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
        }
        int status = process.exitValue();
        List<JsonNode> events = readEvents(eventsFile);
        System.out.println();
        System.out.println(Summary.table(events, reference, checksum, status));
        Path page = eventsFile.resolveSibling("report.html");
        System.out.println(Files.isRegularFile(page) ? "report page (timeline, summary, here() times): " + page.toUri()
                : "no report page at " + page + " (see the launcher's warning above)");
        boolean ok = status == 0 && reference.equals(checksum);
        System.out.println(ok ? "demo: OK, the checksum after the failure and recovery equals the failure-free reference"
                : "demo: FAILED (launcher exit status " + status + ", checksum " + checksum + " vs " + reference + ")");
        System.exit(ok ? 0 : 1);
    }

    /**
     * The launcher's events ({@code docs/events.md}); none when the file is missing (the launcher warned).
     * A last line cut short is left out.
     */
    /** @return the checksum a rank's {@code checksum X} result line gives, else {@code previous} */
    static String checksumOf(String line, String previous) {
        int at = line.indexOf("] checksum "); // the program's own result line
        return at > 0 ? line.substring(at + "] checksum ".length()).split(" ")[0] : previous;
    }

    static List<JsonNode> readEvents(Path file) throws java.io.IOException {
        List<JsonNode> events = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return events;
        }
        ObjectMapper json = new ObjectMapper();
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            try {
                JsonNode e = json.readTree(line);
                if (e != null && e.isObject()) {
                    events.add(e);
                }
            } catch (com.fasterxml.jackson.core.JsonProcessingException cutShort) {
                break;
            }
        }
        return events;
    }
}
