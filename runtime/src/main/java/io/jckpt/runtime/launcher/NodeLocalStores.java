package io.jckpt.runtime.launcher;

import io.jckpt.CkptOptions;
import io.jckpt.imem.ReplicaStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * Where ranks keep their node-local checkpoint stores ({@code <memory directory>/<jobId>/rank-<r>}, the
 * memory directory being the job's {@code --memory-dir} / {@code JCKPT_MEMORY_DIR} or
 * {@code CkptOptions.defaultMemoryDirectory()}), for node-loss injection and for cleaning up after a
 * job. Programs that set another memory directory in their code manage it themselves.
 *
 * <p>Ownership: a launcher writes {@value #OWNER_FILE} into its job's directory before it starts a
 * rank: its pid, its start time (so that a pid reused by another process is not taken for it) and
 * whether the store is kept for a restart (a job with an explicit {@code --job-id}). A store whose
 * launcher is gone is stale: removed when another job starts (unless kept) and by
 * {@code ckpt-run --clean}. A directory without an owner file (a store made outside the launcher)
 * is never touched.
 */
final class NodeLocalStores {
    /** The owner file in a job's store directory. */
    static final String OWNER_FILE = "launcher.owner";
    /** Start times read twice from the system may differ by rounding; a reused pid starts later than this. */
    private static final long START_TOLERANCE_MILLIS = 1_000;

    private NodeLocalStores() {
    }

    /**
     * The launcher that owns a job's store.
     *
     * @param pid         the launcher's process id
     * @param startMillis its start time (epoch milliseconds), -1 when the system did not say
     * @param keep        whether the store is kept after the launcher ends (explicit {@code --job-id})
     */
    record Owner(long pid, long startMillis, boolean keep) {
        /** This launcher process. */
        static Owner self(boolean keep) {
            ProcessHandle me = ProcessHandle.current();
            return new Owner(me.pid(), me.info().startInstant().map(i -> i.toEpochMilli()).orElse(-1L), keep);
        }

        /** Whether this launcher still runs: its pid is alive and started when the owner file says. */
        boolean alive() {
            Optional<ProcessHandle> handle = ProcessHandle.of(pid);
            if (handle.isEmpty() || !handle.get().isAlive()) {
                return false;
            }
            if (startMillis < 0) {
                return true; // cannot tell a reused pid apart: assume it is the owner (keep the store)
            }
            return handle.get().info().startInstant()
                    .map(i -> Math.abs(i.toEpochMilli() - startMillis) < START_TOLERANCE_MILLIS).orElse(true);
        }

        String encode() {
            return "pid=" + pid + "\nstarted=" + startMillis + "\nkeep=" + keep + "\n";
        }

        static Optional<Owner> decode(String text) {
            long pid = -1;
            long started = -1;
            Boolean keep = null;
            for (String line : text.split("\n")) {
                int eq = line.indexOf('=');
                if (eq < 0) {
                    continue;
                }
                String key = line.substring(0, eq).trim();
                String value = line.substring(eq + 1).trim();
                try {
                    switch (key) {
                        case "pid" -> pid = Long.parseLong(value);
                        case "started" -> started = Long.parseLong(value);
                        case "keep" -> keep = Boolean.parseBoolean(value);
                        default -> {
                            // a newer launcher's field: ignored
                        }
                    }
                } catch (NumberFormatException e) {
                    return Optional.empty();
                }
            }
            return pid > 0 && keep != null ? Optional.of(new Owner(pid, started, keep)) : Optional.empty();
        }
    }

    /**
     * Makes this launcher the owner of {@code jobId}'s store (created owner-only when missing).
     *
     * @throws IOException when another launcher that still runs owns it (the same --job-id twice),
     *                     or the owner file cannot be written
     */
    static void claim(Path memoryDirectory, String jobId, boolean keep) throws IOException {
        Path dir = memoryDirectory.resolve(jobId);
        createPrivateDirectories(dir);
        Optional<Owner> previous = owner(dir);
        long me = ProcessHandle.current().pid();
        if (previous.isPresent() && previous.get().pid() != me && previous.get().alive()) {
            throw new IOException("job " + jobId + " is running already (launcher pid " + previous.get().pid()
                    + " owns " + dir + ")");
        }
        Path temp = dir.resolve(OWNER_FILE + ".tmp-" + me);
        Files.writeString(temp, Owner.self(keep).encode(), StandardCharsets.UTF_8);
        Files.move(temp, dir.resolve(OWNER_FILE), StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    }

    /** The owner recorded in a job's store directory; empty when there is none (or it is unreadable). */
    static Optional<Owner> owner(Path jobDir) {
        try {
            return Owner.decode(Files.readString(jobDir.resolve(OWNER_FILE), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * Removes the stores of jobs whose launcher is gone.
     *
     * @param base        the memory directory the stores are in
     * @param onlyJobId   only this job's store; {@code null} for every job's
     * @param includeKept also stores kept for a restart (explicit --job-id); the start-up sweep does not
     * @param skipJobId   a job never removed (the caller's own); may be {@code null}
     * @param report      told one line per store removed, kept because its launcher runs, or not removable
     * @return the job ids whose stores were removed
     */
    static List<String> removeStale(Path base, String onlyJobId, boolean includeKept, String skipJobId,
                                    Consumer<String> report) {
        List<String> removed = new ArrayList<>();
        if (!Files.isDirectory(base)) {
            return removed;
        }
        List<Path> candidates = new ArrayList<>();
        if (onlyJobId != null) {
            candidates.add(base.resolve(onlyJobId));
        } else {
            try (DirectoryStream<Path> dirs = Files.newDirectoryStream(base)) {
                dirs.forEach(candidates::add);
            } catch (IOException e) {
                report.accept("cannot list " + base + ": " + e.getMessage());
                return removed;
            }
        }
        for (Path dir : candidates) {
            String jobId = dir.getFileName().toString();
            if (jobId.equals(skipJobId) || !Files.isDirectory(dir)) {
                continue;
            }
            Optional<Owner> owner = owner(dir);
            if (owner.isEmpty()) {
                if (onlyJobId != null) {
                    report.accept("job " + jobId + ": " + dir + " has no owner file (not made by ckpt-run): left alone");
                }
                continue;
            }
            if (owner.get().alive()) {
                if (onlyJobId != null || includeKept) {
                    report.accept("job " + jobId + ": its launcher (pid " + owner.get().pid() + ") runs: store kept");
                }
                continue;
            }
            if (owner.get().keep() && !includeKept) {
                continue;
            }
            try {
                ReplicaStore.wipe(dir);
                removed.add(jobId);
                report.accept("removed the node-local store of job " + jobId + " (" + dir + "): its launcher (pid "
                        + owner.get().pid() + ") is gone");
            } catch (IOException e) {
                report.accept("could not remove " + dir + ": " + e.getMessage());
            }
        }
        return removed;
    }

    /** Deletes one rank's store (a lost node) under {@code memoryDirectory}. */
    static void wipe(Path memoryDirectory, String jobId, int rank) {
        delete(memoryDirectory.resolve(jobId).resolve("rank-" + rank));
    }

    /** Deletes every rank's store of the job under {@code memoryDirectory}, its owner file too. */
    static void wipeJob(Path memoryDirectory, String jobId) {
        delete(memoryDirectory.resolve(jobId));
    }

    private static void delete(Path dir) {
        try {
            ReplicaStore.wipe(dir);
        } catch (IOException e) {
            System.err.println("ckpt-run: could not delete " + dir + ": " + e.getMessage());
        }
    }

    private static void createPrivateDirectories(Path dir) throws IOException {
        List<Path> missing = new ArrayList<>();
        for (Path p = dir.toAbsolutePath(); p != null && !Files.exists(p); p = p.getParent()) {
            missing.add(0, p);
        }
        for (Path p : missing) {
            try {
                Files.createDirectory(p, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // made at the same moment by another job's launcher or rank: fine
            }
        }
    }
}
