package io.jckpt.imem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.nio.channels.SocketChannel;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A raised {@link WaitFence} ends an endpoint's waits at once, over real loopback sockets: a ring join
 * waiting for a peer that never connects (it was stopped), a transfer's handshake waiting for a hello that
 * never comes, and any wait begun after the raise. The deadlines are ten minutes: a wait that ran to its
 * deadline would fail the test's bounds.
 */
class WaitFenceTest {
    private static final Duration LONG = Duration.ofMinutes(10);
    private static final JobSecret SECRET = JobSecret.random();

    @Test
    void aRaisedFenceEndsARingJoinWaitingForAPeerThatNeverComes() throws Exception {
        WaitFence fence = new WaitFence();
        try (DataEndpoint stopped = DataEndpoint.bindLoopback(0, SECRET);
             DataEndpoint waiting = DataEndpoint.bind(InetAddress.getLoopbackAddress(), 1, SECRET, fence)) {
            // rank 1 connects to rank 0 (its backlog takes it) and waits for rank 0 to connect back: it never does
            CompletableFuture<RingLinks> join = CompletableFuture.supplyAsync(() -> {
                try {
                    return waiting.joinRing(2, stopped.address(), LONG);
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            awaitWaiting(fence, join);
            fence.raise("MPJ world 0 abandoned after a failure");
            ExecutionException e = assertThrows(ExecutionException.class, () -> join.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof ReplicationException, e.toString());
            assertEquals("rank 1 awaiting rank 0: MPJ world 0 abandoned after a failure", e.getCause().getMessage());
            assertTrue(fence.raised());
        }
    }

    @Test
    void aRaisedFenceEndsAHandshakeWaitingForAHelloAndEveryLaterWait() throws Exception {
        WaitFence fence = new WaitFence();
        try (DataEndpoint endpoint = DataEndpoint.bind(InetAddress.getLoopbackAddress(), 2, SECRET, fence);
             SocketChannel silent = SocketChannel.open(endpoint.address())) {
            // a peer that connected for a rollback transfer and stopped before its hello
            CompletableFuture<DataEndpoint.Accepted> accept = CompletableFuture.supplyAsync(() -> {
                try {
                    return endpoint.acceptTransfer(ChannelIo.deadline(LONG));
                } catch (Exception e) {
                    throw new java.util.concurrent.CompletionException(e);
                }
            });
            awaitWaiting(fence, accept);
            fence.raise("abandoned");
            ExecutionException e = assertThrows(ExecutionException.class, () -> accept.get(30, TimeUnit.SECONDS));
            assertEquals("rank 2 awaiting a hello: abandoned", e.getCause().getMessage());

            // raised: a new wait fails before it waits, however long its deadline
            ReplicationException later = assertThrows(ReplicationException.class,
                    () -> endpoint.acceptTransfer(ChannelIo.deadline(LONG)));
            assertEquals("rank 2 awaiting a rollback transfer: abandoned", later.getMessage());
            assertTrue(silent.isOpen());
        }
    }

    @Test
    void neverIsNeverRaised() {
        assertThrows(IllegalStateException.class, () -> WaitFence.NEVER.raise("x"));
        assertFalse(WaitFence.NEVER.raised());
    }

    /** Until the task waits on the fence's watch (bounded; the task must not have ended instead). */
    private static void awaitWaiting(WaitFence fence, CompletableFuture<?> task) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (fence.waiting() == 0 && !task.isDone() && System.nanoTime() < deadline) {
            Thread.sleep(5); // the waiting thread registers its selector: a state change polled, bounded
        }
        assertFalse(task.isDone(), () -> "the wait ended before the fence was raised: " + task);
        assertEquals(1, fence.waiting());
    }
}
