package io.jckpt.runtime.launcher;

import io.jckpt.cli.UsageException;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Enumeration;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Which SLF4J binding the rank JVMs get, and how it is configured.
 *
 * <p>The library depends on {@code slf4j-api} only. Its classes, and so SLF4J's {@code LoggerFactory},
 * live in the rank JVM's application class loader, while the program lives in a child loader per MPJ
 * world ({@link io.jckpt.runtime.rank.WorldClassLoader}, parent first). SLF4J looks for its provider
 * with the class loader of {@code LoggerFactory}, and logback or log4j look for their configuration
 * with their own: a binding the program brings on {@code -cp} alone would never be seen, and one per
 * world would be configured anew at every recovery. So:
 * <ul>
 *   <li>When the program's class path has an SLF4J 2 provider (an entry with
 *   {@value #PROVIDER_SERVICE}), that entry and the jars of the same Maven group id (logback-classic
 *   brings logback-core; log4j-slf4j2-impl brings log4j-api and log4j-core) are added to the rank JVM's
 *   class path, after the library's. Library and program then log through that one binding, configured
 *   once per rank JVM. The program's {@code logback-test.xml}/{@code logback.xml} (or
 *   {@code log4j2-test.xml}/{@code log4j2.xml}) found first on its class path is named with
 *   {@code -Dlogback.configurationFile} ({@code -Dlog4j2.configurationFile}) unless {@code --jvm-opt}
 *   gives one. The levels are the program's configuration's; {@code --log-level} does not apply.</li>
 *   <li>Otherwise the ranks get the launcher's {@code slf4j-simple} (on stderr, so the launcher
 *   forwards it as {@code [rank r]} lines): the program's loggers at INFO, the library's own
 *   ({@code io.jckpt}, and Chronicle's {@code net.openhft}) at {@code --log-level} (default WARN).</li>
 * </ul>
 */
final class RankLogging {
    /** The service file an SLF4J 2 provider declares itself in. */
    static final String PROVIDER_SERVICE = "META-INF/services/org.slf4j.spi.SLF4JServiceProvider";
    /** Levels {@code --log-level} accepts. */
    static final List<String> LEVELS = List.of("trace", "debug", "info", "warn", "error", "off");
    /** The library's loggers' level when {@code --log-level} is not given. */
    static final String DEFAULT_LIBRARY_LEVEL = "warn";
    private static final List<String> LIBRARY_LOGGERS = List.of("io.jckpt", "net.openhft");

    private final List<String> classPath;
    private final List<String> jvmFlags;
    private final String description;

    private RankLogging(List<String> classPath, List<String> jvmFlags, String description) {
        this.classPath = List.copyOf(classPath);
        this.jvmFlags = List.copyOf(jvmFlags);
        this.description = description;
    }

    /**
     * Decides the ranks' binding.
     *
     * @param appClassPath  the program's class path entries
     * @param simpleBinding the launcher's slf4j-simple jars
     * @param logLevel      {@code --log-level}, or {@code null}
     * @param jvmOptions    the job's {@code --jvm-opt}s (a configuration file named there wins)
     * @return the rank JVMs' extra class path entries and flags
     */
    static RankLogging decide(List<String> appClassPath, List<String> simpleBinding, String logLevel,
                              List<String> jvmOptions) {
        Optional<String> provider = appClassPath.stream().filter(RankLogging::declaresProvider).findFirst();
        if (provider.isEmpty()) {
            String level = logLevel == null ? DEFAULT_LIBRARY_LEVEL : logLevel;
            List<String> flags = new ArrayList<>();
            flags.add("-Dorg.slf4j.simpleLogger.defaultLogLevel=info");
            for (String logger : LIBRARY_LOGGERS) {
                flags.add("-Dorg.slf4j.simpleLogger.log." + logger + "=" + level);
            }
            flags.add("-Dorg.slf4j.simpleLogger.showThreadName=true");
            return new RankLogging(simpleBinding, flags, "slf4j-simple (the program brings no SLF4J binding):"
                    + " program at INFO, library (io.jckpt) at " + level.toUpperCase(java.util.Locale.ROOT));
        }
        Set<String> jars = new LinkedHashSet<>();
        jars.add(provider.get());
        Optional<String> group = mavenGroup(provider.get());
        if (group.isPresent()) {
            for (String entry : appClassPath) {
                if (mavenGroup(entry).equals(group)) {
                    jars.add(entry);
                }
            }
        }
        List<String> flags = new ArrayList<>();
        String config = "its default configuration";
        for (String[] framework : new String[][] {
                {"logback.configurationFile", "logback-test.xml", "logback.xml"},
                {"log4j2.configurationFile", "log4j2-test.xml", "log4j2.xml", "log4j2.properties"}}) {
            String property = framework[0];
            if (jvmOptions.stream().anyMatch(o -> o.startsWith("-D" + property + "="))) {
                config = "-D" + property + " from --jvm-opt";
                continue;
            }
            for (int i = 1; i < framework.length; i++) {
                Optional<String> url = findResource(appClassPath, framework[i]);
                if (url.isPresent()) {
                    flags.add("-D" + property + "=" + url.get());
                    config = url.get();
                    break;
                }
            }
            if (!flags.isEmpty()) {
                break;
            }
        }
        List<String> names = jars.stream().map(j -> Paths.get(j).getFileName().toString()).toList();
        return new RankLogging(new ArrayList<>(jars), flags, "the program's SLF4J binding ("
                + String.join(", ", names) + ") with " + config
                + (logLevel != null ? "; --log-level " + logLevel + " ignored: set the level of io.jckpt there" : ""));
    }

    /** @return class path entries the rank JVMs get after the library's */
    List<String> classPath() {
        return classPath;
    }

    /** @return system properties the rank JVMs get */
    List<String> jvmFlags() {
        return jvmFlags;
    }

    /** @return one line for the job's log: which binding and configuration */
    String description() {
        return description;
    }

    static boolean declaresProvider(String entry) {
        File file = new File(entry);
        if (file.isDirectory()) {
            return new File(file, PROVIDER_SERVICE).isFile();
        }
        if (!file.isFile()) {
            return false;
        }
        try (JarFile jar = new JarFile(file)) {
            return jar.getEntry(PROVIDER_SERVICE) != null;
        } catch (IOException e) {
            return false; // not a jar: the class path check reports it
        }
    }

    /** The group id in a jar's {@code META-INF/maven/GROUP/ARTIFACT/pom.properties}, when it has one. */
    static Optional<String> mavenGroup(String entry) {
        File file = new File(entry);
        if (!file.isFile()) {
            return Optional.empty();
        }
        try (JarFile jar = new JarFile(file)) {
            Enumeration<JarEntry> entries = jar.entries();
            while (entries.hasMoreElements()) {
                JarEntry e = entries.nextElement();
                String name = e.getName();
                if (name.startsWith("META-INF/maven/") && name.endsWith("/pom.properties")) {
                    Properties p = new Properties();
                    try (InputStream in = jar.getInputStream(e)) {
                        p.load(in);
                    }
                    return Optional.ofNullable(p.getProperty("groupId"));
                }
            }
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** The URL of the first {@code name} on the class path, as a class loader would find it. */
    static Optional<String> findResource(List<String> classPath, String name) {
        for (String entry : classPath) {
            Path path = Paths.get(entry);
            if (Files.isDirectory(path)) {
                Path file = path.resolve(name);
                if (Files.isRegularFile(file)) {
                    return Optional.of(file.toUri().toString());
                }
            } else if (Files.isRegularFile(path)) {
                try (JarFile jar = new JarFile(path.toFile())) {
                    if (jar.getEntry(name) != null) {
                        return Optional.of("jar:" + path.toUri() + "!/" + name);
                    }
                } catch (IOException e) {
                    // not a jar
                }
            }
        }
        return Optional.empty();
    }

    static void requireLevel(String level) throws UsageException {
        if (!LEVELS.contains(level)) {
            throw new UsageException("--log-level must be one of " + String.join(", ", LEVELS) + ", got '" + level + "'");
        }
    }
}
