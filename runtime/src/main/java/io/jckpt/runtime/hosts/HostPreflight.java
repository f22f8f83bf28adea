package io.jckpt.runtime.hosts;

import io.jckpt.cli.UsageException;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Checks, before any rank starts, that every host can be reached with the remote shell and has what
 * the mpirun convention requires: the same Java (its path and version as the launcher's), the jckpt
 * home and every class path entry, at the same paths (a shared file system), and the disk level's
 * directory writable (made when missing). All hosts are probed at
 * once, each with a bounded wait; a probe that overruns is killed. The first problem found, in host
 * order, is a {@link UsageException} naming the host and what is missing (exit 2, nothing started).
 */
public final class HostPreflight {
    private final RemoteShell shell;
    private final String javaExecutable;
    private final String javaVersion;
    private final List<String> paths;
    private final long timeoutMillis;
    /** Directories every host must be able to write (made when missing), each with how the job gave it. */
    private final Map<String, String> writable = new LinkedHashMap<>();

    /**
     * @param shell          how hosts are reached
     * @param javaExecutable the Java every rank runs (an absolute path)
     * @param javaVersion    its version, as {@code java.version} says it (e.g. 17.0.17)
     * @param paths          the jckpt home and the class path entries every host must have
     * @param timeoutMillis  how long one host may take to answer
     */
    public HostPreflight(RemoteShell shell, String javaExecutable, String javaVersion, List<String> paths,
                         long timeoutMillis) {
        this.shell = shell;
        this.javaExecutable = javaExecutable;
        this.javaVersion = javaVersion;
        this.paths = List.copyOf(paths);
        this.timeoutMillis = timeoutMillis;
    }

    /**
     * @param directory a directory every host must be able to write, made when missing (the disk level's)
     * @param given     how the job gave it, for the message (e.g. {@code --disk /scratch/ckpt})
     * @return this check
     */
    public HostPreflight writable(String directory, String given) {
        writable.put(directory, given);
        return this;
    }

    /**
     * Probes every host.
     *
     * @param hosts the job's hosts (and spares)
     * @throws UsageException naming the first host with a problem and the problem
     * @throws InterruptedException when interrupted (every probe is killed)
     */
    public void check(List<String> hosts) throws UsageException, InterruptedException {
        Map<String, Process> probes = new LinkedHashMap<>();
        try {
            for (String host : hosts) {
                if (!probes.containsKey(host)) {
                    probes.put(host, start(host));
                }
            }
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            List<String> problems = new ArrayList<>();
            for (Map.Entry<String, Process> probe : probes.entrySet()) {
                String problem = verdict(probe.getKey(), probe.getValue(), deadline);
                if (problem != null) {
                    problems.add(problem);
                }
            }
            if (!problems.isEmpty()) {
                throw new UsageException(problems.get(0) + (problems.size() > 1 ? " (and " + (problems.size() - 1)
                        + " more host problem" + (problems.size() > 2 ? "s" : "") + ")" : ""));
            }
        } finally {
            probes.values().forEach(Process::destroyForcibly);
        }
    }

    private Process start(String host) throws UsageException {
        StringBuilder script = new StringBuilder();
        script.append("j=").append(RemoteShell.quote(javaExecutable)).append("; ")
                .append("if [ -x \"$j\" ]; then \"$j\" -version 2>&1 | head -n 1 | sed 's/^/JAVA /'; ")
                .append("else echo \"MISSING java $j\"; fi; ");
        for (String path : paths) {
            script.append("[ -e ").append(RemoteShell.quote(path)).append(" ] || echo ")
                    .append(RemoteShell.quote("MISSING path " + path)).append("; ");
        }
        for (String dir : writable.keySet()) {
            String q = RemoteShell.quote(dir);
            script.append("mkdir -p ").append(q).append(" 2>/dev/null; { [ -d ").append(q).append(" ] && [ -w ").append(q)
                    .append(" ]; } || echo ").append(RemoteShell.quote("UNWRITABLE " + dir)).append("; ");
        }
        script.append("echo DONE");
        List<String> command = shell.command(host, Map.of(), List.of(), List.of("sh", "-c", script.toString()));
        try {
            return new ProcessBuilder(command).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null")))
                    .start();
        } catch (IOException e) {
            throw new UsageException("--rsh " + shell + ": cannot run it (" + e.getMessage() + ")");
        }
    }

    /** @return the problem with this host, or null */
    private String verdict(String host, Process probe, long deadline) throws InterruptedException {
        long left = deadline - System.nanoTime();
        if (!probe.waitFor(Math.max(0, left), TimeUnit.NANOSECONDS)) {
            probe.destroyForcibly();
            return "host " + host + " did not answer `" + shell + " " + host + "` within "
                    + Math.round(timeoutMillis / 1000.0) + " s";
        }
        String out = read(probe.getInputStream());
        String err = read(probe.getErrorStream()).strip();
        if (!out.contains("DONE")) {
            String last = err.isEmpty() ? "exit status " + probe.exitValue() : err.lines().reduce((a, b) -> b).orElse(err);
            return "host " + host + " cannot be reached with `" + shell + "`: " + last;
        }
        for (String line : out.lines().toList()) {
            if (line.startsWith("MISSING java ")) {
                return "host " + host + " has no Java at " + javaExecutable
                        + " (every host needs the launcher's Java at the same path)";
            }
            if (line.startsWith("MISSING path ")) {
                return "host " + host + " lacks " + line.substring("MISSING path ".length())
                        + " (every host needs the jckpt home and the class path at the same paths: a shared file system)";
            }
            if (line.startsWith("UNWRITABLE ")) {
                String dir = line.substring("UNWRITABLE ".length());
                return "host " + host + " cannot write " + dir + " (" + writable.getOrDefault(dir, dir)
                        + "): every host writes its ranks' checkpoints there";
            }
            if (line.startsWith("JAVA ") && !line.contains("\"" + javaVersion + "\"")) {
                return "host " + host + " runs another Java at " + javaExecutable + ": " + line.substring(5).strip()
                        + ", the launcher runs " + javaVersion;
            }
        }
        return null;
    }

    private static String read(InputStream in) {
        try (in) {
            ByteArrayOutputStream bytes = new ByteArrayOutputStream();
            in.transferTo(bytes);
            return bytes.toString(StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "";
        }
    }
}
