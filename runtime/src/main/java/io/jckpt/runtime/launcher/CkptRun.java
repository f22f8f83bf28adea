package io.jckpt.runtime.launcher;

/**
 * {@code ckpt-run}: the fault-aware launcher of jckpt jobs, like mpirun for MPJ Express programs.
 * Exit status: 0 when every rank completed, 1 when the job failed, 2 for bad input.
 */
public final class CkptRun {
    private CkptRun() {
    }

    public static void main(String[] args) {
        System.exit(run(args));
    }

    /** Runs the launcher and returns its exit status. */
    public static int run(String[] args) {
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
        try (JobConsole console = new JobConsole(System.out, System.err, spec.quiet(), spec.logFile())) {
            return new Job(spec, JckptHome.locate(), console).run();
        } catch (Exception e) {
            System.err.println("ckpt-run: cannot run the job: " + e);
            return Job.EXIT_JOB_FAILED;
        }
    }
}
