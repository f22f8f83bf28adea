package io.jckpt.spi;

import java.util.concurrent.ThreadFactory;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.agrona.concurrent.IdleStrategy;
import org.agrona.concurrent.SleepingMillisIdleStrategy;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * jckpt's one model for background threads, in every module (the replication ring, the stores'
 * preparers, the disk flusher and commit thread, the size agreement, the launcher's and ranks' control
 * threads): each is an Agrona {@link Agent} run by an {@link AgentRunner} on its own daemon thread
 * named after the agent's {@link Agent#roleName() role} (which names the job's rank, e.g.
 * {@code jckpt-ring-replication-3}), started and stopped here.
 *
 * <ul>
 *   <li>Blocking work stays blocking, bounded: an agent's {@code doWork} waits for its work itself
 *   (a queue or condition polled with a timeout, a {@code select} or {@code accept} with one) and
 *   returns how much it did. The {@link #idle() idle strategy} parks 1 ms after a cycle that did
 *   nothing, so a {@code doWork} that returns early can never spin (two cores are shared).</li>
 *   <li>An agent ends itself by throwing a plain {@link AgentTerminationException} (not logged);
 *   anything else thrown out of {@code doWork} is logged as an error with the role, and the agent
 *   goes on unless it ends itself.</li>
 *   <li>{@link #close} stops an agent with a bounded wait: Agrona's own close would wait, interrupting
 *   the thread, until it is gone; here it gives up after the bound (an agent blocked in interruptible
 *   file I/O must not be interrupted unless its owner says so: interruption closes the channel).</li>
 * </ul>
 */
public final class AgentThreads {
    private static final Logger LOG = LoggerFactory.getLogger(AgentThreads.class);
    private static final ThreadFactory DAEMON = runnable -> {
        Thread thread = new Thread(runnable);
        thread.setDaemon(true);
        return thread;
    };

    /** Thrown out of Agrona's close-fail action to end a wait that reached its bound. */
    private static final class GaveUp extends RuntimeException {
        private static final long serialVersionUID = 1L;

        GaveUp() {
            super(null, null, false, false);
        }
    }

    private AgentThreads() {
    }

    /** @return the idle strategy for agents that wait for work in {@code doWork}: a 1 ms park after an idle cycle */
    public static IdleStrategy idle() {
        return new SleepingMillisIdleStrategy(1);
    }

    /**
     * Starts {@code agent} on its own daemon thread named after its role, with {@link #idle()}.
     *
     * @return its runner, for {@link #close}
     */
    public static AgentRunner start(Agent agent) {
        return start(agent, idle());
    }

    /**
     * Starts {@code agent} on its own daemon thread named after its role.
     *
     * @param idle what the runner does after a cycle: {@link #idle()} unless the agent's own bounded
     *             wait is all the idling it needs (e.g. a {@code select} that wakes on new work)
     * @return its runner, for {@link #close}
     */
    public static AgentRunner start(Agent agent, IdleStrategy idle) {
        String role = agent.roleName();
        AgentRunner runner = new AgentRunner(idle, error -> {
            if (error instanceof AgentTerminationException && error.getCause() == null) {
                LOG.debug("{} ended", role);
            } else {
                LOG.error("{}: {}", role, error.toString(), error);
            }
        }, null, agent);
        AgentRunner.startOnThread(runner, DAEMON);
        return runner;
    }

    /**
     * Stops the agent and waits at most {@code waitMillis} for its thread to finish its cycle and
     * run {@link Agent#onClose()}; never interrupts it. Idempotent. From the agent's own thread it
     * does nothing: the agent ends itself (its {@code doWork} sees its owner's stop flag and throws
     * {@link AgentTerminationException}).
     *
     * @return whether the thread is gone
     */
    public static boolean close(AgentRunner runner, long waitMillis) {
        return close(runner, waitMillis, null);
    }

    /**
     * As {@link #close(AgentRunner, long)}; when the thread is still there after {@code waitMillis}
     * and {@code beforeInterrupt} is given, it is run, the thread is interrupted (its work is
     * interruptible) and waited for once more as long.
     *
     * @return whether the thread ended within the first wait
     */
    public static boolean close(AgentRunner runner, long waitMillis, Runnable beforeInterrupt) {
        if (runner.thread() == Thread.currentThread()) {
            return false; // the agent's own thread: a join would wait for itself; the agent ends itself
        }
        int wait = (int) Math.max(1, Math.min(Integer.MAX_VALUE, waitMillis));
        boolean[] timedOut = new boolean[1];
        Thread thread = runner.thread(); // the runner hands out a placeholder once closed
        try {
            runner.close(wait, stuck -> {
                if (timedOut[0] || beforeInterrupt == null) {
                    timedOut[0] = true;
                    throw new GaveUp();
                }
                timedOut[0] = true;
                LOG.warn("{} still running after {} ms, interrupting it", stuck.getName(), wait);
                beforeInterrupt.run(); // then AgentRunner interrupts it and waits again
            });
        } catch (GaveUp e) {
            LOG.error("{} did not stop within {} ms", runner.agent().roleName(),
                    beforeInterrupt == null ? wait : 2L * wait);
        }
        if (thread != null && !timedOut[0]) {
            // the runner returns once the agent's onClose ran; its thread ends a moment later: gone on return
            try {
                thread.join(wait);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        return !timedOut[0];
    }
}
