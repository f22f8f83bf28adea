package io.jckpt.samples.cg;

import io.jckpt.cli.CommandLines;
import io.jckpt.samples.GivenSettings;


import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Command-line options of the conjugate gradient solver, read by picocli ({@link CommandLines}:
 * {@code --opt value} or {@code --opt=value}, {@code --help}) and validated on parsing.
 *
 * <pre>
 * --nx 128 --ny 128      grid of unknowns (the matrix is nx*ny square, 5 non-zeros a row)
 * --iterations 500       at most this many CG iterations
 * --tolerance 0          stop early when ||r|| &lt;= tolerance * ||b|| (0 = always run all iterations)
 * --report 50            print the residual norm every this many iterations
 * --ckpt-every 0         checkpoint every this many iterations (0 = no checkpoints)
 * --replicas M           in-memory copies on other ranks (m; default: the job's)
 * --disk-ratio K         one disk round per this many checkpoints (0 = none; default: the job's)
 * --disk-dir PATH        stable-storage directory (default: the job's, else no disk level)
 * --sleep-ms 0           pause per iteration (to make demos and tests observable)
 * </pre>
 */
record CgOptions(int nx, int ny, int iterations, double tolerance, int report, int checkpointEvery, Integer replicas,
                 Integer diskRatio, Path diskDirectory, int sleepMillis) {

    /** The command line as picocli fills it in; the field values are the defaults. */
    @Command(name = "io.jckpt.samples.cg.CgSolver", sortOptions = false,
            usageHelpWidth = 100,
            customSynopsis = {"bin/ckpt-run -np N -cp samples/target/classes \\",
                "    io.jckpt.samples.cg.CgSolver [OPTIONS]"},
            description = {"Conjugate gradient on the 2-D Poisson problem (5-point stencil), rows split across the"
                    + " ranks; rank 0 prints the residual norm and the final checksum.", ""})
    static final class Line {
        @Option(names = "--nx", paramLabel = "N", description = "grid columns; the matrix is nx*ny square"
                + " (default: ${DEFAULT-VALUE})")
        int nx = 128;
        @Option(names = "--ny", paramLabel = "N", description = "grid rows (default: ${DEFAULT-VALUE})") int ny = 128;
        @Option(names = "--iterations", paramLabel = "N",
                description = "at most this many CG iterations (default: ${DEFAULT-VALUE})")
        int iterations = 500;
        @Option(names = "--tolerance", paramLabel = "T", description = "stop early when ||r|| <= T * ||b||, 0 = always"
                + " run all iterations (default: ${DEFAULT-VALUE})")
        double tolerance = 0;
        @Option(names = "--report", paramLabel = "N",
                description = "print the residual norm every this many iterations (default: ${DEFAULT-VALUE})")
        int report = 50;
        @Option(names = "--ckpt-every", paramLabel = "N",
                description = "checkpoint every this many iterations (default: ${DEFAULT-VALUE} = no checkpoints)")
        int checkpointEvery = 0;
        @Mixin GivenSettings.Options given = new GivenSettings.Options();
        @Option(names = "--sleep-ms", paramLabel = "MS",
                description = "pause per iteration, to make demos and tests observable (default: ${DEFAULT-VALUE})")
        int sleepMillis = 0;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit") boolean help;
    }

    /**
     * @throws IllegalArgumentException a bad command line, in one line naming the option
     * @throws CommandLines.HelpRequested for {@code --help}
     */
    static CgOptions parse(String[] args) {
        Line line = CommandLines.parse(new Line(), args);
        if (line.nx < 1 || line.ny < 1) {
            throw new IllegalArgumentException("--nx and --ny must be positive, got " + line.nx + " x " + line.ny);
        }
        if (line.iterations < 0 || line.report < 1 || line.sleepMillis < 0 || line.checkpointEvery < 0) {
            throw new IllegalArgumentException("--report must be positive; --iterations, --sleep-ms and --ckpt-every"
                    + " not negative");
        }
        if (!(line.tolerance >= 0 && line.tolerance < 1)) {
            throw new IllegalArgumentException("--tolerance must be in [0, 1), got " + line.tolerance);
        }
        return new CgOptions(line.nx, line.ny, line.iterations, line.tolerance, line.report, line.checkpointEvery,
                line.given.replicas, line.given.diskRatio, line.given.diskDirectory, line.sleepMillis);
    }

    boolean checkpointing() {
        return checkpointEvery > 0;
    }
}
