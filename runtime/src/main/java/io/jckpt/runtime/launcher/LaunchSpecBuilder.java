package io.jckpt.runtime.launcher;

import io.jckpt.cli.UsageException;
import io.jckpt.InvalidOptionException;
import io.jckpt.JobSettings;
import io.jckpt.runtime.hosts.CopyPlacement;
import io.jckpt.runtime.hosts.HostOptions;
import io.jckpt.runtime.hosts.RankMapping;
import io.jckpt.runtime.hosts.RemoteShell;
import io.jckpt.runtime.launcher.LaunchSpec.FailurePolicy;
import io.jckpt.spi.RingOrder;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Builds a {@link LaunchSpec}: setters only record (the options whose meaning depends on the number of
 * ranks, {@code --kill}, {@code --ring-order} and the hosts, are kept as given); {@link #build()}
 * fills in the defaults and validates every option in a fixed order, the first problem a one-line
 * {@link UsageException} naming the option. Defaults: niodev, no class path given ({@code .}), 60 s start
 * timeout, {@code --on-failure fail}, 10 recoveries, seed 1, a heartbeat detector of
 * {@value LaunchSpec#DEFAULT_HEARTBEAT_MILLIS} ms, {@link LaunchSpec#defaultStandbys} standbys, every rank on
 * this host.
 */
public final class LaunchSpecBuilder {
    private Integer worldSize;
    private Device device = Device.NIODEV;
    private final Map<JobSettings.Setting, String> settingTexts = new java.util.LinkedHashMap<>();
    private String logLevel;
    private boolean quiet;
    private Path logFile;
    private List<String> jvmOptions = List.of();
    private long startTimeoutMillis = 60_000;
    private long deadlockMillis = LaunchSpec.DEFAULT_DEADLOCK_SECONDS * 1000L;
    private FailurePolicy onFailure = FailurePolicy.FAIL;
    private int maxRecoveries = 10;
    private final List<String> killTexts = new ArrayList<>();
    private String jobId;
    private double mtbfSeconds;
    private final List<FailureDetector> detectors = new ArrayList<>();
    private boolean noDefaultHeartbeat;
    private long seed = 1;
    private Integer standbys;
    private boolean retryProgramErrors;
    private LaunchProgram program;
    private String cp;
    private String jar;
    private List<String> cpFiles = List.of();
    private List<String> rest = List.of();
    private String ringOrder;
    private HostOptions hostOptions;
    private String rsh;
    private String launcher;
    private String bind;
    private Path eventsFile;
    private Path outputDirectory;
    private boolean noReport;
    private boolean noPrefix;

    LaunchSpecBuilder() {
    }

    /** @param np {@code -np}: the number of ranks (required; null = not given) */
    public LaunchSpecBuilder worldSize(Integer np) {
        this.worldSize = np;
        return this;
    }

    /** @param device {@code --dev} */
    public LaunchSpecBuilder device(Device device) {
        this.device = device;
        return this;
    }

    /**
     * @param setting a checkpoint setting given as a launcher option ({@code --replicas}, {@code --disk}, ...)
     * @param value   its text, or null (not given)
     */
    public LaunchSpecBuilder setting(JobSettings.Setting setting, String value) {
        if (value != null) {
            settingTexts.put(setting, value);
        }
        return this;
    }

    /** @param level {@code --log-level} (any case) */
    public LaunchSpecBuilder logLevel(String level) {
        this.logLevel = level;
        return this;
    }

    /** @param quiet {@code --quiet} */
    public LaunchSpecBuilder quiet(boolean quiet) {
        this.quiet = quiet;
        return this;
    }

    /** @param file {@code --log FILE}, or null */
    public LaunchSpecBuilder logFile(Path file) {
        this.logFile = file;
        return this;
    }

    /** @param options the {@code --jvm-opt}s */
    public LaunchSpecBuilder jvmOptions(List<String> options) {
        this.jvmOptions = List.copyOf(options);
        return this;
    }

    /** @param millis {@code --deadlock-timeout}, in milliseconds (0: no deadlock check; else at least 2 s) */
    public LaunchSpecBuilder deadlockMillis(long millis) {
        this.deadlockMillis = millis;
        return this;
    }

    /** @param millis {@code --start-timeout}, in milliseconds (at least 1 s) */
    public LaunchSpecBuilder startTimeoutMillis(long millis) {
        this.startTimeoutMillis = millis;
        return this;
    }

    /** @param policy {@code --on-failure} */
    public LaunchSpecBuilder onFailure(FailurePolicy policy) {
        this.onFailure = policy;
        return this;
    }

    /** @param n {@code --max-recoveries} */
    public LaunchSpecBuilder maxRecoveries(int n) {
        this.maxRecoveries = n;
        return this;
    }

    /** @param text a {@code --kill RANKS@WHEN[:wipe]}, checked against the world size at {@link #build()} */
    public LaunchSpecBuilder kill(String text) {
        killTexts.add(text);
        return this;
    }

    /** @param id {@code --job-id}, or null for a fresh job */
    public LaunchSpecBuilder jobId(String id) {
        this.jobId = id;
        return this;
    }

    /** @param seconds {@code --mtbf}, or 0 for no random failures */
    public LaunchSpecBuilder mtbfSeconds(double seconds) {
        this.mtbfSeconds = seconds;
        return this;
    }

    /** @param detector a {@code --detector} beyond process exit */
    public LaunchSpecBuilder detector(FailureDetector detector) {
        detectors.add(detector);
        return this;
    }

    /** {@code --detector none}: no default heartbeat detector. */
    public LaunchSpecBuilder noDefaultHeartbeat() {
        this.noDefaultHeartbeat = true;
        return this;
    }

    /** @param seed {@code --seed} */
    public LaunchSpecBuilder seed(long seed) {
        this.seed = seed;
        return this;
    }

    /** @param n {@code --standby}, or null for {@link LaunchSpec#defaultStandbys} */
    public LaunchSpecBuilder standbys(Integer n) {
        this.standbys = n;
        return this;
    }

    /** @param retry {@code --retry-program-errors} */
    public LaunchSpecBuilder retryProgramErrors(boolean retry) {
        this.retryProgramErrors = retry;
        return this;
    }

    /** @param program the program, already read */
    public LaunchSpecBuilder program(LaunchProgram program) {
        this.program = program;
        return this;
    }

    /**
     * The program as the command line gives it, read by {@link LaunchProgram#resolve} at {@link #build()}.
     *
     * @param cp      {@code -cp}, or null
     * @param jar     {@code -jar}, or null
     * @param cpFiles the {@code --cp-file}s
     * @param rest    the main class and its arguments (with {@code -jar}: the arguments)
     */
    public LaunchSpecBuilder program(String cp, String jar, List<String> cpFiles, List<String> rest) {
        this.program = null;
        this.cp = cp;
        this.jar = jar;
        this.cpFiles = List.copyOf(cpFiles);
        this.rest = List.copyOf(rest);
        return this;
    }

    /** @param text {@code --ring-order LIST}, checked against the world size at {@link #build()}, or null */
    public LaunchSpecBuilder ringOrder(String text) {
        this.ringOrder = text;
        return this;
    }

    /** @param options the host options ({@code --hostfile}, {@code --host}, ...), or null: SLURM, else here */
    public LaunchSpecBuilder hosts(HostOptions options) {
        this.hostOptions = options;
        return this;
    }

    /** @param command {@code --rsh CMD}, or null for ssh (needs hosts) */
    public LaunchSpecBuilder remoteShell(String command) {
        this.rsh = command;
        return this;
    }

    /**
     * @param engine {@code --launcher ssh|slurm}, or null: srun inside a SLURM allocation whose hosts the job
     *               uses ({@code SLURM_JOB_ID} set, no {@code --hostfile}/{@code --host}/{@code --rsh}), else ssh
     */
    public LaunchSpecBuilder launcher(String engine) {
        this.launcher = engine;
        return this;
    }

    /** @param address {@code --bind ADDR}, or null (needs hosts) */
    public LaunchSpecBuilder bind(String address) {
        this.bind = address;
        return this;
    }

    /** @param file {@code --events FILE}, or null */
    public LaunchSpecBuilder eventsFile(Path file) {
        this.eventsFile = file;
        return this;
    }

    /** @param dir {@code --output-dir DIR}, or null */
    public LaunchSpecBuilder outputDirectory(Path dir) {
        this.outputDirectory = dir;
        return this;
    }

    /** @param noReport {@code --no-report} */
    public LaunchSpecBuilder noReport(boolean noReport) {
        this.noReport = noReport;
        return this;
    }

    /** @param noPrefix {@code --no-prefix} */
    public LaunchSpecBuilder noPrefix(boolean noPrefix) {
        this.noPrefix = noPrefix;
        return this;
    }

    /**
     * Fills in the defaults and validates, in the order of the command line's help.
     *
     * @return the launch specification
     * @throws UsageException one line naming the first bad option and the fix
     */
    public LaunchSpec build() throws UsageException {
        Map<JobSettings.Setting, String> settings = checkedSettings();
        String level = null;
        if (logLevel != null) {
            level = logLevel.toLowerCase(Locale.ROOT);
            RankLogging.requireLevel(level);
        }
        int np = checkedWorldSize();
        if (startTimeoutMillis < 1000) {
            throw new UsageException("--start-timeout must be at least 1 second");
        }
        if (deadlockMillis != 0 && deadlockMillis < 2000) {
            throw new UsageException("--deadlock-timeout must be 0 (off) or at least 2 seconds (the ranks report"
                    + " their waits once a second), got " + deadlockMillis / 1000 + " s");
        }
        if (jobId != null && !jobId.matches("[A-Za-z0-9._-]{1,64}")) {
            throw new UsageException("--job-id must be 1-64 letters, digits, '.', '_' or '-', got '" + jobId + "'");
        }
        List<KillSpec> kills = new ArrayList<>();
        for (String text : killTexts) {
            kills.add(KillSpec.parse(text, np));
        }
        int standbyCount = checkedFailureHandling(np);
        checkSettings(settings, np, jvmOptions);
        LaunchProgram prog = program != null ? program : LaunchProgram.resolve(cp, jar, cpFiles, rest);
        if (logFile != null) {
            Path parent = logFile.toAbsolutePath().getParent();
            if (parent != null && !Files.isDirectory(parent)) {
                throw new UsageException("--log " + logFile + ": directory " + parent + " does not exist");
            }
        }
        List<FailureDetector> allDetectors = new ArrayList<>(detectors);
        if (noDefaultHeartbeat && allDetectors.stream().anyMatch(d -> d instanceof HeartbeatDetector)) {
            throw new UsageException("--detector none contradicts --detector heartbeat:MILLIS: give one of them");
        }
        if (!noDefaultHeartbeat && allDetectors.stream().noneMatch(d -> d instanceof HeartbeatDetector)) {
            // a stopped or hung rank must never stall a job silently (ULFM detects by default too)
            allDetectors.add(0, new HeartbeatDetector(LaunchSpec.DEFAULT_HEARTBEAT_MILLIS));
        }
        RingOrder ring = ringOrder == null ? null : parseRingOrder(ringOrder, np);
        HostOptions hostsGiven = hostOptions == null ? new HostOptions() : hostOptions;
        boolean remote = hostsGiven.hosts(System.getenv()).isPresent();
        RankMapping mapping = hostsGiven.map(np, System.getenv());
        if (launcher != null && !launcher.equals("ssh") && !launcher.equals("slurm")) {
            throw new UsageException("--launcher must be ssh or slurm, got '" + launcher + "'");
        }
        if ("slurm".equals(launcher) && rsh != null) {
            throw new UsageException("--launcher slurm starts ranks with srun: it cannot be given with --rsh");
        }
        if ("slurm".equals(launcher) && !inSlurmAllocation(System.getenv())) {
            throw new UsageException("--launcher slurm needs a SLURM allocation (SLURM_JOB_ID is not set):"
                    + " run ckpt-run under salloc or in an sbatch script");
        }
        if (!remote && (rsh != null || bind != null)) {
            throw new UsageException((rsh != null ? "--rsh" : "--bind")
                    + " needs hosts: --hostfile, --host or a SLURM allocation");
        }
        List<String> hosts = Collections.nCopies(np, LaunchSpec.LOOPBACK);
        RemoteShell shell = null;
        CopyPlacement placement = null;
        if (remote) {
            if (device != Device.NIODEV) {
                throw new UsageException("--dev multicore runs every rank in one JVM: it cannot use --hostfile/--host");
            }
            // per host; not by default: the launcher cannot see the hosts' cores (see LaunchSpec.standbys())
            standbyCount = standbys != null ? standbys : 0;
            if (bind != null) {
                try {
                    InetAddress.getByName(bind);
                } catch (java.net.UnknownHostException e) {
                    throw new UsageException("--bind " + bind + ": unknown address");
                }
            }
            shell = remoteShell(hostsGiven, System.getenv());
            hosts = mapping.hostOfRank();
            int replicas = settings.containsKey(JobSettings.Setting.REPLICAS)
                    ? Integer.parseInt(settings.get(JobSettings.Setting.REPLICAS)) : 1;
            placement = ring == null ? CopyPlacement.plan(mapping, replicas)
                    : CopyPlacement.evaluate(ring, mapping.hostOfRank(), replicas);
            ring = placement.ring();
        }
        return new LaunchSpec(np, device, prog.classPath(), prog.mainClass(), prog.programArgs(), quiet, logFile,
                jvmOptions, hosts, startTimeoutMillis, onFailure, maxRecoveries, kills, jobId, mtbfSeconds,
                allDetectors, seed, standbyCount, retryProgramErrors, settings, level, ring,
                eventsFile == null ? null : eventsFile.toAbsolutePath().normalize(), remote ? mapping : null, shell,
                placement, bind, outputDirectory == null ? null : outputDirectory.toAbsolutePath().normalize(),
                noReport, noPrefix, deadlockMillis);
    }

    /**
     * How commands run on the job's hosts: srun ({@link RemoteShell#SRUN}) with {@code --launcher slurm}, or
     * inside a SLURM allocation when the hosts are the allocation's and neither {@code --rsh} nor
     * {@code --launcher ssh} is given; else {@code --rsh}'s agent, else ssh.
     */
    private RemoteShell remoteShell(HostOptions hostsGiven, java.util.Map<String, String> env) throws UsageException {
        boolean srun = "slurm".equals(launcher)
                || (launcher == null && rsh == null && !hostsGiven.hostsGiven() && inSlurmAllocation(env));
        return srun ? RemoteShell.SRUN : rsh == null ? RemoteShell.SSH : RemoteShell.parse(rsh);
    }

    private static boolean inSlurmAllocation(java.util.Map<String, String> env) {
        String id = env.get("SLURM_JOB_ID");
        return id != null && !id.isBlank();
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

    /** The checkpoint settings given as options, each checked ({@link JobSettings.Setting#check}); paths absolute. */
    private Map<JobSettings.Setting, String> checkedSettings() throws UsageException {
        Map<JobSettings.Setting, String> settings = new EnumMap<>(JobSettings.Setting.class);
        for (Map.Entry<JobSettings.Setting, String> e : settingTexts.entrySet()) {
            JobSettings.Setting setting = e.getKey();
            String checked;
            try {
                checked = setting.check(e.getValue(), setting.option());
            } catch (InvalidOptionException x) {
                throw new UsageException(x.getMessage().replace("invalid option ", ""));
            }
            boolean path = setting == JobSettings.Setting.DISK || setting == JobSettings.Setting.MEMORY_DIR;
            settings.put(setting, path ? Paths.get(checked).toAbsolutePath().normalize().toString() : checked);
        }
        return settings;
    }

    private int checkedWorldSize() throws UsageException {
        if (worldSize == null) {
            throw new UsageException("-np N is required; see ckpt-run --help");
        }
        if (worldSize < 1) {
            throw new UsageException("-np must be at least 1, got " + worldSize);
        }
        if (worldSize > LaunchSpec.MAX_RANKS) {
            throw new UsageException("-np " + worldSize + " is more than this launcher supports (" + LaunchSpec.MAX_RANKS + ")");
        }
        return worldSize;
    }

    /** Checks the recovery options against each other; @return the standbys (the default when not given) */
    private int checkedFailureHandling(int np) throws UsageException {
        if (maxRecoveries < 0) {
            throw new UsageException("--max-recoveries must not be negative, got " + maxRecoveries);
        }
        if (onFailure != FailurePolicy.FAIL && device == Device.MULTICORE) {
            throw new UsageException("--on-failure " + onFailure.name().toLowerCase(Locale.ROOT)
                    + " needs --dev niodev: the ranks of a multicore job share one JVM");
        }
        if (standbys != null && standbys < 0) {
            throw new UsageException("--standby must not be negative, got " + standbys);
        }
        if (standbys != null && standbys > LaunchSpec.MAX_STANDBYS) {
            throw new UsageException("--standby " + standbys + " is more than this launcher keeps ("
                    + LaunchSpec.MAX_STANDBYS + ")");
        }
        if (standbys != null && standbys > 0 && (onFailure == FailurePolicy.FAIL || device != Device.NIODEV)) {
            throw new UsageException("--standby needs --on-failure respawn or relaunch on niodev: a standby only"
                    + " ever replaces a failed rank");
        }
        if (retryProgramErrors && onFailure == FailurePolicy.FAIL) {
            throw new UsageException("--retry-program-errors needs --on-failure respawn or relaunch");
        }
        return standbys != null ? standbys
                : LaunchSpec.defaultStandbys(onFailure, device, np, Runtime.getRuntime().availableProcessors());
    }

    /** A value the job gives a setting, and how a message names where it came from. */
    record Given(String value, String where) { }

    /**
     * @param spec the job
     * @return the job's disk directory (absolute) and how it was given, when the job gives one
     * @throws InvalidOptionException when a property's or variable's value does not parse
     */
    static java.util.Optional<Given> diskDirectory(LaunchSpec spec) {
        return given(JobSettings.Setting.DISK, spec.settings(), rankSettings(spec.jvmOptions()))
                .filter(g -> !g.value().isBlank())
                .map(g -> new Given(Path.of(g.value().trim()).toAbsolutePath().toString(), g.where()));
    }

    /**
     * The job's value of {@code setting}: the launcher's option, else a system property of the rank JVMs,
     * else the environment variable; empty when none gives one.
     *
     * @param job the rank JVMs' properties and the environment ({@link #rankSettings})
     * @throws InvalidOptionException when the property's or variable's value does not parse
     */
    private static java.util.Optional<Given> given(JobSettings.Setting setting, Map<JobSettings.Setting, String> settings,
                                                   JobSettings job) {
        String option = settings.get(setting);
        if (option != null) {
            return java.util.Optional.of(new Given(option, setting.option() + " " + option));
        }
        return job.lookup(setting).filter(v -> v.source() != JobSettings.Source.LAUNCHER)
                .map(v -> new Given(v.text(), v.source() == JobSettings.Source.PROPERTY
                        ? "rank JVM option -D" + setting.property() + "=" + v.text()
                        : "environment variable " + setting.variable() + "=" + v.text()));
    }

    /**
     * The settings the rank JVMs will find besides the launcher's options: the {@code -Djckpt.*} of their
     * command line ({@code JCKPT_JVM_OPTS}, then {@code --jvm-opt}, the variables the JVM reads first) and
     * the environment they inherit.
     */
    static JobSettings rankSettings(List<String> jvmOptions) {
        List<String> rankOptions = new ArrayList<>();
        try {
            rankOptions.addAll(JckptHome.siteJvmOptions(System.getenv(JckptHome.JVM_OPTS_VARIABLE)));
        } catch (IllegalArgumentException e) {
            // a word that is no option: the launcher's start names it (JckptHome.locate)
        }
        rankOptions.addAll(jvmOptions);
        return JobSettings.of(System.getenv(), LauncherSettings.rankProperties(System.getenv(), rankOptions));
    }

    /**
     * Ranks inherit the environment: a bad JCKPT_* value not overridden by an option fails here, once,
     * before any JVM starts; so do more replicas than the other ranks can hold (the option's or the
     * variable's).
     */
    private static void checkSettings(Map<JobSettings.Setting, String> settings, int np, List<String> jvmOptions)
            throws UsageException {
        JobSettings job = rankSettings(jvmOptions);
        for (JobSettings.Setting setting : JobSettings.Setting.values()) {
            java.util.Optional<Given> given;
            try {
                given = given(setting, settings, job);
            } catch (InvalidOptionException e) {
                throw new UsageException(e.getMessage().replace("invalid option -D", "rank JVM option -D")
                        .replace("invalid option ", "environment variable "));
            }
            if (setting == JobSettings.Setting.REPLICAS && given.isPresent()
                    && Integer.parseInt(given.get().value().trim()) > np - 1) {
                throw new UsageException(given.get().where() + " needs more ranks: a rank's copies live on the other"
                        + " ranks, so at most -np - 1 = " + (np - 1));
            }
        }
    }

    /**
     * A memory cap for each rank's node-local store ({@code --max-memory}, {@code -Djckpt.maxMemory},
     * {@code JCKPT_MAX_MEMORY}) no larger than this host's memory, for a job on this host only (hosts are
     * other machines). A rank's store lives in that memory: a cap above it can never hold.
     *
     * @param spec the job
     * @throws UsageException naming the option, property or variable and the host's memory
     */
    static void checkMemoryCap(LaunchSpec spec) throws UsageException {
        if (spec.remote()) {
            return;
        }
        java.util.Optional<Given> cap = given(JobSettings.Setting.MAX_MEMORY, spec.settings(), rankSettings(spec.jvmOptions()));
        if (cap.isEmpty()) {
            return;
        }
        long bytes = JobSettings.parseBytes(cap.get().value(), cap.get().where());
        if (java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.OperatingSystemMXBean os && os.getTotalMemorySize() > 0
                && bytes > os.getTotalMemorySize()) {
            throw new UsageException(cap.get().where() + ": more than this host's memory ("
                    + JobSettings.formatBytes(os.getTotalMemorySize()) + "), where each rank's node-local store lives");
        }
    }

    /**
     * The job's disk directory ({@code --disk}, else {@code JCKPT_DISK}) made if missing and writable, on this
     * host, before any rank starts (the launcher's start, not the spec's: it makes the directory).
     *
     * @param spec the job
     * @throws UsageException naming the option, property or variable, when the directory cannot be made or written
     */
    static void checkDiskDirectory(LaunchSpec spec) throws UsageException {
        java.util.Optional<Given> disk = given(JobSettings.Setting.DISK, spec.settings(), rankSettings(spec.jvmOptions()));
        if (disk.isEmpty()) {
            return;
        }
        String value = disk.get().value();
        String where = disk.get().where();
        if (!value.isBlank()) {
            Path dir = Path.of(value.trim()).toAbsolutePath();
            try {
                Files.createDirectories(dir);
            } catch (java.io.IOException | RuntimeException e) {
                throw new UsageException(where + ": the disk directory cannot be made (" + e + ")");
            }
            if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
                throw new UsageException(where + ": " + dir + " is not a writable directory");
            }
        }
    }
}
