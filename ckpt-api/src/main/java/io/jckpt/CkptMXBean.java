package io.jckpt;

/**
 * The checkpointer of one rank as a JMX MXBean, registered by {@link Ckpt#open} as
 * {@code io.jckpt:type=Checkpointer,job=<job id>,rank=<rank>} and unregistered by {@link Ckpt#close}
 * (or when a recovery opens the rank's next world). Readable while the job runs with jconsole, VisualVM
 * or a JMX exporter; every attribute is read from one fresh {@link CkptStats} snapshot.
 */
public interface CkptMXBean {

    /** @return the job id */
    String getJobId();

    /** @return this rank's number */
    int getRank();

    /** @return the MPJ world (epoch) the checkpointer was opened in: 0, then +1 per recovery */
    int getEpoch();

    /** @return {@link CkptStats#round()} */
    long getRound();

    /** @return {@link CkptStats#checkpoints()} */
    long getCheckpoints();

    /** @return {@link CkptStats#diskCheckpoints()} */
    long getDiskCheckpoints();

    /** @return {@link CkptStats#diskCommits()} */
    long getDiskCommits();

    /** @return {@link CkptStats#diskFailures()} */
    long getDiskFailures();

    /** @return {@link CkptStats#lastImageBytes()} */
    long getLastImageBytes();

    /** @return {@link CkptStats#lastBlockingNanos()} */
    long getLastBlockingNanos();

    /** @return {@link CkptStats#totalBlockingNanos()} */
    long getTotalBlockingNanos();

    /** @return {@link CkptStats#lastReplicationNanos()} */
    long getLastReplicationNanos();

    /** @return {@link CkptStats#lastFlushNanos()} */
    long getLastFlushNanos();

    /** @return {@link CkptStats#hereWaits()} */
    long getHereWaits();

    /** @return {@link CkptStats#rollbacks()} */
    long getRollbacks();

    /** @return {@link CkptStats#recoveries()} */
    long getRecoveries();

    /** @return {@link CkptStats#replicas()} */
    int getReplicas();

    /** @return {@link CkptStats#diskRatio()} */
    int getDiskRatio();

    /** @return {@link CkptStats#slotCapacity()} */
    long getSlotCapacity();

    /** @return {@link CkptStats#reconfigurations()} */
    long getReconfigurations();

    /** @return {@link CkptStats#degraded()} */
    boolean isDegraded();

    /** @return {@link CkptStats#placement()}'s {@link CkptStats.Placement#hostLossesSurvived()} (-1 = not known) */
    int getHostLossesSurvived();

    /** @return {@link CkptStats#placement()} in words: holders, their hosts, what the job survives */
    String getPlacement();

    /** @return the snapshot as {@link CkptStats#toString()} writes it (several lines, with units) */
    String getSummary();
}
