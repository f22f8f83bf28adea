package io.jckpt.imem;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.BrokenBarrierException;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** An allgather among n threads of one JVM, for tests. */
final class InMemoryExchange {
    private final int n;
    private final CyclicBarrier in;
    private final CyclicBarrier out;
    private final byte[][] slots;

    InMemoryExchange(int n) {
        this.n = n;
        this.in = new CyclicBarrier(n);
        this.out = new CyclicBarrier(n);
        this.slots = new byte[n][];
    }

    StatusExchange forRank(int rank) {
        return (mine, timeout) -> {
            try {
                slots[rank] = mine.clone();
                in.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
                byte[][] copy = new byte[n][];
                for (int r = 0; r < n; r++) {
                    copy[r] = slots[r].clone();
                }
                out.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
                return copy;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IOException("interrupted", e);
            } catch (BrokenBarrierException | TimeoutException e) {
                throw new IOException("allgather failed", e);
            }
        };
    }
}
