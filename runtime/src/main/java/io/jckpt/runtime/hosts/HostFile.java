package io.jckpt.runtime.hosts;

import io.jckpt.cli.UsageException;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Reads a hostfile in the usual mpirun format ({@code --hostfile}, {@code -machinefile}):
 *
 * <pre>
 * # comment
 * node01 slots=4          # Open MPI style
 * node02:2                # MPICH style
 * node03                  # 1 slot
 * node01 slots=2 max_slots=8
 * </pre>
 *
 * One host per line, {@code #} starts a comment, blank lines are skipped, a host without {@code slots=}
 * has 1 slot, a host named on several lines gets the sum of their slots (above: node01 has 6).
 * {@code max_slots=N} (or {@code max-slots=N}) is accepted and checked ({@code >= slots}) but not used: ranks
 * never oversubscribe a host. Every problem is a {@link UsageException} naming {@code file:line}.
 */
public final class HostFile {
    private HostFile() {
    }

    /**
     * @param file the hostfile
     * @return its hosts
     * @throws UsageException the file cannot be read, or a line is bad (naming {@code file:line})
     */
    public static HostList read(Path file) throws UsageException {
        List<String> lines;
        try {
            lines = Files.readAllLines(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UsageException("cannot read hostfile " + file + ": " + e);
        }
        return parse(file.toString(), lines);
    }

    /**
     * @param fileName the name used in messages and as the list's source
     * @param lines    the file's lines
     * @return its hosts
     * @throws UsageException for a bad line (naming {@code fileName:line}) or a file with no host
     */
    public static HostList parse(String fileName, List<String> lines) throws UsageException {
        List<Host> hosts = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String where = fileName + ":" + (i + 1);
            String line = lines.get(i);
            int hash = line.indexOf('#');
            if (hash >= 0) {
                line = line.substring(0, hash);
            }
            line = line.strip();
            if (line.isEmpty()) {
                continue;
            }
            hosts.add(parseLine(where, line));
        }
        if (hosts.isEmpty()) {
            throw new UsageException("hostfile " + fileName + " names no host (only comments and blank lines)");
        }
        return HostList.of("hostfile " + fileName, hosts);
    }

    private static Host parseLine(String where, String line) throws UsageException {
        String[] tokens = line.split("\\s+");
        String name = tokens[0];
        Integer slots = null;
        int colon = name.indexOf(':');
        if (colon >= 0) {
            slots = count(where, name.substring(colon + 1), "'" + name + "'", "slots");
            name = name.substring(0, colon);
        }
        if (!Host.validName(name)) {
            throw new UsageException(where + ": bad host name '" + name
                    + "' (letters, digits, '.', '_', '-', starting with a letter or digit)");
        }
        Integer maxSlots = null;
        for (int t = 1; t < tokens.length; t++) {
            String token = tokens[t];
            int eq = token.indexOf('=');
            String key = eq < 0 ? token : token.substring(0, eq);
            switch (key) {
                case "slots" -> {
                    if (slots != null) {
                        throw new UsageException(where + ": host " + name + " has its slots given twice");
                    }
                    slots = count(where, eq < 0 ? "" : token.substring(eq + 1), "'" + token + "'", "slots");
                }
                case "max_slots", "max-slots" -> {
                    if (maxSlots != null) {
                        throw new UsageException(where + ": host " + name + " has max_slots given twice");
                    }
                    maxSlots = count(where, eq < 0 ? "" : token.substring(eq + 1), "'" + token + "'", "max_slots");
                }
                default -> throw new UsageException(where + ": unknown attribute '" + token + "' of host " + name
                        + " (expected slots=N or max_slots=N)");
            }
        }
        int n = slots == null ? 1 : slots;
        if (maxSlots != null && maxSlots < n) {
            throw new UsageException(where + ": host " + name + " has max_slots=" + maxSlots + " below its slots=" + n);
        }
        return new Host(name, n);
    }

    /** Parses a count of at least 1; {@code what} quotes the offending text. */
    static int count(String where, String text, String what, String name) throws UsageException {
        int n;
        try {
            n = Integer.parseInt(text);
        } catch (NumberFormatException e) {
            throw new UsageException(where + ": " + what + ": " + name + " must be a whole number, got '" + text + "'");
        }
        if (n < 1) {
            throw new UsageException(where + ": " + what + ": " + name + " must be at least 1, got " + n);
        }
        return n;
    }
}
