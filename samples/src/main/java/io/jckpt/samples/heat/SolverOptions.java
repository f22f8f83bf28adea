package io.jckpt.samples.heat;

import io.jckpt.cli.CommandLines;
import io.jckpt.samples.GivenSettings;

import io.jckpt.IntervalPolicy;

import java.nio.file.Path;
import java.time.Duration;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Command-line options of the heat solver, read by picocli ({@link CommandLines}: {@code --opt value} or
 * {@code --opt=value}, {@code --help}) and validated on parsing.
 *
 * <pre>
 * --nx 256 --ny 256      grid size
 * --iterations 1000      Jacobi sweeps
 * --report 100           print the residual every this many sweeps
 * --ckpt-every 0         checkpoint every this many sweeps (0 = no checkpoints; must be even)
 * --replicas M           in-memory copies on other ranks (m; default: the job's)
 * --disk-ratio K         one disk round per this many checkpoints (0 = none; default: the job's)
 * --disk-dir PATH        stable-storage directory (default: the job's, else no disk level)
 * --sleep-ms 0           pause per sweep (to make demos and tests observable)
 * --ctrl-replicas R:M    after checkpoint round R, change m to M with Ckpt.ctrl (applied from round R+1)
 * --interval SPEC        let jckpt decide when (Ckpt.needCheckpoint() after each pair of sweeps): calls:N,
 *                        seconds:T, overhead:P or auto (instead of --ckpt-every)
 * --node-mtbf SECONDS    the MTBF of one node, for --interval auto (refined by the failures the job sees)
 * </pre>
 */
record SolverOptions(int nx, int ny, int iterations, int report, int checkpointEvery, Integer replicas, Integer diskRatio,
                     Path diskDirectory, int sleepMillis, long ctrlRound, int ctrlReplicas, IntervalPolicy interval,
                     Duration nodeMtbf) {

    /** The command line as picocli fills it in; the field values are the defaults. */
    @Command(name = "io.jckpt.samples.heat.HeatSolver", sortOptions = false,
            usageHelpWidth = 100,
            customSynopsis = {"bin/ckpt-run -np N -cp samples/target/classes \\",
                "    io.jckpt.samples.heat.HeatSolver [OPTIONS]"},
            description = {"A 2-D heat equation (Jacobi sweeps) on a row-block decomposition; rank 0 prints"
                    + " the residual and the final checksum.", ""})
    static final class Line {
        @Option(names = "--nx", paramLabel = "N", description = "grid columns (default: ${DEFAULT-VALUE})") int nx = 256;
        @Option(names = "--ny", paramLabel = "N", description = "grid rows (default: ${DEFAULT-VALUE})") int ny = 256;
        @Option(names = "--iterations", paramLabel = "N", description = "Jacobi sweeps (default: ${DEFAULT-VALUE})")
        int iterations = 1000;
        @Option(names = "--report", paramLabel = "N",
                description = "print the residual every this many sweeps (default: ${DEFAULT-VALUE})")
        int report = 100;
        @Option(names = "--ckpt-every", paramLabel = "N",
                description = "checkpoint every this many sweeps, even (default: ${DEFAULT-VALUE} = no checkpoints)")
        int checkpointEvery = 0;
        @Mixin GivenSettings.Options given = new GivenSettings.Options();
        @Option(names = "--sleep-ms", paramLabel = "MS",
                description = "pause per sweep, to make demos and tests observable (default: ${DEFAULT-VALUE})")
        int sleepMillis = 0;
        @Option(names = "--ctrl-replicas", paramLabel = "R:M",
                description = "after checkpoint round R, change m to M with Ckpt.ctrl (applied from round R+1)")
        String ctrlReplicas;
        @Option(names = "--interval", paramLabel = "SPEC", description = "let jckpt decide when to checkpoint"
                + " (Ckpt.needCheckpoint() after each pair of sweeps): calls:N, seconds:T, overhead:P or auto"
                + " (instead of --ckpt-every)")
        String interval;
        @Option(names = "--node-mtbf", paramLabel = "SECONDS", description = "the MTBF of one node, for --interval auto"
                + " (refined by the failures the job sees)")
        Double nodeMtbfSeconds;
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit") boolean help;
    }

    /**
     * @throws IllegalArgumentException a bad command line, in one line naming the option
     * @throws CommandLines.HelpRequested for {@code --help}
     */
    static SolverOptions parse(String[] args) {
        Line line = CommandLines.parse(new Line(), args);
        long ctrlRound = 0;
        int ctrlReplicas = -1;
        if (line.ctrlReplicas != null) {
            String value = line.ctrlReplicas;
            String[] parts = value.split(":");
            if (parts.length != 2) {
                throw new IllegalArgumentException("--ctrl-replicas needs ROUND:M, e.g. 5:2, not " + value);
            }
            try {
                ctrlRound = Long.parseLong(parts[0]);
                ctrlReplicas = Integer.parseInt(parts[1]);
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("--ctrl-replicas needs ROUND:M, e.g. 5:2, not " + value);
            }
            if (ctrlRound < 1 || ctrlReplicas < 0) {
                throw new IllegalArgumentException("--ctrl-replicas needs a round >= 1 and m >= 0: " + value);
            }
        }
        IntervalPolicy interval = line.interval == null ? null : IntervalPolicy.parse(line.interval); // null: the job's
        Duration nodeMtbf = line.nodeMtbfSeconds == null ? null
                : Duration.ofMillis(Math.round(line.nodeMtbfSeconds * 1000));
        if (line.iterations < 1 || line.report < 1 || line.sleepMillis < 0 || line.checkpointEvery < 0) {
            throw new IllegalArgumentException("--iterations and --report must be positive, --sleep-ms and --ckpt-every"
                    + " not negative");
        }
        if (line.checkpointEvery % 2 != 0) {
            throw new IllegalArgumentException("--ckpt-every must be even (the solver checkpoints after pairs of sweeps)");
        }
        return new SolverOptions(line.nx, line.ny, line.iterations, line.report, line.checkpointEvery, line.given.replicas,
                line.given.diskRatio, line.given.diskDirectory, line.sleepMillis, ctrlRound, ctrlReplicas, interval, nodeMtbf);
    }

    boolean checkpointing() {
        return checkpointEvery > 0 || decided();
    }

    /** @return whether jckpt decides when to checkpoint (--interval) instead of every --ckpt-every sweeps */
    boolean decided() {
        return interval != null && interval.kind() != IntervalPolicy.Kind.MANUAL;
    }
}
