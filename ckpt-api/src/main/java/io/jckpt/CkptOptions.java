package io.jckpt;

import io.jckpt.JobSettings.Setting;
import io.jckpt.JobSettings.Source;
import io.jckpt.JobSettings.Value;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The options of a checkpointer (the paper's MPI_Ckpt_options), built through {@link #builder()}:
 * {@link Builder#build()} fills in what the program left unset (the job's settings, else the defaults; the
 * machine's, store directory and memory cap, are probed once per JVM) and the constructor validates every
 * option, naming the first bad one and its value ({@link InvalidOptionException}). Equal options have
 * equal values and equal {@link #settingOrigins()}.
 *
 * <h2>Global and node-local options</h2>
 * Options are global: every rank must open with the same values, or ranks would take different
 * decisions and deadlock. {@link #globalFingerprint()} hashes the options that must agree; the
 * implementation exchanges it at open and fails with a clear error when ranks disagree. Excluded from
 * the fingerprint, because they legitimately differ between nodes: {@link #memoryDirectory()} (a
 * node-local path), {@link #maxMemoryBytes()} (by default a share of the node's physical memory), the
 * <em>path</em> of {@link #diskDirectory()} (only whether one is set counts; a shared file system may
 * be mounted at different places) and the {@link #kryoConfigurer()} (code cannot be hashed; its
 * registrations must still be made in the same order everywhere).
 *
 * <h2>The levels</h2>
 * The in-memory level keeps {@link #replicas()} copies of each rank's checkpoint on the next ranks of a
 * ring. The disk level is on when {@link #diskDirectory()} is set and {@link #diskRatio()} is
 * positive: every {@code diskRatio}-th checkpoint is also written there. With {@code replicas == 0}
 * and no disk level, only the node-local copy exists (it survives the death of the process, not of
 * the node).
 *
 * <h2>Settings per job</h2>
 * The replication degree, the disk directory and ratio, the memory directory and the memory cap can also
 * be given per job, without recompiling: a setting the program does not set on the builder is taken from
 * the launcher's option, else the system property, else the environment variable, else the default
 * ({@link JobSettings}). {@link #settingsSummary()} says where each came from.
 *
 * @param replicas                 replication degree m: copies of each rank's checkpoint on the next m ranks
 *                                 ({@code >= 0}, {@code <= n-1}; default 1)
 * @param diskRatio                k: every k-th checkpoint also goes to disk ({@code >= 0}, 0 = disk level off;
 *                                 default 1000)
 * @param memoryDirectory          node-local directory of the in-memory store, made absolute (a tmpfs such as
 *                                 /dev/shm keeps it in memory; default {@link #defaultMemoryDirectory()})
 * @param diskDirectory            directory of the disk level, made absolute, or null when there is none
 * @param versionsKept             in-memory versions kept per owner (2..{@value #MAX_VERSIONS_KEPT}: the newest
 *                                 complete one survives a round that fails half-way; default 2)
 * @param maxMemoryBytes           cap on the bytes of this rank's node-local store, own versions and replicas
 *                                 ({@code > 0}; default {@link #defaultMaxMemoryBytes()})
 * @param exchangeTimeout          bound of one collective status exchange ({@code > 0}; default 30 s)
 * @param replicationTimeout       bound of one replication round, sending and receiving m hops ({@code > 0}; 60 s)
 * @param hereWaitTimeout          bound of here() waiting for the previous round to finish replicating
 *                                 ({@code >= 0}, 0 = no wait; default 60 s)
 * @param kryoRegistrationRequired whether Kryo refuses classes that were not registered (the safe default: true)
 * @param kryoConfigurer           registers the application's classes with Kryo ({@link KryoConfigurer#NONE})
 * @param recoveryFallback         what a recovery does when nothing can be restored ({@link RecoveryFallback#ERROR})
 * @param slotCapacity             the slot capacity of the node-local store in bytes: {@code > 0} fixed by the
 *                                 program (here() exchanges nothing unless a ctrl(m) is pending; a larger image
 *                                 fails here() with a clear error), or 0 (the default) agreed at the first here()
 *                                 (largest image of any rank x 1.25) and grown collectively when an image outgrows
 *                                 it (that rank skips that round, every rank grows at the next here(); each here()
 *                                 runs a small status exchange in the background for that)
 * @param memoryShortage           what happens when the node-local memory does not suffice for m copies and the
 *                                 kept versions ({@link MemoryShortage#FAIL} by default, or {@code DEGRADE})
 * @param minReplicas              the fewest copies on other ranks {@link MemoryShortage#DEGRADE} may fall back to
 *                                 ({@code 0..replicas}; 0, the default, = the local copy and the disk level only)
 * @param interval                 when {@link Checkpointer#needCheckpoint()} says a checkpoint is due
 *                                 ({@link IntervalPolicy#manual()} by default; {@code auto()} needs nodeMtbf)
 * @param nodeMtbf                 the mean time between failures of one node ({@code > 0}), the prior of the
 *                                 policies that use the failure rate (the job's failures refine it), or null
 * @param failureNodes             the nodes whose failures the job suffers (MTBF of the job = node MTBF / nodes;
 *                                 {@code >= 0}; 0, the default, = one per rank)
 * @param diskRatioAuto            whether the disk ratio is chosen at run time from the disk round's measured cost
 *                                 and the rate of failures the memory level cannot survive (needs the disk level
 *                                 and nodeMtbf); diskRatio is then the largest ratio and the first one in force
 * @param diskUnavailable          what open() does when the disk level is on but its directory cannot be used on
 *                                 some rank: {@link DiskUnavailable#FAIL} (the default: a {@link StorageException}
 *                                 naming the directory, the rank and why) or {@code MEMORY_ONLY} (one warning)
 * @param settingOrigins           where each per-job setting came from: the program, the launcher, a system
 *                                 property, the environment or the default (a setting missing from the map given
 *                                 to the constructor counts as the program's)
 */
public record CkptOptions(int replicas, int diskRatio, Path memoryDirectory, Path diskDirectory, int versionsKept,
        long maxMemoryBytes, Duration exchangeTimeout, Duration replicationTimeout, Duration hereWaitTimeout,
        boolean kryoRegistrationRequired, KryoConfigurer kryoConfigurer, RecoveryFallback recoveryFallback,
        long slotCapacity, MemoryShortage memoryShortage, int minReplicas, IntervalPolicy interval, Duration nodeMtbf,
        int failureNodes, boolean diskRatioAuto, DiskUnavailable diskUnavailable, Map<Setting, Value> settingOrigins) {

    /** Default replication degree m: one copy on the next rank. */
    public static final int DEFAULT_REPLICAS = 1;
    /** Default disk ratio: one disk checkpoint every 1000 (the paper's 1:1000). */
    public static final int DEFAULT_DISK_RATIO = 1000;
    /** Default number of in-memory versions kept per owner (the newest complete one and the one in progress). */
    public static final int DEFAULT_VERSIONS_KEPT = 2;
    /** Upper bound of versionsKept, to catch a unit mix-up early. */
    public static final int MAX_VERSIONS_KEPT = 64;
    /** Default bound of a status exchange. */
    public static final Duration DEFAULT_EXCHANGE_TIMEOUT = Duration.ofSeconds(30);
    /** Default bound of one replication round. */
    public static final Duration DEFAULT_REPLICATION_TIMEOUT = Duration.ofSeconds(60);
    /** Default bound of here() waiting for the previous round to finish replicating. */
    public static final Duration DEFAULT_HERE_WAIT_TIMEOUT = Duration.ofSeconds(60);
    /** Fallback of the default memory cap when the physical memory size cannot be read: 1 GiB. */
    public static final long FALLBACK_MAX_MEMORY_BYTES = 1L << 30;
    /** The origin of a setting the program's builder call gave. */
    private static final String PROGRAM = "program";

    /**
     * Validates every option, in a fixed order, and makes the directories absolute.
     *
     * @throws InvalidOptionException naming the first bad option and its value
     */
    public CkptOptions {
        checkReplicas(replicas);
        checkDiskRatio(diskRatio);
        memoryDirectory = notNull("memoryDirectory", memoryDirectory, "must not be null").toAbsolutePath().normalize();
        diskDirectory = diskDirectory == null ? null : diskDirectory.toAbsolutePath().normalize();
        if (versionsKept < 2 || versionsKept > MAX_VERSIONS_KEPT) {
            throw new InvalidOptionException("versionsKept", versionsKept, "must be >= 2 and <= " + MAX_VERSIONS_KEPT
                    + " (the newest complete version must survive a round that fails half-way)");
        }
        if (maxMemoryBytes <= 0) {
            throw new InvalidOptionException("maxMemoryBytes", maxMemoryBytes, "must be > 0");
        }
        checkTimeout("exchangeTimeout", exchangeTimeout, false);
        checkTimeout("replicationTimeout", replicationTimeout, false);
        checkTimeout("hereWaitTimeout", hereWaitTimeout, true);
        notNull("kryoConfigurer", kryoConfigurer, "must not be null (use KryoConfigurer.NONE)");
        notNull("recoveryFallback", recoveryFallback, "must not be null (ERROR or CLEAN_START)");
        if (slotCapacity < 0) {
            throw new InvalidOptionException("slotCapacity", slotCapacity,
                    "must be >= 0 (0 = agreed at the first here() and grown when an image outgrows it)");
        }
        notNull("memoryShortage", memoryShortage, "must not be null (FAIL or DEGRADE)");
        notNull("diskUnavailable", diskUnavailable, "must not be null (FAIL or MEMORY_ONLY)");
        if (minReplicas < 0 || minReplicas > replicas) {
            throw new InvalidOptionException("minReplicas", minReplicas, "must be >= 0 and <= replicas = " + replicas
                    + " (the floor of the copies DEGRADE may fall back to)");
        }
        notNull("interval", interval, "must not be null (IntervalPolicy.manual() for none)");
        if (nodeMtbf != null && (nodeMtbf.isNegative() || nodeMtbf.isZero())) {
            throw new InvalidOptionException("nodeMtbf", nodeMtbf, "must be > 0 (the mean time between failures of one node)");
        }
        if (failureNodes < 0) {
            throw new InvalidOptionException("failureNodes", failureNodes, "must be >= 0 (0 = one node per rank)");
        }
        if (nodeMtbf == null && interval.kind() == IntervalPolicy.Kind.AUTO) {
            throw new InvalidOptionException("interval", interval, "auto needs nodeMtbf (the MTBF of one node;"
                    + " the failures this job sees refine it)");
        }
        if (diskRatioAuto && nodeMtbf == null) {
            throw new InvalidOptionException("diskRatioAuto", true, "needs nodeMtbf (the MTBF of one node)");
        }
        if (diskRatioAuto && (diskDirectory == null || diskRatio <= 0)) {
            throw new InvalidOptionException("diskRatioAuto", true, "needs the disk level: a diskDirectory and a"
                    + " diskRatio > 0 (the largest ratio allowed)");
        }
        EnumMap<Setting, Value> origins = new EnumMap<>(Setting.class);
        if (settingOrigins != null) {
            origins.putAll(settingOrigins);
        }
        for (Setting setting : Setting.values()) {
            origins.putIfAbsent(setting, new Value("", Source.PROGRAM, PROGRAM));
        }
        settingOrigins = Collections.unmodifiableMap(origins);
    }

    /** @return a builder with every default */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the options with every default */
    public static CkptOptions defaults() {
        return builder().build();
    }

    /** @return a builder holding these options and their origins, to derive changed options */
    public Builder toBuilder() {
        Builder b = builder().replicas(replicas).diskRatio(diskRatio).memoryDirectory(memoryDirectory)
                .diskDirectory(diskDirectory).versionsKept(versionsKept).maxMemoryBytes(maxMemoryBytes)
                .exchangeTimeout(exchangeTimeout).replicationTimeout(replicationTimeout).hereWaitTimeout(hereWaitTimeout)
                .kryoRegistrationRequired(kryoRegistrationRequired).kryoConfigurer(kryoConfigurer)
                .recoveryFallback(recoveryFallback).slotCapacity(slotCapacity).memoryShortage(memoryShortage)
                .minReplicas(minReplicas).interval(interval).nodeMtbf(nodeMtbf).failureNodes(failureNodes)
                .diskRatioAuto(diskRatioAuto).diskUnavailable(diskUnavailable);
        b.origins.putAll(settingOrigins); // where each value came from, not "program": build() reads no job setting again
        b.derived = true;
        return b;
    }

    /**
     * The per-job settings in effect and where each came from, for the job's log, e.g.
     * {@code replicas=2 (--replicas), disk=none (default), diskRatio=1000 (default),
     * memoryDir=/dev/shm/jckpt-me (default), maxMemory=3.9 GiB (default)}.
     *
     * @return one line
     */
    public String settingsSummary() {
        return summary(replicas, diskDirectory, diskRatio, diskRatioAuto, memoryDirectory, maxMemoryBytes, interval,
                nodeMtbf, settingOrigins);
    }

    /**
     * The settings line of a rank, in a job with these settings, whose program sets none of the per-job
     * settings: what a launcher prints before its ranks start, in the words of the ranks' own
     * {@link #settingsSummary()} (the same defaults, of this machine). Each value given is checked; the
     * checks across options (such as {@code interval=auto} needing a node MTBF) wait for the program's calls.
     *
     * @param job the job's settings (launcher options, system properties of the rank JVMs, environment)
     * @return one line
     * @throws InvalidOptionException naming the option, property or variable whose value does not parse
     */
    public static String jobSettingsSummary(JobSettings job) {
        Builder b = builder();
        b.applyJobSettings(job);
        Path memory = b.memoryDirectory != null ? b.memoryDirectory : MachineDefaults.memoryDirectory();
        return summary(b.replicas, b.diskDirectory == null ? null : b.diskDirectory.toAbsolutePath().normalize(),
                b.diskRatio, b.diskRatioAuto, memory.toAbsolutePath().normalize(),
                b.maxMemoryBytes != null ? b.maxMemoryBytes : MachineDefaults.maxMemoryBytes(), b.interval, b.nodeMtbf,
                b.origins);
    }

    private static String summary(int replicas, Path diskDirectory, int diskRatio, boolean diskRatioAuto,
                                  Path memoryDirectory, long maxMemoryBytes, IntervalPolicy interval, Duration nodeMtbf,
                                  Map<Setting, Value> origins) {
        StringJoiner line = new StringJoiner(", ");
        for (Setting setting : Setting.values()) {
            String value = switch (setting) {
                case REPLICAS -> Integer.toString(replicas);
                case DISK -> diskDirectory == null ? "none" : diskDirectory.toString();
                case DISK_RATIO -> diskRatioAuto ? "auto:" + diskRatio : Integer.toString(diskRatio);
                case MEMORY_DIR -> memoryDirectory.toString();
                case MAX_MEMORY -> JobSettings.formatBytes(maxMemoryBytes);
                case INTERVAL -> interval.toString();
                case NODE_MTBF -> nodeMtbf == null ? "none" : JobSettings.formatDuration(nodeMtbf);
            };
            Value origin = origins.get(setting);
            if (setting.defaultsUnlisted() && origin.source() == Source.DEFAULT) {
                continue; // the interval's settings at their defaults: the line stays as it was before them
            }
            line.add(setting.label() + "=" + value + " (" + origin.origin() + ")");
        }
        return line.toString();
    }

    /** @return whether the disk level runs: a disk directory is set and the ratio is positive */
    public boolean diskLevelEnabled() {
        return diskDirectory != null && diskRatio > 0;
    }

    /**
     * @param worldSize ranks of the job
     * @return {@link #failureNodes()}, or {@code worldSize} when it is 0
     */
    public int failureNodes(int worldSize) {
        return failureNodes > 0 ? failureNodes : worldSize;
    }

    /**
     * Checks the options against the world they are used in.
     *
     * @param worldSize number of ranks n
     * @throws InvalidOptionException when n &lt; 1 or replicas &gt; n-1
     */
    public void validateFor(int worldSize) {
        if (worldSize < 1) {
            throw new InvalidOptionException("worldSize", worldSize, "must be >= 1");
        }
        if (replicas > worldSize - 1) {
            throw new InvalidOptionException("replicas", replicas, "must be <= n-1 = " + (worldSize - 1)
                    + " for a world of " + worldSize + " ranks (a rank's copies live on other ranks)" + givenBy(Setting.REPLICAS));
        }
        if (failureNodes > worldSize) {
            throw new InvalidOptionException("failureNodes", failureNodes, "must be <= n = " + worldSize
                    + " (the nodes the ranks run on)");
        }
    }

    /** Where a setting came from, for an error message, when the job (not the program) gave it. */
    private String givenBy(Setting setting) {
        Value origin = settingOrigins.get(setting);
        return origin.source() == Source.PROGRAM || origin.source() == Source.DEFAULT
                ? "" : "; the job gave it with " + origin.origin();
    }

    /**
     * Applies a run-time change (see {@link CtrlOptions}).
     *
     * @param ctrl the change
     * @return new options with the change applied
     * @throws InvalidOptionException when the change makes no sense with these options
     */
    public CkptOptions withCtrl(CtrlOptions ctrl) {
        Objects.requireNonNull(ctrl, "ctrl");
        Builder b = toBuilder();
        ctrl.replicas().ifPresent(m -> {
            if (m < minReplicas) {
                throw new InvalidOptionException("replicas", m, "is below minReplicas = " + minReplicas
                        + " (the floor opened with); lower the floor at open to allow fewer copies");
            }
            b.replicas(m);
        });
        ctrl.diskRatio().ifPresent(k -> {
            if (k > 0 && diskDirectory == null) {
                throw new InvalidOptionException("diskRatio", k,
                        "the disk level cannot be turned on at run time: no diskDirectory was set at open");
            }
            b.diskRatio(k);
        });
        ctrl.interval().ifPresent(b::interval);
        return b.build();
    }

    /**
     * The canonical text of the options that must be identical on every rank, in a fixed order; what
     * {@link #globalFingerprint()} hashes. Useful in the error message when ranks disagree.
     *
     * @return e.g. {@code "v1;replicas=1;diskRatio=1000;disk=false;..."}
     */
    public String globalSummary() {
        return "v1"
                + ";replicas=" + replicas
                + ";diskRatio=" + diskRatio
                + ";disk=" + (diskDirectory != null)
                + ";versionsKept=" + versionsKept
                + ";exchangeTimeoutMs=" + exchangeTimeout.toMillis()
                + ";replicationTimeoutMs=" + replicationTimeout.toMillis()
                + ";hereWaitTimeoutMs=" + hereWaitTimeout.toMillis()
                + ";kryoRegistrationRequired=" + kryoRegistrationRequired
                + ";recoveryFallback=" + recoveryFallback.name()
                + ";slotCapacity=" + slotCapacity
                + ";memoryShortage=" + memoryShortage.name()
                + ";minReplicas=" + minReplicas
                + ";diskUnavailable=" + diskUnavailable.name()
                + intervalSummary();
    }

    /** The interval policy's part of the summary: empty with the defaults, so older summaries stay as they were. */
    private String intervalSummary() {
        if (interval.kind() == IntervalPolicy.Kind.MANUAL && nodeMtbf == null && failureNodes == 0 && !diskRatioAuto) {
            return "";
        }
        return ";interval=" + interval
                + ";nodeMtbfMs=" + (nodeMtbf == null ? 0 : nodeMtbf.toMillis())
                + ";failureNodes=" + failureNodes
                + ";diskRatioAuto=" + diskRatioAuto;
    }

    /**
     * A stable 64-bit hash (FNV-1a over the UTF-8 of {@link #globalSummary()}) of the options that must
     * agree on every rank; the same on every JVM and every run. See the class comment for what is
     * excluded and why.
     *
     * @return the fingerprint
     */
    public long globalFingerprint() {
        long h = 0xcbf29ce484222325L;
        for (byte b : globalSummary().getBytes(StandardCharsets.UTF_8)) {
            h ^= b & 0xff;
            h *= 0x100000001b3L;
        }
        return h;
    }

    /**
     * The default node-local store directory: {@code /dev/shm/jckpt-<user>} when /dev/shm is a writable
     * directory (its files survive the death of the JVM), else {@code <java.io.tmpdir>/jckpt-<user>};
     * probed once per JVM.
     *
     * @return the default directory
     */
    public static Path defaultMemoryDirectory() {
        return MachineDefaults.memoryDirectory();
    }

    /**
     * The default memory cap: a quarter of the node's physical memory, or
     * {@link #FALLBACK_MAX_MEMORY_BYTES} when it cannot be read; probed once per JVM.
     *
     * @return the default cap in bytes
     */
    public static long defaultMaxMemoryBytes() {
        return MachineDefaults.maxMemoryBytes();
    }

    static void checkReplicas(int m) {
        if (m < 0) {
            throw new InvalidOptionException("replicas", m, "must be >= 0 (0 = no copies on other ranks)");
        }
    }

    static void checkDiskRatio(int k) {
        if (k < 0) {
            throw new InvalidOptionException("diskRatio", k,
                    "must be >= 0 (every k-th checkpoint goes to disk; 0 = disk level off)");
        }
    }

    private static <T> T notNull(String option, T value, String reason) {
        if (value == null) {
            throw new InvalidOptionException(option, null, reason);
        }
        return value;
    }

    private static void checkTimeout(String name, Duration d, boolean zeroAllowed) {
        notNull(name, d, "must not be null (every wait is bounded)");
        if (d.isNegative() || (!zeroAllowed && d.isZero())) {
            throw new InvalidOptionException(name, d, zeroAllowed ? "must be >= 0" : "must be > 0 (every wait is bounded)");
        }
    }

    /**
     * Builder of {@link CkptOptions}: each method sets the option of the same name (documented on the
     * record). Setters only record; {@link #build()} takes the job's settings for the per-job options the
     * program did not set, the defaults for the rest, and validates.
     */
    public static final class Builder {
        private int replicas = DEFAULT_REPLICAS;
        private int diskRatio = DEFAULT_DISK_RATIO;
        private Path memoryDirectory; // null: the job's setting, else the machine's default (at build)
        private Path diskDirectory;
        private int versionsKept = DEFAULT_VERSIONS_KEPT;
        private Long maxMemoryBytes; // null: the job's setting, else the machine's default (at build)
        private Duration exchangeTimeout = DEFAULT_EXCHANGE_TIMEOUT;
        private Duration replicationTimeout = DEFAULT_REPLICATION_TIMEOUT;
        private Duration hereWaitTimeout = DEFAULT_HERE_WAIT_TIMEOUT;
        private boolean kryoRegistrationRequired = true;
        private KryoConfigurer kryoConfigurer = KryoConfigurer.NONE;
        private RecoveryFallback recoveryFallback = RecoveryFallback.ERROR;
        private long slotCapacity;
        private MemoryShortage memoryShortage = MemoryShortage.FAIL;
        private int minReplicas;
        private IntervalPolicy interval = IntervalPolicy.manual();
        private Duration nodeMtbf;
        private int failureNodes;
        private boolean diskRatioAuto;
        private DiskUnavailable diskUnavailable = DiskUnavailable.FAIL;
        /** The per-job settings given so far: the program's calls (or the options this builder derives from). */
        private final EnumMap<Setting, Value> origins = new EnumMap<>(Setting.class);
        /** Whether this builder derives from built options ({@link #toBuilder()}): it reads nothing of the job. */
        private boolean derived;

        private Builder() {
        }

        /** Sets {@link CkptOptions#replicas()}, the replication degree m (a per-job setting). */
        public Builder replicas(int m) {
            replicas = m;
            return program(Setting.REPLICAS, m);
        }

        /** Sets {@link CkptOptions#diskRatio()}, every k-th checkpoint to disk (a per-job setting). */
        public Builder diskRatio(int k) {
            diskRatio = k;
            return program(Setting.DISK_RATIO, k);
        }

        /** Sets {@link CkptOptions#memoryDirectory()}, the node-local store's directory (a per-job setting). */
        public Builder memoryDirectory(Path dir) {
            memoryDirectory = dir;
            return program(Setting.MEMORY_DIR, dir);
        }

        /** Sets {@link CkptOptions#diskDirectory()}, or null for no disk level (a per-job setting). */
        public Builder diskDirectory(Path dir) {
            diskDirectory = dir;
            return program(Setting.DISK, dir == null ? "none" : dir);
        }

        /** Sets {@link CkptOptions#versionsKept()}. */
        public Builder versionsKept(int n) {
            versionsKept = n;
            return this;
        }

        /** Sets {@link CkptOptions#maxMemoryBytes()}, the cap of this rank's store (a per-job setting). */
        public Builder maxMemoryBytes(long bytes) {
            maxMemoryBytes = bytes;
            return program(Setting.MAX_MEMORY, bytes);
        }

        /** Sets {@link CkptOptions#exchangeTimeout()}. */
        public Builder exchangeTimeout(Duration timeout) {
            exchangeTimeout = timeout;
            return this;
        }

        /** Sets {@link CkptOptions#replicationTimeout()}. */
        public Builder replicationTimeout(Duration timeout) {
            replicationTimeout = timeout;
            return this;
        }

        /** Sets {@link CkptOptions#hereWaitTimeout()}. */
        public Builder hereWaitTimeout(Duration timeout) {
            hereWaitTimeout = timeout;
            return this;
        }

        /** Sets {@link CkptOptions#kryoRegistrationRequired()}. */
        public Builder kryoRegistrationRequired(boolean required) {
            kryoRegistrationRequired = required;
            return this;
        }

        /** Sets {@link CkptOptions#kryoConfigurer()}. */
        public Builder kryoConfigurer(KryoConfigurer configurer) {
            kryoConfigurer = configurer;
            return this;
        }

        /** Sets {@link CkptOptions#recoveryFallback()}. */
        public Builder recoveryFallback(RecoveryFallback fallback) {
            recoveryFallback = fallback;
            return this;
        }

        /** Sets {@link CkptOptions#slotCapacity()}: 0 = agreed at the first here() and grown collectively. */
        public Builder slotCapacity(long bytes) {
            slotCapacity = bytes;
            return this;
        }

        /** Sets {@link CkptOptions#memoryShortage()}. */
        public Builder memoryShortage(MemoryShortage shortage) {
            memoryShortage = shortage;
            return this;
        }

        /** Sets {@link CkptOptions#minReplicas()}, the floor of {@link MemoryShortage#DEGRADE}. */
        public Builder minReplicas(int m) {
            minReplicas = m;
            return this;
        }

        /** Sets {@link CkptOptions#interval()}, when a checkpoint is due (a per-job setting). */
        public Builder interval(IntervalPolicy policy) {
            interval = policy;
            program(Setting.INTERVAL, policy);
            return this;
        }

        /** Sets {@link CkptOptions#nodeMtbf()}, the mean time between failures of one node (a per-job setting). */
        public Builder nodeMtbf(Duration mtbf) {
            nodeMtbf = mtbf;
            program(Setting.NODE_MTBF, mtbf == null ? "none" : mtbf);
            return this;
        }

        /** Sets {@link CkptOptions#failureNodes()}. */
        public Builder failureNodes(int nodes) {
            failureNodes = nodes;
            return this;
        }

        /** Sets {@link CkptOptions#diskRatioAuto()}: the disk ratio chosen at run time, up to the disk ratio. */
        public Builder diskRatioAuto(boolean auto) {
            diskRatioAuto = auto;
            return this;
        }

        /** Sets {@link CkptOptions#diskUnavailable()}, what open() does when the disk directory cannot be used. */
        public Builder diskUnavailable(DiskUnavailable whenUnavailable) {
            diskUnavailable = whenUnavailable;
            return this;
        }

        /**
         * @return the options: the program's values, the job's settings for the per-job options the program
         *         did not set, the defaults for the rest
         * @throws InvalidOptionException naming the first bad option (or job setting) and its value
         */
        public CkptOptions build() {
            applyJobSettings(JobSettings.current());
            Path memory = memoryDirectory;
            if (memory == null && origins.get(Setting.MEMORY_DIR).source() != Source.PROGRAM) {
                memory = MachineDefaults.memoryDirectory(); // a null the program set stays, and is refused
            }
            long maxMemory = maxMemoryBytes != null ? maxMemoryBytes : MachineDefaults.maxMemoryBytes();
            return new CkptOptions(replicas, diskRatio, memory, diskDirectory, versionsKept, maxMemory, exchangeTimeout,
                    replicationTimeout, hereWaitTimeout, kryoRegistrationRequired, kryoConfigurer, recoveryFallback,
                    slotCapacity, memoryShortage, minReplicas, interval, nodeMtbf, failureNodes, diskRatioAuto,
                    diskUnavailable, origins);
        }

        private Builder program(Setting setting, Object value) {
            origins.put(setting, new Value(String.valueOf(value), Source.PROGRAM, PROGRAM));
            return this;
        }

        /**
         * The job's value of a setting the program sets, for the settings line ({@code program, over
         * --replicas=2}): a program that overrides the job's settings says so where the job's log shows it.
         * A job value that does not parse is not the program's concern: nothing is said of it.
         */
        private static java.util.Optional<String> overridden(Setting setting, JobSettings job) {
            try {
                return job.lookup(setting).map(v -> v.origin().startsWith("-D") ? v.origin() + "=" + v.text()
                        : v.source() == Source.LAUNCHER ? v.origin() + " " + v.text() : v.origin() + "=" + v.text());
            } catch (InvalidOptionException e) {
                return java.util.Optional.empty();
            }
        }

        /**
         * Takes every per-job setting the program did not set from the job (launcher option, system
         * property, environment); the others keep their defaults.
         */
        void applyJobSettings(JobSettings job) {
            for (Setting setting : Setting.values()) {
                Value set = origins.get(setting);
                if (set != null) {
                    if (!derived && set.source() == Source.PROGRAM && set.origin().equals(PROGRAM)) {
                        overridden(setting, job).ifPresent(given -> origins.put(setting,
                                new Value(set.text(), Source.PROGRAM, PROGRAM + ", over " + given)));
                    }
                    continue;
                }
                Value value = job.lookup(setting).orElse(null);
                if (value == null) {
                    origins.put(setting, new Value("", Source.DEFAULT, "default"));
                    continue;
                }
                switch (setting) {
                    case REPLICAS -> replicas = JobSettings.parseCount(value.text(), value.origin());
                    case DISK_RATIO -> {
                        JobSettings.DiskRatio ratio = JobSettings.parseDiskRatio(value.text(), value.origin());
                        diskRatio = ratio.ratio() < 0 ? diskRatio : ratio.ratio();
                        diskRatioAuto |= ratio.auto();
                    }
                    case DISK -> diskDirectory = JobSettings.parsePath(value.text());
                    case MEMORY_DIR -> memoryDirectory = JobSettings.parsePath(value.text());
                    case MAX_MEMORY -> maxMemoryBytes = JobSettings.parseBytes(value.text(), value.origin());
                    case INTERVAL -> interval = JobSettings.parseInterval(value.text(), value.origin());
                    case NODE_MTBF -> nodeMtbf = JobSettings.parseDuration(value.text(), value.origin());
                }
                origins.put(setting, value);
            }
        }
    }
}
