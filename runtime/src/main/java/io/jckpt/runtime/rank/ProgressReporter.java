package io.jckpt.runtime.rank;

import io.jckpt.runtime.control.ControlProtocol;
import io.jckpt.spi.AgentThreads;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;

/**
 * Sends the newest checkpoint round of this rank to the launcher, at most every
 * {@link ControlProtocol#PROGRESS_MILLIS}, so here() never waits for the control socket, and a
 * heartbeat when the launcher asked for them and nothing else was sent for a period. An agent
 * ({@link AgentThreads}) on its own daemon thread {@code jckpt-progress-RANK}, parked in between;
 * it lives as long as the rank's JVM.
 */
final class ProgressReporter implements Agent {
    private final RankControl control;
    private final AgentRunner runner;
    private volatile long round = -1;
    private volatile long bytes;
    private volatile long nanos;
    private long sentRound = -1;
    private final long heartbeatNanos;
    private long lastSentNanos = System.nanoTime();

    ProgressReporter(RankControl control, long heartbeatMillis) {
        this.control = control;
        this.heartbeatNanos = heartbeatMillis * 1_000_000L;
        this.runner = AgentThreads.start(this);
    }

    /** Records a here(); never blocks. */
    void checkpointed(long newRound, long newBytes, long blockingNanos) {
        bytes = newBytes;
        nanos = blockingNanos;
        round = newRound;
        LockSupport.unpark(runner.thread()); // null before its first cycle: that cycle sees the round
    }

    @Override
    public String roleName() {
        return "jckpt-progress-" + control.rank();
    }

    /** One period (parked, woken early by a new round); returns 1 when it sent something. */
    @Override
    public int doWork() {
        LockSupport.parkNanos(ControlProtocol.PROGRESS_MILLIS * 1_000_000L);
        long current = round;
        if (current != sentRound) {
            sentRound = current;
            control.progress(ByteBuffer.allocate(24).putLong(current).putLong(bytes).putLong(nanos).array());
            lastSentNanos = System.nanoTime();
            // at most one report per period, even when unparked sooner
            LockSupport.parkNanos(ControlProtocol.PROGRESS_MILLIS * 1_000_000L);
            return 1;
        }
        if (heartbeatNanos > 0 && System.nanoTime() - lastSentNanos >= heartbeatNanos) {
            control.heartbeat();
            lastSentNanos = System.nanoTime();
            return 1;
        }
        return 0;
    }
}
