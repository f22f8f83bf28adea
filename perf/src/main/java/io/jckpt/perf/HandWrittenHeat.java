package io.jckpt.perf;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.jckpt.samples.heat.HeatProblem;
import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import mpi.MPI;

/**
 * The baseline "what a Java user writes without jckpt": the heat solver of
 * {@code io.jckpt.samples.heat} (its public {@link HeatProblem} kernel, the same row blocks, halo
 * exchange and checksum as {@code HeatSolver}), where every rank serializes its grid block and the
 * sweep counter to a shared directory at every checkpoint, with Kryo or with
 * {@link ObjectOutputStream}, and a job that failed is restarted as a whole from those files (the
 * restart is done by whoever runs it: here the benchmark harness, with plain
 * {@code bin/ckpt-run --on-failure fail}).
 *
 * <p>The file protocol is the careful minimum: each rank writes {@code s<sweep>-rank<r>.ckpt} to a
 * temporary name and renames it; a barrier; then rank 0 atomically replaces {@code latest} with the
 * sweep number, so a crash at any moment leaves one complete, consistent set. Older sets are
 * deleted one checkpoint later. No fsync: a restart after a process failure reads the page cache,
 * which is what a typical user relies on (jckpt's memory level is not durable either).
 *
 * <pre>
 * --format kryo|java  --dir PATH  plus the heat solver's --nx --ny --iterations --report --ckpt-every --sleep-ms
 * </pre>
 * Prints the same {@code checksum ...} line as {@code HeatSolver}, and on a restart
 * {@code restarted from sweep S}.
 */
public final class HandWrittenHeat {
    private static final int TAG_UP = 11;
    private static final int TAG_DOWN = 12;
    private static final int TAG_GATHER = 13;
    private static final int NONE = -1;

    private HandWrittenHeat() {
    }

