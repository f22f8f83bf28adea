package io.jckpt.runtime.launcher;

/** Describes process exit statuses the way a person reads them. */
final class Signals {
    private Signals() {
    }

    /** Whether an exit status is a death by a signal (the JDK reports signal s as 128 + s). */
    static boolean bySignal(int status) {
        return status > 128 && status < 128 + 65;
    }

    /** "exited with code 3", "killed by SIGKILL" (the JDK reports death by signal s as 128 + s). */
    static String describeExit(int status) {
        if (bySignal(status)) {
            return "killed by " + name(status - 128) + " (exit status " + status + ")";
        }
        return "exited with code " + status;
    }

    static String name(int signal) {
        return switch (signal) {
            case 1 -> "SIGHUP";
            case 2 -> "SIGINT";
            case 3 -> "SIGQUIT";
            case 4 -> "SIGILL";
            case 6 -> "SIGABRT";
            case 7 -> "SIGBUS";
            case 8 -> "SIGFPE";
            case 9 -> "SIGKILL";
            case 11 -> "SIGSEGV";
            case 13 -> "SIGPIPE";
            case 15 -> "SIGTERM";
            default -> "signal " + signal;
        };
    }
}
