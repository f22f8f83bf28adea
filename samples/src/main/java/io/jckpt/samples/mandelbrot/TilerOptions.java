package io.jckpt.samples.mandelbrot;

import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * Command-line options of the Mandelbrot tiler, validated on parsing.
 *
 * <pre>
 * --width 320 --height 240   image size in pixels
 * --tile 32                  tile edge in pixels (the unit of work)
 * --iterations 1000          at most this many iterations per pixel
 * --batch 8                  tiles per round (rounds are the checkpointable steps)
 * --report 1                 print progress every this many rounds
 * --ckpt-every 0             checkpoint every this many rounds (0 = no checkpoints)
 * --replicas 1               in-memory copies on other ranks (m)
 * --disk-ratio 1000          one disk round per this many checkpoints (0 = none)
 * --disk-dir PATH            stable-storage directory (none = no disk level)
 * --sleep-ms 0               pause per tile (to make demos and tests observable)
 * --preallocate true         every tile's entry in the mosaic from the start (see {@link Mosaic})
 * </pre>
 */
record TilerOptions(int width, int height, int tile, int iterations, int batch, int report, int checkpointEvery,
                    int replicas, int diskRatio, Path diskDirectory, int sleepMillis, boolean preallocate) {

    static TilerOptions parse(String[] args) {
        int width = 320;
        int height = 240;
        int tile = 32;
        int iterations = 1000;
        int batch = 8;
        int report = 1;
        int checkpointEvery = 0;
        int replicas = 1;
        int diskRatio = 1000;
        Path diskDirectory = null;
        int sleepMillis = 0;
        boolean preallocate = true;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String value = args[++i];
            switch (name) {
                case "--width" -> width = Integer.parseInt(value);
                case "--height" -> height = Integer.parseInt(value);
                case "--tile" -> tile = Integer.parseInt(value);
                case "--iterations" -> iterations = Integer.parseInt(value);
                case "--batch" -> batch = Integer.parseInt(value);
                case "--report" -> report = Integer.parseInt(value);
                case "--ckpt-every" -> checkpointEvery = Integer.parseInt(value);
                case "--replicas" -> replicas = Integer.parseInt(value);
                case "--disk-ratio" -> diskRatio = Integer.parseInt(value);
                case "--disk-dir" -> diskDirectory = Paths.get(value);
                case "--sleep-ms" -> sleepMillis = Integer.parseInt(value);
                case "--preallocate" -> preallocate = parseBoolean(name, value);
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (width < 1 || height < 1 || tile < 1 || iterations < 1 || batch < 1 || report < 1) {
            throw new IllegalArgumentException("--width, --height, --tile, --iterations, --batch and --report must be"
                    + " positive");
        }
        if (sleepMillis < 0 || checkpointEvery < 0) {
            throw new IllegalArgumentException("--sleep-ms and --ckpt-every must not be negative");
        }
        return new TilerOptions(width, height, tile, iterations, batch, report, checkpointEvery, replicas, diskRatio,
                diskDirectory, sleepMillis, preallocate);
    }

    private static boolean parseBoolean(String name, String value) {
        return switch (value) {
            case "true" -> true;
            case "false" -> false;
            default -> throw new IllegalArgumentException(name + " must be true or false, got '" + value + "'");
        };
    }

    boolean checkpointing() {
        return checkpointEvery > 0;
    }
}
