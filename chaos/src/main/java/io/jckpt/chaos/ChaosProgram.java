package io.jckpt.chaos;

import io.jckpt.cli.CommandLines;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.Locale;
import mpi.MPI;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The rank program of the fault campaign ({@link Campaign}, {@code bin/chaos}), run by
 * {@code bin/ckpt-run}: every data type the library checkpoints (double[], int[], long[], a direct
 * ByteBuffer, an object of its own class that grows every iteration, a long[1] counter), a
 * Sendrecv around the ring and an Allreduce every iteration (so failures land inside
 * communication), {@link Ckpt#here()} every {@code --every} iterations. Rank 0 prints one line,
 * {@code chaos checksum %016x ...}, which equals {@link ChaosState#reference} after any recoverable
 * failure.
 *
 * <p>Options: {@code --iterations N} (60), {@code --every K} (2), {@code --replicas m} (1),
 * {@code --disk DIR} (none: memory only), {@code --disk-ratio R} (4), {@code --sleep MS} per
 * iteration (40), {@code --elements E} per array (4096), {@code --kryo-unregistered} (no Kryo
 * configurer: the journal goes to the state graph codec, which saves class names and restores it in
 * place, instead of Kryo with the journal's classes registered through {@code kryoConfigurer}),
 * {@code --grow BYTES} (0: the state grows by that much more per iteration, so the node-local slots
 * grow again and again); {@code --help}. Read by picocli ({@link CommandLines}:
 * {@code --opt=value} too).
 */
public final class ChaosProgram {
    private static final int TAG_RING = 41;

    private ChaosProgram() {
    }

    /** The program's options (see the class comment). */
    record Options(long iterations, int every, int replicas, Path disk, int diskRatio, long sleepMillis, int elements,
                   boolean kryoUnregistered, int growLongs) {
        /** The command line as picocli fills it in; the field values are the defaults. */
        @Command(name = "io.jckpt.chaos.ChaosProgram", sortOptions = false, usageHelpWidth = 100,
                customSynopsis = {"bin/ckpt-run -np N -cp chaos/target/classes io.jckpt.chaos.ChaosProgram [OPTIONS]"},
                description = {"The fault campaign's rank program (bin/chaos runs it); rank 0 prints"
                        + " 'chaos checksum ...' at the end.", ""})
        static final class Line {
            @Option(names = "--iterations", paramLabel = "N", description = "iterations (default: ${DEFAULT-VALUE})")
            long iterations = 60;
            @Option(names = "--every", paramLabel = "K", description = "Ckpt.here() every K iterations (default:"
                    + " ${DEFAULT-VALUE})")
            int every = 2;
            @Option(names = "--replicas", paramLabel = "M", description = "in-memory copies (default: ${DEFAULT-VALUE})")
            int replicas = 1;
            @Option(names = "--disk", paramLabel = "DIR", description = "the disk level (default: none, memory only)")
            Path disk;
            @Option(names = "--disk-ratio", paramLabel = "R", description = "one disk round per R checkpoints (default:"
                    + " ${DEFAULT-VALUE})")
            int diskRatio = 4;
            @Option(names = "--sleep", paramLabel = "MS", description = "pause per iteration (default: ${DEFAULT-VALUE})")
            long sleep = 40;
            @Option(names = "--elements", paramLabel = "E", description = "elements per array, at most 2^27 (default:"
                    + " ${DEFAULT-VALUE})")
            int elements = 4096;
            @Option(names = "--kryo-unregistered", description = "no Kryo configurer: the journal is saved by the"
                    + " state graph codec (by class name)")
            boolean kryoUnregistered;
            @Option(names = "--grow", paramLabel = "BYTES", description = "the state grows by this many bytes more per"
                    + " iteration (padding in the journal's entries, a multiple of 8; default: ${DEFAULT-VALUE})")
            int grow;
            @Option(names = {"-h", "--help"}, usageHelp = true, description = "print this help and exit") boolean help;
        }

        /**
         * @throws IllegalArgumentException a bad command line, in one line naming the option
         * @throws CommandLines.HelpRequested for {@code --help}
         */
        static Options parse(String[] args) {
            Line line;
            try {
                line = CommandLines.parse(new Line(), args);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("chaos program: " + e.getMessage(), e);
            }
            if (line.iterations < 1 || line.every < 1 || line.elements < 1 || line.elements > (1 << 27) || line.sleep < 0) {
                throw new IllegalArgumentException("chaos program: --iterations, --every, --elements must be positive"
                        + " (elements at most 2^27), --sleep not negative");
            }
            if (line.grow < 0 || line.grow % 8 != 0 || line.grow > (1 << 20)) {
                throw new IllegalArgumentException("chaos program: --grow must be a multiple of 8 from 0 to 1 MiB, got "
                        + line.grow);
            }
            return new Options(line.iterations, line.every, line.replicas, line.disk, line.diskRatio, line.sleep,
                    line.elements, line.kryoUnregistered, line.grow / 8);
        }
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        Options options;
        try {
            options = Options.parse(appArgs);
        } catch (CommandLines.HelpRequested help) {
            if (MPI.COMM_WORLD.Rank() == 0) {
                System.out.print(help.usage());
            }
            MPI.Finalize();
            return;
        }
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        ChaosState state = ChaosState.initial(rank, options.elements(), ByteBuffer.allocateDirect(8 * options.elements()),
                options.growLongs());

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
