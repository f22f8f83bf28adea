package io.jckpt.spi;

import io.jckpt.CollectiveMismatchException;
import io.jckpt.ExchangeTimeoutException;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.*;

/** The in-JVM typed collective: every contribution, mismatches and timeouts named on every rank. */
class LocalRankCollectiveTest {
    private static final Collective T = Collective.of(Collective.Kind.TEST);

    @Test
    void everyRankGetsEveryContributionIndexedByRank() throws Exception {
        int n = 4;
        List<LocalRankCollective> group = LocalRankCollective.group(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<byte[][][]>> results = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                RankCollective ex = group.get(r);
                results.add(pool.submit(() -> {
                    byte[][][] rounds = new byte[3][][];
                    for (int round = 0; round < 3; round++) {
                        rounds[round] = ex.allgather(Collective.of(Collective.Kind.TEST, round), new byte[]{(byte) ex.rank(), (byte) round}, Duration.ofSeconds(10));
                    }
                    return rounds;
                }));
            }
            for (Future<byte[][][]> f : results) {
                byte[][][] rounds = f.get(20, TimeUnit.SECONDS);
                for (int round = 0; round < 3; round++) {
                    assertEquals(n, rounds[round].length);
                    for (int r = 0; r < n; r++) {
                        assertArrayEquals(new byte[]{(byte) r, (byte) round}, rounds[round][r]);
                    }
                }
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(4, group.get(1).worldSize());
    }

    @Test
    void singleRankReturnsAtOnce() {
        RankCollective ex = LocalRankCollective.group(1).get(0);
        assertArrayEquals(new byte[]{7}, ex.allgather(T, new byte[]{7}, Duration.ofMillis(1))[0]);
    }

    @Test
    void timeoutNamesTheMissingRanksAndBreaksTheGroup() throws Exception {
        List<LocalRankCollective> group = LocalRankCollective.group(4);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            // rank 1 waits long; rank 0 times out first and breaks the group
            Future<Throwable> rank1 = pool.submit(() -> {
                try {
                    group.get(1).allgather(T, new byte[0], Duration.ofSeconds(20));
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Thread.sleep(50);
            ExchangeTimeoutException e = assertThrows(ExchangeTimeoutException.class,
                    () -> group.get(0).allgather(T, new byte[0], Duration.ofMillis(200)));
            assertEquals(List.of(2, 3), e.missingRanks());
            assertTrue(e.getMessage().contains("rank 0 timed out after 200 ms"), e.getMessage());
            assertTrue(e.getMessage().contains("ranks [2, 3] did not arrive"), e.getMessage());
            Throwable t1 = rank1.get(10, TimeUnit.SECONDS);
            assertInstanceOf(ExchangeTimeoutException.class, t1);
            assertEquals(List.of(2, 3), ((ExchangeTimeoutException) t1).missingRanks());
            ExchangeTimeoutException later = assertThrows(ExchangeTimeoutException.class,
                    () -> group.get(2).allgather(T, new byte[0], Duration.ofSeconds(5)));
            assertTrue(later.getMessage().contains("broken"), later.getMessage());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aRankMakingAnotherCallFailsEveryRankAtOnceNamingTheCalls() throws Exception {
        List<LocalRankCollective> group = LocalRankCollective.group(4);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<String>> errors = new ArrayList<>();
            for (int r = 0; r < 4; r++) {
                int rank = r;
                Collective call = rank == 1 ? Collective.of(Collective.Kind.SIZE_AGREEMENT, 1)
                        : Collective.of(Collective.Kind.CLOSE, 1);
                errors.add(pool.submit(() -> assertThrows(CollectiveMismatchException.class,
                        () -> group.get(rank).allgather(call, new byte[0], Duration.ofSeconds(60))).getMessage()));
            }
            for (Future<String> error : errors) {
                // well within the 60 s timeout: nobody waits for it
                String message = error.get(20, TimeUnit.SECONDS);
                // named as soon as two calls differ: the others that had arrived by then are listed
                assertTrue(message.contains("rank 1 called here() #1 (slot size agreement)"), message);
                assertTrue(message.contains("called close() at round 1 (close)"), message);
            }
            // the world is broken for good, like after a timeout
            assertThrows(CollectiveMismatchException.class, () -> group.get(0).allgather(T, new byte[0], Duration.ofSeconds(1)));
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theSameKindForAnotherRoundIsAMismatchToo() {
        String m = Collective.mismatch(java.util.Map.of(0, Collective.of(Collective.Kind.CTRL, 4),
                1, Collective.of(Collective.Kind.CTRL, 5), 2, Collective.of(Collective.Kind.CTRL, 4)));
        assertEquals("rank 1 called ctrl() at round 5 (ctrl options) while ranks 0,2 called ctrl() at round 4 (ctrl options)"
                + ": the ranks are at different checkpoint rounds (did a rank skip a here()?)", m);
        assertNull(Collective.mismatch(java.util.Map.of(0, Collective.of(Collective.Kind.OPEN),
                3, Collective.of(Collective.Kind.OPEN))));
        assertEquals(Collective.of(Collective.Kind.CLOSE, 7), Collective.decode(Collective.of(Collective.Kind.CLOSE, 7).encode()));
    }

    @Test
    void anAbandonedWorldEndsItsExchangesAndRunsItsActionsAtOnce() throws Exception {
        List<LocalRankCollective> group = LocalRankCollective.group(2);
        List<String> ran = new java.util.concurrent.CopyOnWriteArrayList<>();
        group.get(0).onAbandoned(0, () -> ran.add("rank 0's"));
        RankCollective.Registration dropped = group.get(1).onAbandoned(0, () -> ran.add("dropped"));
        dropped.close();
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            // rank 0 waits for rank 1, which never comes (stopped); an hour's timeout
            Future<?> waiting = pool.submit(() -> group.get(0).allgather(T, new byte[0], Duration.ofHours(1)));
            group.get(1).abandonWorld();
            java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                    () -> waiting.get(20, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof io.jckpt.CkptStateException, e.toString());
            assertTrue(e.getCause().getMessage().contains("abandoned"), e.getCause().getMessage());
            assertEquals(List.of("rank 0's"), ran);
            // and every later call or registration: at once
            assertThrows(io.jckpt.CkptStateException.class, () -> group.get(1).allgather(T, new byte[0], Duration.ofHours(1)));
            group.get(1).onAbandoned(0, () -> ran.add("late"));
            assertEquals(List.of("rank 0's", "late"), ran);
        } finally {
            pool.shutdownNow();
        }
    }
}
