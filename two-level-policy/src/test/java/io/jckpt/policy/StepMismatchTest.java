package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.CollectiveMismatchException;
import io.jckpt.CtrlOptions;
import io.jckpt.StepMismatchException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * here(step): a rank that skips or adds a here() (or passes another step) is named on every rank,
 * with its step and the others', on the exchanges the library makes anyway: the ring's watermarks at
 * the next here() (the default), the background size agreement, ctrl() and close(); and a recovery
 * whose restored round was taken at different steps fails in open(), before the program resumes.
 * Each case well within the exchange timeout.
 */
class StepMismatchTest {
    private static final int N = 3;
    private static final Duration EXCHANGE = Duration.ofSeconds(20);
    @TempDir
    Path nodes;

    private CkptOptions options(int rank) {
        return RankGroup.options(nodes, rank, 1, null, 1000).toBuilder().exchangeTimeout(EXCHANGE)
                .hereWaitTimeout(EXCHANGE).replicationTimeout(EXCHANGE).build();
    }

    interface RankBody {
        void run(int rank, TwoLevelCheckpointer c, long[] data) throws Exception;
    }

    /** Runs {@code body} on every rank of a fresh world; returns each rank's error (null: none). */
    private Map<Integer, CkptException> run(String job, IntFunction<CkptOptions> options, RankBody body)
            throws Exception {
        List<TwoLevelCheckpointer> world = RankGroup.open(N, job, 0, options, r -> false);
        Map<Integer, CkptException> errors = new ConcurrentHashMap<>();
        CountDownLatch ended = new CountDownLatch(N);
        long start = System.nanoTime();
        RankGroup.parallel(N, rank -> {
            long[] data = new long[64];
            TwoLevelCheckpointer c = world.get(rank);
            c.register("data", data);
            try {
                body.run(rank, c, data);
            } catch (CkptException e) {
                errors.put(rank, e);
            }
            ended.countDown();
            // a rank whose call failed keeps its ring open until every rank's call ended, as a process
            // would until the launcher ends the job; then it goes as a killed process goes
            ended.await(60, TimeUnit.SECONDS);
            c.crashForTest();
            return null;
        });
        long millis = (System.nanoTime() - start) / 1_000_000L;
        assertTrue(millis < EXCHANGE.toMillis(), "the mistake took " + millis + " ms to show");
        return errors;
    }

    /** Every rank threw a StepMismatchException whose message, after the rank, is {@code expected}. */
    private static void namedOnEveryRank(Map<Integer, CkptException> errors, String expected) {
        assertEquals(N, errors.size(), errors.toString());
        errors.forEach((rank, e) -> {
            assertInstanceOf(StepMismatchException.class, e, "rank " + rank + ": " + e);
            assertEquals("rank " + rank + ": the ranks' steps differ " + expected + "; every rank must call here() at"
                    + " the same steps of the program (did a rank skip or add a here()?)", e.getMessage());
        });
    }

    @Test
    void aRankSkippingAHereIsNamedAtTheNextHereOnEveryRankAndTheRecoveryRefusesItsRound() throws Exception {
        Map<Integer, CkptException> errors = run("step-skip", this::options, (rank, c, data) -> {
            for (long step = 1; step <= 4; step++) {
                data[0] = step;
                if (!(rank == 1 && step == 2)) {
                    c.here(step);
                }
            }
            c.close();
        });
        namedOnEveryRank(errors, "at checkpoint round 2: rank 1 called here(3) while ranks 0,2 called here(2)");
        // every rank's round 2 is complete: a recovery would resume rank 1 one step ahead of the others
        Exception open = assertThrows(Exception.class, () -> RankGroup.open(N, "step-skip", 1, this::options, r -> false));
        List<Throwable> all = new ArrayList<>();
        all.add(open);
        for (Throwable t : open.getSuppressed()) {
            all.add(t.getCause() != null ? t.getCause() : t); // the other ranks' failures, as they were thrown
        }
        assertEquals(N, all.size(), "every rank's open failed: " + all);
        for (Throwable t : all) {
            assertInstanceOf(StepMismatchException.class, t, t.toString());
            assertTrue(t.getMessage().contains("the ranks' steps differ in the checkpoint of round 2 this recovery"
                    + " restored (a recovery never resumes ranks from different steps): rank 1 called here(3) while"
                    + " ranks 0,2 called here(2)"), t.getMessage());
        }
    }

