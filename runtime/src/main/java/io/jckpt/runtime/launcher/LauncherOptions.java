package io.jckpt.runtime.launcher;

import io.jckpt.cli.UsageException;
import io.jckpt.cli.CommandLines;
import java.util.ArrayList;
import java.util.List;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The launcher's command line as picocli reads it: {@code --opt value} and {@code --opt=value}, the
 * documented aliases ({@code -n}/{@code -np}/{@code --np}, {@code -classpath}, {@code -q}), {@code --help},
 * {@code --version}, options up to the main class (or after {@code -jar APP.jar}) and the program's
 * arguments untouched after it. Values stay text here: {@link LaunchSpec#parse} validates them with
 * messages that name the option and the fix. {@link CommandLines#parse} reads the line; its one-line
 * errors ("unknown option --lgo (did you mean --log?); see ckpt-run --help") become a {@link UsageException}.
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
    @Option(names = "--deadlock-timeout") String deadlockTimeout;
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
    @Option(names = "--launcher") String launcher;
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
        LauncherOptions options;
        try {
            options = CommandLines.parse(new LauncherOptions(), args, true); // the program's arguments are the program's
        } catch (CommandLines.HelpRequested e) {
            throw UsageException.helpRequested(helpText); // the launcher's own usage text, not picocli's
        } catch (IllegalArgumentException e) {
            throw new UsageException(e.getMessage());
        }
        if (options.version) {
            throw UsageException.helpRequested(versionText);
        }
        return options;
    }
}
