package io.jckpt.chaos;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The processes of one launched job, found from outside the launcher: every rank and standby JVM
 * carries the job's id in its environment ({@code JCKPT_JOB_ID}), its rank in {@code JCKPT_RANK}
 * (standbys: {@code JCKPT_STANDBY}) and the epoch it was started in ({@code JCKPT_EPOCH}), readable in
 * {@code /proc/<pid>/environ} by the same user. Signals go through {@code kill(1)} (SIGSTOP) or
 * {@link ProcessHandle#destroyForcibly()} (SIGKILL, no fork: two ranks killed microseconds apart).
 */
final class JobProcesses {
    private static final Path PROC = Path.of("/proc");

    /** One JVM of the job: rank or standby number (-1 when it is the other kind), start epoch. */
    record Member(long pid, int rank, int standby, int epoch) {
    }

    private JobProcesses() {
    }

    /** Whether {@code /proc} can be read at all (Linux). */
    static boolean available() {
        return Files.isReadable(PROC.resolve("self/environ"));
    }

    /** Every live process whose environment names job {@code jobId}. */
    static List<Member> of(String jobId) {
        List<Member> found = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(PROC)) {
            for (Path dir : dirs) {
                String name = dir.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                Map<String, String> env = environment(dir);
                if (env == null || !jobId.equals(env.get("JCKPT_JOB_ID"))) {
                    continue;
                }
                long pid = Long.parseLong(name);
                if (!alive(pid)) {
                    continue;
                }
                found.add(new Member(pid, intOr(env.get("JCKPT_RANK")), intOr(env.get("JCKPT_STANDBY")),
                        Math.max(0, intOr(env.get("JCKPT_EPOCH")))));
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot list /proc: " + e.getMessage(), e);
        }
        return found;
    }

    /** Whether {@code pid} is a live process (not gone, not a zombie waiting for its parent). */
    static boolean alive(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(pid + "/stat"), StandardCharsets.ISO_8859_1);
            int close = stat.lastIndexOf(')');
            return close > 0 && close + 2 < stat.length() && stat.charAt(close + 2) != 'Z' && stat.charAt(close + 2) != 'X';
        } catch (IOException e) {
            return false;
        }
    }

    /** The state letter of {@code pid} in /proc (R, S, T = stopped, ...), or empty when gone. */
    static Optional<Character> state(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(pid + "/stat"), StandardCharsets.ISO_8859_1);
            int close = stat.lastIndexOf(')');
            return Optional.of(stat.charAt(close + 2));
        } catch (IOException | RuntimeException e) {
            return Optional.empty();
        }
    }

    private static Map<String, String> environment(Path dir) {
        byte[] raw;
        try {
            raw = Files.readAllBytes(dir.resolve("environ"));
        } catch (IOException | SecurityException e) {
            return null; // gone, or another user's
        }
        Map<String, String> env = new HashMap<>();
        int start = 0;
        for (int i = 0; i <= raw.length; i++) {
            if (i == raw.length || raw[i] == 0) {
                if (i > start) {
                    String entry = new String(raw, start, i - start, StandardCharsets.UTF_8);
                    int eq = entry.indexOf('=');
                    if (eq > 0 && entry.startsWith("JCKPT_")) {
                        env.put(entry.substring(0, eq), entry.substring(eq + 1));
                    }
                }
                start = i + 1;
            }
        }
        return env;
    }

    private static int intOr(String text) {
        if (text == null) {
            return -1;
        }
        try {
            return Integer.parseInt(text.trim());
        } catch (NumberFormatException e) {
            return -1;
        }
    }

    /** SIGKILL to each pid, back to back. */
    static void kill(List<Long> pids) {
        for (long pid : pids) {
            ProcessHandle.of(pid).ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    /** Sends {@code signal} (e.g. "STOP", "CONT") with kill(1); bounded. */
    static void signal(String signal, long pid) throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        kill.getOutputStream().close();
        if (!kill.waitFor(5, java.util.concurrent.TimeUnit.SECONDS)) {
            kill.destroyForcibly();
            throw new IOException("kill -" + signal + " " + pid + " did not return within 5 s");
        }
    }

    /** Waits (at most {@code millis}) until none of {@code pids} is alive; returns those still alive. */
    static List<Long> awaitGone(List<Long> pids, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        List<Long> left = new ArrayList<>(pids);
        while (true) {
            left.removeIf(pid -> !alive(pid));
            if (left.isEmpty() || System.nanoTime() >= deadline) {
                return left;
            }
            Thread.sleep(5);
        }
    }
}
