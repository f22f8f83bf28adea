package io.jckpt.runtime.launcher;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The library's class-data-sharing archive for rank JVMs: a dynamic CDS archive
 * ({@code -XX:ArchiveClassesAtExit}) of the classes a rank loads from the library class path
 * (Chronicle, Kryo, JNR, both levels, the runtime), made once by {@code bin/build} with a training
 * run ({@code io.jckpt.runtime.rank.ClassDataTraining}) and mapped by every rank and standby JVM with
 * {@code -XX:SharedArchiveFile}. A rank then does not parse and verify those classes again: Ckpt.open
 * on a fresh rank JVM is about 40% cheaper in CPU (see docs/benchmarks.md).
 *
 * <p>CDS needs a class path of jars only, so with the archive the rank JVMs get the runtime
 * module's jar instead of its {@code classes} directory. The archive is used only when it fits:
 * made by this very JVM build ({@code java.vm.version}), for this class path, and with a runtime jar
 * not older than any compiled class (so that a test run after a change, before the jar is packaged
 * again, runs the new classes). The JVM checks the jars' sizes and times against the archive too and
 * ignores a stale archive; its CDS log is switched off, so that never reaches a program's output.
 *
 * <p>Files, in the runtime module's target directory: {@value #ARCHIVE} and {@value #DESCRIPTION}
 * (the JVM build, the class path and its jars' sizes and times it was made for).
 */
public final class ClassDataSharing {
    /** The archive's file name. */
    public static final String ARCHIVE = "jckpt-lib.jsa";
    /** What the archive was made for: java.vm.version, the class path, its jars' sizes and times. */
    public static final String DESCRIPTION = "jckpt-lib.jsa.properties";
    /** The training program. */
    static final String TRAINING_MAIN = "io.jckpt.runtime.rank.ClassDataTraining";
    private static final long TRAINING_TIMEOUT_SECONDS = 120;

    private final Path archive;
    private final List<String> classPath;

    private ClassDataSharing(Path archive, List<String> classPath) {
        this.archive = archive;
        this.classPath = List.copyOf(classPath);
    }

    /** The archive file. */
    public Path archive() {
        return archive;
    }

    /** The rank JVMs' class path with the archive: the runtime jar, then the library's dependencies. */
    public List<String> classPath() {
        return classPath;
    }

    /** The JVM flags that map the archive (and keep CDS messages out of the program's output). */
    public List<String> jvmFlags() {
        return List.of("-XX:SharedArchiveFile=" + archive, "-Xlog:cds=off", "-Xlog:cds+dynamic=off");
    }

    /**
     * The archive of {@code home} when it can be used by ranks started from this JVM.
     *
     * @param home         the runtime module's target directory
     * @param runtimeJar   the runtime module's jar
     * @param dependencies the library's dependencies (the rest of the rank class path)
     * @return the archive, or empty: ranks load their classes from the class path as usual
     */
    public static Optional<ClassDataSharing> find(Path home, Path runtimeJar, List<String> dependencies) {
        Path archive = home.resolve(ARCHIVE);
        Path description = home.resolve(DESCRIPTION);
        if (!Files.isRegularFile(archive) || !Files.isRegularFile(description) || !Files.isRegularFile(runtimeJar)) {
            return Optional.empty();
        }
        List<String> classPath = classPath(runtimeJar, dependencies);
        Properties made = new Properties();
        try (InputStream in = Files.newInputStream(description)) {
            made.load(in);
            if (!System.getProperty("java.vm.version").equals(made.getProperty("java.vm.version"))
                    || !String.join(File.pathSeparator, classPath).equals(made.getProperty("class.path"))
                    || !jarStamps(classPath).equals(made.getProperty("jar.stamps"))
                    || newestClassFile(home.resolve("classes")).compareTo(Files.getLastModifiedTime(runtimeJar)) > 0) {
                return Optional.empty();
            }
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty(); // unreadable: as if there were none
        }
        return Optional.of(new ClassDataSharing(archive, classPath));
    }

    /**
     * Makes the archive of {@code home} for this JVM build with the training run (replacing any
     * other), unless a usable one is there.
     *
     * @param home         the runtime module's target directory
     * @param runtimeJar   the runtime module's jar
     * @param dependencies the library's dependencies
     * @param jvmFlags     the rank JVMs' flags (the training runs with them)
     * @return the archive
     * @throws IOException when the training run fails or writes no archive
     */
    public static ClassDataSharing create(Path home, Path runtimeJar, List<String> dependencies, List<String> jvmFlags)
            throws IOException {
        Optional<ClassDataSharing> existing = find(home, runtimeJar, dependencies);
        if (existing.isPresent()) {
            return existing.get();
        }
        List<String> classPath = classPath(runtimeJar, dependencies);
        for (String entry : classPath) {
            if (!Files.isRegularFile(Path.of(entry))) {
                throw new IOException("class-data sharing needs a class path of jars; " + entry
                        + (Files.isDirectory(Path.of(entry)) ? " is a directory (modules built without package?)" : " is missing"));
            }
        }
        Path archive = home.resolve(ARCHIVE);
        Path partial = home.resolve(ARCHIVE + ".partial");
        Files.deleteIfExists(partial);
        Files.deleteIfExists(home.resolve(DESCRIPTION)); // the old archive no longer describes anything
        List<String> command = new ArrayList<>();
        command.add(JckptHome.javaExecutable());
        command.addAll(jvmFlags);
        command.add("-XX:ArchiveClassesAtExit=" + partial);
        command.add("-Xlog:cds=off");
        command.add("-Xlog:cds+dynamic=off");
        command.add("-cp");
        command.add(String.join(File.pathSeparator, classPath));
        command.add(TRAINING_MAIN);
        Path scratch = Files.createTempDirectory("jckpt-cds-training");
        command.add(scratch.resolve("stores").toString());
        Path log = scratch.resolve("training.log");
        Process p = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
        try {
            if (!p.waitFor(TRAINING_TIMEOUT_SECONDS, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("class-data training did not finish within " + TRAINING_TIMEOUT_SECONDS + " s");
            }
            if (p.exitValue() != 0 || !Files.isRegularFile(partial)) {
                throw new IOException("class-data training failed (exit " + p.exitValue() + "): " + Files.readString(log).trim());
            }
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while making the class-data archive", e);
        } finally {
            try (Stream<Path> files = Files.walk(scratch)) {
                for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(f);
                }
            }
        }
        Files.move(partial, archive, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        Properties made = new Properties();
        made.setProperty("java.vm.version", System.getProperty("java.vm.version"));
        made.setProperty("class.path", String.join(File.pathSeparator, classPath));
        made.setProperty("jar.stamps", jarStamps(classPath));
        Path description = home.resolve(DESCRIPTION + ".partial");
        try (OutputStream out = Files.newOutputStream(description)) {
            made.store(out, "what " + ARCHIVE + " was made for (written by ClassDataSharing)");
        }
        Files.move(description, home.resolve(DESCRIPTION), StandardCopyOption.REPLACE_EXISTING,
                StandardCopyOption.ATOMIC_MOVE);
        return find(home, runtimeJar, dependencies).orElseThrow(() -> new IOException("the new archive "
                + archive + " does not fit " + runtimeJar + " (is the jar older than target/classes?)"));
    }

    /**
     * {@code bin/build}: makes the archive of the home given as the only argument, for the JDK running
     * this, unless a usable one is there. Exit status 0 when there is one afterwards, 1 otherwise (the
     * build goes on without it: ranks then load classes from the class path).
     *
     * @param args the runtime module's target directory
     */
    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: ClassDataSharing RUNTIME_TARGET_DIR");
            System.exit(2);
        }
        try {
            JckptHome home = JckptHome.at(Path.of(args[0]));
            Path jar = home.runtimeJar().orElseThrow(() -> new IOException("no runtime jar in " + args[0]
                    + ": package the project first"));
            ClassDataSharing made = create(home.home(), jar, home.dependencies(), home.baseJvmFlags());
            System.err.println("build: class-data archive " + made.archive() + " ("
                    + Files.size(made.archive()) / (1 << 20) + " MiB)");
        } catch (IOException | RuntimeException e) {
            System.err.println("build: no class-data archive for rank JVMs: " + e.getMessage());
            System.exit(1);
        }
    }

    private static List<String> classPath(Path runtimeJar, List<String> dependencies) {
        List<String> classPath = new ArrayList<>();
        classPath.add(runtimeJar.toAbsolutePath().toString());
        classPath.addAll(dependencies);
        return classPath;
    }

    /** Size and modification time of every jar: the JVM rejects an archive when one changed, and so do we. */
    private static String jarStamps(List<String> classPath) throws IOException {
        StringBuilder stamps = new StringBuilder();
        for (String entry : classPath) {
            Path jar = Path.of(entry);
            if (!Files.isRegularFile(jar)) {
                return "not all jars"; // matches no archive: CDS takes jars only
            }
            stamps.append(Files.size(jar)).append('@').append(Files.getLastModifiedTime(jar).toMillis()).append(';');
        }
        return stamps.toString();
    }

    private static FileTime newestClassFile(Path classes) throws IOException {
        FileTime newest = FileTime.fromMillis(0);
        if (!Files.isDirectory(classes)) {
            return newest;
        }
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path f : (Iterable<Path>) files.filter(Files::isRegularFile)::iterator) {
                FileTime t = Files.getLastModifiedTime(f);
                if (t.compareTo(newest) > 0) {
                    newest = t;
                }
            }
        }
        return newest;
    }
}
