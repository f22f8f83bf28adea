package io.jckpt.runtime.launcher;

import io.jckpt.cli.UsageException;
import java.util.List;

/**
 * {@code ckpt-run}: the fault-aware launcher of jckpt jobs, like mpirun for MPJ Express programs.
 * Exit status: 0 when every rank completed, 1 when the job failed, 2 for bad input; the rank program's own
 * status (2-125) when the job failed because a rank exited with it, as mpirun passes it on.
 * {@code ckpt-run --clean [--job-id ID]} removes the node-local stores of jobs whose launcher is
 * gone ({@link NodeLocalStores}), kept ones (explicit --job-id) included.
 */
public final class CkptRun {
    private CkptRun() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the launcher and returns its exit status. */
    public static int run(String[] args) {
        if (args.length > 0 && args[0].equals("--clean")) {
            return clean(args);
        }
        LaunchSpec spec;
        try {
            spec = LaunchSpec.parse(args);
        } catch (UsageException e) {
            if (e.help()) {
                System.out.println(e.getMessage());
                return Job.EXIT_OK;
            }
            System.err.println("ckpt-run: " + e.getMessage());
            return Job.EXIT_USAGE;
        }
        try {
            LaunchSpecBuilder.checkDiskDirectory(spec);
            LaunchSpecBuilder.checkMemoryCap(spec);
        } catch (UsageException e) {
            System.err.println("ckpt-run: " + e.getMessage());
            return Job.EXIT_USAGE;
        }
        JckptHome home;
        try {
            home = JckptHome.locate();
        } catch (IllegalArgumentException e) {
            System.err.println("ckpt-run: " + e.getMessage());
            return Job.EXIT_USAGE;
        } catch (Exception e) {
            System.err.println("ckpt-run: cannot run the job: " + e);
            return Job.EXIT_JOB_FAILED;
        }
        if (spec.remote()) {
            try {
                preflight(spec, home);
            } catch (UsageException e) {
                System.err.println("ckpt-run: " + e.getMessage());
                return Job.EXIT_USAGE;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return Job.EXIT_JOB_FAILED;
            }
        }
        try (JobConsole console = new JobConsole(System.out, System.err, spec.quiet(), spec.logFile())) {
            console.rankOutput(spec.noPrefix(), spec.outputDirectory());
            return new Job(spec, home, console, java.util.List.of(args)).run();
        } catch (Exception e) {
            System.err.println("ckpt-run: cannot run the job: " + e);
            return Job.EXIT_JOB_FAILED;
        }
    }

    /** How long one host may take to answer the preflight probe. */
    static final long PREFLIGHT_MILLIS = 20_000;

    /**
     * Before any rank starts: every host (job and spare) reachable with the remote shell, with the
     * launcher's Java, the jckpt home and every class path entry at the same paths, and the job's disk
     * directory writable there.
     */
    private static void preflight(LaunchSpec spec, JckptHome home) throws UsageException, InterruptedException {
        java.util.List<String> paths = new java.util.ArrayList<>();
        paths.add(home.home().toString());
        paths.addAll(home.libClassPath());
        paths.addAll(spec.classPath());
        java.util.List<String> hosts = new java.util.ArrayList<>(spec.mapping().hostNames());
        spec.mapping().spares().forEach(h -> hosts.add(h.name()));
        io.jckpt.runtime.hosts.HostPreflight check = new io.jckpt.runtime.hosts.HostPreflight(spec.remoteShell(),
                JckptHome.javaExecutable(), System.getProperty("java.version"), paths, PREFLIGHT_MILLIS);
        LaunchSpecBuilder.diskDirectory(spec).ifPresent(disk -> check.writable(disk.value(), disk.where()));
        check.check(hosts);
    }

    /** {@code --clean [--job-id ID]}: one line per store removed (or kept because its launcher runs). */
    private static int clean(String[] args) {
        String jobId = null;
        if (args.length == 3 && args[1].equals("--job-id") && args[2].matches("[A-Za-z0-9._-]{1,64}")) {
            jobId = args[2];
        } else if (args.length != 1) {
            System.err.println("ckpt-run: usage: ckpt-run --clean [--job-id ID] (ID: 1-64 letters, digits, '.', '_' or '-')");
            return Job.EXIT_USAGE;
        }
        List<String> removed = NodeLocalStores.removeStale(io.jckpt.CkptOptions.defaultMemoryDirectory(), jobId, true, null, line -> System.out.println("ckpt-run: " + line));
        if (removed.isEmpty()) {
            System.out.println("ckpt-run: no stale node-local store" + (jobId == null ? "" : " of job " + jobId)
                    + " in " + io.jckpt.CkptOptions.defaultMemoryDirectory());
        }
        return Job.EXIT_OK;
    }
}
