package io.jckpt.cli;

/**
 * Bad command-line input: printed as one line, exit code 2. A {@linkplain #help() help request}
 * travels the same way but is printed in full to standard output, exit code 0.
 */
public final class UsageException extends Exception {
    private static final long serialVersionUID = 1L;
    private final boolean help;

    public UsageException(String message) {
        this(message, false);
    }

    private UsageException(String message, boolean help) {
        super(message);
        this.help = help;
    }

    /** {@code --help}: the text to print. */
    public static UsageException helpRequested(String text) {
        return new UsageException(text, true);
    }

    /** Whether this is {@code --help} rather than an error. */
    public boolean help() {
        return help;
    }
}
