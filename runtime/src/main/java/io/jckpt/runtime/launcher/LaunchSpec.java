package io.jckpt.runtime.launcher;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import io.jckpt.InvalidOptionException;
import io.jckpt.JobSettings;
import io.jckpt.spi.RingOrder;
import io.jckpt.runtime.hosts.CopyPlacement;
import io.jckpt.runtime.hosts.RankMapping;
import io.jckpt.runtime.hosts.RemoteShell;
import java.net.InetAddress;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * What to launch: validated on construction (by {@link #parse}), immutable after.
 *
 * <pre>
 * ckpt-run -np N [--dev niodev|multicore] [-cp CLASSPATH] [--quiet] [--log FILE]
 *          [--on-failure fail|respawn|relaunch] [--standby N] [--retry-program-errors] ...
 *          [--jvm-opt OPT]... [--start-timeout SECONDS] MainClass [args...]
 * </pre>
 * (the full list in {@code HELP}; picocli reads the line: {@link LauncherOptions}).
 *
 * <p><b>Size</b> (past 600 lines): about 120 lines are the {@code --help} text and 250 the accessors and their
 * Javadoc; the validation of each option with its own message (hosts included) is the rest. The value should become a record
 * built by a validating builder (the ring order, events and report options are set after construction).
 */
public final class LaunchSpec {
    /** How ranks run; local loopback today, a hostfile later (one host per rank). */
    public static final String LOOPBACK = "127.0.0.1";
    /**
     * The heartbeat timeout when none is given: a rank heard from neither by a frame nor a heartbeat
     * (sent every quarter of it) for this long is declared failed.
     */
    static final int DEFAULT_HEARTBEAT_MILLIS = 3_000;
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
            + "                             fork a new JVM per failed rank)\n"
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
            + "  --jvm-opt OPT              extra option for every rank JVM (repeatable)\n"
            + "  --start-timeout SECONDS    how long ranks may take to join a world (default 60)\n"
            + "  -jar APP.jar [args...]     run APP.jar's Main-Class, its manifest Class-Path after it (instead of\n"
            + "                             -cp CLASSPATH MainClass)\n"
            + "  --cp-file FILE             append the class path in FILE (e.g. written by mvn\n"
            + "                             dependency:build-classpath) to the program's; repeatable\n"
            + "Checkpoint settings of the job (a program's own builder call wins over these; these win over\n"
            + "-Djckpt.* on the rank JVM and JCKPT_* environment variables):\n"
            + "  --replicas M               copies of each rank's checkpoint on the next M ranks (default 1)\n"
            + "  --disk DIR                 the disk level's directory (default: none)\n"
            + "  --disk-ratio K             every K-th checkpoint also to disk (default 1000; 0 = off)\n"
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
            + "  --rsh CMD                  how a command runs on a host (default ssh -o BatchMode=yes; {host} marks\n"
            + "                             where the host goes, else it is appended)\n"
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

    private final int worldSize;
    private final Device device;
    private final List<String> classPath;
    private final String mainClass;
    private final List<String> programArgs;
    private final boolean quiet;
    private final Path logFile;
    private final List<String> jvmOptions;
    private List<String> hosts;
    private final long startTimeoutMillis;
    private final FailurePolicy onFailure;
    private final int maxRecoveries;
    private final List<KillSpec> kills;
    private final String jobId;
    private final double mtbfSeconds;
    private final List<FailureDetector> detectors;
    private final long seed;
    private final int standbys;
    private final boolean retryProgramErrors;
    private final Map<JobSettings.Setting, String> settings;
    private final String logLevel;
    /** The replication ring's order ({@code --ring-order}), or null for the identity. */
    private RingOrder ringOrder;
    /** {@code --events FILE}, or null: events.jsonl in the output directory. */
    private Path eventsFile;
    /** Where each rank runs ({@code --hostfile}, {@code --host}, SLURM), or null: every rank here. */
    private RankMapping mapping;
    private RemoteShell remoteShell;
    private CopyPlacement placement;
    /** {@code --bind ADDR}, or null for {@link #bindAddress()}'s default. */
    private String bind;
    /** {@code --output-dir DIR}, or null: out/JOB_ID. */
    private Path outputDirectory;
    /** {@code --no-report}: no report.html at the end. */
    private boolean noReport;
    /** {@code --no-prefix}: rank lines on the console without their [rank r] tag. */
    private boolean noPrefix;

    /** Most warm standbys a job may keep. */
    static final int MAX_STANDBYS = 16;

    private LaunchSpec(int worldSize, Device device, List<String> classPath, String mainClass,
                       List<String> programArgs, boolean quiet, Path logFile, List<String> jvmOptions,
                       long startTimeoutMillis, FailurePolicy onFailure, int maxRecoveries, List<KillSpec> kills,
                       String jobId, double mtbfSeconds, long seed, List<FailureDetector> detectors, int standbys,
                       boolean retryProgramErrors, Map<JobSettings.Setting, String> settings, String logLevel) {
        this.worldSize = worldSize;
        this.device = device;
        this.classPath = List.copyOf(classPath);
        this.mainClass = mainClass;
        this.programArgs = List.copyOf(programArgs);
        this.quiet = quiet;
        this.logFile = logFile;
        this.jvmOptions = List.copyOf(jvmOptions);
        this.hosts = Collections.nCopies(worldSize, LOOPBACK);
        this.startTimeoutMillis = startTimeoutMillis;
        this.onFailure = onFailure;
        this.maxRecoveries = maxRecoveries;
        this.kills = List.copyOf(kills);
        this.jobId = jobId;
        this.mtbfSeconds = mtbfSeconds;
        this.detectors = List.copyOf(detectors);
        this.seed = seed;
        this.standbys = standbys;
        this.retryProgramErrors = retryProgramErrors;
        this.settings = Collections.unmodifiableMap(new EnumMap<>(settings));
        this.logLevel = logLevel;
    }

    /** Parses and validates a command line; every problem is a one-line {@link UsageException}. */
    public static LaunchSpec parse(String[] args) throws UsageException {
        LauncherOptions o = LauncherOptions.read(args, HELP, "ckpt-run (jckpt) " + version());
        Integer np = o.np == null ? null : parseInt("-np", o.np);
        Device device = o.device == null ? Device.NIODEV : Device.parse(o.device);
        String cp = o.classPath;
        String jar = o.jar;
        List<String> cpFiles = o.classPathFiles;
        Map<JobSettings.Setting, String> settings = new EnumMap<>(JobSettings.Setting.class);
        putSetting(settings, JobSettings.Setting.REPLICAS, o.replicas, false);
        putSetting(settings, JobSettings.Setting.DISK, o.disk, true);
        putSetting(settings, JobSettings.Setting.DISK_RATIO, o.diskRatio, false);
        putSetting(settings, JobSettings.Setting.MEMORY_DIR, o.memoryDir, true);
        putSetting(settings, JobSettings.Setting.MAX_MEMORY, o.maxMemory, false);
        putSetting(settings, JobSettings.Setting.INTERVAL, o.interval, false);
        putSetting(settings, JobSettings.Setting.NODE_MTBF, o.nodeMtbf, false);
        String logLevel = null;
        if (o.logLevel != null) {
            logLevel = o.logLevel.toLowerCase(java.util.Locale.ROOT);
            RankLogging.requireLevel(logLevel);
        }
        boolean quiet = o.quiet;
        Path log = o.log == null ? null : Paths.get(o.log);
        List<String> jvmOptions = o.jvmOptions;
        long startTimeoutMillis = o.startTimeout == null ? 60_000 : 1000L * parseInt("--start-timeout", o.startTimeout);
        FailurePolicy onFailure = o.onFailure == null ? FailurePolicy.FAIL : parsePolicy(o.onFailure);
        int maxRecoveries = o.maxRecoveries == null ? 10 : parseInt("--max-recoveries", o.maxRecoveries);
        List<String> killTexts = o.kills;
        String jobId = o.jobId;
        double mtbf = o.mtbf == null ? 0 : parseSeconds("--mtbf", o.mtbf);
        List<FailureDetector> detectors = new ArrayList<>();
        boolean noDefaultHeartbeat = false;
        for (String detector : o.detectors) {
            if (detector.equals("none")) {
                noDefaultHeartbeat = true;
            } else {
                detectors.add(parseDetector(detector));
            }
        }
        long seed = o.seed == null ? 1 : parseInt("--seed", o.seed);
        Integer standbys = o.standbys == null ? null : parseInt("--standby", o.standbys);
        boolean retryProgramErrors = o.retryProgramErrors;
        if (np == null) {
            throw new UsageException("-np N is required; see ckpt-run --help");
        }
        if (np < 1) {
            throw new UsageException("-np must be at least 1, got " + np);
        }
        if (np > 1024) {
            throw new UsageException("-np " + np + " is more than this launcher supports (1024)");
        }
        if (startTimeoutMillis < 1000) {
            throw new UsageException("--start-timeout must be at least 1 second");
        }
        if (jobId != null && !jobId.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new UsageException("--job-id must be 1-64 letters, digits, '.', '_' or '-', got '" + jobId + "'");
        }
        List<KillSpec> kills = new ArrayList<>();
        for (String text : killTexts) {
            kills.add(KillSpec.parse(text, np));
        }
        if (maxRecoveries < 0) {
            throw new UsageException("--max-recoveries must not be negative, got " + maxRecoveries);
        }
        if (onFailure != FailurePolicy.FAIL && device == Device.MULTICORE) {
            throw new UsageException("--on-failure " + onFailure.name().toLowerCase(java.util.Locale.ROOT)
                    + " needs --dev niodev: the ranks of a multicore job share one JVM");
        }
        if (standbys != null && standbys < 0) {
            throw new UsageException("--standby must not be negative, got " + standbys);
        }
        if (standbys != null && standbys > MAX_STANDBYS) {
            throw new UsageException("--standby " + standbys + " is more than this launcher keeps (" + MAX_STANDBYS + ")");
        }
        if (standbys != null && standbys > 0 && (onFailure == FailurePolicy.FAIL || device != Device.NIODEV)) {
            throw new UsageException("--standby needs --on-failure respawn or relaunch on niodev: a standby only"
                    + " ever replaces a failed rank");
        }
        if (retryProgramErrors && onFailure == FailurePolicy.FAIL) {
            throw new UsageException("--retry-program-errors needs --on-failure respawn or relaunch");
        }
        int standbyCount = standbys != null ? standbys
                : defaultStandbys(onFailure, device, np, Runtime.getRuntime().availableProcessors());
        if (settings.containsKey(JobSettings.Setting.REPLICAS)
                && Integer.parseInt(settings.get(JobSettings.Setting.REPLICAS)) > np - 1) {
            throw new UsageException("--replicas " + settings.get(JobSettings.Setting.REPLICAS) + " needs more ranks: a rank's"
                    + " copies live on the other ranks, so at most -np - 1 = " + (np - 1));
        }
        JobSettings environment = JobSettings.of(System.getenv(), new java.util.Properties());
        for (JobSettings.Setting setting : JobSettings.Setting.values()) {
            if (!settings.containsKey(setting)) {
                try {
                    environment.lookup(setting); // ranks inherit the environment: a bad value fails here, once
                } catch (InvalidOptionException e) {
                    throw new UsageException(e.getMessage().replace("invalid option ", "environment variable "));
                }
            }
        }
        String mainClass;
        List<String> programArgs;
        List<String> classPath;
        if (jar != null) {
            if (cp != null) {
                throw new UsageException("-jar and -cp exclude each other: the class path comes from the jar's manifest"
                        + " (add entries with --cp-file FILE)");
            }
            classPath = new ArrayList<>();
            mainClass = readJarManifest(Paths.get(jar), classPath);
            programArgs = o.rest;
            cp = String.join(File.pathSeparator, classPath);
        } else {
            if (o.rest.isEmpty()) {
                throw new UsageException("no main class given (ckpt-run -np N -cp CLASSPATH MainClass, or -jar APP.jar);"
                        + " see ckpt-run --help");
            }
            if (cp == null) {
                cp = ".";
            }
            mainClass = o.rest.get(0);
            programArgs = o.rest.subList(1, o.rest.size());
            classPath = splitClassPath(cp);
        }
        for (String file : cpFiles) {
            classPath.addAll(readClassPathFile(Paths.get(file)));
        }
        if (jar == null && o.classPath != null) {
            for (String entry : splitClassPath(cp)) {
                if (!new File(entry).exists()) {
                    throw new UsageException("-cp: class path entry " + entry + " does not exist");
                }
            }
        }
        requireMainClass(mainClass, classPath, cp);
        if (log != null) {
            Path parent = log.toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                throw new UsageException("--log " + log + ": directory " + parent + " does not exist");
            }
        }
        if (noDefaultHeartbeat && detectors.stream().anyMatch(d -> d instanceof HeartbeatDetector)) {
            throw new UsageException("--detector none contradicts --detector heartbeat:MILLIS: give one of them");
        }
        if (!noDefaultHeartbeat && detectors.stream().noneMatch(d -> d instanceof HeartbeatDetector)) {
            // a stopped or hung rank must never stall a job silently (ULFM detects by default too)
            detectors.add(0, new HeartbeatDetector(DEFAULT_HEARTBEAT_MILLIS));
        }
        RingOrder ringOrder = o.ringOrder == null ? null : parseRingOrder(o.ringOrder, np);
        io.jckpt.runtime.hosts.HostOptions hostOptions = new io.jckpt.runtime.hosts.HostOptions();
        String[] hostArgs = o.hostArguments();
        for (int i = 0; i < hostArgs.length; i += 2) {
            hostOptions.accept(hostArgs, i);
        }
        boolean remote = hostOptions.hosts(System.getenv()).isPresent();
        RankMapping mapping = hostOptions.map(np, System.getenv());
        if (!remote && (o.rsh != null || o.bind != null)) {
            throw new UsageException((o.rsh != null ? "--rsh" : "--bind") + " needs hosts: --hostfile, --host or a SLURM allocation");
        }
        if (remote) {
            if (device != Device.NIODEV) {
                throw new UsageException("--dev multicore runs every rank in one JVM: it cannot use --hostfile/--host");
            }
            if (standbys != null && standbys > 0) {
                throw new UsageException("--standby is not supported yet with several hosts (a standby runs on the launcher's host)");
            }
            standbyCount = 0;
            if (o.bind != null) {
                try {
                    InetAddress.getByName(o.bind);
                } catch (java.net.UnknownHostException e) {
                    throw new UsageException("--bind " + o.bind + ": unknown address");
                }
            }
        }
        LaunchSpec spec = new LaunchSpec(np, device, classPath, mainClass, programArgs, quiet, log, jvmOptions,
                startTimeoutMillis, onFailure, maxRecoveries, kills, jobId, mtbf, seed, detectors, standbyCount,
                retryProgramErrors, settings, logLevel);
        spec.ringOrder = ringOrder;
        if (remote) {
            spec.mapping = mapping;
            spec.remoteShell = o.rsh == null ? RemoteShell.SSH : RemoteShell.parse(o.rsh);
            spec.bind = o.bind;
            spec.hosts = mapping.hostOfRank();
            int replicas = settings.containsKey(JobSettings.Setting.REPLICAS)
                    ? Integer.parseInt(settings.get(JobSettings.Setting.REPLICAS)) : 1;
            spec.placement = ringOrder == null ? CopyPlacement.plan(mapping, replicas)
                    : CopyPlacement.evaluate(ringOrder, mapping.hostOfRank(), replicas);
            spec.ringOrder = spec.placement.ring();
        }
        spec.eventsFile = o.events == null ? null : Paths.get(o.events).toAbsolutePath().normalize();
        spec.noReport = o.noReport;
        spec.noPrefix = o.noPrefix;
        spec.outputDirectory = o.outputDirectory == null ? null : Paths.get(o.outputDirectory).toAbsolutePath().normalize();
        return spec;
    }

    /** {@code --ring-order LIST}: every rank 0..np-1 once, in ring order. */
    static RingOrder parseRingOrder(String text, int np) throws UsageException {
        RingOrder ring;
        try {
            ring = RingOrder.parse(text);
        } catch (IllegalArgumentException e) {
            throw new UsageException("--ring-order " + text + ": " + e.getMessage().replaceFirst("^ring order[^:]*: ", "")
                    + " (give each rank 0.." + (np - 1) + " once, e.g. --ring-order " + example(np) + ")");
        }
        if (ring.size() != np) {
            throw new UsageException("--ring-order " + text + " orders " + ring.size() + " ranks, but -np is " + np
                    + " (give each rank 0.." + (np - 1) + " once, e.g. --ring-order " + example(np) + ")");
        }
        return ring;
    }

    /** The even ranks, then the odd ones: an example ring of np ranks. */
    private static String example(int np) {
        StringBuilder b = new StringBuilder();
        for (int start = 0; start < 2; start++) {
            for (int r = start; r < np; r += 2) {
                b.append(b.length() > 0 ? "," : "").append(r);
            }
        }
        return b.toString();
    }

    /** @return whether ranks run on hosts named by --hostfile, --host or SLURM (through the remote shell) */
    public boolean remote() {
        return mapping != null;
    }

    /** @return where each rank runs and the spare hosts, or null when every rank runs on the launcher's host */
    public RankMapping mapping() {
        return mapping;
    }

    /** @return how commands run on a host ({@code --rsh}), or null on the launcher's host only */
    public RemoteShell remoteShell() {
        return remoteShell;
    }

    /** @return the copies' placement over the hosts, or null on the launcher's host only */
    public CopyPlacement placement() {
        return placement;
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

    /** @return where the job's events go ({@code --events FILE}), or null for events.jsonl in the output directory */
    public Path eventsFile() {
        return eventsFile;
    }

    /** @return whether rank lines are shown without their {@code [rank r]} tag ({@code --no-prefix}) */
    public boolean noPrefix() {
        return noPrefix;
    }

    /** @return whether the report page is left out ({@code --no-report}: benchmarks, where its cost would count) */
    public boolean noReport() {
        return noReport;
    }

    /** @return the job's output directory ({@code --output-dir DIR}), or null for {@code out/<job id>} */
    public Path outputDirectory() {
        return outputDirectory;
    }

    /** @return the replication ring's order given with {@code --ring-order}, or null for the identity (rank order) */
    public RingOrder ringOrder() {
        return ringOrder;
    }

    /** Records a checkpoint setting given as an option, checked; paths made absolute. */
    private static void putSetting(Map<JobSettings.Setting, String> settings, JobSettings.Setting setting, String value,
                                   boolean path) throws UsageException {
        if (value != null) {
            String checked = setting(setting, value);
            settings.put(setting, path ? absolute(checked) : checked);
        }
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

    /** Checks a checkpoint setting's value ({@link JobSettings.Setting#check}) as a usage error. */
    private static String setting(JobSettings.Setting setting, String value) throws UsageException {
        try {
            return setting.check(value, setting.option());
        } catch (InvalidOptionException e) {
            throw new UsageException(e.getMessage().replace("invalid option ", ""));
        }
    }

    private static String absolute(String path) {
        return Paths.get(path).toAbsolutePath().normalize().toString();
    }

    /**
     * Reads {@code -jar APP.jar}: returns its Main-Class and adds the jar and its manifest's Class-Path
     * (space-separated, relative to the jar's directory) to {@code classPath}.
     */
    static String readJarManifest(Path jar, List<String> classPath) throws UsageException {
        if (!Files.isRegularFile(jar)) {
            throw new UsageException("-jar " + jar + ": no such file");
        }
        Manifest manifest;
        try (JarFile file = new JarFile(jar.toFile())) {
            manifest = file.getManifest();
        } catch (IOException e) {
            throw new UsageException("-jar " + jar + " is not a readable jar: " + e.getMessage());
        }
        String main = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.MAIN_CLASS);
        if (main == null || main.isBlank()) {
            throw new UsageException("-jar " + jar + " has no Main-Class in its manifest: run it with -cp " + jar + " MainClass");
        }
        classPath.add(jar.toAbsolutePath().normalize().toString());
        String manifestPath = manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
        if (manifestPath != null) {
            Path dir = jar.toAbsolutePath().getParent();
            for (String entry : manifestPath.trim().split("\\s+")) {
                if (!entry.isEmpty()) {
                    classPath.add(dir.resolve(entry.replace("%20", " ")).normalize().toString());
                }
            }
        }
        return main.trim();
    }

    /** Reads a class path file (entries separated by the path separator or line breaks). */
    static List<String> readClassPathFile(Path file) throws UsageException {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new UsageException("--cp-file " + file + ": cannot read it (" + e.getMessage() + "); write it with"
                    + " mvn dependency:build-classpath -Dmdep.outputFile=" + file);
        }
        List<String> entries = new ArrayList<>();
        for (String line : text.split("\\R")) {
            entries.addAll(splitClassPath(line.trim()));
        }
        return entries;
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

    /** Splits a class path, expanding {@code dir/*} to the jars in dir, as java does. */
    static List<String> splitClassPath(String cp) {
        List<String> entries = new ArrayList<>();
        for (String entry : cp.split(File.pathSeparator)) {
            if (entry.isEmpty()) {
                continue;
            }
            if (entry.endsWith("/*") || entry.equals("*")) {
                File dir = new File(entry.substring(0, entry.length() - 1));
                File[] jars = dir.listFiles((d, name) -> name.endsWith(".jar") || name.endsWith(".JAR"));
                if (jars != null) {
                    java.util.Arrays.sort(jars);
                    for (File jar : jars) {
                        entries.add(jar.getAbsolutePath());
                    }
                }
            } else {
                entries.add(new File(entry).getAbsolutePath());
            }
        }
        return entries;
    }

    private static void requireMainClass(String mainClass, List<String> classPath, String cp) throws UsageException {
        if (!mainClass.matches("[\\p{javaJavaIdentifierStart}][\\p{javaJavaIdentifierPart}.$]*")) {
            throw new UsageException("'" + mainClass + "' is not a class name");
        }
        String resource = mainClass.replace('.', '/') + ".class";
        for (String entry : classPath) {
            File file = new File(entry);
            if (file.isDirectory() && new File(file, resource).isFile()) {
                return;
            }
            if (file.isFile()) {
                try (JarFile jar = new JarFile(file)) {
                    if (jar.getEntry(resource) != null) {
                        return;
                    }
                } catch (IOException e) {
                    throw new UsageException("class path entry " + entry + " is not a readable jar: " + e.getMessage());
                }
            }
        }
        throw new UsageException("main class " + mainClass + " not found on class path " + cp);
    }

    public int worldSize() {
        return worldSize;
    }

    public Device device() {
        return device;
    }

    /** Absolute class path entries of the program. */
    public List<String> classPath() {
        return classPath;
    }

    public String mainClass() {
        return mainClass;
    }

    public List<String> programArgs() {
        return programArgs;
    }

    public boolean quiet() {
        return quiet;
    }

    /** Where to copy all output, or {@code null}. */
    public Path logFile() {
        return logFile;
    }

    /** Extra options for every rank JVM. */
    public List<String> jvmOptions() {
        return jvmOptions;
    }

    /** The host each rank runs on, indexed by rank. */
    public List<String> hosts() {
        return hosts;
    }

    /** What happens when a rank fails. */
    public FailurePolicy onFailure() {
        return onFailure;
    }

    /** How many recoveries one job may go through before it fails. */
    public int maxRecoveries() {
        return maxRecoveries;
    }

    /** Failures to inject. */
    public List<KillSpec> kills() {
        return kills;
    }

    /** The job id asked for (to restart a job from its checkpoints), or {@code null} for a fresh one. */
    public String jobId() {
        return jobId;
    }

    /** Failure detectors beyond process exit (which is always watched). */
    public List<FailureDetector> detectors() {
        return detectors;
    }

    /** Mean time between injected random failures (one random rank each), or 0 for none. */
    public double mtbfSeconds() {
        return mtbfSeconds;
    }

    /** Seed of the random failure injection, so a rehearsal can be repeated. */
    public long seed() {
        return seed;
    }

    /**
     * Warm standby JVMs kept ready to replace failed ranks (by default {@link #defaultStandbys}).
     */
    public int standbys() {
        return standbys;
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

    /**
     * Whether a program's own error (an exception out of main or System.exit(non-zero) while no
     * other rank failed) is recovered like a process failure instead of failing the job.
     */
    public boolean retryProgramErrors() {
        return retryProgramErrors;
    }

    /**
     * The checkpoint settings given as launcher options ({@code --replicas}, {@code --disk}, ...),
     * validated; paths absolute. Ranks get them as {@link JobSettings.Setting#launcherVariable()}.
     */
    public Map<JobSettings.Setting, String> settings() {
        return settings;
    }

    /** {@code --log-level} for the library's loggers, or {@code null}. */
    public String logLevel() {
        return logLevel;
    }

    /** How long ranks may take to start and join the MPJ world. */
    public long startTimeoutMillis() {
        return startTimeoutMillis;
    }
}
