package io.jckpt.runtime.launcher;

import io.jckpt.cli.UsageException;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The program part of a {@link LaunchSpec}: its class path (absolute entries), its main class and its
 * arguments, read from {@code -cp CLASSPATH MainClass args...} or {@code -jar APP.jar args...} and
 * {@code --cp-file FILE}s, checked (the entries of {@code -cp} exist, the main class is on the class path).
 *
 * @param classPath   absolute class path entries of the program
 * @param mainClass   the main class
 * @param programArgs the program's arguments
 */
public record LaunchProgram(List<String> classPath, String mainClass, List<String> programArgs) {

    /** Copies the lists (immutable). */
    public LaunchProgram {
        classPath = List.copyOf(classPath);
        programArgs = List.copyOf(programArgs);
    }

    /**
     * Reads the program's part of a command line.
     *
     * @param cp      {@code -cp}, or null
     * @param jar     {@code -jar}, or null
     * @param cpFiles the {@code --cp-file}s
     * @param rest    the main class and its arguments, or (with {@code -jar}) the arguments only
     * @return the checked program
     * @throws UsageException one line naming the option and the problem
     */
    static LaunchProgram resolve(String cp, String jar, List<String> cpFiles, List<String> rest) throws UsageException {
        String mainClass;
        List<String> programArgs;
        List<String> classPath;
        String shown = cp;
        if (jar != null) {
            if (cp != null) {
                throw new UsageException("-jar and -cp exclude each other: the class path comes from the jar's manifest"
                        + " (add entries with --cp-file FILE)");
            }
            classPath = new ArrayList<>();
            mainClass = readJarManifest(Paths.get(jar), classPath);
            programArgs = rest;
            shown = String.join(File.pathSeparator, classPath);
        } else {
            if (rest.isEmpty()) {
                throw new UsageException("no main class given (ckpt-run -np N -cp CLASSPATH MainClass, or -jar APP.jar);"
                        + " see ckpt-run --help");
            }
            if (shown == null) {
                shown = ".";
            }
            mainClass = rest.get(0);
            programArgs = rest.subList(1, rest.size());
            classPath = splitClassPath(shown);
        }
        for (String file : cpFiles) {
            classPath.addAll(readClassPathFile(Paths.get(file)));
        }
        if (jar == null && cp != null) {
            for (String entry : splitClassPath(cp)) {
                if (!new File(entry).exists()) {
                    throw new UsageException("-cp: class path entry " + entry + " does not exist");
                }
            }
        }
        requireMainClass(mainClass, classPath, shown);
        return new LaunchProgram(classPath, mainClass, programArgs);
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
}
