package io.jckpt.testkit;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * A real run of {@code bin/ckpt-run}: a separate launcher process whose output (stdout and stderr)
 * is collected line by line with arrival times; every wait bounded. Used by the runtime's and the
 * samples' tests and by perf's launched sections. A wait that runs out throws an
 * {@link AssertionError} carrying the output so far.
 */
public final class LaunchedJob implements AutoCloseable {
    private static final Pattern JOB_ID = Pattern.compile("job ([0-9a-f]{12}): [0-9]+ ranks of ");
    private static final Pattern PIDS = Pattern.compile("ranks running \\(pids ([0-9 ]+)\\)");
    /** A launcher line's time stamp: seconds since the job started, as its events' {@code t}. */
    private static final Pattern STAMP = Pattern.compile("^\\[ckpt-run +([0-9]+\\.[0-9]+)s\\] ");

    /**
     * One output line.
     *
     * @param nanos {@link System#nanoTime()} when the line was read
     * @param text the line
     */
    public record Line(long nanos, String text) {
    }

    private final long startNanos;
    private final Process process;
    private final Path repo;
    private final List<String> args;
    private final List<Line> lines = new ArrayList<>();
    private final List<Thread> readers = new ArrayList<>();
    private int open = 2; // guarded by lines: output streams not yet at their end

    private LaunchedJob(long startNanos, Process process, Path repo, List<String> args) {
        this.startNanos = startNanos;
        this.process = process;
        this.repo = repo;
        this.args = List.copyOf(args);
        readers.add(reader(process.getInputStream(), "out"));
        readers.add(reader(process.getErrorStream(), "err"));
    }

    /** @return the repository (system property {@code jckpt.repo.root}, set by the build and bin/bench; else "..") */
    public static Path repoRoot() {
        String root = System.getProperty("jckpt.repo.root");
        return root != null ? Paths.get(root) : Paths.get("..").toAbsolutePath().normalize();
    }

    /** @return the runtime module's test classes (its test programs), for a job's {@code -cp} */
    public static Path testClasses() {
        return repoRoot().resolve("runtime/target/test-classes");
    }

    /** Starts {@code bin/ckpt-run args...} of {@link #repoRoot()}. */
    public static LaunchedJob start(String... args) throws IOException {
        return startWithEnvironment(Map.of(), args);
    }

    /** Starts {@code bin/ckpt-run args...} with {@code environment} added to the launcher's (and so the ranks'). */
    public static LaunchedJob startWithEnvironment(Map<String, String> environment, String... args) throws IOException {
        return start(repoRoot(), List.of(args), environment);
    }

    /** Starts {@code repo/bin/ckpt-run args...} in {@code repo}, with {@code environment} added. */
    public static LaunchedJob start(Path repo, List<String> args, Map<String, String> environment) throws IOException {
        return start(repo, args, environment, false);
    }

    /**
     * Starts {@code bin/ckpt-run args...} as a terminal starts a foreground job: in a session and process
     * group of its own ({@code setsid}), whose every process {@link #interruptGroup()} then signals as
     * Ctrl-C does.
     */
    public static LaunchedJob startInOwnProcessGroup(String... args) throws IOException {
        return start(repoRoot(), List.of(args), Map.of(), true);
    }

    /** SIGINT to the launcher's whole process group, as Ctrl-C in a terminal (see {@link #startInOwnProcessGroup}). */
    public void interruptGroup() throws IOException, InterruptedException {
        Process kill = new ProcessBuilder("kill", "-INT", "--", "-" + process.pid()).inheritIO().start();
        if (!kill.waitFor(10, java.util.concurrent.TimeUnit.SECONDS) || kill.exitValue() != 0) {
            kill.destroyForcibly();
            throw new AssertionError("kill -INT -" + process.pid() + " failed");
        }
    }

    /**
     * Starts {@code prefix... bin/ckpt-run args...}: the launcher under another command, e.g. a SLURM cluster's
     * login script and {@code salloc -N3 --no-kill} ({@code io.jckpt.testkit.hosts.TestSlurm#loginScript()}).
     * No {@code SLURM_*} variable of this JVM is passed on.
     */
    public static LaunchedJob startUnder(List<String> prefix, String... args) throws IOException {
        return start(repoRoot(), List.of(args), Map.of(), false, prefix);
    }

