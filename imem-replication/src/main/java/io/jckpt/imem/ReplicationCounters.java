package io.jckpt.imem;

import java.util.concurrent.atomic.AtomicLong;

/**
 * Counters of one rank's in-memory level, updated by the replication agent and the caller and
 * readable at any time while running.
 */
public final class ReplicationCounters {
    final AtomicLong roundsSubmitted = new AtomicLong();
    final AtomicLong roundsCompleted = new AtomicLong();
    final AtomicLong bytesSent = new AtomicLong();
    final AtomicLong bytesReceived = new AtomicLong();
    final AtomicLong framesForwarded = new AtomicLong();
    final AtomicLong overlapWaits = new AtomicLong();
    final AtomicLong overlapWaitNanos = new AtomicLong();
    final AtomicLong lastRoundReplicationNanos = new AtomicLong();
    final AtomicLong dutyCycles = new AtomicLong();

    /** @return image bytes sent to the next rank (own and forwarded) */
    public long bytesSent() {
        return bytesSent.get();
    }

    /** @return image bytes received from the previous rank */
    public long bytesReceived() {
        return bytesReceived.get();
    }

    /** @return copies forwarded on behalf of predecessors */
    public long framesForwarded() {
        return framesForwarded.get();
    }

    /** @return how often a new round had to wait for an earlier round to finish replicating everywhere */
    public long overlapWaits() {
        return overlapWaits.get();
    }

    /** @return total time spent in those waits, in nanoseconds */
    public long overlapWaitNanos() {
        return overlapWaitNanos.get();
    }

    /** @return time from submit to full acknowledgement of the last completed own round, in nanoseconds */
    public long lastRoundReplicationNanos() {
        return lastRoundReplicationNanos.get();
    }

    /** @return duty cycles run by the agent (a low number while idle shows it is not spinning) */
    public long dutyCycles() {
        return dutyCycles.get();
    }

    @Override
    public String toString() {
        return "ReplicationCounters[submitted=" + roundsSubmitted + ", completed=" + roundsCompleted + ", sent="
                + bytesSent + ", received=" + bytesReceived + ", forwarded=" + framesForwarded + ", overlapWaits="
                + overlapWaits + " (" + overlapWaitNanos.get() / 1_000_000 + " ms), lastRound="
                + lastRoundReplicationNanos.get() / 1000 + " us, dutyCycles=" + dutyCycles + "]";
    }
}
