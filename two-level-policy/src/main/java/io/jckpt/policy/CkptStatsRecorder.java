package io.jckpt.policy;

import io.jckpt.CkptOptions;
import io.jckpt.CkptStats;
import io.jckpt.disk.DiskCommitCoordinator;
import io.jckpt.imem.ReplicationAgent;
import java.util.Locale;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.Histogram;

/**
 * What one rank's checkpointer counts and times, recorded as it happens ({@code record...}) and read
 * as one immutable {@link CkptStats} ({@link #snapshot}), in the manner of a cache's stats counter.
 *
 * <p>The here(), rollback and recovery figures are written by the program's thread only. The disk
 * figures come from the flusher and commit threads ({@link DiskCommitCoordinator.Listener}) and are
 * atomic. The gauges of the moment (round, m, disk ratio, slot capacity, the agent's and the flusher's
 * last times) are read from their owners at {@link #snapshot}.
 */
final class CkptStatsRecorder implements DiskCommitCoordinator.Listener {
    private long checkpoints;
    private long skippedRounds;
    private long lastImageBytes;
    private long lastBlockingNanos;
    private long totalBlockingNanos;
    private long rollbacks;
    private long lastRollbackNanos;
    private long reconfigurations;
    /** Disk rounds handed to the flusher (the old meaning of {@link CkptStats#diskCheckpoints()}). */
    private long diskRounds;
    private CkptStats.HereTimings lastHere = CkptStats.HereTimings.NONE;
    private CkptStats.RecoveryTimings lastRecovery = CkptStats.RecoveryTimings.NONE;
    /** This rank's disk rounds made durable, failed; generations committed (rank 0), rounds never complete. */
    private final AtomicLong diskFlushed = new AtomicLong();
    private final AtomicLong diskFailures = new AtomicLong();
    private final AtomicLong diskCommits = new AtomicLong();
    private final AtomicLong diskIncomplete = new AtomicLong();
    /** here()'s blocking times, 1 us to 10 min at 2 significant digits: recording allocates nothing. */
    private final Histogram hereNanos = new Histogram(1_000, 600_000_000_000L, 2);

    /**
     * A round checkpointed by here().
     *
     * @param imageBytes    its image length
     * @param waitNanos     waiting for a free slot
     * @param writeNanos    writing the image
     * @param handOffNanos  handing it to the ring
     * @param blockingNanos the whole here()
     */
    void recordHere(long imageBytes, long waitNanos, long writeNanos, long handOffNanos, long blockingNanos) {
        checkpoints++;
        lastImageBytes = imageBytes;
        lastBlockingNanos = blockingNanos;
        totalBlockingNanos += blockingNanos;
        hereNanos.recordValue(Math.max(1_000, Math.min(blockingNanos, hereNanos.getHighestTrackableValue())));
        lastHere = new CkptStats.HereTimings(waitNanos, writeNanos, handOffNanos, blockingNanos);
    }

    /** This rank's totals for the launcher's end-of-job summary. */
    io.jckpt.spi.RankEvent.Totals totals() {
        return new io.jckpt.spi.RankEvent.Totals(checkpoints, lastImageBytes, totalBlockingNanos / 1e6,
                checkpoints == 0 ? 0 : hereNanos.getValueAtPercentile(50) / 1e6,
                checkpoints == 0 ? 0 : hereNanos.getValueAtPercentile(99) / 1e6, diskFlushed.get(), diskFailures.get());
    }

    /** A round this rank skipped (its image outgrew the slots). */
    void recordSkippedRound() {
        skippedRounds++;
    }

    /** @param nanos how long a rollback(tag, data) took */
    void recordRollback(long nanos) {
        rollbacks++;
        lastRollbackNanos = nanos;
    }

    /** A rollbackObject(tag, type): counted, not timed. */
    void recordRollbackObject() {
        rollbacks++;
    }

    /** A switch of the store layout. */
    void recordReconfiguration() {
        reconfigurations++;
    }

    /** @param timings where the recovery of this open spent its time */
    void recordRecovery(CkptStats.RecoveryTimings timings) {
        lastRecovery = timings;
    }

    /** @param joinNanos the ring join after an in-memory rollback, made at the first here() */
    void recordRingJoin(long joinNanos) {
        CkptStats.RecoveryTimings r = lastRecovery;
        lastRecovery = new CkptStats.RecoveryTimings(r.storeOpenNanos(), r.statusExchangeNanos(), r.planNanos(),
                r.transferNanos(), r.bytesSent(), r.bytesReceived(), r.verifyNanos(), joinNanos, r.totalNanos());
    }

    /** A disk round handed to the flusher. */
    void recordDiskRound() {
        diskRounds++;
    }

    @Override
    public void onFlushed() {
        diskFlushed.incrementAndGet();
    }

    @Override
    public void onFailed() {
        diskFailures.incrementAndGet();
    }

    @Override
    public void onCommitted(long round) {
        diskCommits.incrementAndGet();
    }

    @Override
    public void onIncomplete(long round) {
        diskIncomplete.incrementAndGet();
    }

    /** @return the last image's length (the interval policy's cost model) */
    long lastImageBytes() {
        return lastImageBytes;
    }

    /** @return the last recovery's timings, or NONE */
    CkptStats.RecoveryTimings lastRecovery() {
        return lastRecovery;
    }

    /** @return rounds skipped on this rank because the image outgrew the slots */
    long skippedRounds() {
        return skippedRounds;
    }

    /**
     * @param round     the current round
     * @param recovered whether this start restored a checkpoint
     * @param options   the options in force
     * @param layout    the current store layout, or null
     * @param agent     the ring replication agent, or null
     * @param disk      the disk level, or null when it is off
     * @param placement where this rank's copies are
     * @return the figures now
     */
    CkptStats snapshot(long round, boolean recovered, CkptOptions options, StoreLayout layout, ReplicationAgent agent,
                       DiskCommitCoordinator disk, CkptStats.Placement placement) {
        long replicationNanos = agent == null ? 0 : agent.counters().lastRoundReplicationNanos();
        long hereWaits = agent == null ? 0 : agent.counters().overlapWaits();
        long flushNanos = disk == null ? 0 : disk.flusher().counters().lastFlushNanos();
        return new CkptStats(round, checkpoints, diskFlushed.get(), diskCommits.get(), diskFailures.get(),
                lastImageBytes, lastBlockingNanos, totalBlockingNanos, replicationNanos, flushNanos, hereWaits, rollbacks,
                lastRollbackNanos, recovered ? 1 : 0, options.replicas(), disk == null ? 0 : options.diskRatio(),
                layout == null ? 0 : layout.slotCapacity(), reconfigurations, layout != null && layout.degraded(),
                lastHere, lastRecovery, placement);
    }

    /** @return the job's disk level in one line, as the coordinator (rank 0) says it at close */
    String diskSummary() {
        long commits = diskCommits.get();
        long failures = diskFailures.get();
        return "disk level at close: " + commits + " generation" + (commits == 1 ? "" : "s")
                + " committed, " + failures + " disk round" + (failures == 1 ? "" : "s")
                + " failed, " + diskIncomplete.get() + " not complete on every rank (" + diskRounds
                + " disk round" + (diskRounds == 1 ? "" : "s") + " taken here)";
    }
}
