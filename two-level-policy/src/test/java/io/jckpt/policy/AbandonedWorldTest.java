package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankContext;
import io.jckpt.testkit.RankThreads;
import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.IntPredicate;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A world abandoned while its ranks open (the runtime's order to recover after a rank of it was stopped or
 * killed) ends its opens' waits on the data channels at once, not at their timeouts: the ring join of a
 * first start waiting for the stopped rank, and a rollback transfer waiting for a stopped sender. The
 * stopped rank is held in {@link TwoLevelCheckpointer#recoveryHook} (after the open exchange, before its
 * ring join or sends), never a sleep. The exchange and replication timeouts are ten minutes, the ranks'
 * bound 90 s: a wait run to its end fails the test. In a launched job such a wait held the process's open
 * lock, so the survivors' next world waited for it (issue 33 item 3); the next world here opens and
 * restores as if nothing had happened.
 */
class AbandonedWorldTest {
    private static final int N = 4;
    private static final Duration LONG = Duration.ofMinutes(10);
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final byte[] SECRET = new byte[32];
    /** The launcher's job key: the same in every world, so the next world verifies the first's copies. */
    private static final byte[] JOB_KEY = io.jckpt.image.ImageKey.newJobKey();

    @TempDir
    Path tmp;

    @AfterEach
    void removeHook() {
        TwoLevelCheckpointer.recoveryHook = null;
    }

    private CkptOptions options(int rank) {
        return RankGroup.options(tmp.resolve("nodes"), rank, 1, null, 0).toBuilder().exchangeTimeout(LONG)
                .replicationTimeout(LONG).build();
    }

    @Test
    void anOpenWaitingInTheRingJoinForAStoppedRankEndsWhenItsWorldIsAbandoned() throws Exception {
        String job = "abandoned-ring-join";
        Hold hold = new Hold(0);
        TwoLevelCheckpointer.recoveryHook = hold;
        List<LocalRankCollective> world0 = LocalRankCollective.group(N);
        CompletableFuture<List<Object>> opens = openInBackground(world0, job, 0, r -> false);
        // every rank has the open exchange's statuses: ranks 1-3 applied their (clean) start and go on to
        // join the ring, rank 0 is held before it (stopped, as far as they can tell): rank 1 waits for it
        hold.awaitApplied(1, 2, 3);
        world0.get(0).abandonWorld();
        hold.release();
        List<Object> outcomes = opens.get(90, TimeUnit.SECONDS);
        assertKilled(outcomes, 0);
        for (int r = 1; r < N; r++) {
            assertAbandoned(outcomes, r);
        }
        TwoLevelCheckpointer.recoveryHook = null;

        // the next world: a clean start, checkpoints, and its round restores bit-identically after that
        List<TwoLevelCheckpointer> world1 = RankGroup.openWithKey(N, job, 1, this::options, r -> false, JOB_KEY);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            c.register("grid", TwoLevelCheckpointerTest.grid(rank, 1));
            c.here();
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        world1.forEach(TwoLevelCheckpointer::crashForTest);
        List<TwoLevelCheckpointer> world2 = RankGroup.openWithKey(N, job, 2, this::options, r -> false, JOB_KEY);
        assertRestored(world2, 1, 1);
    }

    @Test
    void aRollbackTransferWaitingForAStoppedSenderEndsWhenItsWorldIsAbandoned() throws Exception {
        String job = "abandoned-transfer";
        List<TwoLevelCheckpointer> world0 = RankGroup.openWithKey(N, job, 0, this::options, r -> false, JOB_KEY);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world0.get(rank);
            c.register("grid", TwoLevelCheckpointerTest.grid(rank, 1));
            c.here();
            c.here();
            assertTrue(c.awaitReplicated(WAIT));
            c.here(); // round 3: round 2 is recorded complete everywhere, a node loss restores from memory
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        world0.forEach(TwoLevelCheckpointer::crashForTest);
        RankThreads.wipeNode(tmp.resolve("nodes"), 2); // rank 2's node lost: its copy of round 3 is at rank 3

        // world 1: rank 3, the sender, is held after the decision; rank 2 waits for its transfer
        Hold hold = new Hold(3);
        TwoLevelCheckpointer.recoveryHook = hold;
        List<LocalRankCollective> world1 = LocalRankCollective.group(N);
        CompletableFuture<List<Object>> opens = openInBackground(world1, job, 1, r -> r == 2);
        hold.awaitApplied(0, 1); // their own copies restored, rank 1's refill of rank 2 sent
        assertEquals(RecoveryDecision.Source.MEMORY, hold.decisions[2].source(), hold.decisions[2].toString());
        world1.get(0).abandonWorld();
        hold.release();
        List<Object> outcomes = opens.get(90, TimeUnit.SECONDS);
        assertAbandoned(outcomes, 2);
        assertKilled(outcomes, 3);
        // ranks 0 and 1 restored their own copies and wait in open()'s exchange of the restored steps,
        // which needs rank 3: the abandonment ends it too
        assertAbandoned(outcomes, 0);
        assertAbandoned(outcomes, 1);
        TwoLevelCheckpointer.recoveryHook = null;

        List<TwoLevelCheckpointer> world2 = RankGroup.openWithKey(N, job, 2, this::options, r -> r == 2, JOB_KEY);
        assertRestored(world2, 3, 1);
    }