    private static LaunchedJob start(Path repo, List<String> args, Map<String, String> environment, boolean ownGroup)
            throws IOException {
        return start(repo, args, environment, ownGroup, List.of());
    }

    private static LaunchedJob start(Path repo, List<String> args, Map<String, String> environment, boolean ownGroup,
                                     List<String> prefix) throws IOException {
        List<String> command = new ArrayList<>();
        if (ownGroup) {
            command.add("setsid"); // not a group leader here: it calls setsid() and execs, keeping the pid
        }
        command.addAll(prefix);
        command.add(repo.resolve("bin/ckpt-run").toString());
        command.addAll(args);
        ProcessBuilder builder = new ProcessBuilder(command).directory(repo.toFile());
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        if (!prefix.isEmpty()) {
            builder.environment().keySet().removeIf(k -> k.startsWith("SLURM_"));
        }
        builder.environment().putAll(environment);
        long startNanos = System.nanoTime();
        return new LaunchedJob(startNanos, builder.start(), repo, args);
    }

    private Thread reader(InputStream stream, String name) {
        Thread thread = new Thread(() -> {
            try (BufferedReader reader = new BufferedReader(new InputStreamReader(stream, StandardCharsets.UTF_8))) {
                for (String line = reader.readLine(); line != null; line = reader.readLine()) {
                    synchronized (lines) {
                        lines.add(new Line(System.nanoTime(), line));
                        lines.notifyAll();
                    }
                }
            } catch (IOException ignored) {
                // process gone
            } finally {
                synchronized (lines) {
                    open--;
                    lines.notifyAll();
                }
            }
        }, "jckpt-launched-job-" + name);
        thread.setDaemon(true);
        thread.start();
        return thread;
    }

    /** @return {@link System#nanoTime()} just before the launcher process was started */
    public long startNanos() {
        return startNanos;
    }

    /** Waits (bounded) for a line containing {@code text}; returns it. */
    public Line awaitLine(String text, long millis) throws InterruptedException {
        return awaitLines(text, 1, millis);
    }

    /**
     * Waits (bounded) for a line containing {@code text}; null when the launcher's output ended (it
     * exited) without one.
     */
    public Line awaitLineOrExit(String text, long millis) throws InterruptedException {
        return await(text, 1, millis, true);
    }

    /**
     * Waits (bounded) until {@code count} lines contain {@code text}; returns the last of them, or null
     * when the launcher's output ended (it exited) with fewer.
     */
    public Line awaitLinesOrExit(String text, int count, long millis) throws InterruptedException {
        return await(text, count, millis, true);
    }

    /** Waits (bounded) until {@code count} lines contain {@code text}; returns the last of them. */
    public Line awaitLines(String text, int count, long millis) throws InterruptedException {
        return await(text, count, millis, false);
    }

