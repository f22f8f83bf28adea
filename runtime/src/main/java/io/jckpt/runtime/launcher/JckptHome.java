package io.jckpt.runtime.launcher;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Properties;

/**
 * Where the launcher finds what rank JVMs need: the library's class path, MPJ Express's jars (kept
 * apart: each MPJ world gets its own class loader over them), the JVM flags, the java executable.
 *
 * <p>The home directory is the runtime module's {@code target} directory, given as system property
 * {@code jckpt.home} by {@code bin/ckpt-run}; the build writes {@code jckpt-lib.classpath},
 * {@code jckpt-mpj.classpath} and {@code jckpt-log.classpath} there.
 */
public final class JckptHome {
    /** System property: {@code false} keeps rank JVMs off the class-data archive even when there is one. */
    public static final String CLASS_DATA_SHARING_PROPERTY = "jckpt.classDataSharing";
    /**
     * Environment variable: JVM options every rank and standby JVM gets (a site's or a test suite's
     * defaults), separated by spaces, before the job's {@code --jvm-opt}s, which so win where the JVM
     * takes the last one.
     */
    public static final String JVM_OPTS_VARIABLE = "JCKPT_JVM_OPTS";

    private final Path home;
    private final List<String> dependencies;
    private final List<String> mpjClassPath;
    private final List<String> baseJvmFlags;
    private final Optional<Path> runtimeJar;
    private final Optional<ClassDataSharing> classDataSharing;
    private final List<String> siteJvmOptions;

    private JckptHome(Path home, List<String> dependencies, List<String> mpjClassPath, List<String> baseJvmFlags,
                      Optional<Path> runtimeJar, Optional<ClassDataSharing> classDataSharing,
                      List<String> siteJvmOptions) {
        this.home = home;
        this.dependencies = List.copyOf(dependencies);
        this.mpjClassPath = List.copyOf(mpjClassPath);
        this.baseJvmFlags = List.copyOf(baseJvmFlags);
        this.runtimeJar = runtimeJar;
        this.classDataSharing = classDataSharing;
        this.siteJvmOptions = List.copyOf(siteJvmOptions);
    }

    /** Locates the home from the {@code jckpt.home} system property. */
    public static JckptHome locate() {
        String property = System.getProperty("jckpt.home");
        if (property == null) {
            throw new IllegalStateException("system property jckpt.home is not set: start the launcher with bin/ckpt-run");
        }
        return at(Paths.get(property));
    }

    /**
     * Reads the home at {@code home} (the runtime module's target directory), with the rank JVM options
     * of {@value #JVM_OPTS_VARIABLE}.
     *
     * @throws IllegalArgumentException when a word of {@value #JVM_OPTS_VARIABLE} is not an option
     */
    public static JckptHome at(Path home) {
        Properties properties = runtimeProperties();
        List<String> deps = readClassPath(home.resolve("jckpt-lib.classpath"));
        List<String> mpj = readClassPath(home.resolve("jckpt-mpj.classpath"));
        Path jar = home.resolve("runtime-" + properties.getProperty("version", "") + ".jar").toAbsolutePath();
        Optional<Path> runtimeJar = Files.isRegularFile(jar) ? Optional.of(jar) : Optional.empty();
        Optional<ClassDataSharing> cds = Boolean.parseBoolean(System.getProperty(CLASS_DATA_SHARING_PROPERTY, "true"))
                ? runtimeJar.flatMap(j -> ClassDataSharing.find(home, j, deps)) : Optional.empty();
        return new JckptHome(home, deps, mpj, jvmFlags(properties), runtimeJar, cds,
                siteJvmOptions(System.getenv(JVM_OPTS_VARIABLE)));
    }