    @Test
    void aRankSkippingAHereBeforeAFailureIsNamedWhenTheRecoveryOpens() throws Exception {
        List<TwoLevelCheckpointer> world = RankGroup.open(N, "step-fail", 0, this::options, r -> false);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            long[] data = new long[64];
            c.register("data", data);
            for (long step = 1; step <= 3; step++) {
                if (rank == 2 ? step != 2 : step != 3) {
                    data[0] = step;
                    c.here(step); // rank 2's round 2 is step 3, the others' step 2
                }
            }
            assertTrue(c.awaitReplicated(EXCHANGE), "rank " + rank);
            return null;
        });
        world.forEach(TwoLevelCheckpointer::crashForTest); // the failure, before any here() compared round 2
        long start = System.nanoTime();
        Exception open = assertThrows(Exception.class, () -> RankGroup.open(N, "step-fail", 1, this::options, r -> r == 0));
        long millis = (System.nanoTime() - start) / 1_000_000L;
        assertTrue(millis < EXCHANGE.toMillis(), millis + " ms");
        assertInstanceOf(StepMismatchException.class, open);
        assertEquals(N - 1, open.getSuppressed().length, List.of(open.getSuppressed()).toString());
        for (Throwable t : open.getSuppressed()) {
            assertInstanceOf(StepMismatchException.class, t.getCause(), t.toString());
        }
        assertTrue(open.getMessage().endsWith("rank 2 called here(3) while ranks 0,1 called here(2); every rank must"
                + " call here() at the same steps of the program (did a rank skip or add a here()?)"), open.getMessage());
    }

    @Test
    void anExtraHereOnTheBackgroundAgreementIsNamedAtTheNextHere() throws Exception {
        // three versions kept: here() runs ahead of the ring, the steps ride on the background size agreement
        IntFunction<CkptOptions> threeVersions = r -> options(r).toBuilder().versionsKept(3).build();
        Map<Integer, CkptException> errors = run("step-extra", threeVersions, (rank, c, data) -> {
            for (long step = 1; step <= 4; step++) {
                data[0] = step;
                c.here(step);
                if (rank == 0 && step == 2) {
                    c.here(step); // an extra here() with the same step
                }
            }
            c.close();
        });
        namedOnEveryRank(errors, "at checkpoint round 3: rank 0 called here(2) while ranks 1,2 called here(3)");
    }

    @Test
    void withAFixedSlotCapacityAStepThatDiffersIsNamedAtClose() throws Exception {
        // no exchange per here(): the step of the last here() is compared by close()
        IntFunction<CkptOptions> fixed = r -> options(r).toBuilder().slotCapacity(64 * 1024).build();
        Map<Integer, CkptException> errors = run("step-close", fixed, (rank, c, data) -> {
            for (long step = 1; step <= 3; step++) {
                data[0] = step;
                c.here(rank == 2 && step == 3 ? 30 : step);
            }
            c.close();
        });
        namedOnEveryRank(errors, "at close() after round 3: rank 2 called here(30) while ranks 0,1 called here(3)");
    }

    @Test
    void aStepThatDiffersIsNamedAtCtrl() throws Exception {
        IntFunction<CkptOptions> fixed = r -> options(r).toBuilder().slotCapacity(64 * 1024).build();
        Map<Integer, CkptException> errors = run("step-ctrl", fixed, (rank, c, data) -> {
            c.here(rank == 0 ? 7 : 8);
            c.ctrl(CtrlOptions.builder().replicas(2).build());
        });
        namedOnEveryRank(errors, "at ctrl() after round 1: rank 0 called here(7) while ranks 1,2 called here(8)");
    }

    @Test
    void withoutAStepASkippedHereIsNamedAtCloseWithBothRounds() throws Exception {
        IntFunction<CkptOptions> fixed = r -> options(r).toBuilder().slotCapacity(64 * 1024).build();
        Map<Integer, CkptException> errors = run("step-none", fixed, (rank, c, data) -> {
            for (int i = 1; i <= 3; i++) {
                if (!(rank == 1 && i == 2)) {
                    c.here();
                }
            }
            c.close();
        });
        assertEquals(N, errors.size(), errors.toString());
        for (CkptException e : errors.values()) {
            assertInstanceOf(CollectiveMismatchException.class, e, () -> e.getMessage() + " " + java.util.Arrays.toString(e.getStackTrace()));
            // named as soon as two calls differ: which others had arrived by then varies
            assertTrue(e.getMessage().contains("rank 1 called close() at round 2 (close)"), e.getMessage());
            assertTrue(e.getMessage().contains("called close() at round 3 (close)"), e.getMessage());
        }
    }

    @Test
    void aNegativeStepIsRefused() throws Exception {
        List<TwoLevelCheckpointer> world = RankGroup.open(1, "step-negative", 0,
                r -> RankGroup.options(nodes, r, 0, null, 1000), r -> false);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> world.get(0).here(-3));
        assertTrue(e.getMessage().contains("rank 0: here(step) takes the program's step"), e.getMessage());
        RankGroup.closeAll(world);
    }
}
