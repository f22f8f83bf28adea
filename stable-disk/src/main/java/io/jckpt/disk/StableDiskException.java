package io.jckpt.disk;

import java.io.IOException;
import java.nio.file.Path;

/**
 * Base of every error of the stable-disk level; always names the path concerned.
 */
public class StableDiskException extends IOException {
    private static final long serialVersionUID = 1L;
    private final transient Path path;

    /**
     * @param path    the file or directory concerned
     * @param message what happened
     * @param cause   the underlying error, or null
     */
    public StableDiskException(final Path path, final String message, final Throwable cause) {
        super(message + ": " + path, cause);
        this.path = path;
    }

    /**
     * @return the file or directory concerned
     */
    public Path path() {
        return path;
    }
}
