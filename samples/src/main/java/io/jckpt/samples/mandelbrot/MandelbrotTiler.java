package io.jckpt.samples.mandelbrot;

import io.jckpt.cli.CommandLines;

import io.jckpt.Ckpt;
import io.jckpt.samples.GivenSettings;

import java.util.Arrays;
import java.util.Locale;
import mpi.MPI;
import mpi.MPIException;
import mpi.Status;

/**
 * A master-worker Mandelbrot renderer on N ranks, written like Figure 1 of the paper but with a
 * state of a different shape from the solvers': rank 0 (the master) hands out tiles on demand and
 * collects the results into a {@link Mosaic}, an object graph registered whole and checkpointed
 * through Kryo; the workers keep only a small registered counter of the tiles and pixels they
 * computed.
 *
 * <p><b>Rounds.</b> Tiles are handed out in rounds of {@code --batch} tiles; within a round they go
 * to whichever worker is free (dynamic load balancing, so the assignment differs from run to run).
 * A round ends when all its results are in: no message is in flight, which makes the end of a round
 * a synchronized point. Every {@code --ckpt-every} rounds the master tells the workers to checkpoint,
 * and all ranks call {@link Ckpt#here(long)} with the round. After a failure registering restores the
 * master's mosaic and the workers' counters in place, and the master continues from the first tile of
 * the next round.
 *
 * <p><b>Determinism.</b> A tile's counts depend only on its pixels, so the image, and the printed
 * {@code checksum %016x} (CRC32C of the counts, row-major), equal
 * {@link MandelbrotProblem#renderSequentially()} whatever the number of ranks, the assignment of
 * tiles, or the failures. The end also checks that the master's record of who computed which tile
 * agrees with each worker's own counter: after a rollback both must describe the same point.
 */
public final class MandelbrotTiler {
    private static final int MASTER = 0;
    private static final int TAG_WORK = 31;
    private static final int TAG_RESULT = 32;
    /** Message kinds from master to worker: {@code {kind, tile}}. */
    private static final int TILE = 1;
    private static final int CHECKPOINT = 2;
    private static final int DONE = 3;

