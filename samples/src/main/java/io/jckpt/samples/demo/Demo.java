package io.jckpt.samples.demo;

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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The README's main job: the heat solver on 4 ranks under {@code bin/ckpt-run}, a rank killed with
 * SIGKILL part-way (its node's memory wiped too, by default), recovered in place, and the result
 * compared with a failure-free sequential run. Shows what happens as it happens, prints a summary
 * and writes a timeline picture (SVG).
 *
 * <pre>
 * Demo [--replicas m] [--kill SPEC] [--total-loss] [--nx N] [--ny N] [--iterations N] [--ckpt-every N]
 *      [--out DIR]
 * </pre>
 */
public final class Demo {
    private static final Pattern TIME = Pattern.compile("^\\[ckpt-run +([0-9.]+)s\\] (.*)$");

    private Demo() {
    }

    /** One launcher event: seconds since the job started, and its text. */
    record Event(double seconds, String text) {
    }

    public static void main(String[] args) throws Exception {
        int ranks = 4;
        int replicas = 1;
        int nx = 512;
        int ny = 512;
        int iterations = 1600;
        int every = 20;
        String kill = null;
        boolean totalLoss = false;
        Path out = Paths.get("out");
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--replicas" -> replicas = Integer.parseInt(args[++i]);
                case "--kill" -> kill = args[++i];
                case "--total-loss" -> totalLoss = true;
                case "--nx" -> nx = Integer.parseInt(args[++i]);
                case "--ny" -> ny = Integer.parseInt(args[++i]);
                case "--iterations" -> iterations = Integer.parseInt(args[++i]);
                case "--ckpt-every" -> every = Integer.parseInt(args[++i]);
                case "--out" -> out = Paths.get(args[++i]);
                default -> {
                    System.err.println("demo: unknown option " + args[i]
                            + " (known: --replicas m, --kill RANKS@WHEN[:wipe], --total-loss, --nx, --ny, --iterations,"
                            + " --ckpt-every, --out DIR)");
                    System.exit(2);
                }
            }
        }
        int rounds = iterations / every;
        if (kill == null) {
            kill = totalLoss ? "all@round=" + Math.max(1, rounds * 2 / 5) + ":wipe" : "2@round=" + Math.max(1, rounds * 2 / 5) + ":wipe";
        }
        Files.createDirectories(out);
        Path disk = out.resolve("demo-disk");

        System.out.printf(Locale.ROOT, "== reference: the same %d x %d grid, %d sweeps, sequentially, no failure%n", nx, ny,
                iterations);
        long t0 = System.nanoTime();
        double[] grid = new HeatProblem(nx, ny).solveSequentially(iterations);
        String reference = String.format(Locale.ROOT, "%016x", HeatProblem.checksum(grid, 0, grid.length));
        System.out.printf(Locale.ROOT, "reference checksum %s (%.2f s)%n%n", reference, (System.nanoTime() - t0) / 1e9);

        Path root = Paths.get(System.getProperty("jckpt.repo.root", ".")).toAbsolutePath().normalize();
        List<String> command = new ArrayList<>(List.of(root.resolve("bin/ckpt-run").toString(), "-np",
                Integer.toString(ranks), "--on-failure", "respawn", "--kill", kill, "-cp",
                root.resolve("samples/target/classes").toString(), "io.jckpt.samples.heat.HeatSolver",
                "--nx", Integer.toString(nx), "--ny", Integer.toString(ny), "--iterations", Integer.toString(iterations),
                "--ckpt-every", Integer.toString(every), "--replicas", Integer.toString(replicas), "--report", "200",
                "--sleep-ms", "2"));
        if (totalLoss) {
            command.addAll(List.of("--disk-dir", disk.toAbsolutePath().toString(), "--disk-ratio", "5"));
        }
        System.out.printf("== %d ranks under bin/ckpt-run, m = %d, injected failure: %s%n", ranks, replicas, kill);
        System.out.println("$ " + String.join(" ", command));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        List<Event> events = new ArrayList<>();
        String checksum = null;
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8))) {
            for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                System.out.println(line);
                Matcher m = TIME.matcher(line);
                if (m.matches()) {
                    events.add(new Event(Double.parseDouble(m.group(1)), m.group(2)));
                }
                int at = line.indexOf("] checksum ");
                if (at > 0) {
                    checksum = line.substring(at + "] checksum ".length()).split(" ")[0];
                }
            }
        }
        if (!process.waitFor(10, TimeUnit.MINUTES)) {
            process.destroyForcibly();
        }
        int status = process.exitValue();
        Path svg = out.resolve("demo-timeline.svg");
        Files.writeString(svg, Timeline.svg(events, ranks, kill));
        System.out.println();
        System.out.println(Summary.table(events, reference, checksum, status));
        System.out.println("timeline picture: " + svg.toAbsolutePath());
        boolean ok = status == 0 && reference.equals(checksum);
        System.out.println(ok ? "demo: OK, the checksum after the failure and recovery equals the failure-free reference"
                : "demo: FAILED (launcher exit status " + status + ", checksum " + checksum + " vs " + reference + ")");
        System.exit(ok ? 0 : 1);
    }

    static String bytesFromEvents(List<Event> events) {
        for (Event e : events) {
            Matcher m = Pattern.compile("checkpoint round \\d+: (.*) per rank").matcher(e.text());
            if (m.find()) {
                return m.group(1);
            }
        }
        return "?";
    }

}
