package io.jckpt.perf;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Runs pooled against the model, with the range the model's own jobs put the ratio in. */
class ModelSpreadTest {
    private static Samples of(double... values) {
        Samples s = new Samples();
        for (double v : values) {
            s.add(v);
        }
        return s;
    }

    @Test
    void timeLostIsSummedOverEveryJobOfEveryRun() {
        // run A: W 10 s, overheads 0.2 and 0.4; run B: W 20 s, 0.5 and 0.7; the model: 0.3 and 0.6
        ModelSpread.Part a = new ModelSpread.Part(new double[] {0.3}, of(0.2, 0.4), 10, 0.3, 0.25, 0.35, 0.28);
        ModelSpread.Part b = new ModelSpread.Part(new double[] {0.6}, of(0.5, 0.7), 20, 0.6, 0.5, 0.65, 0.55);
        ModelSpread.Pool p = ModelSpread.pool(List.of(a, b), 1);
        assertEquals(4, p.runs());
        assertEquals(10 * 0.6 + 20 * 1.2, p.measured(), 1e-12);
        assertEquals(10 * 2 * 0.3 + 20 * 2 * 0.6, p.predicted(), 1e-12);
        assertEquals(10 * 2 * 0.25 + 20 * 2 * 0.5, p.forInjected(), 1e-12);
        assertEquals(10 * 2 * 0.35 + 20 * 2 * 0.65, p.perRun(), 1e-12);
        assertEquals(10 * 2 * 0.28 + 20 * 2 * 0.55, p.even(), 1e-12);
        // each run's standard error (0.1 for both) times its weight W x n, summed in quadrature
        assertEquals(Math.hypot(10 * 2 * 0.1, 20 * 2 * 0.1), p.standardError(), 1e-12);
        // the model's jobs are all at its prediction: the range is the prediction itself
        assertEquals(1, p.low(), 1e-12);
        assertEquals(1, p.high(), 1e-12);
        assertEquals(1, p.ratio(), 1e-12);
        assertTrue(p.withinChance());
        // runs for a 90 % interval of ±0.20 at this spread: 4 x (1.6449 x SE / (0.2 x predicted))^2
        assertEquals((long) Math.ceil(4 * Math.pow(1.6449 * p.standardError() / (0.2 * p.predicted()), 2)), p.runsFor20());
    }

    @Test
    void theModelsRangeHoldsWhatItsOwnJobsMeasureNineTimesInTen() {
        // the model's jobs: exponential overheads of mean 1 (a wide spread)
        SplittableRandom random = new SplittableRandom(5);
        double[] jobs = new double[ModelSpread.JOBS];
        for (int i = 0; i < jobs.length; i++) {
            jobs[i] = -Math.log(1 - random.nextDouble());
        }
        ModelSpread.Pool range = ModelSpread.pool(List.of(new ModelSpread.Part(jobs, of(new double[12]), 1, 1, 1, 1, 1)), 3);
        // the mean of 12 exponentials: a gamma of shape 12, its 5th and 95th percentiles 0.581 and 1.525
        assertEquals(0.58, range.low(), 0.04);
        assertEquals(1.52, range.high(), 0.06);
        int inside = 0;
        int benches = 400;
        for (int b = 0; b < benches; b++) {
            double[] measured = new double[12];
            for (int j = 0; j < 12; j++) {
                measured[j] = -Math.log(1 - random.nextDouble());
            }
            ModelSpread.Pool p = ModelSpread.pool(List.of(new ModelSpread.Part(jobs, of(measured), 1, 1, 1, 1, 1)), 3);
            inside += p.withinChance() ? 1 : 0;
        }
        assertEquals(0.9, inside / (double) benches, 0.05, "benchmarks of the model's own jobs inside its range");
        ModelSpread.Pool far = ModelSpread.pool(List.of(new ModelSpread.Part(jobs, of(3, 3, 3), 1, 1, 1, 1, 1)), 3);
        assertFalse(far.withinChance(), "3x the model's mean on three runs is no chance");
    }

    @Test
    void withoutTheModelsJobsThereIsNoRangeAndWithoutRunsNoPool() {
        ModelSpread.Pool p = ModelSpread.pool(List.of(new ModelSpread.Part(null, of(0.5, 0.7), 10, 0.6, 0.6, 0.6, 0.6)), 1);
        assertTrue(Double.isNaN(p.low()) && Double.isNaN(p.high()));
        assertEquals(1, p.ratio(), 1e-12);
        assertThrows(IllegalArgumentException.class, () -> ModelSpread.pool(List.of(), 1));
    }
}
