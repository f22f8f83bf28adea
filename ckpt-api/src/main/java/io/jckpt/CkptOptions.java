package io.jckpt;

import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;
import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;

/**
 * The options of a checkpointer (the paper's MPI_Ckpt_options). Immutable; built through
 * {@link #builder()}, validated at {@link Builder#build()} with a message naming the option and value.
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
 * The replication degree, the disk directory and ratio, the memory directory and the memory cap can
 * also be given per job, without recompiling: a setting the program does not set on the builder is
 * taken from the launcher's option, else the system property, else the environment variable, else the
 * default ({@link JobSettings}). {@link #settingsSummary()} says where each came from.
 *
 * <p><b>Size</b> (past 600 lines): every option is validated where it is set, with a message that names
 * it, and each has its builder method, accessor and Javadoc; the move to a record with a validating
 * builder and machine defaults resolved once is planned.
 */
public final class CkptOptions {
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

    private final int replicas;
    private final int diskRatio;
    private final Path memoryDirectory;
    private final Path diskDirectory;
    private final int versionsKept;
    private final long maxMemoryBytes;
    private final Duration exchangeTimeout;
    private final Duration replicationTimeout;
    private final Duration hereWaitTimeout;
    private final boolean kryoRegistrationRequired;
    private final KryoConfigurer kryoConfigurer;
    private final RecoveryFallback recoveryFallback;
    private final long slotCapacity;
    private final MemoryShortage memoryShortage;
    private final int minReplicas;
    private final IntervalPolicy interval;
    private final Duration nodeMtbf;
    private final int failureNodes;
    private final boolean diskRatioAuto;
    private final DiskUnavailable diskUnavailable;
    private final Map<JobSettings.Setting, JobSettings.Value> origins;

    private CkptOptions(Builder b, long maxMemoryBytes) {
        this.replicas = b.replicas;
        this.diskRatio = b.diskRatio;
        this.memoryDirectory = b.memoryDirectory.toAbsolutePath().normalize();
        this.diskDirectory = b.diskDirectory == null ? null : b.diskDirectory.toAbsolutePath().normalize();
        this.versionsKept = b.versionsKept;
        this.maxMemoryBytes = maxMemoryBytes;
        this.exchangeTimeout = b.exchangeTimeout;
        this.replicationTimeout = b.replicationTimeout;
        this.hereWaitTimeout = b.hereWaitTimeout;
        this.kryoRegistrationRequired = b.kryoRegistrationRequired;
        this.kryoConfigurer = b.kryoConfigurer;
        this.recoveryFallback = b.recoveryFallback;
        this.slotCapacity = b.slotCapacity;
        this.memoryShortage = b.memoryShortage;
        this.minReplicas = b.minReplicas;
        this.interval = b.interval;
        this.nodeMtbf = b.nodeMtbf;
        this.failureNodes = b.failureNodes;
        this.diskRatioAuto = b.diskRatioAuto;
        this.diskUnavailable = b.diskUnavailable;
        this.origins = Collections.unmodifiableMap(new EnumMap<>(b.origins));
    }

    /** @return a builder with every default */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the options with every default */
    public static CkptOptions defaults() {
        return builder().build();
    }

    /** @return a builder holding these options, to derive changed options */
    public Builder toBuilder() {
        Builder b = new Builder();
        b.replicas = replicas;
        b.diskRatio = diskRatio;
        b.memoryDirectory = memoryDirectory;
        b.diskDirectory = diskDirectory;
        b.versionsKept = versionsKept;
        b.maxMemoryBytes = maxMemoryBytes;
        b.maxMemorySet = true;
        b.exchangeTimeout = exchangeTimeout;
        b.replicationTimeout = replicationTimeout;
        b.hereWaitTimeout = hereWaitTimeout;
        b.kryoRegistrationRequired = kryoRegistrationRequired;
        b.kryoConfigurer = kryoConfigurer;
        b.recoveryFallback = recoveryFallback;
        b.slotCapacity = slotCapacity;
        b.memoryShortage = memoryShortage;
        b.minReplicas = minReplicas;
        b.interval = interval;
        b.nodeMtbf = nodeMtbf;
        b.failureNodes = failureNodes;
        b.diskRatioAuto = diskRatioAuto;
        b.diskUnavailable = diskUnavailable;
        b.origins.putAll(origins);
        return b;
    }

