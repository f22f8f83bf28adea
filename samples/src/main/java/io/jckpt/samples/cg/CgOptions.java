package io.jckpt.samples.cg;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Command-line options of the conjugate gradient solver, validated on parsing.
 *
 * <pre>
 * --nx 128 --ny 128      grid of unknowns (the matrix is nx*ny square, 5 non-zeros a row)
 * --iterations 500       at most this many CG iterations
 * --tolerance 0          stop early when ||r|| &lt;= tolerance * ||b|| (0 = always run all iterations)
 * --report 50            print the residual norm every this many iterations
 * --ckpt-every 0         checkpoint every this many iterations (0 = no checkpoints)
 * --replicas 1           in-memory copies on other ranks (m)
 * --disk-ratio 1000      one disk round per this many checkpoints (0 = none)
 * --disk-dir PATH        stable-storage directory (none = no disk level)
 * --sleep-ms 0           pause per iteration (to make demos and tests observable)
 * </pre>
 */
record CgOptions(int nx, int ny, int iterations, double tolerance, int report, int checkpointEvery, int replicas,
                 int diskRatio, Path diskDirectory, int sleepMillis) {

    static CgOptions parse(String[] args) {
        int nx = 128;
        int ny = 128;
        int iterations = 500;
        double tolerance = 0;
        int report = 50;
        int checkpointEvery = 0;
        int replicas = 1;
        int diskRatio = 1000;
        Path diskDirectory = null;
        int sleepMillis = 0;
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
                case "--tolerance" -> tolerance = Double.parseDouble(value);
                case "--report" -> report = Integer.parseInt(value);
                case "--ckpt-every" -> checkpointEvery = Integer.parseInt(value);
                case "--replicas" -> replicas = Integer.parseInt(value);
                case "--disk-ratio" -> diskRatio = Integer.parseInt(value);
                case "--disk-dir" -> diskDirectory = Paths.get(value);
                case "--sleep-ms" -> sleepMillis = Integer.parseInt(value);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (nx < 1 || ny < 1) {
            throw new IllegalArgumentException("--nx and --ny must be positive, got " + nx + " x " + ny);
        }
        if (iterations < 0 || report < 1 || sleepMillis < 0 || checkpointEvery < 0) {
            throw new IllegalArgumentException("--report must be positive; --iterations, --sleep-ms and --ckpt-every"
                    + " not negative");
        }
        if (!(tolerance >= 0 && tolerance < 1)) {
            throw new IllegalArgumentException("--tolerance must be in [0, 1), got " + tolerance);
        }
        return new CgOptions(nx, ny, iterations, tolerance, report, checkpointEvery, replicas, diskRatio, diskDirectory,
                sleepMillis);
    }

    boolean checkpointing() {
        return checkpointEvery > 0;
    }
}
