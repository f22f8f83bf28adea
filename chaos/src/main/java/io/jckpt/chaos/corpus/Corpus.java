package io.jckpt.chaos.corpus;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * The corpus of user programs ({@code bin/chaos --scenarios corpus}): each written the way a different
 * user would write it, each deterministic given its seed, with an Allreduce or Sendrecv every iteration,
 * printing one result line from rank 0 that a failure must not change. Run with {@code Ckpt.open()}'s
 * job settings ({@code bin/ckpt-run --on-failure respawn --replicas 1}), from this module's classes
 * (the template's program is compiled into them from {@code samples/template}).
 */
public enum Corpus {
    PARTICLES("particles", Particles.class.getName(), "particles: ",
            "Langevin particles: double[] x and v, a Random and a long[] step registered unconditionally, here(step)",
            "200", "20000", "1"),
    MONTE_CARLO("montecarlo", MonteCarlo.class.getName(), "montecarlo: ",
            "SplittableRandom split per batch, long[]/double[] totals; isRecovery/rollback, hereIfDue(step) at calls:3",
            "120", "100000", "1"),
    GRAPH("graph", Graph.class.getName(), "graph: ",
            "PageRank: HashMap<String,Double>, TreeMap<Integer,Integer>, a growing ArrayList<Double>; here() without a"
                    + " step every 3rd iteration", "90", "3000", "1"),
    SOLVER("solver", Solver.class.getName(), "solver: ",
            "Jacobi in an object: nested Grid (cycle), inner Monitor, a Random and a record in fields; aliases taken"
                    + " before one rollback(\"solver\")", "160", "96", "256", "1"),
    AGENTS("agents", Agents.class.getName(), "agents: ",
            "agents with enum kinds and record positions in a list that grows, shrinks and migrates; EnumMaps;"
                    + " hereIfDue(tick) at seconds:0.3", "150", "400", "1"),
    TEMPLATE("template", "org.example.app.Main", "result: ",
            "samples/template's Main as bin/new-app copies it: a heat stencil, register unconditionally, here(step)",
            "300", "16384"),
    PROBE("probe", Probe.class.getName(), "probe result ",
            "issue 28's probe: every row's state, aliases, register instead of rollback in an old-way recovery branch",
            "400", "512", "1", "none", "step", "0");

    /** The name in reports and on the command line. */
    public final String label;
    /** The program's main class. */
    public final String mainClass;
    /** The start of rank 0's result line; the rest of the line must equal the failure-free run's. */
    public final String resultPrefix;
    /** How the program is written and what it keeps. */
    public final String style;
    private final String[] args;

    Corpus(String label, String mainClass, String resultPrefix, String style, String... args) {
        this.label = label;
        this.mainClass = mainClass;
        this.resultPrefix = resultPrefix;
        this.style = style;
        this.args = args;
    }

    /** The program's arguments in the campaign. */
    public List<String> args() {
        return List.of(args);
    }

    /** Rank 0's last result in {@code lines} (what follows {@link #resultPrefix}), or null when none was printed. */
    public String result(List<String> lines) {
        List<String> all = results(lines);
        return all.isEmpty() ? null : all.get(all.size() - 1);
    }

    /**
     * Every result rank 0 printed in {@code lines}, in order (a rank killed after the result was printed
     * makes the program print it again after the recovery).
     */
    public List<String> results(List<String> lines) {
        List<String> found = new ArrayList<>();
        for (String text : lines) {
            int at = text.indexOf("[rank 0] " + resultPrefix);
            if (at >= 0) {
                found.add(text.substring(at + "[rank 0] ".length() + resultPrefix.length()).trim());
            }
        }
        return found;
    }

    /** The programs named in {@code text} ("a,b"), or every one for null. */
    public static List<Corpus> parseList(String text) {
        if (text == null) {
            return List.of(values());
        }
        return Arrays.stream(text.split(",")).map(String::trim).filter(s -> !s.isEmpty()).map(Corpus::of).toList();
    }

    static Corpus of(String label) {
        for (Corpus c : values()) {
            if (c.label.equals(label.toLowerCase(Locale.ROOT))) {
                return c;
            }
        }
        throw new IllegalArgumentException("unknown corpus program '" + label + "'; known: "
                + Arrays.stream(values()).map(c -> c.label).collect(Collectors.joining(",")));
    }
}
