package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.CkptStateException;
import io.jckpt.DataMismatchException;
import io.jckpt.DuplicateTagException;
import io.jckpt.UnrestoredTagsException;
import io.jckpt.imem.ReplicaStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The recovery contract with real stores, sockets and ranks as threads: a program that registers
 * everything unconditionally gets its data restored in place (from memory and from the disk level),
 * and a tag of the restored checkpoint left neither restored nor removed on any rank fails every rank
 * at its first here() or close() with one error naming the rank and the tag, before anything of the
 * new world is checkpointed.
 */
class RecoveryContractTest {
    private static final int N = 3;
    private static final Duration EXCHANGE = Duration.ofSeconds(20);
    @TempDir
    Path nodes;
    @TempDir
    Path disk;

    private CkptOptions options(int rank) {
        return RankGroup.options(nodes, rank, 1, disk, 1).toBuilder().exchangeTimeout(EXCHANGE)
                .hereWaitTimeout(EXCHANGE).replicationTimeout(EXCHANGE).build();
    }

    private static double[] u(int rank, int round) {
        return TwoLevelCheckpointerTest.grid(rank, round);
    }

    /** World 0: every rank registers u and step, takes rounds 1 and 2 and dies with round 2 replicated. */
    @BeforeEach
    void checkpointTwoRoundsAndCrash() throws Exception {
        List<TwoLevelCheckpointer> world0 = RankGroup.open(N, "contract", 0, this::options, r -> false);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world0.get(rank);
            double[] u = new double[u(rank, 1).length];
            long[] step = {0};
            c.register("u", u);
            c.register("step", step);
            for (int k = 1; k <= 2; k++) {
                System.arraycopy(u(rank, k), 0, u, 0, u.length);
                step[0] = 10L * k;
                c.here();
            }
            assertTrue(c.awaitReplicated(EXCHANGE), "rank " + rank);
            return null;
        });
        world0.forEach(TwoLevelCheckpointer::crashForTest);
    }

    @Test
    void registeringUnconditionallyRestoresInPlaceFromMemory() throws Exception {
        restoresInPlace();
    }

    @Test
    void registeringUnconditionallyRestoresInPlaceFromDisk() throws Exception {
        for (int r = 0; r < N; r++) {
            ReplicaStore.wipe(nodes.resolve("node-" + r)); // every node lost: only the disk level has round 2
        }
        restoresInPlace();
    }

    private void restoresInPlace() throws Exception {
        List<TwoLevelCheckpointer> world1 = RankGroup.open(N, "contract", 1, this::options, r -> false);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            assertTrue(c.isRecovery());
            double[] u = new double[u(rank, 2).length];
            long[] step = {0};
            assertThrows(DataMismatchException.class, () -> c.register("u", new double[3]),
                    "register checks as rollback does, and leaves the tag to restore");
            c.register("u", u); // the same line as on a fresh start
            c.register("step", step);
            c.register("extra", new int[4]); // not in the checkpoint: registered fresh
            assertThrows(DuplicateTagException.class, () -> c.register("u", u));
            assertArrayEquals(u(rank, 2), u, "rank " + rank + ": restored into the program's own array");
            assertEquals(20, step[0]);
            step[0] = 30;
            c.here(); // every tag accounted for: the check passes on every rank
            CkptStateException late = assertThrows(CkptStateException.class, () -> c.rollback("u", u));
            assertTrue(late.getMessage().contains("after the first here(), ctrl() or close() of the recovery"),
                    late.getMessage());
            return null;
        });
        RankGroup.closeAll(world1);
    }

    @Test
    void aTagForgottenOnOneRankFailsEveryRankAtTheFirstHere() throws Exception {
        Map<Integer, String> errors = firstCall(false, (rank, c) -> {
            c.register("u", new double[u(rank, 2).length]);
            if (rank != 1) {
                c.register("step", new long[1]);
            }
            c.here();
        });
        assertEquals(N, errors.size(), errors.toString());
        for (Map.Entry<Integer, String> e : errors.entrySet()) {
            assertTrue(e.getValue().startsWith("rank " + e.getKey() + ": the checkpoint restored at round 2 holds tags"
                    + " that were neither restored nor removed"), e.getValue());
            assertTrue(e.getValue().contains("(rank 1: 'step')"), e.getValue());
        }
    }

    @Test
    void aRemovedTagIsAccountedForAndAForgottenOneFailsTheClose() throws Exception {
        Map<Integer, String> errors = firstCall(true, (rank, c) -> {
            c.rollback("u", new double[u(rank, 2).length]); // the explicit form
            if (rank == 0) {
                c.remove("step"); // dropped on purpose: accounted for
            }
            if (rank == 2) {
                c.register("other", new long[1]);
            }
            c.close(); // ranks 1 and 2 forgot step
        });
        assertEquals(N, errors.size(), errors.toString());
        for (String message : errors.values()) {
            assertTrue(message.contains("(rank 1: 'step'; rank 2: 'step')"), message);
        }
    }

    interface RankBody {
        void run(int rank, TwoLevelCheckpointer c) throws Exception;
    }

    /** Runs {@code body} on every rank of the recovery; returns each rank's UnrestoredTagsException message. */
    private Map<Integer, String> firstCall(boolean closes, RankBody body) throws Exception {
        List<TwoLevelCheckpointer> world1 = RankGroup.open(N, "contract", 1, this::options, r -> false);
        Map<Integer, String> errors = new ConcurrentHashMap<>();
        CountDownLatch ended = new CountDownLatch(N);
        long start = System.nanoTime();
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            try {
                body.run(rank, c);
            } catch (UnrestoredTagsException e) {
                errors.put(rank, e.getMessage());
            }
            ended.countDown();
            ended.await(60, TimeUnit.SECONDS);
            c.crashForTest();
            return null;
        });
        long millis = (System.nanoTime() - start) / 1_000_000L;
        assertTrue(millis < EXCHANGE.toMillis(), "the mistake took " + millis + " ms to show");
        // nothing of the new world was checkpointed: the next recovery restores round 2 again
        List<TwoLevelCheckpointer> world2 = RankGroup.open(N, "contract", 2, this::options, r -> false);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world2.get(rank);
            assertEquals(2, c.round(), "rank " + rank + (closes ? " after the failed close" : ""));
            long[] step = new long[1];
            c.register("u", new double[u(rank, 2).length]);
            c.register("step", step);
            assertEquals(20, step[0]);
            return null;
        });
        RankGroup.closeAll(world2);
        return errors;
    }
}
