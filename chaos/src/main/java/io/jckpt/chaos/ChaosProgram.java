package io.jckpt.chaos;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Locale;
import mpi.MPI;

/**
 * The rank program of the fault campaign ({@link Campaign}, {@code bin/chaos}), run by
 * {@code bin/ckpt-run}: every data type the library checkpoints (double[], int[], long[], a direct
 * ByteBuffer, a Kryo object of its own class that grows every iteration, a long[1] counter), a
 * Sendrecv around the ring and an Allreduce every iteration (so failures land inside
 * communication), {@link Ckpt#here()} every {@code --every} iterations. Rank 0 prints one line,
 * {@code chaos checksum %016x ...}, which equals {@link ChaosState#reference} after any recoverable
 * failure.
 *
 * <p>Options: {@code --iterations N} (60), {@code --every K} (2), {@code --replicas m} (1),
 * {@code --disk DIR} (none: memory only), {@code --disk-ratio R} (4), {@code --sleep MS} per
 * iteration (40), {@code --elements E} per array (4096), {@code --kryo-unregistered} (Kryo with
 * {@code kryoRegistrationRequired(false)} and no configurer, instead of the journal's classes
 * registered through {@code kryoConfigurer}).
 */
public final class ChaosProgram {
    private static final int TAG_RING = 41;

    private ChaosProgram() {
    }

    /** The program's options (see the class comment). */
    record Options(long iterations, int every, int replicas, Path disk, int diskRatio, long sleepMillis, int elements,
                   boolean kryoUnregistered) {
        static Options parse(String[] args) {
            long iterations = 60;
            int every = 2;
            int replicas = 1;
            Path disk = null;
            int diskRatio = 4;
            long sleep = 40;
            int elements = 4096;
            boolean unregistered = false;
            for (int i = 0; i < args.length; i++) {
                switch (args[i]) {
                    case "--iterations" -> iterations = Long.parseLong(value(args, ++i));
                    case "--every" -> every = Integer.parseInt(value(args, ++i));
                    case "--replicas" -> replicas = Integer.parseInt(value(args, ++i));
                    case "--disk" -> disk = Path.of(value(args, ++i));
                    case "--disk-ratio" -> diskRatio = Integer.parseInt(value(args, ++i));
                    case "--sleep" -> sleep = Long.parseLong(value(args, ++i));
                    case "--elements" -> elements = Integer.parseInt(value(args, ++i));
                    case "--kryo-unregistered" -> unregistered = true;
                    default -> throw new IllegalArgumentException("chaos program: unknown option " + args[i]);
                }
            }
            if (iterations < 1 || every < 1 || elements < 1 || elements > (1 << 27) || sleep < 0) {
                throw new IllegalArgumentException("chaos program: --iterations, --every, --elements must be positive"
                        + " (elements at most 2^27), --sleep not negative");
            }
            return new Options(iterations, every, replicas, disk, diskRatio, sleep, elements, unregistered);
        }

        private static String value(String[] args, int i) {
            if (i >= args.length) {
                throw new IllegalArgumentException("chaos program: " + args[i - 1] + " needs a value");
            }
            return args[i];
        }
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        Options options = Options.parse(appArgs);
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        ChaosState state = ChaosState.initial(rank, options.elements(), ByteBuffer.allocateDirect(8 * options.elements()));

        CkptOptions.Builder ckpt = CkptOptions.builder().replicas(options.replicas()).diskRatio(options.diskRatio());
        if (options.disk() != null) {
            ckpt.diskDirectory(options.disk());
        }
        if (options.kryoUnregistered()) {
            ckpt.kryoRegistrationRequired(false);
        } else {
            ckpt.kryoConfigurer(Journal::registerClasses);
        }
        Ckpt.open(ckpt.build());
        if (Ckpt.isRecovery()) {
            Ckpt.rollback("doubles", state.doubles);
            Ckpt.rollback("ints", state.ints);
            Ckpt.rollback("longs", state.longs);
            Ckpt.rollback("buffer", state.buffer);
            Ckpt.rollback("counter", state.counter);
            state.journal = Ckpt.rollback("journal", state.journal);
            if (rank == 0) {
                System.out.println("rolled back to iteration " + state.counter[0] + " (round " + Ckpt.round()
                        + ", journal of " + state.journal.size() + " entries)");
            }
        } else {
            Ckpt.register("doubles", state.doubles);
            Ckpt.register("ints", state.ints);
            Ckpt.register("longs", state.longs);
            Ckpt.register("buffer", state.buffer);
            Ckpt.register("counter", state.counter);
            Ckpt.register("journal", state.journal);
        }

        long[] send = new long[1];
        long[] recv = new long[1];
        long[] sum = new long[1];
        long start = System.nanoTime();
        while (state.counter[0] < options.iterations()) {
            long i = state.counter[0] + 1;
            send[0] = state.compute(i);
            if (size > 1) {
                MPI.COMM_WORLD.Sendrecv(send, 0, 1, MPI.LONG, (rank + 1) % size, TAG_RING,
                        recv, 0, 1, MPI.LONG, (rank - 1 + size) % size, TAG_RING);
            } else {
                recv[0] = send[0];
            }
            MPI.COMM_WORLD.Allreduce(send, 0, sum, 0, 1, MPI.LONG, MPI.SUM);
            state.absorb(i, recv[0], sum[0]);
            if (i % options.every() == 0) {
                Ckpt.here(); // after the Allreduce: no message in flight
            }
            if (rank == 0) {
                System.out.println("iteration " + i); // the campaign places its failures by these
            }
            if (options.sleepMillis() > 0) {
                Thread.sleep(options.sleepMillis());
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;

        long[] mine = {state.checksum()};
        long[] all = new long[size];
        MPI.COMM_WORLD.Gather(mine, 0, 1, MPI.LONG, all, 0, 1, MPI.LONG, 0);
        if (rank == 0) {
            System.out.printf(Locale.ROOT, "chaos checksum %016x (%d iterations, %d ranks, %d elements, journal of %d"
                            + " entries, %.3f s)%n", ChaosState.combine(all), options.iterations(), size,
                    options.elements(), state.journal.size(), seconds);
        }
        Ckpt.close();
        MPI.Finalize();
    }
}
