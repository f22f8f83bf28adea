package io.jckpt;

import java.nio.file.Path;

/** A store could not be used: directory unwritable, disk or memory full, a file unreadable. */
public final class StorageException extends CkptException {
    private static final long serialVersionUID = 1L;
    private final transient Path path;

    /**
     * @param path    the file or directory concerned
     * @param message what failed there
     * @param cause   the underlying failure, may be null
     */
    public StorageException(Path path, String message, Throwable cause) {
        super(path + ": " + message + (cause == null || cause.getMessage() == null ? "" : " (" + cause.getMessage() + ")"),
                cause);
        this.path = path;
    }

    /** @return the file or directory concerned */
    public Path path() {
        return path;
    }
}