    private MandelbrotTiler() {
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        TilerOptions options;
        try {
            options = TilerOptions.parse(appArgs);
        } catch (CommandLines.HelpRequested help) {
            if (MPI.COMM_WORLD.Rank() == 0) {
                System.out.print(help.usage());
            }
            MPI.Finalize();
            return;
        }
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        MandelbrotProblem problem = new MandelbrotProblem(options.width(), options.height(), options.tile(),
                options.iterations());
        long[] stats = new long[2]; // tiles and pixels this rank computed
        Mosaic mosaic = null;

        if (options.checkpointing()) {
            // only what the command line gave: the job's settings (ckpt-run --replicas, ...) decide the rest
            Ckpt.open(GivenSettings.builder(options.replicas(), options.diskRatio(), options.diskDirectory())
                    .kryoConfigurer(Mosaic::registerClasses).build());
        }
        if (rank == MASTER) {
            mosaic = new Mosaic(problem, options.preallocate());
        }
        if (options.checkpointing()) {
            Ckpt.register("stats", stats); // after a failure: restored in place, here
            if (rank == MASTER) {
                Ckpt.register("mosaic", mosaic);
            }
            if (Ckpt.isRecovery() && rank == MASTER) {
                if (!mosaic.isOf(problem)) {
                    throw new IllegalStateException("the checkpointed mosaic is of a different image or tile size;"
                            + " the options changed since the checkpoint");
                }
                System.out.println("rolled back to round " + mosaic.rounds() + ", " + mosaic.computed() + " of "
                        + problem.tileCount() + " tiles (checkpoint round " + Ckpt.round() + ")");
            }
        }

        long start = System.nanoTime();
        if (rank == MASTER) {
            master(problem, options, mosaic, stats, size);
        } else {
            worker(problem, options, stats);
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        long[] all = new long[2 * size];
        MPI.COMM_WORLD.Gather(stats, 0, 2, MPI.LONG, all, 0, 2, MPI.LONG, MASTER);
        if (rank == MASTER) {
            int[] recorded = mosaic.tilesPerRank(size);
            long[] counted = new long[size];
            long total = 0;
            for (int r = 0; r < size; r++) {
                counted[r] = all[2 * r];
                total += counted[r];
            }
            boolean agree = total == problem.tileCount();
            for (int r = 0; r < size; r++) {
                agree &= recorded[r] == counted[r];
            }
            System.out.println("tiles per rank " + Arrays.toString(counted) + ": " + total + " of "
                    + problem.tileCount() + (agree ? ", agreeing with the mosaic" : ", DISAGREEING with the mosaic "
                    + Arrays.toString(recorded)));
            int[] image = mosaic.assemble(problem);
            System.out.printf(Locale.ROOT, "checksum %016x (%d x %d, tile %d, %d iterations, %d tiles in %d rounds,"
                            + " %d ranks, %.3f s)%n", MandelbrotProblem.checksum(image), problem.width(),
                    problem.height(), problem.tileSize(), problem.maxIterations(), problem.tileCount(),
                    mosaic.rounds(), size, seconds);
        }
        if (options.checkpointing()) {
            Ckpt.close(); // collective
        }
        MPI.Finalize();
    }

    /** Rank 0: rounds of tiles handed out on demand, results into the mosaic, checkpoints between rounds. */
    private static void master(MandelbrotProblem problem, TilerOptions options, Mosaic mosaic, long[] stats, int size)
            throws Exception {
        int total = problem.tileCount();
        int[] order = new int[2];
        int[] result = new int[1 + problem.tileSize() * problem.tileSize()];
        while (mosaic.nextTile() < total) {
            int next = mosaic.nextTile();
            int end = Math.min(total, next + options.batch());
            if (size == 1) {
                for (; next < end; next++) {
                    mosaic.add(new Tile(next, MASTER, compute(problem, next, stats, options)));
                }
            } else {
                int outstanding = 0;
                for (int worker = 1; worker < size && next < end; worker++) {
                    send(order, TILE, next++, worker);
                    outstanding++;
                }
                while (outstanding > 0) {
                    Status status = MPI.COMM_WORLD.Recv(result, 0, result.length, MPI.INT, MPI.ANY_SOURCE, TAG_RESULT);
                    int id = result[0];
                    mosaic.add(new Tile(id, status.source,
                            Arrays.copyOfRange(result, 1, 1 + problem.bounds(id).pixels())));
                    outstanding--;
                    if (next < end) {
                        send(order, TILE, next++, status.source);
                        outstanding++;
                    }
                }
            }
            mosaic.endRound(end);
            if (mosaic.rounds() % options.report() == 0 || end == total) {
                System.out.printf(Locale.ROOT, "round %d: %d of %d tiles%n", mosaic.rounds(), end, total);
            }
            // not after the last round: nothing would be left to save
            if (options.checkpointing() && mosaic.rounds() % options.checkpointEvery() == 0 && end < total) {
                for (int worker = 1; worker < size; worker++) {
                    send(order, CHECKPOINT, mosaic.rounds(), worker); // the step every rank passes to here()
                }
                Ckpt.here(mosaic.rounds()); // between rounds: no tile out, no result in flight
            }
        }
        for (int worker = 1; worker < size; worker++) {
            send(order, DONE, 0, worker);
        }
    }

    /** Ranks 1..N-1: compute the tiles they are given, checkpoint when told, until done. */
    private static void worker(MandelbrotProblem problem, TilerOptions options, long[] stats) throws Exception {
        int[] order = new int[2];
        int[] result = new int[1 + problem.tileSize() * problem.tileSize()];
        for (;;) {
            MPI.COMM_WORLD.Recv(order, 0, 2, MPI.INT, MASTER, TAG_WORK);
            switch (order[0]) {
                case TILE -> {
                    int[] counts = compute(problem, order[1], stats, options);
                    result[0] = order[1];
                    System.arraycopy(counts, 0, result, 1, counts.length);
                    MPI.COMM_WORLD.Send(result, 0, 1 + counts.length, MPI.INT, MASTER, TAG_RESULT);
                }
                case CHECKPOINT -> Ckpt.here(order[1]);
                case DONE -> {
                    return;
                }
                default -> throw new IllegalStateException("unknown order " + order[0] + " from the master");
            }
        }
    }

    private static int[] compute(MandelbrotProblem problem, int id, long[] stats, TilerOptions options)
            throws InterruptedException {
        int[] counts = problem.computeTile(id);
        stats[0]++;
        stats[1] += counts.length;
        if (options.sleepMillis() > 0) {
            Thread.sleep(options.sleepMillis());
        }
        return counts;
    }

    private static void send(int[] order, int kind, int tile, int worker) throws MPIException {
        order[0] = kind;
        order[1] = tile;
        MPI.COMM_WORLD.Send(order, 0, 2, MPI.INT, worker, TAG_WORK);
    }
}