    private Line await(String text, int count, long millis, boolean nullAtExit) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        synchronized (lines) {
            for (;;) {
                int found = 0;
                for (Line line : lines) {
                    if (line.text().contains(text) && ++found == count) {
                        return line;
                    }
                }
                if (nullAtExit && open == 0) {
                    return null;
                }
                long left = (deadline - System.nanoTime()) / 1_000_000L;
                if (left <= 0) {
                    throw new AssertionError((count == 1 ? "no line" : count + " lines") + " containing '" + text
                            + "' within " + millis + " ms; output:\n" + output());
                }
                lines.wait(left);
            }
        }
    }

    /** Waits (bounded) for the launcher to exit (killing it and its ranks when it does not); its exit status. */
    public int awaitExit(long millis) throws InterruptedException {
        if (!process.waitFor(millis, TimeUnit.MILLISECONDS)) {
            close();
            throw new AssertionError("launcher did not exit within " + millis + " ms; output:\n" + output());
        }
        for (Thread reader : readers) {
            reader.join(5_000);
        }
        return process.exitValue();
    }

    /** @return the output so far, one line each */
    public String output() {
        StringBuilder text = new StringBuilder();
        synchronized (lines) {
            for (Line line : lines) {
                text.append(line.text()).append('\n');
            }
        }
        return text.toString();
    }

    /** @return the output so far with each line's arrival time in seconds since the launch, e.g. {@code [  12.345] text} */
    public String timedOutput() {
        StringBuilder b = new StringBuilder();
        synchronized (lines) {
            for (Line line : lines) {
                b.append(String.format(java.util.Locale.ROOT, "[%9.3f] ", (line.nanos() - startNanos) / 1e9))
                        .append(line.text()).append('\n');
            }
        }
        return b.toString();
    }

    /** @return the text of the lines so far that contain {@code text} */
    public List<String> linesContaining(String text) {
        return lines(text).stream().map(Line::text).toList();
    }

    /** @return the lines so far (with their arrival times) that contain {@code text} */
    public List<Line> lines(String text) {
        List<Line> found = new ArrayList<>();
        synchronized (lines) {
            for (Line line : lines) {
                if (line.text().contains(text)) {
                    found.add(line);
                }
            }
        }
        return found;
    }

    /** @return the first capture group of {@code pattern} in the first line it is found in, or null */
    public String find(Pattern pattern) {
        synchronized (lines) {
            for (Line line : lines) {
                Matcher m = pattern.matcher(line.text());
                if (m.find()) {
                    return m.group(1);
                }
            }
        }
        return null;
    }

    /** @return the job id from the launcher's output */
    public String jobId() {
        Matcher matcher = JOB_ID.matcher(output());
        if (!matcher.find()) {
            throw new AssertionError("no job id in output:\n" + output());
        }
        return matcher.group(1);
    }

    /** Rank pids in rank order, from the launcher's "all N ranks running" line (already printed). */
    public long[] rankPids() {
        Matcher matcher = PIDS.matcher(output());
        if (!matcher.find()) {
            throw new AssertionError("no pids in output:\n" + output());
        }
        return Stream.of(matcher.group(1).trim().split(" ")).mapToLong(Long::parseLong).toArray();
    }

    /** As {@link #rankPids()}, waiting (bounded) for the line first. */
    public long[] awaitRankPids(long millis) throws InterruptedException {
        awaitLine("ranks running (pids", millis);
        return rankPids();
    }

    /**
     * @return the job's events file: {@code --events FILE}, else {@code events.jsonl} in
     *     {@code --output-dir DIR}, else in {@code out/<job id>} of the repository (the launcher's directory;
     *     the id of {@code --job-id}, else the one the launcher printed)
     */
    public Path eventsFile() {
        Path file = eventsFileIfNamed();
        return file != null ? file : repo.resolve("out").resolve(jobId()).resolve("events.jsonl"); // jobId() says why not
    }

    /** {@link #eventsFile()}, or null while it lies under a job id the launcher has not printed yet. */
    private Path eventsFileIfNamed() {
        String events = option("--events");
        if (events != null) {
            return repo.resolve(events);
        }
        String dir = option("--output-dir");
        String id = option("--job-id");
        if (dir == null && id == null) {
            Matcher printed = JOB_ID.matcher(output());
            if (!printed.find()) {
                return null;
            }
            id = printed.group(1);
        }
        return (dir != null ? repo.resolve(dir) : repo.resolve("out").resolve(id)).resolve("events.jsonl");
    }

    /** The launcher's options without a value; every other option takes one. */
    private static final java.util.Set<String> FLAGS = java.util.Set.of("-q", "--quiet", "--no-report", "--no-prefix",
            "--retry-program-errors", "-h", "--help", "-V", "--version");

    /** The value of a launcher option among the arguments before the program's (either form, the last wins), or null. */
    private String option(String name) {
        String value = null;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (!a.startsWith("-")) {
                break; // the main class: the rest are the program's
            }
            if (a.startsWith(name + "=")) {
                value = a.substring(name.length() + 1);
            } else if (!a.contains("=") && !FLAGS.contains(a) && i + 1 < args.size()) {
                String v = args.get(++i);
                if (a.equals(name)) {
                    value = v;
                } else if (a.equals("-jar")) {
                    break; // the program's arguments follow the jar
                }
            }
        }
        return value;
    }

    /**
     * @return the job's events written so far ({@link JobEvents#read}); after {@link #awaitExit}, all of them
     */
    public List<JobEvents.Event> events() {
        return JobEvents.read(eventsFile());
    }

    /**
     * How many times {@code rank} rolled back from {@code source} as {@code how} (the {@code rollback}
     * events: the console shows one {@code recovery} line per recovery, not a line per rank).
     *
     * @param rank   the rank
     * @param source {@code memory}, {@code disk} or {@code start}
     * @param how    a memory restore's kind ({@code local}, {@code receive}), or null for any
     * @return the count so far
     */
    public long rollbacks(int rank, String source, String how) {
        return JobEvents.ofType(events(), "rollback").stream()
                .filter(e -> e.number("rank") == rank && e.text("source").equals(source)
                        && (how == null || e.text("how").equals(how)))
                .count();
    }

    /**
     * Waits (bounded) until the events file holds an event of {@code type} that {@code test} accepts; the
     * file is read again at each new output line and at least every 20 ms (events of the file only, such
     * as {@code rank_completed}, have no line).
     *
     * @return the first such event
     * @throws AssertionError with the output so far when none comes within {@code millis}
     */
    public JobEvents.Event awaitEvent(String type, java.util.function.Predicate<JobEvents.Event> test, long millis)
            throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        for (;;) {
            // before the launcher printed the job id (its first line) the file is not known yet: no events
            Path file = eventsFileIfNamed();
            JobEvents.Event found = file != null ? JobEvents.first(JobEvents.read(file), type, test) : null;
            if (found != null) {
                return found;
            }
            long left = (deadline - System.nanoTime()) / 1_000_000L;
            if (left <= 0) {
                throw new AssertionError("no " + type + " event as expected within " + millis + " ms in "
                        + eventsFile() + "; output:\n" + output());
            }
            synchronized (lines) {
                lines.wait(Math.min(left, 20));
            }
        }
    }

    /**
     * Where an event's time lies on this process's {@link System#nanoTime()} clock, the clock of
     * {@link Line#nanos()} and of a test's own SIGKILL: the launcher's clock ({@code t}) placed by its
     * stamped lines ({@code [ckpt-run 1.234s] ...}), at the smallest delay any of them took to arrive
     * (1 ms resolution).
     *
     * @param event an event of this job
     * @return its time in nanos on this process's clock
     * @throws AssertionError when no launcher line has arrived yet
     */
    public long nanos(JobEvents.Event event) {
        long offset = Long.MAX_VALUE;
        synchronized (lines) {
            for (Line line : lines) {
                Matcher m = STAMP.matcher(line.text());
                if (m.find()) {
                    offset = Math.min(offset, line.nanos() - Math.round(Double.parseDouble(m.group(1)) * 1e9));
                }
            }
        }
        if (offset == Long.MAX_VALUE) {
            throw new AssertionError("no launcher line yet to place the events' clock; output:\n" + output());
        }
        return offset + Math.round(event.t() * 1e9);
    }

    /** @return the launcher's pid */
    public long launcherPid() {
        return process.pid();
    }

    /**
     * Waits (bounded by {@code millis}) until no process of the job is left: rank JVMs are SIGKILLed
     * before the launcher exits, and the kernel reaps them a moment later.
     *
     * @return the job's processes still there at the end (empty: none left)
     */
    public static List<Long> processesLeft(String jobId, long millis) throws InterruptedException {
        long deadline = System.nanoTime() + millis * 1_000_000L;
        List<Long> left = processesOfJob(jobId);
        while (!left.isEmpty() && System.nanoTime() < deadline) {
            Thread.sleep(50);
            left = processesOfJob(jobId);
        }
        return left;
    }

    /** Processes (any) whose environment carries this job's id: the job's leftovers. */
    public static List<Long> processesOfJob(String jobId) {
        List<Long> found = new ArrayList<>();
        byte[] marker = ("JCKPT_JOB_ID=" + jobId).getBytes(StandardCharsets.UTF_8);
        try (Stream<Path> procs = Files.list(Paths.get("/proc"))) {
            for (Path proc : (Iterable<Path>) procs::iterator) {
                String name = proc.getFileName().toString();
                if (!name.chars().allMatch(Character::isDigit)) {
                    continue;
                }
                try {
                    byte[] environ = Files.readAllBytes(proc.resolve("environ"));
                    if (indexOf(environ, marker) >= 0) {
                        found.add(Long.parseLong(name));
                    }
                } catch (IOException | SecurityException ignored) {
                    // gone meanwhile, or not ours to read
                }
            }
        } catch (IOException e) {
            throw new AssertionError("cannot list /proc", e);
        }
        return found;
    }

    private static int indexOf(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return i;
        }
        return -1;
    }

    /** Kills the launcher and its descendants (the ranks) if it is still running. */
    @Override
    public void close() {
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
