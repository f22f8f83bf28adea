package io.jckpt.runtime.launcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The launcher's command line as picocli reads it: {@code --opt value} and {@code --opt=value}, the
 * documented aliases ({@code -n}/{@code -np}/{@code --np}, {@code -classpath}, {@code -q}), {@code --help},
 * {@code --version}, options up to the main class (or after {@code -jar APP.jar}) and the program's
 * arguments untouched after it. Values stay text here: {@link LaunchSpec#parse} validates them with
 * messages that name the option and the fix. Parse errors become one short {@link UsageException}
 * ("unknown option --lgo (did you mean --log?); see ckpt-run --help").
 */
@Command(name = "ckpt-run")
final class LauncherOptions {
    @Option(names = {"-np", "-n", "--np"}) String np;
    @Option(names = {"--dev", "-dev"}) String device;
    @Option(names = {"-cp", "-classpath", "--class-path"}) String classPath;
    @Option(names = "-jar") String jar;
    @Option(names = "--cp-file") List<String> classPathFiles = new ArrayList<>();
    @Option(names = {"-q", "--quiet"}) boolean quiet;
    @Option(names = "--log") String log;
    @Option(names = "--events") String events;
    @Option(names = "--no-report") boolean noReport;
    @Option(names = "--no-prefix") boolean noPrefix;
    @Option(names = "--output-dir") String outputDirectory;
    @Option(names = "--jvm-opt") List<String> jvmOptions = new ArrayList<>();
    @Option(names = "--start-timeout") String startTimeout;
    @Option(names = "--on-failure") String onFailure;
    @Option(names = "--max-recoveries") String maxRecoveries;
    @Option(names = "--kill") List<String> kills = new ArrayList<>();
    @Option(names = "--job-id") String jobId;
    @Option(names = "--detector") List<String> detectors = new ArrayList<>();
    @Option(names = "--mtbf") String mtbf;
    @Option(names = "--seed") String seed;
    @Option(names = "--standby") String standbys;
    @Option(names = "--retry-program-errors") boolean retryProgramErrors;
    @Option(names = "--replicas") String replicas;
    @Option(names = "--disk") String disk;
    @Option(names = "--disk-ratio") String diskRatio;
    @Option(names = "--memory-dir") String memoryDir;
    @Option(names = "--max-memory") String maxMemory;
    @Option(names = "--interval") String interval;
    @Option(names = "--node-mtbf") String nodeMtbf;
    @Option(names = "--log-level") String logLevel;
    @Option(names = {"--hostfile", "-hostfile", "-machinefile", "--machinefile"}) String hostfile;
    @Option(names = {"--host", "-host", "-H"}) String hostList;
    @Option(names = "--map-by") String mapBy;
    @Option(names = {"--ranks-per-node", "-npernode", "--npernode"}) String ranksPerNode;
    @Option(names = "--spare-hosts") String spareHosts;
    @Option(names = "--rsh") String rsh;
    @Option(names = "--bind") String bind;
    /** Testing aid, not in --help (docs/launcher.md): the replication ring's order, until host placement sets it. */
    @Option(names = "--ring-order", hidden = true) String ringOrder;
    /**
     * The host options as the hand parser {@link io.jckpt.runtime.hosts.HostOptions#accept} reads them:
     * one validation and one set of messages for both.
     */
    String[] hostArguments() {
        List<String> args = new ArrayList<>();
        add(args, "--hostfile", hostfile);
        add(args, "--host", hostList);
        add(args, "--map-by", mapBy);
        add(args, "--ranks-per-node", ranksPerNode);
        add(args, "--spare-hosts", spareHosts);
        return args.toArray(new String[0]);
    }

    private static void add(List<String> args, String option, String value) {
        if (value != null) {
            args.add(option);
            args.add(value);
        }
    }

    @Option(names = {"-h", "--help"}, usageHelp = true) boolean help;
    @Option(names = {"-V", "--version"}, versionHelp = true) boolean version;
    /** The main class and the program's arguments, or only the arguments after {@code -jar APP.jar}. */
    @Parameters List<String> rest = new ArrayList<>();

    /**
     * Reads a command line.
     *
     * @param args the launcher's arguments
     * @return the options, or a help / version request as a {@link UsageException#help()} exception
     * @throws UsageException one short line naming the problem and where to look
     */
    static LauncherOptions read(String[] args, String helpText, String versionText) throws UsageException {
        LauncherOptions options = new LauncherOptions();
        CommandLine line = new CommandLine(options)
                .setStopAtPositional(true)          // the program's arguments are the program's
                .setExpandAtFiles(false)            // an argument "@x" is the program's too
                .setOverwrittenOptionsAllowed(true) // the last of a repeated option wins, as in mpirun
                .setUnmatchedOptionsArePositionalParams(false);
        CommandLine.ParseResult result;
        try {
            result = line.parseArgs(args);
        } catch (CommandLine.UnmatchedArgumentException e) {
            String unknown = e.getUnmatched().isEmpty() ? "?" : e.getUnmatched().get(0);
            List<String> suggestions = io.jckpt.cli.CommandLines.closest(unknown.contains("=") ? unknown.substring(0, unknown.indexOf('=')) : unknown,
                    line.getCommandSpec().optionsMap().keySet());
            throw new UsageException("unknown option " + unknown + (suggestions.isEmpty() ? ""
                    : " (did you mean " + suggestions.stream().limit(3).collect(Collectors.joining(" or ")) + "?)")
                    + "; see ckpt-run --help");
        } catch (CommandLine.MissingParameterException e) {
            String option = e.getMissing().isEmpty() || !(e.getMissing().get(0) instanceof CommandLine.Model.OptionSpec o)
                    ? "an option" : o.longestName();
            throw new UsageException(option + " needs a value; see ckpt-run --help");
        } catch (CommandLine.ParameterException e) {
            throw new UsageException(firstLine(e.getMessage()).toLowerCase(Locale.ROOT) + "; see ckpt-run --help");
        }
        if (result.isUsageHelpRequested()) {
            throw UsageException.helpRequested(helpText);
        }
        if (result.isVersionHelpRequested()) {
            throw UsageException.helpRequested(versionText);
        }
        return options;
    }

    private static String firstLine(String text) {
        int end = text.indexOf('\n');
        return end < 0 ? text : text.substring(0, end);
    }
}
