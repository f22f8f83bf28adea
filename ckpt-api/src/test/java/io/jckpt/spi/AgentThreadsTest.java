package io.jckpt.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.junit.jupiter.api.Test;

/** The agent model: named daemon threads, errors that do not end an agent, closes that are bounded. */
class AgentThreadsTest {
    private static final long WAIT_SECONDS = 20;

    /** An agent whose cycle waits (bounded) for nothing: the shape of every jckpt agent. */
    private static final class Polling implements Agent {
        final CountDownLatch cycled = new CountDownLatch(2);
        final AtomicReference<Thread> worker = new AtomicReference<>();
        final AtomicReference<Thread> closedOn = new AtomicReference<>();
        final AtomicBoolean failFirst = new AtomicBoolean();

        @Override
        public String roleName() {
            return "jckpt-test-agent-3";
        }

        @Override
        public int doWork() throws InterruptedException {
            worker.set(Thread.currentThread());
            cycled.countDown();
            if (failFirst.getAndSet(false)) {
                throw new IllegalStateException("deliberate failure of one cycle");
            }
            new CountDownLatch(1).await(20, TimeUnit.MILLISECONDS);
            return 0;
        }

        @Override
        public void onClose() {
            closedOn.set(Thread.currentThread());
        }
    }

    @Test
    void anAgentRunsOnADaemonThreadNamedAfterItsRoleAndClosesOnIt() throws Exception {
        Polling agent = new Polling();
        AgentRunner runner = AgentThreads.start(agent);
        assertTrue(agent.cycled.await(WAIT_SECONDS, TimeUnit.SECONDS));
        Thread worker = agent.worker.get();
        assertEquals("jckpt-test-agent-3", worker.getName());
        assertTrue(worker.isDaemon());
        assertTrue(AgentThreads.close(runner, TimeUnit.SECONDS.toMillis(WAIT_SECONDS)));
        assertFalse(worker.isAlive());
        assertSame(worker, agent.closedOn.get(), "onClose runs on the agent's own thread");
        assertTrue(runner.isClosed());
        assertTrue(AgentThreads.close(runner, 1), "a second close returns at once");
    }

    @Test
    void anErrorOutOfACycleDoesNotEndTheAgent() throws Exception {
        Polling agent = new Polling();
        agent.failFirst.set(true);
        AgentRunner runner = AgentThreads.start(agent);
        assertTrue(agent.cycled.await(WAIT_SECONDS, TimeUnit.SECONDS), "a second cycle after the failed one");
        assertFalse(runner.isClosed());
        assertTrue(AgentThreads.close(runner, TimeUnit.SECONDS.toMillis(WAIT_SECONDS)));
    }

    @Test
    void closeGivesUpAfterItsBoundAndNeverInterruptsUnlessAsked() throws Exception {
        Semaphore release = new Semaphore(0);
        CountDownLatch entered = new CountDownLatch(1);
        AtomicInteger cycles = new AtomicInteger();
        AgentRunner runner = AgentThreads.start(new Agent() {
            @Override
            public String roleName() {
                return "jckpt-test-stuck";
            }

            @Override
            public int doWork() {
                cycles.incrementAndGet();
                entered.countDown();
                release.acquireUninterruptibly(); // e.g. a long write: not to be interrupted
                return 1;
            }
        });
        assertTrue(entered.await(WAIT_SECONDS, TimeUnit.SECONDS));
        Thread worker = runner.thread();
        long start = System.nanoTime();
        assertFalse(AgentThreads.close(runner, 200));
        long tookMillis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertTrue(tookMillis >= 200 && tookMillis < TimeUnit.SECONDS.toMillis(WAIT_SECONDS), tookMillis + " ms");
        assertTrue(worker.isAlive());
        assertFalse(worker.isInterrupted(), "not interrupted");
        release.release();
        worker.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertFalse(worker.isAlive(), "ends after its cycle: it was told to stop");
        assertEquals(1, cycles.get());
    }

    @Test
    void whenAskedCloseRunsTheTimeoutActionThenInterruptsTheAgent() throws Exception {
        CountDownLatch entered = new CountDownLatch(1);
        AtomicBoolean interrupted = new AtomicBoolean();
        AgentRunner runner = AgentThreads.start(new Agent() {
            @Override
            public String roleName() {
                return "jckpt-test-interruptible";
            }

            @Override
            public int doWork() throws InterruptedException {
                entered.countDown();
                try {
                    new CountDownLatch(1).await(); // interruptible, never counted down
                } catch (InterruptedException e) {
                    interrupted.set(true);
                    throw e;
                }
                return 1;
            }
        });
        assertTrue(entered.await(WAIT_SECONDS, TimeUnit.SECONDS));
        Thread worker = runner.thread();
        AtomicBoolean timedOut = new AtomicBoolean();
        assertFalse(AgentThreads.close(runner, 200, () -> timedOut.set(!interrupted.get())),
                "past the first wait");
        assertTrue(timedOut.get(), "the action ran before the interrupt");
        assertTrue(interrupted.get());
        worker.join(TimeUnit.SECONDS.toMillis(WAIT_SECONDS));
        assertFalse(worker.isAlive());
    }
}