    /**
     * @param args see the class comment
     * @throws Exception when MPI or the checkpoint files fail
     */
    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int nx = 256;
        int ny = 256;
        int iterations = 1000;
        int report = 100;
        int every = 0;
        int sleepMs = 0;
        String format = "kryo";
        Path dir = null;
        for (int i = 0; i + 1 < appArgs.length; i += 2) {
            String v = appArgs[i + 1];
            switch (appArgs[i]) {
                case "--nx" -> nx = Integer.parseInt(v);
                case "--ny" -> ny = Integer.parseInt(v);
                case "--iterations" -> iterations = Integer.parseInt(v);
                case "--report" -> report = Integer.parseInt(v);
                case "--ckpt-every" -> every = Integer.parseInt(v);
                case "--sleep-ms" -> sleepMs = Integer.parseInt(v);
                case "--format" -> format = v;
                case "--dir" -> dir = Paths.get(v);
                default -> throw new IllegalArgumentException("unknown option " + appArgs[i]);
            }
        }
        if (every % 2 != 0 || every > 0 && dir == null || !format.equals("kryo") && !format.equals("java")) {
            throw new IllegalArgumentException("--ckpt-every must be even and needs --dir; --format kryo|java");
        }
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();
        HeatProblem problem = new HeatProblem(nx, ny);
        int first = rowStart(rank, size, ny);
        int rows = rowStart(rank + 1, size, ny) - first;
        double[] a = new double[(rows + 2) * nx];
        double[] b = new double[(rows + 2) * nx];
        int sweep = 0;
        CkptFiles files = null;
        if (dir != null) {
            files = new CkptFiles(dir, rank, format);
            Files.createDirectories(dir);
        }
        Path latest = dir == null ? null : dir.resolve("latest");
        if (latest != null && Files.exists(latest)) {
            // the whole job restarts: every rank reads its block of the newest complete set
            sweep = Integer.parseInt(Files.readString(latest, StandardCharsets.US_ASCII).trim());
            files.read(sweep, a);
            if (rank == 0) {
                System.out.println("restarted from sweep " + sweep);
            }
        } else {
            for (int r = 0; r < rows; r++) {
                for (int c = 0; c < nx; c++) {
                    a[(r + 1) * nx + c] = problem.initial(first + r, c);
                }
            }
        }
        int up = rank == 0 ? NONE : rank - 1;
        int down = rank == size - 1 ? NONE : rank + 1;
        double[] local = new double[1];
        double[] global = new double[1];
        long writeNanos = 0;
        int writes = 0;
        long start = System.nanoTime();
        while (sweep + 2 <= iterations) {
            step(problem, a, b, nx, rows, first, up, down, sweep + 1, iterations, report, sleepMs, local, global, rank);
            step(problem, b, a, nx, rows, first, up, down, sweep + 2, iterations, report, sleepMs, local, global, rank);
            sweep += 2;
            if (every > 0 && sweep % every == 0) {
                long t0 = System.nanoTime();
                files.write(sweep, a);
                MPI.COMM_WORLD.Barrier(); // every rank's file of this sweep is complete
                if (rank == 0) {
                    Path temp = dir.resolve("latest.tmp");
                    Files.writeString(temp, Integer.toString(sweep), StandardCharsets.US_ASCII);
                    Files.move(temp, latest, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                }
                files.retire(sweep);
                writeNanos += System.nanoTime() - t0;
                writes++;
            }
        }
        double[] result = a;
        if (sweep < iterations) {
            step(problem, a, b, nx, rows, first, up, down, sweep + 1, iterations, report, sleepMs, local, global, rank);
            result = b;
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        if (rank == 0) {
            double[] grid = new double[ny * nx];
            System.arraycopy(result, nx, grid, 0, rows * nx);
            for (int source = 1; source < size; source++) {
                int sFirst = rowStart(source, size, ny);
                int sRows = rowStart(source + 1, size, ny) - sFirst;
                MPI.COMM_WORLD.Recv(grid, sFirst * nx, sRows * nx, MPI.DOUBLE, source, TAG_GATHER);
            }
            System.out.printf(Locale.ROOT, "hand-written checkpoints (%s): %d, %.3f s in total on rank 0%n", format,
                    writes, writeNanos / 1e9);
            System.out.printf(Locale.ROOT, "checksum %016x (%d x %d, %d iterations, %d ranks, %.3f s)%n",
                    HeatProblem.checksum(grid, 0, grid.length), nx, ny, iterations, size, seconds);
        } else {
            MPI.COMM_WORLD.Send(result, nx, rows * nx, MPI.DOUBLE, 0, TAG_GATHER);
        }
        MPI.Finalize();
    }

    /** The checkpoint files of one rank, in one format. */
    private static final class CkptFiles {
        private final Path dir;
        private final int rank;
        private final boolean kryo;
        private final Kryo k = new Kryo();
        private final Deque<Integer> written = new ArrayDeque<>();

        CkptFiles(Path dir, int rank, String format) {
            this.dir = dir;
            this.rank = rank;
            this.kryo = format.equals("kryo");
            k.register(double[].class);
        }

        private Path file(int sweep) {
            return dir.resolve("s" + sweep + "-rank" + rank + ".ckpt");
        }

        void write(int sweep, double[] grid) throws IOException {
            Path temp = dir.resolve("s" + sweep + "-rank" + rank + ".tmp");
            if (kryo) {
                try (Output out = new Output(Files.newOutputStream(temp), 1 << 16)) {
                    out.writeInt(sweep);
                    k.writeObject(out, grid);
                }
            } else {
                try (ObjectOutputStream out = new ObjectOutputStream(new BufferedOutputStream(
                        Files.newOutputStream(temp), 1 << 16))) {
                    out.writeInt(sweep);
                    out.writeObject(grid);
                }
            }
            Files.move(temp, file(sweep), StandardCopyOption.ATOMIC_MOVE);
            written.addLast(sweep);
        }

        /** After the barrier of {@code sweep}: the set before the previous one is no longer needed. */
        void retire(int sweep) throws IOException {
            while (written.size() > 2) {
                Files.deleteIfExists(file(written.removeFirst()));
            }
        }

        void read(int sweep, double[] into) throws IOException, ClassNotFoundException {
            double[] grid;
            int stored;
            if (kryo) {
                try (Input in = new Input(Files.newInputStream(file(sweep)), 1 << 16)) {
                    stored = in.readInt();
                    grid = k.readObject(in, double[].class);
                }
            } else {
                try (ObjectInputStream in = new ObjectInputStream(new BufferedInputStream(
                        Files.newInputStream(file(sweep)), 1 << 16))) {
                    stored = in.readInt();
                    grid = (double[]) in.readObject();
                }
            }
            if (stored != sweep || grid.length != into.length) {
                throw new IOException(file(sweep) + ": sweep " + stored + ", " + grid.length + " values; expected sweep "
                        + sweep + ", " + into.length);
            }
            System.arraycopy(grid, 0, into, 0, into.length);
        }
    }

    private static void step(HeatProblem problem, double[] cur, double[] next, int nx, int rows, int first, int up,
                             int down, int number, int iterations, int report, int sleepMs, double[] local,
                             double[] global, int rank) throws Exception {
        exchange(cur, nx, nx, up, (rows + 1) * nx, down, TAG_UP);
        exchange(cur, nx, rows * nx, down, 0, up, TAG_DOWN);
        local[0] = problem.sweep(cur, next, rows, first);
        if (number % report == 0 || number == iterations) {
            MPI.COMM_WORLD.Allreduce(local, 0, global, 0, 1, MPI.DOUBLE, MPI.SUM);
            if (rank == 0) {
                System.out.printf(Locale.ROOT, "iteration %d residual %.6e%n", number, Math.sqrt(global[0]));
            }
        }
        if (sleepMs > 0) {
            Thread.sleep(sleepMs);
        }
    }

    /** Sends the row at {@code sendOffset} to {@code to} while receiving one at {@code recvOffset} from {@code from}. */
    private static void exchange(double[] grid, int nx, int sendOffset, int to, int recvOffset, int from, int tag)
            throws mpi.MPIException {
        if (to != NONE && from != NONE) {
            MPI.COMM_WORLD.Sendrecv(grid, sendOffset, nx, MPI.DOUBLE, to, tag, grid, recvOffset, nx, MPI.DOUBLE, from, tag);
        } else if (to != NONE) {
            MPI.COMM_WORLD.Send(grid, sendOffset, nx, MPI.DOUBLE, to, tag);
        } else if (from != NONE) {
            MPI.COMM_WORLD.Recv(grid, recvOffset, nx, MPI.DOUBLE, from, tag);
        }
    }

    private static int rowStart(int rank, int size, int ny) {
        return (int) ((long) rank * ny / size);
    }
}
