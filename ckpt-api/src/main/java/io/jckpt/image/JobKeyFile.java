package io.jckpt.image;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.EnumSet;
import java.util.HexFormat;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A job's key kept in a file ({@value #NAME}: the key in hex, one line, owner-only), so that a later
 * start of the same job (a relaunch, a restart from disk after every node was lost) authenticates the
 * checkpoints the job wrote before. Created atomically at the job's first start: the key is written to
 * a temporary file, forced, then hard-linked to its name, so that of ranks creating it at the same
 * moment one wins and every rank reads the winner's; never replaced. The key is never logged; an error
 * names the file, never its content.
 */
public final class JobKeyFile {
    /** The key file's name in the job's directory. */
    public static final String NAME = "job.key";
    private static final Logger LOG = LoggerFactory.getLogger(JobKeyFile.class);
    private static final Set<PosixFilePermission> OWNER_FILE = PosixFilePermissions.fromString("rw-------");
    private static final Set<PosixFilePermission> OWNER_DIR = PosixFilePermissions.fromString("rwx------");
    private static final int MAX_FILE_BYTES = 1024;

    private JobKeyFile() {
    }

    /**
     * Reads the key kept in {@code file}, or creates the file holding {@code fresh} when there is none (its
     * directory too, owner-only).
     *
     * @param file  the key file
     * @param fresh the key to keep if the file does not exist yet (at least {@link ImageKey#JOB_KEY_MIN_LENGTH} bytes)
     * @return the key in the file: {@code fresh}, or the one another start (or rank) put there
     * @throws IOException naming the file, when it cannot be created or read, or does not hold a key
     */
    public static byte[] readOrCreate(Path file, byte[] fresh) throws IOException {
        if (Files.exists(file)) {
            return read(file);
        }
        if (fresh == null || fresh.length < ImageKey.JOB_KEY_MIN_LENGTH) {
            throw new IllegalArgumentException("a job key needs at least " + ImageKey.JOB_KEY_MIN_LENGTH + " bytes");
        }
        Path dir = file.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            try {
                Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(OWNER_DIR));
            } catch (FileAlreadyExistsException e) {
                // made at the same moment by another rank
            }
        }
        Path temp = dir.resolve("." + NAME + "." + ProcessHandle.current().pid() + "." + System.nanoTime() + ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(temp, EnumSet.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(OWNER_FILE))) {
                ByteBuffer text = ByteBuffer.wrap((HexFormat.of().formatHex(fresh) + "\n").getBytes(StandardCharsets.US_ASCII));
                while (text.hasRemaining()) {
                    ch.write(text);
                }
                ch.force(true);
            }
            try {
                Files.createLink(file, temp); // atomic, and fails when the name exists: never replaces a key
            } catch (FileAlreadyExistsException e) {
                return read(file); // another rank or start was first: its key is the job's
            } catch (UnsupportedOperationException | FileSystemException e) {
                if (e instanceof FileSystemException && Files.exists(file)) {
                    return read(file);
                }
                // no hard links on this file system: a rename that refuses to replace an existing name
                try {
                    Files.move(temp, file);
                } catch (FileAlreadyExistsException raced) {
                    return read(file);
                }
            }
            forceDirectory(dir);
            return read(file);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().contains(file.toString())) {
                throw e;
            }
            throw new IOException("the job key file " + file + " cannot be created: " + e, e);
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /**
     * @param file a key file
     * @return the key it holds
     * @throws IOException naming the file, when it cannot be read or does not hold a key
     */
    public static byte[] read(Path file) throws IOException {
        byte[] content;
        try {
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new IOException("the job key file " + file + " has " + Files.size(file)
                        + " bytes: not a key file (a key is one line of hex)");
            }
            content = Files.readAllBytes(file);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("the job key file")) {
                throw e;
            }
            throw new IOException("the job key file " + file + " cannot be read: " + e, e);
        }
        warnIfOthersMayRead(file);
        String text = new String(content, StandardCharsets.US_ASCII).strip();
        byte[] key;
        try {
            key = HexFormat.of().parseHex(text);
        } catch (IllegalArgumentException e) {
            throw new IOException("the job key file " + file + " does not hold a key in hex (" + e.getMessage() + ")");
        }
        if (key.length < ImageKey.JOB_KEY_MIN_LENGTH) {
            throw new IOException("the job key file " + file + " holds a key of " + key.length + " bytes; at least "
                    + ImageKey.JOB_KEY_MIN_LENGTH + " are needed");
        }
        return key;
    }

    /**
     * @param hex a job key in hex (the launcher's environment variable)
     * @param what where it came from, for the error
     * @return the key
     * @throws IllegalArgumentException naming {@code what} when it is no key
     */
    public static byte[] parse(String hex, String what) {
        byte[] key;
        try {
            key = HexFormat.of().parseHex(hex.strip());
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + " is not a job key in hex (" + e.getMessage() + ")");
        }
        if (key.length < ImageKey.JOB_KEY_MIN_LENGTH) {
            throw new IllegalArgumentException(what + " holds a key of " + key.length + " bytes; at least "
                    + ImageKey.JOB_KEY_MIN_LENGTH + " are needed");
        }
        return key;
    }

    private static void warnIfOthersMayRead(Path file) {
        try {
            Set<PosixFilePermission> perms = Files.getPosixFilePermissions(file);
            if (perms.stream().anyMatch(p -> p != PosixFilePermission.OWNER_READ && p != PosixFilePermission.OWNER_WRITE
                    && p != PosixFilePermission.OWNER_EXECUTE)) {
                LOG.warn("the job key file {} may be read or written by others ({}): chmod 600 {}", file,
                        PosixFilePermissions.toString(perms), file);
            }
        } catch (IOException | UnsupportedOperationException e) {
            LOG.debug("permissions of {} not known", file, e);
        }
    }

    private static void forceDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException e) {
            LOG.debug("cannot sync {}", dir, e);
        }
    }
}
