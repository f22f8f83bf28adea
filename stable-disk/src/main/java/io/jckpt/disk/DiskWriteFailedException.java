package io.jckpt.disk;

import java.nio.file.Path;

/**
 * Writing a checkpoint file or a commit marker failed. The previous committed generation is
 * untouched and the temporary file has been removed; the next disk round retries.
 */
public final class DiskWriteFailedException extends StableDiskException {
    private static final long serialVersionUID = 1L;

    /** Why the write failed, as far as the operating system's answer tells. */
    public enum Reason {
        /** No space left on the device, or a quota exceeded. */
        NO_SPACE,
        /** The directory cannot be created or written (a parent is a regular file, read-only file system, ...). */
        NOT_WRITABLE,
        /** The directory vanished while writing. */
        DIRECTORY_MISSING,
        /** Any other I/O error. */
        IO_ERROR
    }

    private final Reason reason;

    /**
     * @param reason  the classified reason
     * @param path    the file or directory that could not be written
     * @param message what was being done
     * @param cause   the operating system's error
     */
    public DiskWriteFailedException(final Reason reason, final Path path, final String message, final Throwable cause) {
        super(path, message + " (" + reason + (cause != null ? ": " + cause.getMessage() : "") + ")", cause);
        this.reason = reason;
    }

    /**
     * @return the classified reason
     */
    public Reason reason() {
        return reason;
    }
}
