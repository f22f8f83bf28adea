package io.jckpt.samples.heat;

import io.jckpt.IntervalPolicy;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Duration;

/**
 * Command-line options of the heat solver, validated on parsing.
 *
 * <pre>
 * --nx 256 --ny 256      grid size
 * --iterations 1000      Jacobi sweeps
 * --report 100           print the residual every this many sweeps
 * --ckpt-every 0         checkpoint every this many sweeps (0 = no checkpoints; must be even)
 * --replicas 1           in-memory copies on other ranks (m)
 * --disk-ratio 1000      one disk round per this many checkpoints (0 = none)
 * --disk-dir PATH        stable-storage directory (none = no disk level)
 * --sleep-ms 0           pause per sweep (to make demos and tests observable)
 * --ctrl-replicas R:M    after checkpoint round R, change m to M with Ckpt.ctrl (applied from round R+1)
 * --interval SPEC        let jckpt decide when (Ckpt.needCheckpoint() after each pair of sweeps): calls:N,
 *                        seconds:T, overhead:P or auto (instead of --ckpt-every)
 * --node-mtbf SECONDS    the MTBF of one node, for --interval auto (refined by the failures the job sees)
 * </pre>
 */
record SolverOptions(int nx, int ny, int iterations, int report, int checkpointEvery, int replicas, int diskRatio,
                     Path diskDirectory, int sleepMillis, long ctrlRound, int ctrlReplicas, IntervalPolicy interval,
                     Duration nodeMtbf) {

    static SolverOptions parse(String[] args) {
        int nx = 256;
        int ny = 256;
        int iterations = 1000;
        int report = 100;
        int checkpointEvery = 0;
        int replicas = 1;
        int diskRatio = 1000;
        Path diskDirectory = null;
        int sleepMillis = 0;
        long ctrlRound = 0;
        int ctrlReplicas = -1;
        IntervalPolicy interval = IntervalPolicy.manual();
        Duration nodeMtbf = null;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String value = args[++i];
            switch (name) {
                case "--nx" -> nx = Integer.parseInt(value);
                case "--ny" -> ny = Integer.parseInt(value);
                case "--iterations" -> iterations = Integer.parseInt(value);
                case "--report" -> report = Integer.parseInt(value);
                case "--ckpt-every" -> checkpointEvery = Integer.parseInt(value);
                case "--replicas" -> replicas = Integer.parseInt(value);
                case "--disk-ratio" -> diskRatio = Integer.parseInt(value);
                case "--disk-dir" -> diskDirectory = Paths.get(value);
                case "--sleep-ms" -> sleepMillis = Integer.parseInt(value);
                case "--interval" -> interval = IntervalPolicy.parse(value);
                case "--node-mtbf" -> nodeMtbf = Duration.ofMillis(Math.round(Double.parseDouble(value) * 1000));
                case "--ctrl-replicas" -> {
                    String[] parts = value.split(":");
                    if (parts.length != 2) {
                        throw new IllegalArgumentException("--ctrl-replicas needs ROUND:M, e.g. 5:2, not " + value);
                    }
                    ctrlRound = Long.parseLong(parts[0]);
                    ctrlReplicas = Integer.parseInt(parts[1]);
                    if (ctrlRound < 1 || ctrlReplicas < 0) {
                        throw new IllegalArgumentException("--ctrl-replicas needs a round >= 1 and m >= 0: " + value);
                    }
                }
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (iterations < 1 || report < 1 || sleepMillis < 0 || checkpointEvery < 0) {
            throw new IllegalArgumentException("--iterations and --report must be positive, --sleep-ms and --ckpt-every"
                    + " not negative");
        }
        if (checkpointEvery % 2 != 0) {
            throw new IllegalArgumentException("--ckpt-every must be even (the solver checkpoints after pairs of sweeps)");
        }
        return new SolverOptions(nx, ny, iterations, report, checkpointEvery, replicas, diskRatio, diskDirectory,
                sleepMillis, ctrlRound, ctrlReplicas, interval, nodeMtbf);
    }

    boolean checkpointing() {
        return checkpointEvery > 0 || decided();
    }

    /** @return whether jckpt decides when to checkpoint (--interval) instead of every --ckpt-every sweeps */
    boolean decided() {
        return interval.kind() != IntervalPolicy.Kind.MANUAL;
    }
}
