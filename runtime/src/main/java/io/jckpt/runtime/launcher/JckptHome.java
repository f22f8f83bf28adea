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
import java.util.Properties;

/**
 * Where the launcher finds what rank JVMs need: the library's class path, MPJ Express's jars (kept
 * apart: each MPJ world gets its own class loader over them), the JVM flags, the java executable.
 *
 * <p>The home directory is the runtime module's {@code target} directory, given as system property
 * {@code jckpt.home} by {@code bin/ckpt-run}; the build writes {@code jckpt-lib.classpath} and
 * {@code jckpt-mpj.classpath} there.
 */
public final class JckptHome {
    private final Path home;
    private final List<String> libClassPath;
    private final List<String> mpjClassPath;
    private final List<String> jvmFlags;

    private JckptHome(Path home, List<String> libClassPath, List<String> mpjClassPath, List<String> jvmFlags) {
        this.home = home;
        this.libClassPath = List.copyOf(libClassPath);
        this.mpjClassPath = List.copyOf(mpjClassPath);
        this.jvmFlags = List.copyOf(jvmFlags);
    }

    /** Locates the home from the {@code jckpt.home} system property. */
    public static JckptHome locate() {
        String property = System.getProperty("jckpt.home");
        if (property == null) {
            throw new IllegalStateException("system property jckpt.home is not set: start the launcher with bin/ckpt-run");
        }
        return at(Paths.get(property));
    }

    /** Reads the home at {@code home} (the runtime module's target directory). */
    public static JckptHome at(Path home) {
        Path classes = home.resolve("classes");
        List<String> lib = new ArrayList<>();
        lib.add(classes.toAbsolutePath().toString());
        lib.addAll(readClassPath(home.resolve("jckpt-lib.classpath")));
        List<String> mpj = readClassPath(home.resolve("jckpt-mpj.classpath"));
        return new JckptHome(home, lib, mpj, readJvmFlags());
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

    private static List<String> readJvmFlags() {
        Properties properties = new Properties();
        try (InputStream in = JckptHome.class.getResourceAsStream("/jckpt-runtime.properties")) {
            if (in == null) {
                throw new IllegalStateException("jckpt-runtime.properties missing from the runtime module");
            }
            properties.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
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

    /** The class path of a rank JVM: the runtime and the library with its dependencies; no MPJ Express. */
    public List<String> libClassPath() {
        return libClassPath;
    }

    /** MPJ Express's jars and the log4j 1.2 API they need. */
    public List<String> mpjClassPath() {
        return mpjClassPath;
    }

    /** The entries of {@link #mpjClassPath()} whose file name starts with one of {@code names} + '-'. */
    public List<String> mpjJars(String... names) {
        List<String> found = new ArrayList<>();
        for (String name : names) {
            String match = mpjClassPath.stream()
                    .filter(p -> Paths.get(p).getFileName().toString().startsWith(name + "-"))
                    .findFirst()
                    .orElseThrow(() -> new IllegalStateException("MPJ Express jar " + name + " not in " + mpjClassPath));
            found.add(match);
        }
        return found;
    }

    /** The JVM flags every rank JVM gets (those Chronicle Bytes needs, for this JDK). */
    public List<String> jvmFlags() {
        return jvmFlags;
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
