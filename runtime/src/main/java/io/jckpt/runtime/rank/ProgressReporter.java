package io.jckpt.runtime.rank;

import io.jckpt.runtime.control.ControlProtocol;
import java.nio.ByteBuffer;
import java.util.concurrent.locks.LockSupport;

/**
 * Sends the newest checkpoint round of this rank to the launcher, at most every
 * {@link ControlProtocol#PROGRESS_MILLIS}, so here() never waits for the control socket, and a
 * heartbeat when the launcher asked for them and nothing else was sent for a period. One daemon
 * thread, parked in between.
 */
final class ProgressReporter {
    private final RankControl control;
    private final Thread thread;
    private volatile long round = -1;
    private volatile long bytes;
    private volatile long nanos;
    private long sentRound = -1;
    private final long heartbeatNanos;
    private long lastSentNanos = System.nanoTime();

    ProgressReporter(RankControl control, long heartbeatMillis) {
        this.control = control;
        this.heartbeatNanos = heartbeatMillis * 1_000_000L;
        this.thread = new Thread(this::run, "jckpt-progress-" + control.rank());
        this.thread.setDaemon(true);
        this.thread.start();
    }

    /** Records a here(); never blocks. */
    void checkpointed(long newRound, long newBytes, long blockingNanos) {
        bytes = newBytes;
        nanos = blockingNanos;
        round = newRound;
        LockSupport.unpark(thread);
    }

    private void run() {
        for (;;) {
            LockSupport.parkNanos(ControlProtocol.PROGRESS_MILLIS * 1_000_000L);
            long current = round;
            if (current != sentRound) {
                sentRound = current;
                control.progress(ByteBuffer.allocate(24).putLong(current).putLong(bytes).putLong(nanos).array());
                lastSentNanos = System.nanoTime();
                // at most one report per period, even when unparked sooner
                LockSupport.parkNanos(ControlProtocol.PROGRESS_MILLIS * 1_000_000L);
            } else if (heartbeatNanos > 0 && System.nanoTime() - lastSentNanos >= heartbeatNanos) {
                control.heartbeat();
                lastSentNanos = System.nanoTime();
            }
        }
    }
}
