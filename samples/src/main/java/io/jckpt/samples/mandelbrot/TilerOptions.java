package io.jckpt.samples.mandelbrot;

import io.jckpt.cli.CommandLines;
import io.jckpt.samples.GivenSettings;


import java.nio.file.Path;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Command-line options of the Mandelbrot tiler, read by picocli ({@link CommandLines}: {@code --opt value}
 * or {@code --opt=value}, {@code --help}) and validated on parsing.
 *
 * <pre>
 * --width 320 --height 240   image size in pixels
 * --tile 32                  tile edge in pixels (the unit of work)
 * --iterations 1000          at most this many iterations per pixel
 * --batch 8                  tiles per round (rounds are the checkpointable steps)
 * --report 1                 print progress every this many rounds
 * --ckpt-every 0             checkpoint every this many rounds (0 = no checkpoints)
 * --replicas M               in-memory copies on other ranks (m; default: the job's)
 * --disk-ratio K             one disk round per this many checkpoints (0 = none; default: the job's)
 * --disk-dir PATH            stable-storage directory (default: the job's, else no disk level)
 * --sleep-ms 0               pause per tile (to make demos and tests observable)
 * --preallocate true         every tile's entry in the mosaic from the start (see {@link Mosaic})
 * </pre>
 */
record TilerOptions(int width, int height, int tile, int iterations, int batch, int report, int checkpointEvery,
                    Integer replicas, Integer diskRatio, Path diskDirectory, int sleepMillis, boolean preallocate) {

    /** The command line as picocli fills it in; the field values are the defaults. */
    @Command(name = "io.jckpt.samples.mandelbrot.MandelbrotTiler", sortOptions = false,
            usageHelpWidth = 100,
            customSynopsis = {"bin/ckpt-run -np N -cp samples/target/classes \\",
                "    io.jckpt.samples.mandelbrot.MandelbrotTiler [OPTIONS]"},
            description = {"The Mandelbrot set in tiles: rank 0 hands out batches of tiles, the others compute them;"
                    + " rank 0 prints the image's checksum.", ""})
    static final class Line {
        @Option(names = "--width", paramLabel = "PIXELS", description = "image width (default: ${DEFAULT-VALUE})")
        int width = 320;
        @Option(names = "--height", paramLabel = "PIXELS", description = "image height (default: ${DEFAULT-VALUE})")
        int height = 240;
        @Option(names = "--tile", paramLabel = "PIXELS",
                description = "tile edge, the unit of work (default: ${DEFAULT-VALUE})")
        int tile = 32;
        @Option(names = "--iterations", paramLabel = "N",
                description = "at most this many iterations per pixel (default: ${DEFAULT-VALUE})")
        int iterations = 1000;
        @Option(names = "--batch", paramLabel = "N", description = "tiles per round; rounds are the checkpointable"
                + " steps (default: ${DEFAULT-VALUE})")
        int batch = 8;
        @Option(names = "--report", paramLabel = "N",
                description = "print progress every this many rounds (default: ${DEFAULT-VALUE})")
        int report = 1;
        @Option(names = "--ckpt-every", paramLabel = "N",
                description = "checkpoint every this many rounds (default: ${DEFAULT-VALUE} = no checkpoints)")
        int checkpointEvery = 0;
        @Mixin GivenSettings.Options given = new GivenSettings.Options();
        @Option(names = "--sleep-ms", paramLabel = "MS",
                description = "pause per tile, to make demos and tests observable (default: ${DEFAULT-VALUE})")
        int sleepMillis = 0;
        @Option(names = "--preallocate", paramLabel = "true|false", description = "every tile's entry in the mosaic"
                + " from the start (default: ${DEFAULT-VALUE})")
        String preallocate = "true";
        @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit") boolean help;
    }

    /**
     * @throws IllegalArgumentException a bad command line, in one line naming the option
     * @throws CommandLines.HelpRequested for {@code --help}
     */
    static TilerOptions parse(String[] args) {
        Line line = CommandLines.parse(new Line(), args);
        boolean preallocate = parseBoolean("--preallocate", line.preallocate);
        if (line.width < 1 || line.height < 1 || line.tile < 1 || line.iterations < 1 || line.batch < 1 || line.report < 1) {
            throw new IllegalArgumentException("--width, --height, --tile, --iterations, --batch and --report must be"
                    + " positive");
        }
        if (line.sleepMillis < 0 || line.checkpointEvery < 0) {
            throw new IllegalArgumentException("--sleep-ms and --ckpt-every must not be negative");
        }
        return new TilerOptions(line.width, line.height, line.tile, line.iterations, line.batch, line.report,
                line.checkpointEvery, line.given.replicas, line.given.diskRatio, line.given.diskDirectory, line.sleepMillis,
                preallocate);
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