    /** Rank {@code r}'s open ended with the fence: the world was abandoned (not a timeout, not a peer's close). */
    private static void assertAbandoned(List<Object> outcomes, int r) {
        assertTrue(outcomes.get(r) instanceof CkptException e && e.getMessage().contains("abandoned after a failure"),
                "rank " + r + ": " + outcomes.get(r));
    }

    /** The held rank's open ended as the hook killed it. */
    private static void assertKilled(List<Object> outcomes, int r) {
        assertTrue(outcomes.get(r) instanceof CkptException e && e.getMessage().contains("rank " + r + " killed"),
                "rank " + r + ": " + outcomes.get(r));
    }

    /** Every rank restores round {@code round}, its grid {@code grid} bit-identically; the world is closed after. */
    private static void assertRestored(List<TwoLevelCheckpointer> world, int round, int grid) throws Exception {
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            assertTrue(c.isRecovery(), "rank " + rank);
            assertEquals(round, c.round());
            double[] target = new double[TwoLevelCheckpointerTest.grid(rank, grid).length];
            c.rollback("grid", target);
            assertArrayEquals(TwoLevelCheckpointerTest.grid(rank, grid), target);
            return null;
        });
        RankGroup.closeAll(world);
    }

    /**
     * Opens every rank of one world on its own thread; each rank's outcome: its checkpointer, or what its
     * open threw (so that the test sees every rank's).
     */
    private CompletableFuture<List<Object>> openInBackground(List<LocalRankCollective> world, String job, int epoch,
                                                             IntPredicate newRank) {
        return CompletableFuture.supplyAsync(() -> {
            try {
                return RankGroup.parallel(N, rank -> {
                    RankContext context = RankContext.builder().rank(rank).size(N).jobId(job).epoch(epoch)
                            .recovery(epoch > 0).newRank(epoch > 0 && newRank.test(rank)).build();
                    try {
                        return (Object) TwoLevelCheckpointer.open(options(rank), context, world.get(rank), SECRET,
                                JOB_KEY, "127.0.0.1", null);
                    } catch (CkptException e) {
                        return e;
                    }
                });
            } catch (Exception e) {
                throw new java.util.concurrent.CompletionException(e);
            }
        });
    }

    /**
     * Holds {@code held} at its decision (stopped) until released, then fails its open (killed); tells which
     * ranks applied their decisions.
     */
    private static final class Hold implements TwoLevelCheckpointer.RecoveryHook {
        private final int held;
        private final CountDownLatch[] applied = new CountDownLatch[N];
        private final CountDownLatch released = new CountDownLatch(1);
        private final RecoveryDecision[] decisions = new RecoveryDecision[N];

        Hold(int held) {
            this.held = held;
            for (int r = 0; r < N; r++) {
                applied[r] = new CountDownLatch(1);
            }
        }

        @Override
        public void decided(int rank, RecoveryDecision decision) throws IOException {
            decisions[rank] = decision;
            if (rank == held) {
                try {
                    assertTrue(released.await(90, TimeUnit.SECONDS), "rank " + held + " never released");
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                // it was stopped, then killed: its open ends here (and its endpoint closes)
                throw new IOException("rank " + rank + " killed");
            }
        }

        @Override
        public void applied(int rank, RecoveryDecision decision) {
            applied[rank].countDown();
        }

        void awaitApplied(int... ranks) throws InterruptedException {
            for (int r : ranks) {
                assertTrue(applied[r].await(90, TimeUnit.SECONDS), "rank " + r + " never applied its decision");
            }
        }

        void release() {
            released.countDown();
        }
    }
}
