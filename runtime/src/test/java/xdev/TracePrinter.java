package xdev;

/**
 * Prints a stack trace from a class of MPJ Express's {@code xdev} package, as niodev does when a peer's
 * connection breaks (its own {@code printStackTrace} calls): for {@code WorldTracesTest}, which cannot
 * make MPJ Express print one at a chosen moment.
 */
public final class TracePrinter {
    private TracePrinter() {
    }

    /** {@code e.printStackTrace()} as niodev calls it: to whatever {@code System.err} is now. */
    public static void print(Exception e) {
        e.printStackTrace();
    }
}
