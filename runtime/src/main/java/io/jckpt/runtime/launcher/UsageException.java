package io.jckpt.runtime.launcher;

/** Bad command-line input: printed as one line, exit code 2. */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
