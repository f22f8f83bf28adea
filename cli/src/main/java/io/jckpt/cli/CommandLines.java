package io.jckpt.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import picocli.CommandLine;

/**
 * jckpt's one command-line style, read by picocli: {@code --opt value} and {@code --opt=value},
 * {@code --help}, the last of a repeated option wins, and one short line for a mistake: "unknown option
 * --iteratons (did you mean --iterations?); see NAME --help". The launcher ({@code bin/ckpt-run}), the
 * samples, the fault campaign and the advisor use it; each program's own checks (ranges, combinations)
 * come after, with their own messages.
 */
public final class CommandLines {
    private CommandLines() {
    }

    /** {@code --help}: the usage to print, after which the program ends with exit status 0. */
    public static final class HelpRequested extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final String usage;

        HelpRequested(String usage) {
            super("--help", null, false, false);
            this.usage = usage;
        }

        /** @return the usage text, options and defaults, ending with a line break */
        public String usage() {
            return usage;
        }
    }

    /** The exit status of a program given bad input, as the launcher's (and mpirun's) usage errors. */
    public static final int BAD_INPUT = 2;

    /**
     * Reads a program's settings: its command line (with {@link #parse}) and the files the line names.
     *
     * @param <T> the settings
     */
    @FunctionalInterface
    public interface SettingsReader<T> {
        /**
         * @return the settings
         * @throws IllegalArgumentException bad input, in one line naming the option
         * @throws IOException a file the line names cannot be read
         * @throws HelpRequested for {@code --help}
         */
        T read() throws IOException;
    }

    /**
     * A program's work once its settings are read.
     *
     * @param <T> the settings
     */
    @FunctionalInterface
    public interface Work<T> {
        /**
         * @param settings what {@link SettingsReader#read} returned
         * @return the program's exit status
         * @throws Exception the program's failure, passed on
         */
        int run(T settings) throws Exception;
    }

    /**
     * A command-line program's main, the one jckpt way: {@code --help} prints the usage (then
     * {@code moreHelp}, when given) to standard output, exit status 0; bad input, an
     * {@link IllegalArgumentException} or {@link IOException} from {@code read}, prints one line
     * "NAME: message" to standard error, exit status {@link #BAD_INPUT}. Exceptions from {@code work}
     * pass: a failure there is the program's, not its input's.
     *
     * @param name     the program's name, the start of an error line
     * @param read     reads the settings
     * @param moreHelp prints what follows the options in {@code --help} (a list of scenarios), or null
     * @param work     the program's work
     * @return the exit status: {@code work}'s, 0 after {@code --help}, {@link #BAD_INPUT} after bad input
     */
    public static <T> int run(String name, SettingsReader<T> read, Consumer<PrintStream> moreHelp, Work<T> work)
            throws Exception {
        T settings;
        try {
            settings = read.read();
        } catch (HelpRequested help) {
            System.out.print(help.usage());
            if (moreHelp != null) {
                moreHelp.accept(System.out);
            }
            System.out.flush();
            return 0;
        } catch (IllegalArgumentException | IOException e) {
            System.err.println(name + ": " + e.getMessage());
            return BAD_INPUT;
        }
        return work.run(settings);
    }

    /**
     * Reads a command line into an object annotated with picocli's {@code @Command} and {@code @Option}.
     *
     * @param options the annotated object, its fields holding the defaults
     * @param args the arguments
     * @return {@code options}, filled in
     * @throws IllegalArgumentException one short line naming the mistake and ending "see NAME --help",
     *     where NAME is the {@code @Command}'s name
     * @throws HelpRequested for {@code --help}
     */
    public static <T> T parse(T options, String[] args) {
        return parse(options, args, false);
    }

    /**
     * As {@link #parse(Object, String[])}; with {@code stopAtPositional} every argument from the first
     * positional one on is positional (a launcher's program and its own arguments). A {@code --version}
     * request returns normally: the caller reads its own flag.
     *
     * @param options          the annotated object
     * @param args             the arguments
     * @param stopAtPositional whether options end at the first positional argument
     * @return {@code options}, filled in
     */
    public static <T> T parse(T options, String[] args, boolean stopAtPositional) {
        CommandLine line = new CommandLine(options)
                .setStopAtPositional(stopAtPositional)
                .setExpandAtFiles(false)             // an argument "@x" is a value like any other
                .setOverwrittenOptionsAllowed(true); // the last of a repeated option wins
        String see = "; see " + line.getCommandName() + " --help";
        CommandLine.ParseResult result;
        try {
            result = line.parseArgs(args);
        } catch (CommandLine.UnmatchedArgumentException e) {
            String unknown = e.getUnmatched().isEmpty() ? "?" : e.getUnmatched().get(0);
            if (!unknown.startsWith("-")) {
                throw new IllegalArgumentException("unexpected argument " + unknown + see);
            }
            int eq = unknown.indexOf('=');
            List<String> suggestions = closest(eq < 0 ? unknown : unknown.substring(0, eq),
                    line.getCommandSpec().optionsMap().keySet());
            throw new IllegalArgumentException("unknown option " + unknown + (suggestions.isEmpty() ? ""
                    : " (did you mean " + suggestions.stream().limit(3).collect(Collectors.joining(" or ")) + "?)")
                    + see);
        } catch (CommandLine.MissingParameterException e) {
            String option = e.getMissing().isEmpty() || !(e.getMissing().get(0) instanceof CommandLine.Model.OptionSpec o)
                    ? "an option" : o.longestName();
            throw new IllegalArgumentException(option + " needs a value" + see);
        } catch (CommandLine.ParameterException e) {
            String first = firstLine(e.getMessage());
            throw new IllegalArgumentException(first.isEmpty() ? "bad command line" + see
                    : Character.toLowerCase(first.charAt(0)) + first.substring(1) + see);
        }
        if (result.isUsageHelpRequested()) {
            throw new HelpRequested(line.getUsageMessage(CommandLine.Help.Ansi.OFF));
        }
        return options;
    }

    /**
     * @param typed a mistyped option
     * @param names the command's option names
     * @return the option names at the smallest edit distance (at most 2, or that it begins) from it
     */
    public static List<String> closest(String typed, Collection<String> names) {
        int best = Integer.MAX_VALUE;
        List<String> closest = new ArrayList<>();
        for (String name : names) {
            int d = name.startsWith(typed) && typed.length() >= 4 ? 1 : distance(typed, name);
            if (d > 2 || d > best) {
                continue;
            }
            if (d < best) {
                best = d;
                closest.clear();
            }
            closest.add(name);
        }
        Collections.sort(closest);
        return closest;
    }

    /** Optimal string alignment distance: insertions, deletions, substitutions and swaps of neighbours. */
    private static int distance(String a, String b) {
        int[][] d = new int[a.length() + 1][b.length() + 1];
        for (int i = 0; i <= a.length(); i++) {
            d[i][0] = i;
        }
        for (int j = 0; j <= b.length(); j++) {
            d[0][j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                d[i][j] = Math.min(Math.min(d[i - 1][j] + 1, d[i][j - 1] + 1), d[i - 1][j - 1] + cost);
                if (i > 1 && j > 1 && a.charAt(i - 1) == b.charAt(j - 2) && a.charAt(i - 2) == b.charAt(j - 1)) {
                    d[i][j] = Math.min(d[i][j], d[i - 2][j - 2] + 1);
                }
            }
        }
        return d[a.length()][b.length()];
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end);
    }
}
