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
 *
 * <p>With a launcher timeout (ranks on other hosts) it also watches the launcher: it then sends a
 * heartbeat every period whatever else it sent (the launcher answers each one), and halts the rank
 * ({@link RankControl#launcherLost}) once nothing came from the launcher for the timeout: a rank cut
 * off from its launcher by a partition stops within the timeout plus one cycle
 * ({@value ControlProtocol#PROGRESS_MILLIS} ms, two after a progress report), whatever TCP does.
 *
 * <p>About once a second it samples whether the program thread waits in a communication call
 * ({@link CommunicationWait}) and tells the launcher while it does, for its deadlock watch.
 */
final class ProgressReporter implements Agent {
    /** How often the program thread's wait is sampled. */
    static final long WAIT_SAMPLE_NANOS = 1_000_000_000L;
    private final RankControl control;
    private final AgentRunner runner;
    private volatile long round = -1;
    private volatile long bytes;
    private volatile long nanos;
    /** here() calls of this JVM and their blocking time, over every world it ran in (one writer: the program thread). */
    private volatile long checkpoints;
    private volatile long blockedTotal;
    /** This JVM among the rank's: the launcher adds up each one's totals. */
    private final long incarnation = java.util.concurrent.ThreadLocalRandom.current().nextLong();
    private long sentRound = -1;
    private final long heartbeatNanos;
    /** 0: the launcher is not watched (the rank halts when its control connection ends). */
    private final long launcherTimeoutNanos;
    private long lastSentNanos = System.nanoTime();
    private long lastHeartbeatNanos = lastSentNanos;
    private final CommunicationWait communication = new CommunicationWait();
    private long lastWaitSampleNanos = lastSentNanos;
    private boolean waitReported;

    ProgressReporter(RankControl control, long heartbeatMillis) {
        this(control, heartbeatMillis, 0);
    }

    /**
     * @param heartbeatMillis       heartbeat period (0: none unless the launcher is watched)
     * @param launcherTimeoutMillis halt the rank when nothing came from the launcher for this long (0: never)
     */
    ProgressReporter(RankControl control, long heartbeatMillis, long launcherTimeoutMillis) {
        this.control = control;
        this.launcherTimeoutNanos = launcherTimeoutMillis * 1_000_000L;
        // a watched launcher is heard only through its answers to heartbeats: they must go out
        this.heartbeatNanos = heartbeatMillis > 0 || launcherTimeoutMillis <= 0 ? heartbeatMillis * 1_000_000L
                : Math.max(1, launcherTimeoutMillis / 4) * 1_000_000L;
        this.runner = AgentThreads.start(this);
    }

    /** Records a here(); never blocks. */
    void checkpointed(long newRound, long newBytes, long blockingNanos) {
        bytes = newBytes;
        nanos = blockingNanos;
        checkpoints = checkpoints + 1; // the program thread only
        blockedTotal = blockedTotal + blockingNanos;
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
        boolean watched = launcherTimeoutNanos > 0;
        long current = round;
        boolean reported = current != sentRound;
        if (reported) {
            sentRound = current;
            control.progress(ByteBuffer.allocate(48).putLong(current).putLong(bytes).putLong(nanos).putLong(checkpoints)
                    .putLong(blockedTotal).putLong(incarnation).array());
            lastSentNanos = System.nanoTime();
        }
        int work = reported ? 1 : 0;
        long now = System.nanoTime();
        // unwatched: a heartbeat only when nothing else went out for a period; watched: every period
        if (heartbeatNanos > 0 && (watched || !reported)
                && now - (watched ? lastHeartbeatNanos : lastSentNanos) >= heartbeatNanos) {
            control.heartbeat();
            lastSentNanos = now;
            lastHeartbeatNanos = now;
            work = 1;
        }
        if (now - lastWaitSampleNanos >= WAIT_SAMPLE_NANOS) {
            lastWaitSampleNanos = now;
            work += sampleWait(now);
        }
        if (watched) {
            long silent = control.launcherSilentNanos(now);
            if (silent >= launcherTimeoutNanos) {
                control.launcherLost("nothing heard from the launcher for " + silent / 1_000_000L
                        + " ms (launcher timeout " + launcherTimeoutNanos / 1_000_000L + " ms)");
            }
        }
        if (reported) {
            // a progress report: at most one per period, even when unparked sooner
            LockSupport.parkNanos(ControlProtocol.PROGRESS_MILLIS * 1_000_000L);
        }
        return work;
    }

    /** Tells the launcher while the program thread waits in a communication call, and once when it stopped. */
    private int sampleWait(long now) {
        CommunicationWait.Wait wait = communication.sample(now);
        if (wait != null) {
            control.waiting(wait.millis(now), wait.call());
            waitReported = true;
            return 1;
        }
        if (waitReported) {
            control.waiting(0, "");
            waitReported = false;
            return 1;
        }
        return 0;
    }

    /** Stops the agent (bounded); a rank's reporter otherwise lives as long as its JVM. */
    void close() {
        AgentThreads.close(runner, 1_000);
    }
}
