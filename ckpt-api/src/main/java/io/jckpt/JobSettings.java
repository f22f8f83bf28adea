package io.jckpt;

import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The checkpoint settings a job can be given without recompiling the program: the replication
 * degree, the disk directory and ratio, the node-local store's directory and its memory cap, the
 * interval policy and the MTBF of one node (its prior).
 *
 * <p>Each {@link Setting} is taken, in this order of precedence, from
 * <ol>
 *   <li>the program's explicit {@link CkptOptions.Builder} call ({@link Source#PROGRAM});</li>
 *   <li>the launcher's option, e.g. {@code ckpt-run --replicas 2}, which the launcher hands to its
 *       ranks as environment variable {@link Setting#launcherVariable()} ({@link Source#LAUNCHER});</li>
 *   <li>the system property of the rank's JVM, e.g. {@code -Djckpt.replicas=2}
 *       ({@link Source#PROPERTY});</li>
 *   <li>the environment variable, e.g. {@code JCKPT_REPLICAS=2} ({@link Source#ENVIRONMENT});</li>
 *   <li>the default ({@link Source#DEFAULT}).</li>
 * </ol>
 * {@link CkptOptions.Builder#build()} applies steps 2-5 to every setting the program did not set, so
 * {@code Ckpt.open()} and {@code Ckpt.open(CkptOptions.builder().build())} take the job's settings.
 * A value that does not parse is an {@link InvalidOptionException} naming the variable or property.
 */
public final class JobSettings {

    /** A setting that can be given per job. */
    public enum Setting {
        /** Replication degree m ({@link CkptOptions#replicas()}): a whole number {@code >= 0}. */
        REPLICAS("replicas", "--replicas", "JCKPT_REPLICAS", "jckpt.replicas"),
        /** Directory of the disk level ({@link CkptOptions#diskDirectory()}): a path; unset = no disk level. */
        DISK("disk", "--disk", "JCKPT_DISK", "jckpt.disk"),
        /**
         * Every k-th checkpoint also to disk ({@link CkptOptions#diskRatio()}): a whole number {@code >= 0}, or
         * {@code auto} / {@code auto:K}: chosen at run time ({@link CkptOptions#diskRatioAuto()}), up to K.
         */
        DISK_RATIO("diskRatio", "--disk-ratio", "JCKPT_DISK_RATIO", "jckpt.diskRatio"),
        /** Directory of the node-local store ({@link CkptOptions#memoryDirectory()}): a path. */
        MEMORY_DIR("memoryDir", "--memory-dir", "JCKPT_MEMORY_DIR", "jckpt.memoryDir"),
        /** Cap of the node-local store ({@link CkptOptions#maxMemoryBytes()}): bytes, or with K, M, G, T (binary). */
        MAX_MEMORY("maxMemory", "--max-memory", "JCKPT_MAX_MEMORY", "jckpt.maxMemory"),
        /**
         * When {@link Checkpointer#needCheckpoint()} is due ({@link CkptOptions#interval()}): the text of
         * {@link IntervalPolicy#parse}, e.g. {@code auto}, {@code calls:20}, {@code seconds:60}, {@code overhead:2}.
         */
        INTERVAL("interval", "--interval", "JCKPT_INTERVAL", "jckpt.interval"),
        /** The MTBF of one node ({@link CkptOptions#nodeMtbf()}): seconds, or with a unit: 90m, 12h, 30d, 5y. */
        NODE_MTBF("nodeMtbf", "--node-mtbf", "JCKPT_NODE_MTBF", "jckpt.nodeMtbf");

        private final String label;
        private final String option;
        private final String variable;
        private final String property;

        Setting(String label, String option, String variable, String property) {
            this.label = label;
            this.option = option;
            this.variable = variable;
            this.property = property;
        }

        /**
         * @return whether the settings lines leave this setting out while it has its default (the interval's
         *         settings: the lines stay as they were for jobs that do not use them)
         */
        public boolean defaultsUnlisted() {
            return this == INTERVAL || this == NODE_MTBF;
        }

        /** @return the short name used in the job's settings line, e.g. {@code diskRatio} */
        public String label() {
            return label;
        }

        /** @return the launcher's option, e.g. {@code --disk-ratio} */
        public String option() {
            return option;
        }

        /** @return the environment variable, e.g. {@code JCKPT_DISK_RATIO} */
        public String variable() {
            return variable;
        }

        /** @return the system property, e.g. {@code jckpt.diskRatio} */
        public String property() {
            return property;
        }

        /** @return the variable through which the launcher hands its option to the ranks, e.g. {@code JCKPT_LAUNCHER_DISK_RATIO} */
        public String launcherVariable() {
            return "JCKPT_LAUNCHER_" + variable.substring("JCKPT_".length());
        }

        /**
         * Checks a value of this setting.
         *
         * @param value the text
         * @param where where it came from (an option, variable or property), for the message
         * @return the value, trimmed
         * @throws InvalidOptionException when it does not parse
         */
        public String check(String value, String where) {
            String v = value.trim();
            switch (this) {
                case REPLICAS -> parseCount(v, where);
                case DISK_RATIO -> parseDiskRatio(v, where);
                case MAX_MEMORY -> parseBytes(v, where);
                case INTERVAL -> parseInterval(v, where);
                case NODE_MTBF -> parseDuration(v, where);
                default -> {
                    if (v.isEmpty()) {
                        throw new InvalidOptionException(where, value, "must be a directory path");
                    }
                }
            }
            return v;
        }
    }

    /** Where a setting's value came from. */
    public enum Source {
        /** The program's explicit builder call. */
        PROGRAM,
        /** A launcher option. */
        LAUNCHER,
        /** A system property of the rank's JVM. */
        PROPERTY,
        /** An environment variable. */
        ENVIRONMENT,
        /** The library's default. */
        DEFAULT
    }

    /**
     * One setting's value and its origin.
     *
     * @param text   the value as given (trimmed)
     * @param source where it came from
     * @param origin the option, variable or property that gave it (e.g. {@code --replicas}, {@code JCKPT_DISK},
     *               {@code -Djckpt.replicas}), or {@code program} / {@code default}
     */
    public record Value(String text, Source source, String origin) {
        /** Checks that nothing is null. */
        public Value {
            Objects.requireNonNull(text, "text");
            Objects.requireNonNull(source, "source");
            Objects.requireNonNull(origin, "origin");
        }
    }

    private static final Pattern BYTES = Pattern.compile("(\\d+)\\s*([kmgt]?)(i?b)?", Pattern.CASE_INSENSITIVE);

    private final Map<String, String> environment;
    private final Properties properties;

    private JobSettings(Map<String, String> environment, Properties properties) {
        this.environment = Map.copyOf(environment);
        this.properties = properties;
    }

    /** @return the settings of this process: its environment and system properties */
    public static JobSettings current() {
        return new JobSettings(System.getenv(), System.getProperties());
    }

    /**
     * @param environment the environment variables
     * @param properties  the system properties
     * @return the settings these give (for the launcher and tests)
     */
    public static JobSettings of(Map<String, String> environment, Properties properties) {
        return new JobSettings(environment, properties);
    }

    /**
     * The job's value of a setting, without the program's: the launcher's option, else the system
     * property, else the environment variable.
     *
     * @param setting the setting
     * @return its value and origin, or empty when none is given (the default applies)
     * @throws InvalidOptionException when the value given does not parse
     */
    public Optional<Value> lookup(Setting setting) {
        String launcher = environment.get(setting.launcherVariable());
        if (launcher != null) {
            return Optional.of(new Value(setting.check(launcher, setting.option()), Source.LAUNCHER, setting.option()));
        }
        String property = properties.getProperty(setting.property());
        if (property != null) {
            String where = "-D" + setting.property();
            return Optional.of(new Value(setting.check(property, where), Source.PROPERTY, where));
        }
        String variable = environment.get(setting.variable());
        if (variable != null) {
            return Optional.of(new Value(setting.check(variable, setting.variable()), Source.ENVIRONMENT, setting.variable()));
        }
        return Optional.empty();
    }

    /**
     * @param text a whole number {@code >= 0}
     * @param where the option, variable or property it came from
     * @return the number
     * @throws InvalidOptionException naming {@code where} when it is not one
     */
    public static int parseCount(String text, String where) {
        try {
            int n = Integer.parseInt(text.trim());
            if (n < 0) {
                throw new InvalidOptionException(where, text, "must be >= 0");
            }
            return n;
        } catch (NumberFormatException e) {
            throw new InvalidOptionException(where, text, "must be a whole number >= 0");
        }
    }

    /**
     * A disk ratio as a job gives it: a fixed ratio, or {@code auto} (chosen at run time, up to the
     * default cap or the program's {@code diskRatio(K)}), or {@code auto:K} (chosen, up to K).
     *
     * @param ratio the ratio, or the cap of the chosen one; -1 for {@code auto} without a cap
     * @param auto  whether the ratio is chosen at run time ({@link CkptOptions#diskRatioAuto()})
     */
    public record DiskRatio(int ratio, boolean auto) {
    }

    /**
     * @param text  {@code K} (a whole number >= 0; 0 = no disk level), {@code auto} or {@code auto:K} (K >= 1)
     * @param where the option, variable or property it came from, for the message
     * @return the ratio
     * @throws InvalidOptionException when it does not parse
     */
    public static DiskRatio parseDiskRatio(String text, String where) {
        String t = text.trim();
        if (t.equalsIgnoreCase("auto")) {
            return new DiskRatio(-1, true);
        }
        if (t.regionMatches(true, 0, "auto:", 0, 5)) {
            try {
                int cap = Integer.parseInt(t.substring(5).trim());
                if (cap >= 1) {
                    return new DiskRatio(cap, true);
                }
            } catch (NumberFormatException e) {
                // the message below
            }
            throw new InvalidOptionException(where, text, "auto:K needs a cap K >= 1, e.g. auto:1000");
        }
        try {
            int n = Integer.parseInt(t);
            if (n >= 0) {
                return new DiskRatio(n, false);
            }
        } catch (NumberFormatException e) {
            // the message below
        }
        throw new InvalidOptionException(where, text,
                "must be a whole number >= 0 (0 = no disk level), auto or auto:K (chosen at run time, up to K)");
    }

    /**
     * @param text bytes as a whole number, optionally with a binary unit: {@code 512m}, {@code 4G},
     *             {@code 1GiB}, {@code 65536}
     * @param where the option, variable or property it came from
     * @return the number of bytes ({@code > 0})
     * @throws InvalidOptionException naming {@code where} when it is not one
     */
    public static long parseBytes(String text, String where) {
        Matcher m = BYTES.matcher(text.trim());
        if (!m.matches()) {
            throw new InvalidOptionException(where, text, "must be bytes, e.g. 512m, 4g, 1GiB or 1073741824");
        }
        int shift = switch (m.group(2).toLowerCase(Locale.ROOT)) {
            case "k" -> 10;
            case "m" -> 20;
            case "g" -> 30;
            case "t" -> 40;
            default -> 0;
        };
        try {
            long n = Long.parseLong(m.group(1));
            if (n <= 0 || n > (Long.MAX_VALUE >> shift)) {
                throw new InvalidOptionException(where, text, "must be > 0 and fit in 63 bits");
            }
            return n << shift;
        } catch (NumberFormatException e) {
            throw new InvalidOptionException(where, text, "is too large");
        }
    }

    /**
     * @param text  an interval policy's text ({@link IntervalPolicy#parse})
     * @param where the option, variable or property it came from
     * @return the policy
     * @throws InvalidOptionException naming {@code where} when it is not one
     */
    public static IntervalPolicy parseInterval(String text, String where) {
        try {
            return IntervalPolicy.parse(text);
        } catch (InvalidOptionException e) {
            throw new InvalidOptionException(where, text, "must be manual, calls:N (N >= 1), seconds:T (T > 0),"
                    + " overhead:P (0 < P < 100) or auto");
        }
    }

    private static final Pattern DURATION = Pattern.compile("([0-9]*\\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\\s*(s|m|h|d|y)?",
            Pattern.CASE_INSENSITIVE);

    /**
     * @param text  a duration {@code > 0}: seconds, or with a unit s, m, h, d or y (365 days), e.g. {@code 90m}, {@code 5y}
     * @param where the option, variable or property it came from
     * @return the duration
     * @throws InvalidOptionException naming {@code where} when it is not one
     */
    public static java.time.Duration parseDuration(String text, String where) {
        Matcher m = DURATION.matcher(text.trim());
        if (!m.matches()) {
            throw new InvalidOptionException(where, text, "must be a duration > 0: seconds, or e.g. 90m, 12h, 30d, 5y");
        }
        double seconds = Double.parseDouble(m.group(1)) * switch (m.group(2) == null ? "s" : m.group(2).toLowerCase(Locale.ROOT)) {
            case "m" -> 60;
            case "h" -> 3600;
            case "d" -> 86400;
            case "y" -> 365 * 86400;
            default -> 1;
        };
        if (!(seconds > 0) || seconds > 1e15) {
            throw new InvalidOptionException(where, text, "must be a duration > 0: seconds, or e.g. 90m, 12h, 30d, 5y");
        }
        return java.time.Duration.ofNanos(Math.max(1, Math.round(seconds * 1e9)));
    }

    /**
     * @param duration a duration {@code > 0}
     * @return it in the largest unit of {@link #parseDuration} that divides it (e.g. {@code 5y}, {@code 90m},
     *         {@code 36h}), else in seconds with up to three decimals (e.g. {@code 1.5s}): what parses back to it
     */
    public static String formatDuration(java.time.Duration duration) {
        long millis = duration.toMillis();
        if (millis % 1000 == 0) {
            long seconds = millis / 1000;
            long[] sizes = {365 * 86400L, 86400, 3600, 60};
            String[] units = {"y", "d", "h", "m"};
            for (int i = 0; i < sizes.length; i++) {
                if (seconds >= sizes[i] && seconds % sizes[i] == 0) {
                    return seconds / sizes[i] + units[i];
                }
            }
            return seconds + "s";
        }
        return java.math.BigDecimal.valueOf(millis, 3).stripTrailingZeros().toPlainString() + "s";
    }

    static Path parsePath(String text) {
        return Paths.get(text);
    }

    /**
     * @param bytes a number of bytes
     * @return it in the largest binary unit that divides it, or with one decimal (e.g. {@code 4 GiB}, {@code 1.5 MiB})
     */
    public static String formatBytes(long bytes) {
        String[] units = {"B", "KiB", "MiB", "GiB", "TiB"};
        int u = 0;
        double v = bytes;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return v == Math.rint(v) ? String.format(Locale.ROOT, "%d %s", (long) v, units[u])
                : String.format(Locale.ROOT, "%.1f %s", v, units[u]);
    }
}
