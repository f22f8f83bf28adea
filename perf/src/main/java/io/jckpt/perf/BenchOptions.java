package io.jckpt.perf;

import io.jckpt.cli.CommandLines;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code bin/bench}'s command line (picocli through {@link CommandLines}, as the launcher's and the samples'). */
@Command(name = "bin/bench", sortOptions = false, usageHelpWidth = 100,
        description = "Runs jckpt's benchmark suite (module perf) and writes a Markdown report.")
final class BenchOptions {
    @Option(names = "--quick", description = "a few minutes instead of 30-40: fewer sizes, repetitions and rounds;"
            + " default report perf/REPORT-quick.md")
    boolean quick;

    @Option(names = "--only", split = ",", paramLabel = "SECTIONS",
            description = "some of baselines,jmh,micro,scaling,table2,table1,diskrounds,heat,handwritten,recovery,"
                    + "interval (default: all)")
    List<String> only = new ArrayList<>(BenchSuite.ALL);

    @Option(names = "--out", paramLabel = "FILE", description = "the report (default perf/REPORT.md)")
    Path out;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "this help")
    boolean help;

    /** @return the sections to run, in the suite's order of the names given */
    Set<String> sections() {
        return new LinkedHashSet<>(only);
    }

    /**
     * @throws IllegalArgumentException one line naming the mistake
     * @throws CommandLines.HelpRequested for {@code --help}
     */
    static BenchOptions parse(String[] args) {
        BenchOptions o = CommandLines.parse(new BenchOptions(), args);
        for (String section : o.only) {
            if (!BenchSuite.ALL.contains(section)) {
                throw new IllegalArgumentException("--only: unknown section '" + section + "'" + suggestion(section)
                        + "; the sections are " + String.join(",", BenchSuite.ALL));
            }
        }
        return o;
    }

    private static String suggestion(String section) {
        List<String> close = CommandLines.closest(section, BenchSuite.ALL);
        return close.isEmpty() ? "" : " (did you mean " + String.join(" or ", close) + "?)";
    }
}