    /**
     * The options of {@value #JVM_OPTS_VARIABLE}'s value: its words.
     *
     * @param value the variable's value, or null when it is not set
     * @throws IllegalArgumentException naming the variable and the word that is not an option
     */
    static List<String> siteJvmOptions(String value) {
        if (value == null || value.isBlank()) {
            return List.of();
        }
        List<String> options = new ArrayList<>();
        for (String word : value.trim().split("\\s+")) {
            if (!word.startsWith("-")) {
                throw new IllegalArgumentException(JVM_OPTS_VARIABLE + " holds '" + word
                        + "', which is not a JVM option (each starts with '-'; the variable is split at spaces)");
            }
            options.add(word);
        }
        return options;
    }

    private static List<String> readClassPath(Path file) {
        try {
            String text = Files.readString(file, StandardCharsets.UTF_8).trim();
            List<String> entries = new ArrayList<>();
            for (String entry : text.split(File.pathSeparator)) {
                if (!entry.isBlank()) {
                    entries.add(entry.trim());
                }
            }
            return entries;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + file + " (build the project first: bin/build)", e);
        }
    }

    private static Properties runtimeProperties() {
        Properties properties = new Properties();
        try (InputStream in = JckptHome.class.getResourceAsStream("/jckpt-runtime.properties")) {
            if (in == null) {
                throw new IllegalStateException("jckpt-runtime.properties missing from the runtime module");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return properties;
    }

    private static List<String> jvmFlags(Properties properties) {
        List<String> flags = new ArrayList<>(split(properties.getProperty("jvm.flags", "")));
        if (Runtime.version().feature() >= 24) {
            flags.addAll(split(properties.getProperty("jvm.flags.jdk24", "")));
        }
        return flags;
    }

    private static List<String> split(String flags) {
        return Arrays.stream(flags.trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    }

    /** The runtime module's target directory. */
    public Path home() {
        return home;
    }

    /**
     * The class path of a rank JVM: the runtime and the library with its dependencies; no MPJ Express.
     * The runtime comes as its jar with the class-data archive, else as its {@code classes} directory.
     */
    public List<String> libClassPath() {
        if (classDataSharing.isPresent()) {
            return classDataSharing.get().classPath();
        }
        List<String> lib = new ArrayList<>();
        lib.add(home.resolve("classes").toAbsolutePath().toString());
        lib.addAll(dependencies);
        return lib;
    }

    /** The library's dependencies: the rank class path after the runtime itself. */
    public List<String> dependencies() {
        return dependencies;
    }

    /**
     * The SLF4J binding ranks get when the program brings none ({@code slf4j-simple}, listed by the build
     * in {@code jckpt-log.classpath}; the library itself depends on {@code slf4j-api} only).
     */
    public List<String> simpleBinding() {
        return readClassPath(home.resolve("jckpt-log.classpath"));
    }

    /** The runtime module's jar, when packaged. */
    public Optional<Path> runtimeJar() {
        return runtimeJar;
    }

    /** The class-data archive rank JVMs map, when there is a usable one ({@link ClassDataSharing#find}). */
    public Optional<ClassDataSharing> classDataSharing() {
        return classDataSharing;
    }

    /** MPJ Express's jars and the log4j 1.2 API they need. */
    public List<String> mpjClassPath() {
        return mpjClassPath;
    }

    /**
     * The JVM flags every rank JVM gets: those Chronicle Bytes needs for this JDK, the archive's, then
     * those of {@value #JVM_OPTS_VARIABLE}.
     */
    public List<String> jvmFlags() {
        List<String> flags = new ArrayList<>(baseJvmFlags);
        classDataSharing.ifPresent(cds -> flags.addAll(cds.jvmFlags()));
        flags.addAll(siteJvmOptions);
        return flags;
    }

    /** The JVM flags the library needs for this JDK (those Chronicle Bytes needs), without the archive's. */
    public List<String> baseJvmFlags() {
        return baseJvmFlags;
    }

    /** The MPJ_HOME given to ranks: only its conf/mpjexpress.conf is read (log level off). */
    public Path mpjHome() {
        return home.resolve("classes").resolve("mpj-home");
    }

    /** The java executable running this launcher; ranks run on the same JDK. */
    public static String javaExecutable() {
        return Paths.get(System.getProperty("java.home"), "bin", "java").toString();
    }
}
