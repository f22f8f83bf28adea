package io.jckpt.runtime.launcher;

import io.jckpt.cli.UsageException;
import io.jckpt.JobSettings;
import io.jckpt.runtime.hosts.CopyPlacement;
import io.jckpt.runtime.hosts.HostOptions;
import io.jckpt.runtime.hosts.RankMapping;
import io.jckpt.runtime.hosts.RemoteShell;
import io.jckpt.spi.RingOrder;
import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What to launch: an immutable record, made from a command line by {@link #parse} or in code by
 * {@link #builder()}. {@link LaunchSpecBuilder#build()} fills in the defaults and validates every option in a fixed
 * order, the first problem a one-line {@link UsageException} naming the option (as {@code CkptOptions}
 * names its own); the record's constructor only copies the collections.
 *
 * <pre>
 * ckpt-run -np N [--dev niodev|multicore] [-cp CLASSPATH] [--quiet] [--log FILE]
 *          [--on-failure fail|respawn|relaunch] [--standby N] [--retry-program-errors] ...
 *          [--jvm-opt OPT]... [--start-timeout SECONDS] MainClass [args...]
 * </pre>
 * (the full list in {@code HELP}; picocli reads the line: {@link LauncherOptions}). The program's part
 * (class path, main class, arguments) is read by {@link LaunchProgram}; the hosts part by the
 * {@code io.jckpt.runtime.hosts} planning types.
 *
 * @param worldSize          the number of ranks ({@code -np}, 1..1024)
 * @param device             how ranks run ({@code --dev})
 * @param classPath          absolute class path entries of the program
 * @param mainClass          the program's main class
 * @param programArgs        the program's arguments
 * @param quiet              whether rank output is hidden ({@code --quiet}; events stay)
 * @param logFile            where to copy all output ({@code --log}), or null
 * @param jvmOptions         extra options for every rank JVM ({@code --jvm-opt})
 * @param hosts              the host each rank runs on, indexed by rank ({@link #LOOPBACK} on one host)
 * @param startTimeoutMillis how long ranks may take to start and join the MPJ world ({@code --start-timeout})
 * @param onFailure          what happens when a rank fails ({@code --on-failure})
 * @param maxRecoveries      how many recoveries one job may go through before it fails ({@code --max-recoveries})
 * @param kills              failures to inject ({@code --kill})
 * @param jobId              the job id asked for (to restart a job from its checkpoints), or null for a fresh one
 * @param mtbfSeconds        mean time between injected random failures (one random rank each), or 0 for none
 * @param detectors          failure detectors beyond process exit (which is always watched)
 * @param seed               seed of the random failure injection, so a rehearsal can be repeated
 * @param standbys           warm standby JVMs kept ready to replace failed ranks (by default {@link #defaultStandbys});
 *                           with hosts ({@link #remote()}), this many on every job and spare host, none unless asked for
 * @param retryProgramErrors whether a program's own error (an exception out of main or System.exit(non-zero)
 *                           while no other rank failed) is recovered like a process failure instead of failing
 *                           the job
 * @param settings           the checkpoint settings given as launcher options ({@code --replicas}, {@code --disk},
 *                           ...), validated, paths absolute; ranks get them as
 *                           {@link JobSettings.Setting#launcherVariable()}
 * @param logLevel           {@code --log-level} for the library's loggers, or null
 * @param ringOrder          the replication ring's order ({@code --ring-order}, or with hosts the placement's),
 *                           or null for the identity (rank order)
 * @param eventsFile         where the job's events go ({@code --events FILE}), or null for events.jsonl in the
 *                           output directory
 * @param mapping            where each rank runs and the spare hosts ({@code --hostfile}, {@code --host},
 *                           SLURM), or null when every rank runs on the launcher's host
 * @param remoteShell        how commands run on a host ({@code --rsh}), or null on the launcher's host only
 * @param placement          the copies' placement over the hosts, or null on the launcher's host only
 * @param bind               {@code --bind ADDR}, or null for {@link #bindAddress()}'s default
 * @param outputDirectory    the job's output directory ({@code --output-dir DIR}), or null for
 *                           {@code out/<job id>}
 * @param noReport           whether the report page is left out ({@code --no-report}: benchmarks, where its
 *                           cost would count)
 * @param noPrefix           whether rank lines are shown without their {@code [rank r]} tag ({@code --no-prefix})
 * @param deadlockMillis     how long every rank must have waited in a communication call, using no CPU, before
 *                           the job fails as deadlocked ({@code --deadlock-timeout}; 0: never)
 */
public record LaunchSpec(int worldSize, Device device, List<String> classPath, String mainClass,
        List<String> programArgs, boolean quiet, Path logFile, List<String> jvmOptions, List<String> hosts,
        long startTimeoutMillis, FailurePolicy onFailure, int maxRecoveries, List<KillSpec> kills, String jobId,
        double mtbfSeconds, List<FailureDetector> detectors, long seed, int standbys, boolean retryProgramErrors,
        Map<JobSettings.Setting, String> settings, String logLevel, RingOrder ringOrder, Path eventsFile,
        RankMapping mapping, RemoteShell remoteShell, CopyPlacement placement, String bind, Path outputDirectory,
        boolean noReport, boolean noPrefix, long deadlockMillis) {
    /** How ranks run; local loopback today, a hostfile later (one host per rank). */
    public static final String LOOPBACK = "127.0.0.1";
    /**
     * The heartbeat timeout when none is given: a rank heard from neither by a frame nor a heartbeat
     * (sent every quarter of it) for this long is declared failed.
     */
    static final int DEFAULT_HEARTBEAT_MILLIS = 3_000;
    /**
     * The deadlock timeout when none is given: below the status exchanges' 30 s, so that a rank waiting
     * in Ckpt.close() while the others wait in the program's own calls is named as this deadlock.
     */
    static final int DEFAULT_DEADLOCK_SECONDS = 20;
    /** Most ranks a job may have. */
    static final int MAX_RANKS = 1024;
    static final String USAGE = """
            usage: ckpt-run -np N [options] -cp CLASSPATH MainClass [args...]
                   ckpt-run -np N [options] -jar APP.jar [args...]
                   ckpt-run --clean [--job-id ID]
                   ckpt-run --help | --version""";

    /** {@code --help}: the usage line and what each option does. */
    static final String HELP = USAGE + "\n\n"
            + "Options take their value as --opt VALUE or --opt=VALUE; options end at the main class (or after\n"
            + "-jar APP.jar), everything after it is the program's.\n"
            + "  -np N, -n N, --np N        number of ranks (1-1024)\n"
            + "  --dev niodev|multicore     one JVM per rank over loopback (default), or ranks as threads of one JVM\n"
            + "                             (alias -dev)\n"
            + "  -cp CLASSPATH              the program's class path (aliases -classpath, --class-path; MPJ Express\n"
            + "                             need not be on it: each MPJ world gets its own loader)\n"
            + "  --on-failure POLICY        fail (default): stop the job; respawn: replace failed ranks, survivors\n"
            + "                             re-enter main in a fresh world; relaunch: restart every rank\n"
            + "  --standby N                warm standby JVMs ready to take over failed ranks (default with respawn\n"
            + "                             or relaunch: 1 when this host has more cores than ranks, else 0 =\n"
            + "                             fork a new JVM per failed rank); with hosts: N on every job and spare\n"
            + "                             host (default 0)\n"
            + "  --retry-program-errors     also recover a program's own exception or exit code (by default they fail\n"
            + "                             the job unless a rank process failed within 1 s of them)\n"
            + "  --max-recoveries N         recoveries before the job fails (default 10)\n"
            + "  --detector heartbeat:MS    declare a rank silent for MS failed (default 3000: a stopped or hung rank\n"
            + "                             is found within 3 s); none: only process exits; class:NAME plugs one in\n"
            + "  --kill RANKS@WHEN[:wipe]   inject failures: 2@3.5s, 1,2@round=40:wipe, all@round=100, 3@recovery\n"
            + "  --mtbf SECONDS [--seed S]  random SIGKILLs with exponential inter-arrival times\n"
            + "  --job-id ID                name the job (a failed or interrupted job restarted with the same id\n"
            + "                             restores; its node-local stores are kept until then or --clean)\n"
            + "  -q, --quiet                hide rank output (events stay)\n"
            + "  --log FILE                 copy everything to FILE\n"
            + "  --output-dir DIR           the job's output directory (default out/JOB_ID): its events.jsonl, and\n"
            + "                             when given, each rank's output in DIR/rank-R.out\n"
            + "  --events FILE              the job's events as JSON Lines (default DIR/events.jsonl; docs/events.md)\n"
            + "  --no-report                no report.html beside the events at the end of the job\n"
            + "  --no-prefix                rank lines on the console without their [rank r] tag\n"
            + "  --jvm-opt OPT              extra option for every rank JVM (repeatable; after the options of\n"
            + "                             the environment's JCKPT_JVM_OPTS, separated by spaces)\n"
            + "  --start-timeout SECONDS    how long ranks may take to join a world (default 60)\n"
            + "  --deadlock-timeout SECONDS fail the job when every rank has waited this long in a communication\n"
            + "                             call (MPJ Express or Ckpt's), using no CPU: a deadlock (default 20;\n"
            + "                             0 = off)\n"
            + "  -jar APP.jar [args...]     run APP.jar's Main-Class, its manifest Class-Path after it (instead of\n"
            + "                             -cp CLASSPATH MainClass)\n"
            + "  --cp-file FILE             append the class path in FILE (e.g. written by mvn\n"
            + "                             dependency:build-classpath) to the program's; repeatable\n"
            + "Checkpoint settings of the job (a program's own builder call wins over these; these win over\n"
            + "-Djckpt.* on the rank JVM and JCKPT_* environment variables):\n"
            + "  --replicas M               copies of each rank's checkpoint on the next M ranks (default 1)\n"
            + "  --disk DIR                 the disk level's directory (default: none)\n"
            + "  --disk-ratio K|auto[:K]    every K-th checkpoint also to disk (default 1000; 0 = off); auto:\n"
            + "                             chosen from the disk round's cost and the failures memory cannot\n"
            + "                             survive, up to K (needs --disk and --node-mtbf)\n"
            + "  --memory-dir DIR           the node-local stores' directory (default /dev/shm/jckpt-USER)\n"
            + "  --max-memory BYTES         cap of a rank's node-local store, e.g. 512m, 4g (default 1/4 of RAM)\n"
            + "  --interval SPEC            when Ckpt.needCheckpoint() is due: auto, calls:N, seconds:T, overhead:P\n"
            + "                             (default manual: never; docs/interval.md)\n"
            + "  --node-mtbf DURATION       MTBF of one node, the prior of --interval auto: seconds or 90m, 30d, 5y\n"
            + "  --log-level LEVEL          the library's loggers (io.jckpt) with the launcher's slf4j-simple:\n"
            + "                             trace, debug, info, warn (default), error, off\n"
            + "Several hosts (docs/launcher.md, \"Several hosts\"; every host needs the same Java, jckpt home and class\n"
            + "path at the same paths):\n"
            + "  --hostfile FILE            hosts, one a line: host [slots=N] (aliases -machinefile, -hostfile)\n"
            + "  --host LIST                h1,h2:2 (alias -H); none of both: the SLURM allocation, else this host\n"
            + "  --map-by slot|node         fill each host in turn (default), or deal ranks round-robin\n"
            + "  --ranks-per-node K         at most K ranks per host (alias -npernode)\n"
            + "  --spare-hosts LIST         hosts kept for respawns\n"
            + "  --rsh CMD                  how a command runs on a host (default ssh -o BatchMode=yes\n"
            + "                             -o ConnectTimeout=10; {host} marks where the host goes, else it is\n"
            + "                             appended)\n"
            + "  --launcher ssh|slurm       how ranks start on hosts: slurm (srun steps) is the default inside a\n"
            + "                             SLURM allocation whose nodes the job uses; ssh is --rsh's agent\n"
            + "  --bind ADDR                where the launcher listens for its ranks (default: 127.0.0.1 when every host\n"
            + "                             is a loopback address, else this host's address on the route to them)\n"
            + "  -h, --help / -V, --version this text / the jckpt version\n"
            + "Exit status: 0 every rank completed, 1 the job failed, 2 bad input; a job that failed because a\n"
            + "rank's program exited with its own status (System.exit(N), 2 <= N <= 125) exits with N, as mpirun.\n"
            + "ckpt-run --clean [--job-id ID]: remove the node-local stores of jobs whose launcher is gone\n"
            + "                             (those kept for a restart with --job-id too)";

    /** What the launcher does when a rank fails. */
    public enum FailurePolicy {
        /** Name the rank, stop every rank, exit 1. */
        FAIL,
        /** Re-spawn the failed rank(s); survivors re-enter the program in a fresh MPJ world. */
        RESPAWN,
        /** Restart every rank (they restore from their node-local stores or the disk). */
        RELAUNCH
    }

    /** Most warm standbys a job may keep. */
    static final int MAX_STANDBYS = 16;

    /** Copies the collections (immutable); the values were validated by {@link LaunchSpecBuilder#build()}. */
    public LaunchSpec {
        classPath = List.copyOf(classPath);
        programArgs = List.copyOf(programArgs);
        jvmOptions = List.copyOf(jvmOptions);
        hosts = List.copyOf(hosts);
        kills = List.copyOf(kills);
        detectors = List.copyOf(detectors);
        settings = Collections.unmodifiableMap(settings.isEmpty()
                ? new EnumMap<>(JobSettings.Setting.class) : new EnumMap<>(settings));
    }

    /**
     * @return a builder with nothing set: {@link LaunchSpecBuilder#worldSize} and a program are required
     */
    public static LaunchSpecBuilder builder() {
        return new LaunchSpecBuilder();
    }

    /** Parses and validates a command line; every problem is a one-line {@link UsageException}. */
    public static LaunchSpec parse(String[] args) throws UsageException {
        LauncherOptions o = LauncherOptions.read(args, HELP, "ckpt-run (jckpt) " + version());
        LaunchSpecBuilder b = builder();
        b.worldSize(o.np == null ? null : parseInt("-np", o.np));
        b.device(o.device == null ? Device.NIODEV : Device.parse(o.device));
        b.setting(JobSettings.Setting.REPLICAS, o.replicas);
        b.setting(JobSettings.Setting.DISK, o.disk);
        b.setting(JobSettings.Setting.DISK_RATIO, o.diskRatio);
        b.setting(JobSettings.Setting.MEMORY_DIR, o.memoryDir);
        b.setting(JobSettings.Setting.MAX_MEMORY, o.maxMemory);
        b.setting(JobSettings.Setting.INTERVAL, o.interval);
        b.setting(JobSettings.Setting.NODE_MTBF, o.nodeMtbf);
        if (o.logLevel != null) {
            b.logLevel(o.logLevel);
        }
        b.quiet(o.quiet).logFile(o.log == null ? null : Paths.get(o.log)).jvmOptions(o.jvmOptions);
        if (o.deadlockTimeout != null) {
            b.deadlockMillis(1000L * parseInt("--deadlock-timeout", o.deadlockTimeout));
        }
        if (o.startTimeout != null) {
            b.startTimeoutMillis(1000L * parseInt("--start-timeout", o.startTimeout));
        }
        b.onFailure(o.onFailure == null ? FailurePolicy.FAIL : parsePolicy(o.onFailure));
        if (o.maxRecoveries != null) {
            b.maxRecoveries(parseInt("--max-recoveries", o.maxRecoveries));
        }
        b.jobId(o.jobId).mtbfSeconds(o.mtbf == null ? 0 : parseSeconds("--mtbf", o.mtbf));
        for (String detector : o.detectors) {
            if (detector.equals("none")) {
                b.noDefaultHeartbeat();
            } else {
                b.detector(parseDetector(detector));
            }
        }
        if (o.seed != null) {
            b.seed(parseInt("--seed", o.seed));
        }
        b.standbys(o.standbys == null ? null : parseInt("--standby", o.standbys));
        b.retryProgramErrors(o.retryProgramErrors);
        o.kills.forEach(b::kill);
        b.program(o.classPath, o.jar, o.classPathFiles, o.rest);
        b.ringOrder(o.ringOrder);
        HostOptions hostOptions = new HostOptions();
        String[] hostArgs = o.hostArguments();
        for (int i = 0; i < hostArgs.length; i += 2) {
            hostOptions.accept(hostArgs, i);
        }
        b.hosts(hostOptions).remoteShell(o.rsh).launcher(o.launcher).bind(o.bind);
        b.eventsFile(o.events == null ? null : Paths.get(o.events)).noReport(o.noReport).noPrefix(o.noPrefix);
        b.outputDirectory(o.outputDirectory == null ? null : Paths.get(o.outputDirectory));
        return b.build();
    }

    /** @return whether ranks run on hosts named by --hostfile, --host or SLURM (through the remote shell) */
    public boolean remote() {
        return mapping != null;
    }

    /**
     * @return the address the control server and the port exchange listen on: {@code --bind}, else
     * 127.0.0.1 on one host or when every host is a loopback address, else the launcher's address
     * on the route to the first host
     */
    public String bindAddress() {
        if (bind != null) {
            return bind;
        }
        if (mapping == null) {
            return LOOPBACK;
        }
        try {
            InetAddress first = null;
            for (String host : mapping.hostNames()) {
                InetAddress a = InetAddress.getByName(host);
                if (!a.isLoopbackAddress()) {
                    first = a;
                    break;
                }
            }
            if (first == null) {
                return LOOPBACK;
            }
            try (java.net.DatagramSocket probe = new java.net.DatagramSocket()) {
                probe.connect(first, 9); // sends nothing: picks the local address of the route
                return probe.getLocalAddress().getHostAddress();
            }
        } catch (IOException e) {
            return LOOPBACK;
        }
    }

    /**
     * The warm standbys of a job that does not say: one when failed ranks are replaced and this host
     * has a core beyond one per rank, else none. A standby's warm-up (JVM start, the library
     * rehearsal, MPJ's classes: 1-2 s of CPU at job start and after each takeover) runs on a spare
     * core for free, but on a host whose cores the ranks already fill it slows every rank: measured
     * with 4 ranks on 2 cores, a 4 s heat job took 0.5 s longer without a failure and 0.35 s longer
     * with one than without a standby, although the standby cut the failure to a new world from ~0.38
     * to ~0.1 s.
     *
     * @param onFailure the failure policy
     * @param device    the device
     * @param ranks     ranks on this host
     * @param cores     this host's processors
     * @return 0 or 1
     */
    public static int defaultStandbys(FailurePolicy onFailure, Device device, int ranks, int cores) {
        return onFailure != FailurePolicy.FAIL && device == Device.NIODEV && cores > ranks ? 1 : 0;
    }

    /** The jckpt version this launcher belongs to (from its build), or "unknown". */
    static String version() {
        java.util.Properties properties = new java.util.Properties();
        try (java.io.InputStream in = LaunchSpec.class.getResourceAsStream("/jckpt-runtime.properties")) {
            if (in != null) {
                properties.load(in);
            }
        } catch (IOException e) {
            return "unknown";
        }
        return properties.getProperty("version", "unknown");
    }

    /** {@code heartbeat:MILLIS}, or {@code class:NAME} for a {@link FailureDetector} with a no-argument constructor. */
    private static FailureDetector parseDetector(String value) throws UsageException {
        if (value.startsWith("heartbeat:")) {
            int millis = parseInt("--detector heartbeat", value.substring("heartbeat:".length()));
            if (millis < 100) {
                throw new UsageException("--detector heartbeat:MILLIS needs at least 100 ms, got " + millis);
            }
            return new HeartbeatDetector(millis);
        }
        if (value.startsWith("class:")) {
            String name = value.substring("class:".length());
            try {
                Object detector = Class.forName(name).getConstructor().newInstance();
                if (!(detector instanceof FailureDetector d)) {
                    throw new UsageException("--detector " + name + " does not implement " + FailureDetector.class.getName());
                }
                return d;
            } catch (ReflectiveOperationException e) {
                throw new UsageException("--detector " + name + ": cannot create it (" + e + ")");
            }
        }
        throw new UsageException("--detector must be heartbeat:MILLIS or class:NAME, got '" + value + "'");
    }

    private static double parseSeconds(String option, String value) throws UsageException {
        try {
            double seconds = Double.parseDouble(value.endsWith("s") ? value.substring(0, value.length() - 1) : value);
            if (!(seconds > 0)) {
                throw new UsageException(option + " must be a positive number of seconds, got '" + value + "'");
            }
            return seconds;
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a number of seconds, got '" + value + "'");
        }
    }

    private static FailurePolicy parsePolicy(String value) throws UsageException {
        return switch (value) {
            case "fail" -> FailurePolicy.FAIL;
            case "respawn" -> FailurePolicy.RESPAWN;
            case "relaunch" -> FailurePolicy.RELAUNCH;
            default -> throw new UsageException("--on-failure must be fail, respawn or relaunch, got '" + value + "'");
        };
    }

    private static int parseInt(String option, String value) throws UsageException {
        try {
            return Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new UsageException(option + " needs a whole number, got '" + value + "'");
        }
    }
}