    /**
     * Where each per-job setting came from: the program, the launcher, a system property, the
     * environment or the default ({@link JobSettings}).
     *
     * @return the value and origin of every {@link JobSettings.Setting}
     */
    public Map<JobSettings.Setting, JobSettings.Value> settingOrigins() {
        return origins;
    }

    /**
     * The per-job settings in effect and where each came from, for the job's log, e.g.
     * {@code replicas=2 (--replicas), disk=none (default), diskRatio=1000 (default),
     * memoryDir=/dev/shm/jckpt-me (default), maxMemory=3.9 GiB (default)}.
     *
     * @return one line
     */
    public String settingsSummary() {
        StringJoiner line = new StringJoiner(", ");
        for (JobSettings.Setting setting : JobSettings.Setting.values()) {
            String value = switch (setting) {
                case REPLICAS -> Integer.toString(replicas);
                case DISK -> diskDirectory == null ? "none" : diskDirectory.toString();
                case DISK_RATIO -> Integer.toString(diskRatio);
                case MEMORY_DIR -> memoryDirectory.toString();
                case MAX_MEMORY -> JobSettings.formatBytes(maxMemoryBytes);
            };
            JobSettings.Value origin = origins.get(setting);
            line.add(setting.label() + "=" + value + " (" + (origin == null ? "default" : origin.origin()) + ")");
        }
        return line.toString();
    }

    /** @return replication degree m: how many next ranks hold a copy of each rank's checkpoint */
    public int replicas() {
        return replicas;
    }

    /** @return k: every k-th checkpoint also goes to disk; 0 = disk level off */
    public int diskRatio() {
        return diskRatio;
    }

    /** @return node-local directory of the in-memory store (absolute) */
    public Path memoryDirectory() {
        return memoryDirectory;
    }

    /** @return directory of the disk level (absolute), or null when there is none */
    public Path diskDirectory() {
        return diskDirectory;
    }

    /** @return whether the disk level runs: a disk directory is set and the ratio is positive */
    public boolean diskLevelEnabled() {
        return diskDirectory != null && diskRatio > 0;
    }

    /** @return in-memory versions kept per owner (>= 2: the newest complete one survives a failed round) */
    public int versionsKept() {
        return versionsKept;
    }

    /** @return cap on the bytes of the node-local store of this rank (own versions and replicas) */
    public long maxMemoryBytes() {
        return maxMemoryBytes;
    }

    /** @return bound of one collective status exchange */
    public Duration exchangeTimeout() {
        return exchangeTimeout;
    }

    /** @return bound of one replication round (sending and receiving m hops) */
    public Duration replicationTimeout() {
        return replicationTimeout;
    }

    /** @return bound of here() waiting for the previous round to finish replicating (0 = no wait) */
    public Duration hereWaitTimeout() {
        return hereWaitTimeout;
    }

    /** @return whether Kryo refuses classes that were not registered (the safe default: true) */
    public boolean kryoRegistrationRequired() {
        return kryoRegistrationRequired;
    }

    /** @return the callback that registers the application's classes with Kryo */
    public KryoConfigurer kryoConfigurer() {
        return kryoConfigurer;
    }

    /** @return what a recovery does when nothing can be restored */
    public RecoveryFallback recoveryFallback() {
        return recoveryFallback;
    }

    /**
     * @return the slot capacity in bytes fixed by the program, or 0 (the default) when it is agreed at
     *         the first here() (largest image of any rank x 1.25) and grown collectively when an image
     *         outgrows it (the round where it does not fit is skipped on that rank, every rank grows at
     *         the next here(); each here() runs a small status exchange in the background for that)
     */
    public long slotCapacity() {
        return slotCapacity;
    }

    /** @return what happens when the node-local memory does not suffice for m copies and the kept versions */
    public MemoryShortage memoryShortage() {
        return memoryShortage;
    }

    /** @return the fewest copies on other ranks {@link MemoryShortage#DEGRADE} may fall back to (0 = local copy and disk only) */
    public int minReplicas() {
        return minReplicas;
    }

