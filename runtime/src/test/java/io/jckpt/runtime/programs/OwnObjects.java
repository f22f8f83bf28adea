package io.jckpt.runtime.programs;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import mpi.MPI;

/**
 * A program that checkpoints data of its own kinds: an object of its own class that is not registered
 * with Kryo (kryoRegistrationRequired(false); the class lives in the world's class loader, not the
 * library's), a {@code double[][]} and an {@code AtomicLong}; it rolls back with
 * {@code Ckpt.rollback(tag, x)} ignoring the return value. Each round adds the Allreduce of the ranks'
 * contributions, so a state restored wrongly (or not at all) changes the printed result:
 * "own objects ok rank R rounds N total T history H grid G", checkable from N and the world size.
 * Before any recovery the ranks hold at round {@code hold} (bounded) until the launcher abandons their
 * world, so the job completes only through a recovery from a failure injected before that round.
 *
 * <pre>
 * OwnObjects rounds hold
 * </pre>
 */
public final class OwnObjects {
    private OwnObjects() {
    }

    /** The program's own class (nested, never registered), with a final list and a cycle to itself. */
    static final class Tally {
        final List<long[]> history = new ArrayList<>();
        long total;
        Tally self = this;
    }

    public static void main(String[] args) throws Exception {
        String[] appArgs = MPI.Init(args);
        int rounds = Integer.parseInt(appArgs[0]);
        int hold = Integer.parseInt(appArgs[1]);
        int rank = MPI.COMM_WORLD.Rank();
        Ckpt.open(CkptOptions.builder().replicas(1).kryoRegistrationRequired(false).build());
        Tally tally = new Tally();
        double[][] grid = new double[4][8];
        AtomicLong step = new AtomicLong();
        if (Ckpt.isRecovery()) {
            Ckpt.rollback("tally", tally);
            Ckpt.rollback("grid", grid);
            Ckpt.rollback("step", step);
            System.out.println("rolled back to step " + step.get() + " with " + tally.history.size() + " history entries");
        } else {
            Ckpt.register("tally", tally);
            Ckpt.register("grid", grid);
            Ckpt.register("step", step);
        }
        long[] mine = new long[1];
        long[] sum = new long[1];
        while (step.get() < rounds) {
            long s = step.incrementAndGet();
            if (s == hold && !Ckpt.isRecovery()) {
                // the failure injected at an earlier round ends this world; a survivor's thread stays here
                new CountDownLatch(1).await(120, TimeUnit.SECONDS);
                throw new IllegalStateException("rank " + rank + " reached round " + hold + " without a recovery");
            }
            mine[0] = rank * 1000L + s;
            MPI.COMM_WORLD.Allreduce(mine, 0, sum, 0, 1, MPI.LONG, MPI.SUM);
            tally.total += sum[0];
            tally.history.add(new long[] {s, sum[0]});
            for (int i = 0; i < grid.length; i++) {
                for (int j = 0; j < grid[i].length; j++) {
                    grid[i][j] += s * i + j * rank;
                }
            }
            Ckpt.here();
        }
        double gridSum = 0;
        for (double[] row : grid) {
            for (double v : row) {
                gridSum += v;
            }
        }
        System.out.println("own objects ok rank " + rank + " rounds " + step.get() + " total " + tally.total + " history "
                + tally.history.size() + " grid " + (long) gridSum + (tally.self == tally ? "" : " self broken"));
        Ckpt.close();
        MPI.Finalize();
    }
}
