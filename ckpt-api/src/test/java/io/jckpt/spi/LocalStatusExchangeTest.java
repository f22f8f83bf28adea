package io.jckpt.spi;

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

class LocalStatusExchangeTest {

    @Test
    void everyRankGetsEveryContributionIndexedByRank() throws Exception {
        int n = 4;
        List<LocalStatusExchange> group = LocalStatusExchange.group(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<byte[][][]>> results = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                StatusExchange ex = group.get(r);
                results.add(pool.submit(() -> {
                    byte[][][] rounds = new byte[3][][];
                    for (int round = 0; round < 3; round++) {
                        rounds[round] = ex.allgather(new byte[]{(byte) ex.rank(), (byte) round}, Duration.ofSeconds(10));
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
        StatusExchange ex = LocalStatusExchange.group(1).get(0);
        assertArrayEquals(new byte[]{7}, ex.allgather(new byte[]{7}, Duration.ofMillis(1))[0]);
    }

    @Test
    void timeoutNamesTheMissingRanksAndBreaksTheGroup() throws Exception {
        List<LocalStatusExchange> group = LocalStatusExchange.group(4);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            // rank 1 waits long; rank 0 times out first and breaks the group
            Future<Throwable> rank1 = pool.submit(() -> {
                try {
                    group.get(1).allgather(new byte[0], Duration.ofSeconds(20));
                    return null;
                } catch (Throwable t) {
                    return t;
                }
            });
            Thread.sleep(50);
            ExchangeTimeoutException e = assertThrows(ExchangeTimeoutException.class,
                    () -> group.get(0).allgather(new byte[0], Duration.ofMillis(200)));
            assertEquals(List.of(2, 3), e.missingRanks());
            assertTrue(e.getMessage().contains("rank 0 timed out after 200 ms"), e.getMessage());
            assertTrue(e.getMessage().contains("ranks [2, 3] did not arrive"), e.getMessage());
            Throwable t1 = rank1.get(10, TimeUnit.SECONDS);
            assertInstanceOf(ExchangeTimeoutException.class, t1);
            assertEquals(List.of(2, 3), ((ExchangeTimeoutException) t1).missingRanks());
            ExchangeTimeoutException later = assertThrows(ExchangeTimeoutException.class,
                    () -> group.get(2).allgather(new byte[0], Duration.ofSeconds(5)));
            assertTrue(later.getMessage().contains("broken"), later.getMessage());
        } finally {
            pool.shutdownNow();
        }
    }
}