    /** @return when {@link Checkpointer#needCheckpoint()} says a checkpoint is due ({@link IntervalPolicy#manual()} by default) */
    public IntervalPolicy interval() {
        return interval;
    }

    /** @return the mean time between failures of one node, or null when not configured */
    public Duration nodeMtbf() {
        return nodeMtbf;
    }

    /** @return the nodes whose failures the job suffers (MTBF of the job = node MTBF / nodes); 0 = one per rank */
    public int failureNodes() {
        return failureNodes;
    }

    /**
     * @param worldSize ranks of the job
     * @return {@link #failureNodes()}, or {@code worldSize} when it is 0
     */
    public int failureNodes(int worldSize) {
        return failureNodes > 0 ? failureNodes : worldSize;
    }

    /**
     * @return whether the disk ratio is chosen at run time from the disk round's measured cost and the rate of
     *         failures the memory level cannot survive; {@link #diskRatio()} is then the largest ratio allowed
     *         and the one in force until the first decision
     */
    public boolean diskRatioAuto() {
        return diskRatioAuto;
    }

    /** @return what open() does when the disk level is on but its directory cannot be used (default FAIL) */
    public DiskUnavailable diskUnavailable() {
        return diskUnavailable;
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
                    + " for a world of " + worldSize + " ranks (a rank's copies live on other ranks)" + givenBy(JobSettings.Setting.REPLICAS));
        }
        if (failureNodes > worldSize) {
            throw new InvalidOptionException("failureNodes", failureNodes, "must be <= n = " + worldSize
                    + " (the nodes the ranks run on)");
        }
    }

    /** Where a setting came from, for an error message, when the job (not the program) gave it. */
    private String givenBy(JobSettings.Setting setting) {
        JobSettings.Value origin = origins.get(setting);
        return origin == null || origin.source() == JobSettings.Source.PROGRAM || origin.source() == JobSettings.Source.DEFAULT
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

    @Override
    public boolean equals(Object o) {
        if (this == o) {
            return true;
        }
        if (!(o instanceof CkptOptions)) {
            return false;
        }
        CkptOptions x = (CkptOptions) o;
        return replicas == x.replicas && diskRatio == x.diskRatio && versionsKept == x.versionsKept
                && maxMemoryBytes == x.maxMemoryBytes && kryoRegistrationRequired == x.kryoRegistrationRequired
                && memoryDirectory.equals(x.memoryDirectory) && Objects.equals(diskDirectory, x.diskDirectory)
                && exchangeTimeout.equals(x.exchangeTimeout) && replicationTimeout.equals(x.replicationTimeout)
                && hereWaitTimeout.equals(x.hereWaitTimeout) && kryoConfigurer == x.kryoConfigurer
                && recoveryFallback == x.recoveryFallback && slotCapacity == x.slotCapacity
                && memoryShortage == x.memoryShortage && minReplicas == x.minReplicas
                && diskUnavailable == x.diskUnavailable
                && interval.equals(x.interval) && Objects.equals(nodeMtbf, x.nodeMtbf)
                && failureNodes == x.failureNodes && diskRatioAuto == x.diskRatioAuto;
    }

    @Override
    public int hashCode() {
        return Objects.hash(replicas, diskRatio, memoryDirectory, diskDirectory, versionsKept, maxMemoryBytes,
                exchangeTimeout, replicationTimeout, hereWaitTimeout, kryoRegistrationRequired, recoveryFallback,
                slotCapacity, memoryShortage, minReplicas, diskUnavailable, interval, nodeMtbf, failureNodes, diskRatioAuto);
    }

    @Override
    public String toString() {
        return "CkptOptions{replicas=" + replicas + ", diskRatio=" + diskRatio + ", memoryDirectory=" + memoryDirectory
                + ", diskDirectory=" + diskDirectory + ", versionsKept=" + versionsKept + ", maxMemoryBytes="
                + maxMemoryBytes + ", exchangeTimeout=" + exchangeTimeout + ", replicationTimeout=" + replicationTimeout
                + ", hereWaitTimeout=" + hereWaitTimeout + ", kryoRegistrationRequired=" + kryoRegistrationRequired
                + ", recoveryFallback=" + recoveryFallback + ", slotCapacity=" + slotCapacity + ", memoryShortage="
                + memoryShortage + ", minReplicas=" + minReplicas + ", diskUnavailable=" + diskUnavailable + ", interval=" + interval
                + ", nodeMtbf=" + nodeMtbf + ", failureNodes=" + failureNodes + ", diskRatioAuto=" + diskRatioAuto + '}';
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

    /**
     * The default node-local store directory: {@code /dev/shm/jckpt-<user>} when /dev/shm exists (its
     * files survive the death of the JVM), else {@code <java.io.tmpdir>/jckpt-<user>}.
     *
     * @return the default directory
     */
    public static Path defaultMemoryDirectory() {
        String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
        Path shm = Paths.get("/dev/shm");
        Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir"));
        return base.resolve("jckpt-" + user);
    }

    /**
     * The default memory cap: a quarter of the node's physical memory, or
     * {@link #FALLBACK_MAX_MEMORY_BYTES} when it cannot be read.
     *
     * @return the default cap in bytes
     */
    public static long defaultMaxMemoryBytes() {
        try {
            java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
            if (os instanceof com.sun.management.OperatingSystemMXBean) {
                long total = ((com.sun.management.OperatingSystemMXBean) os).getTotalMemorySize();
                if (total > 0) {
                    return total / 4;
                }
            }
        } catch (RuntimeException | LinkageError e) {
            // fall through to the documented fallback
        }
        return FALLBACK_MAX_MEMORY_BYTES;
    }

    /**
     * Builder of {@link CkptOptions}. Setters only record; {@link #build()} validates everything and
     * names the first bad option and its value.
     */
    public static final class Builder {
        private int replicas = DEFAULT_REPLICAS;
        private int diskRatio = DEFAULT_DISK_RATIO;
        private Path memoryDirectory; // null = the job's setting, else defaultMemoryDirectory(), at build
        private Path diskDirectory;
        /** The per-job settings given so far: the program's calls (or the options this builder derives from). */
        private final EnumMap<JobSettings.Setting, JobSettings.Value> origins = new EnumMap<>(JobSettings.Setting.class);
        private int versionsKept = DEFAULT_VERSIONS_KEPT;
        private long maxMemoryBytes; // 0 = default, computed at build
        private boolean maxMemorySet;
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

        private Builder() {
        }

        /**
         * @param policy when {@link Checkpointer#needCheckpoint()} says a checkpoint is due (not null;
         *               {@link IntervalPolicy#auto()} and {@link #diskRatioAuto(boolean)} need {@link #nodeMtbf})
         * @return this builder
         */
        public Builder interval(IntervalPolicy policy) {
            this.interval = policy;
            return this;
        }

        /**
         * @param mtbf the mean time between failures of one node (&gt; 0), the prior of the policies that use
         *             the failure rate; the failures this job id sees refine it (see {@link IntervalPolicy#auto()})
         * @return this builder
         */
        public Builder nodeMtbf(Duration mtbf) {
            this.nodeMtbf = mtbf;
            return this;
        }

        /**
         * @param nodes the nodes the job runs on, whose failures it suffers (&gt;= 0; 0, the default, = one per rank)
         * @return this builder
         */
        public Builder failureNodes(int nodes) {
            this.failureNodes = nodes;
            return this;
        }

        /**
         * @param auto choose the disk ratio at run time from the disk round's measured cost and the rate of
         *             failures the memory level cannot survive, up to {@link #diskRatio(int)} (needs the disk
         *             level and {@link #nodeMtbf})
         * @return this builder
         */
        public Builder diskRatioAuto(boolean auto) {
            this.diskRatioAuto = auto;
            return this;
        }

        /**
         * @param whenUnavailable what open() does when the disk level is on but its directory cannot be
         *                        used on some rank: {@link DiskUnavailable#FAIL} (the default: a
         *                        {@link StorageException} naming the directory, the rank and why) or
         *                        {@link DiskUnavailable#MEMORY_ONLY} (run without the disk level, one warning)
         * @return this builder
         */
        public Builder diskUnavailable(DiskUnavailable whenUnavailable) {
            this.diskUnavailable = whenUnavailable;
            return this;
        }

        /**
         * @param bytes the slot capacity of the node-local store, fixed ({@code > 0}: after the first
         *              here() (which still checks memory collectively), here() exchanges nothing unless a
         *              ctrl(m) is pending, and an image beyond it fails here() with a clear error), or 0
         *              (the default) to agree it at the first here() and grow it collectively when an
         *              image outgrows it, at the cost of a small background status exchange per here()
         * @return this builder
         */
        public Builder slotCapacity(long bytes) {
            this.slotCapacity = bytes;
            return this;
        }

        /**
         * @param shortage what to do when memory does not suffice for m copies and the kept versions:
         *                 {@link MemoryShortage#FAIL} (the default) or {@link MemoryShortage#DEGRADE}
         * @return this builder
         */
        public Builder memoryShortage(MemoryShortage shortage) {
            this.memoryShortage = shortage;
            return this;
        }

        /**
         * @param m the fewest copies on other ranks that {@link MemoryShortage#DEGRADE} may choose
         *          ({@code >= 0}, {@code <= replicas}; 0 = the local copy and the disk level only)
         * @return this builder
         */
        public Builder minReplicas(int m) {
            this.minReplicas = m;
            return this;
        }

        /**
         * @param m replication degree: copies of each rank's checkpoint kept on the next m ranks ({@code >= 0}, {@code <= n-1})
         * @return this builder
         */
        public Builder replicas(int m) {
            this.replicas = m;
            program(JobSettings.Setting.REPLICAS, m);
            return this;
        }

        /**
         * @param k every k-th checkpoint is also written to disk (>= 0; 0 = disk level off)
         * @return this builder
         */
        public Builder diskRatio(int k) {
            this.diskRatio = k;
            program(JobSettings.Setting.DISK_RATIO, k);
            return this;
        }

        /**
         * @param dir node-local directory of the in-memory store (a tmpfs such as /dev/shm keeps it in memory)
         * @return this builder
         */
        public Builder memoryDirectory(Path dir) {
            this.memoryDirectory = dir;
            program(JobSettings.Setting.MEMORY_DIR, dir);
            return this;
        }

        /**
         * @param dir directory of the disk level, or null for no disk level
         * @return this builder
         */
        public Builder diskDirectory(Path dir) {
            this.diskDirectory = dir;
            program(JobSettings.Setting.DISK, dir == null ? "none" : dir);
            return this;
        }

        /**
         * @param n in-memory versions kept per owner (>= 2)
         * @return this builder
         */
        public Builder versionsKept(int n) {
            this.versionsKept = n;
            return this;
        }

        /**
         * @param bytes cap on this rank's node-local store (> 0)
         * @return this builder
         */
        public Builder maxMemoryBytes(long bytes) {
            this.maxMemoryBytes = bytes;
            this.maxMemorySet = true;
            program(JobSettings.Setting.MAX_MEMORY, bytes);
            return this;
        }

        /**
         * @param timeout bound of a collective status exchange (> 0)
         * @return this builder
         */
        public Builder exchangeTimeout(Duration timeout) {
            this.exchangeTimeout = timeout;
            return this;
        }

        /**
         * @param timeout bound of one replication round (> 0)
         * @return this builder
         */
        public Builder replicationTimeout(Duration timeout) {
            this.replicationTimeout = timeout;
            return this;
        }

        /**
         * @param timeout bound of here() waiting for the previous round (>= 0)
         * @return this builder
         */
        public Builder hereWaitTimeout(Duration timeout) {
            this.hereWaitTimeout = timeout;
            return this;
        }

        /**
         * @param required whether Kryo refuses unregistered classes
         * @return this builder
         */
        public Builder kryoRegistrationRequired(boolean required) {
            this.kryoRegistrationRequired = required;
            return this;
        }

        /**
         * @param configurer registers the application's classes with Kryo (not null)
         * @return this builder
         */
        public Builder kryoConfigurer(KryoConfigurer configurer) {
            this.kryoConfigurer = configurer;
            return this;
        }

        /**
         * @param fallback what a recovery does when nothing can be restored (not null)
         * @return this builder
         */
        public Builder recoveryFallback(RecoveryFallback fallback) {
            this.recoveryFallback = fallback;
            return this;
        }

        /**
         * @return the validated options
         * @throws InvalidOptionException naming the first bad option and its value
         */
        public CkptOptions build() {
            applyJobSettings(JobSettings.current());
            checkReplicas(replicas);
            checkDiskRatio(diskRatio);
            if (memoryDirectory == null) {
                if (origins.get(JobSettings.Setting.MEMORY_DIR).source() == JobSettings.Source.PROGRAM) {
                    throw new InvalidOptionException("memoryDirectory", null, "must not be null");
                }
                memoryDirectory = defaultMemoryDirectory(); // probed only when nothing else gives it
            }
            if (versionsKept < 2 || versionsKept > MAX_VERSIONS_KEPT) {
                throw new InvalidOptionException("versionsKept", versionsKept, "must be >= 2 and <= " + MAX_VERSIONS_KEPT
                        + " (the newest complete version must survive a round that fails half-way)");
            }
            if (maxMemorySet && maxMemoryBytes <= 0) {
                throw new InvalidOptionException("maxMemoryBytes", maxMemoryBytes, "must be > 0");
            }
            checkTimeout("exchangeTimeout", exchangeTimeout, false);
            checkTimeout("replicationTimeout", replicationTimeout, false);
            checkTimeout("hereWaitTimeout", hereWaitTimeout, true);
            if (kryoConfigurer == null) {
                throw new InvalidOptionException("kryoConfigurer", null, "must not be null (use KryoConfigurer.NONE)");
            }
            if (recoveryFallback == null) {
                throw new InvalidOptionException("recoveryFallback", null, "must not be null (ERROR or CLEAN_START)");
            }
            if (slotCapacity < 0) {
                throw new InvalidOptionException("slotCapacity", slotCapacity,
                        "must be >= 0 (0 = agreed at the first here() and grown when an image outgrows it)");
            }
            if (memoryShortage == null) {
                throw new InvalidOptionException("memoryShortage", null, "must not be null (FAIL or DEGRADE)");
            }
            if (diskUnavailable == null) {
                throw new InvalidOptionException("diskUnavailable", null, "must not be null (FAIL or MEMORY_ONLY)");
            }
            if (minReplicas < 0 || minReplicas > replicas) {
                throw new InvalidOptionException("minReplicas", minReplicas, "must be >= 0 and <= replicas = " + replicas
                        + " (the floor of the copies DEGRADE may fall back to)");
            }
            if (interval == null) {
                throw new InvalidOptionException("interval", null, "must not be null (IntervalPolicy.manual() for none)");
            }
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
            return new CkptOptions(this, maxMemorySet ? maxMemoryBytes : defaultMaxMemoryBytes());
        }

        private void program(JobSettings.Setting setting, Object value) {
            origins.put(setting, new JobSettings.Value(String.valueOf(value), JobSettings.Source.PROGRAM, "program"));
        }

        /**
         * Takes every per-job setting the program did not set from the job (launcher option, system
         * property, environment); the others keep their defaults.
         */
        void applyJobSettings(JobSettings job) {
            for (JobSettings.Setting setting : JobSettings.Setting.values()) {
                if (origins.containsKey(setting)) {
                    continue;
                }
                JobSettings.Value value = job.lookup(setting).orElse(null);
                if (value == null) {
                    origins.put(setting, new JobSettings.Value("", JobSettings.Source.DEFAULT, "default"));
                    continue;
                }
                switch (setting) {
                    case REPLICAS -> replicas = JobSettings.parseCount(value.text(), value.origin());
                    case DISK_RATIO -> diskRatio = JobSettings.parseCount(value.text(), value.origin());
                    case DISK -> diskDirectory = JobSettings.parsePath(value.text());
                    case MEMORY_DIR -> memoryDirectory = JobSettings.parsePath(value.text());
                    case MAX_MEMORY -> {
                        maxMemoryBytes = JobSettings.parseBytes(value.text(), value.origin());
                        maxMemorySet = true;
                    }
                }
                origins.put(setting, value);
            }
        }

        private static void checkTimeout(String name, Duration d, boolean zeroAllowed) {
            if (d == null) {
                throw new InvalidOptionException(name, null, "must not be null (every wait is bounded)");
            }
            if (d.isNegative() || (!zeroAllowed && d.isZero())) {
                throw new InvalidOptionException(name, d, zeroAllowed ? "must be >= 0" : "must be > 0 (every wait is bounded)");
            }
        }
    }
}
