package io.jckpt.chaos.corpus;

import io.jckpt.Ckpt;
import io.jckpt.CkptOptions;
import io.jckpt.IntervalPolicy;
import java.util.SplittableRandom;
import mpi.MPI;

/**
 * Corpus: Monte Carlo with a {@link SplittableRandom}, written the old way: an explicit
 * {@code if (Ckpt.isRecovery()) rollback ... else register ...}, and {@code hereIfDue(batch)} with an
 * interval the program sets itself ({@code calls:3}). Each batch splits a generator off the rank's
 * stream ({@code rng.split()}, which advances it), estimates pi and the integral of exp(-x^2) on [0,1]
 * and fills a histogram; the batch's counts and sums are Allreduced into the running totals every rank
 * holds, and a Sendrecv passes each rank's batch maximum around the ring. Rank 0 prints
 * {@code montecarlo: ...} with the estimates' bits and the histogram's hash.
 *
 * <pre>MonteCarlo [batches] [samples per batch] [seed]</pre>
 */
public final class MonteCarlo {
    private static final int BINS = 64;

    private MonteCarlo() {
    }

    public static void main(String[] args) throws Exception {
        String[] a = MPI.Init(args);
        long batches = a.length > 0 ? Long.parseLong(a[0]) : 120;
        int samples = a.length > 1 ? Integer.parseInt(a[1]) : 100_000;
        long seed = a.length > 2 ? Long.parseLong(a[2]) : 1;
        int rank = MPI.COMM_WORLD.Rank();
        int size = MPI.COMM_WORLD.Size();

        SplittableRandom rng = new SplittableRandom(seed).split(); // then one stream per rank
        for (int r = 0; r < rank; r++) {
            rng = rng.split();
        }
        long[] counts = new long[2];          // batches done, hits inside the quarter circle (all ranks)
        double[] sums = new double[2];        // sum of exp(-x^2), sum of the batches' maxima (all ranks)
        long[] histogram = new long[BINS];    // this rank's samples of exp(-x^2), binned
        Ckpt.open(CkptOptions.builder().interval(IntervalPolicy.everyCalls(3)).build());
        if (Ckpt.isRecovery()) {
            Ckpt.rollback("rng", rng);
            Ckpt.rollback("counts", counts);
            Ckpt.rollback("sums", sums);
            Ckpt.rollback("histogram", histogram);
        } else {
            Ckpt.register("rng", rng);
            Ckpt.register("counts", counts);
            Ckpt.register("sums", sums);
            Ckpt.register("histogram", histogram);
        }

        long[] hits = new long[1];
        long[] allHits = new long[1];
        double[] part = new double[1];
        double[] allPart = new double[1];
        double[] max = new double[1];
        double[] leftMax = new double[1];
        while (counts[0] < batches) {
            SplittableRandom batch = rng.split();
            hits[0] = 0;
            part[0] = 0;
            max[0] = 0;
            for (int i = 0; i < samples; i++) {
                double x = batch.nextDouble();
                double y = batch.nextDouble();
                if (x * x + y * y <= 1) {
                    hits[0]++;
                }
                double f = Math.exp(-x * x);
                part[0] += f;
                max[0] = Math.max(max[0], f * y);
                histogram[(int) (f * BINS) == BINS ? BINS - 1 : (int) (f * BINS)]++;
            }
            MPI.COMM_WORLD.Allreduce(hits, 0, allHits, 0, 1, MPI.LONG, MPI.SUM);
            MPI.COMM_WORLD.Allreduce(part, 0, allPart, 0, 1, MPI.DOUBLE, MPI.SUM);
            MPI.COMM_WORLD.Sendrecv(max, 0, 1, MPI.DOUBLE, (rank + 1) % size, 5,
                    leftMax, 0, 1, MPI.DOUBLE, (rank - 1 + size) % size, 5);
            counts[1] += allHits[0];
            sums[0] += allPart[0];
            sums[1] += leftMax[0];
            counts[0]++;
            Ckpt.hereIfDue(counts[0]);
        }

        double n = (double) counts[0] * samples * size;
        double pi = 4.0 * counts[1] / n;
        double integral = sums[0] / n;
        long[] mine = new long[1];
        for (long h : histogram) {
            mine[0] = mine[0] * 1_000_003L + h;
        }
        long[] all = new long[size];
        MPI.COMM_WORLD.Gather(mine, 0, 1, MPI.LONG, all, 0, 1, MPI.LONG, 0);
        double[] maxima = {sums[1]};
        double[] allMaxima = new double[size];
        MPI.COMM_WORLD.Gather(maxima, 0, 1, MPI.DOUBLE, allMaxima, 0, 1, MPI.DOUBLE, 0);
        if (rank == 0) {
            long h = 7;
            for (int r = 0; r < size; r++) {
                h = h * 31 + all[r];
                h = h * 31 + Double.doubleToLongBits(allMaxima[r]);
            }
            System.out.printf("montecarlo: %d batches of %d on %d ranks, pi %.9f (%016x), integral %016x, hash %016x%n",
                    counts[0], samples, size, pi, Double.doubleToLongBits(pi), Double.doubleToLongBits(integral), h);
        }
        Ckpt.close();
        MPI.Finalize();
    }
}
