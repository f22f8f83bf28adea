package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.CtrlOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Ranks that call different collectives (the typed collectives' reason to be): each case fails on
 * every rank, well within the exchange timeout, with an error naming the ranks and their calls, and
 * the rounds checkpointed before stay restorable.
 */
class CollectiveMismatchTest {
    private static final int N = 3;
    private static final Duration EXCHANGE = Duration.ofSeconds(20);
    @TempDir
    Path nodes;

    private CkptOptions options(int rank) {
        return RankGroup.options(nodes, rank, 1, null, 1000).toBuilder().exchangeTimeout(EXCHANGE)
                .hereWaitTimeout(EXCHANGE).replicationTimeout(EXCHANGE).build();
    }

    /** Runs {@code body} on every rank of a fresh world; returns each rank's error message (null: none). */
    private Map<Integer, String> run(String job, RankBody body) throws Exception {
        List<TwoLevelCheckpointer> world = RankGroup.open(N, job, 0, this::options, r -> false);
        Map<Integer, String> errors = new ConcurrentHashMap<>();
        CountDownLatch ended = new CountDownLatch(N);
        long start = System.nanoTime();
        RankGroup.parallel(N, rank -> {
            long[] data = new long[64];
            TwoLevelCheckpointer c = world.get(rank);
            c.register("data", data);
            try {
                body.run(rank, c, data);
            } catch (CkptException e) {
                errors.put(rank, e.getMessage());
            }
            ended.countDown();
            // a rank whose call failed keeps its ring open until every rank's call ended, as a process
            // would until the launcher ends the job; then it goes as a killed process goes
            ended.await(60, TimeUnit.SECONDS);
            c.crashForTest();
            return null;
        });
        long millis = (System.nanoTime() - start) / 1_000_000L;
        assertTrue(millis < EXCHANGE.toMillis(), "the mismatch took " + millis + " ms to show");
        return errors;
    }

    interface RankBody {
        void run(int rank, TwoLevelCheckpointer c, long[] data) throws Exception;
    }

    @Test
    void aRankCallingCloseWhileTheOthersCallCtrlIsNamedOnEveryRank() throws Exception {
        Map<Integer, String> errors = run("mismatch-close", (rank, c, data) -> {
            data[0] = 1;
            c.here();
            // round 1 complete everywhere before the mismatch, so that the next world must restore it
            // (a rank whose close fails leaves the ring at once, as its process would)
            assertTrue(c.awaitReplicated(EXCHANGE), "rank " + rank);
            if (rank == 1) {
                c.close();
            } else {
                c.ctrl(CtrlOptions.builder().replicas(2).build());
            }
        });
        assertEquals(N, errors.size(), errors.toString());
        for (String message : errors.values()) {
            // named as soon as two calls differ: which others had arrived by then varies
            assertTrue(message.contains("rank 1 called close() at round 1 (close)"), message);
            assertTrue(message.contains("called ctrl() at round 1 (ctrl options)"), message);
        }
        // nothing checkpointed was touched: the next world restores round 1 from memory on every rank
        List<TwoLevelCheckpointer> next = RankGroup.open(N, "mismatch-close", 1, this::options, r -> false);
        RankGroup.parallel(N, rank -> {
            long[] restored = new long[64];
            next.get(rank).rollback("data", restored);
            long[] expected = new long[64];
            expected[0] = 1;
            assertArrayEquals(expected, restored, "rank " + rank);
            assertEquals(1, next.get(rank).round());
            return null;
        });
        RankGroup.closeAll(next);
    }

    @Test
    void aRankCallingCtrlAloneIsNamedOnEveryRank() throws Exception {
        Map<Integer, String> errors = run("mismatch-ctrl", (rank, c, data) -> {
            c.here();
            if (rank == 2) {
                c.ctrl(CtrlOptions.builder().replicas(2).build());
            }
            c.here();
            c.close();
        });
        assertEquals(N, errors.size(), errors.toString());
        // a rank still in here() when a peer that failed closed its ring end says why the peer left
        for (String message : errors.values()) {
            assertTrue(message.contains("rank 2 called ctrl() at round 1 (ctrl options)"), message);
            assertTrue(message.contains("called close() at round 2 (close)"), message);
        }
    }

    @Test
    void aRankSkippingItsFirstHereIsNamedOnEveryRank() throws Exception {
        Map<Integer, String> errors = run("mismatch-skip", (rank, c, data) -> {
            for (int i = 1; i <= 3; i++) {
                data[0] = i;
                if (!(rank == 1 && i == 1)) {
                    c.here();
                }
            }
            c.close();
        });
        assertEquals(N, errors.size(), errors.toString());
        for (String message : errors.values()) {
            assertTrue(message.contains("rank 1 called close() at round 2 (close)"), message);
            assertTrue(message.contains("called close() at round 3 (close)"), message);
            assertTrue(message.contains("the ranks are at different checkpoint rounds (did a rank skip a here()?)"), message);
        }
    }
}
