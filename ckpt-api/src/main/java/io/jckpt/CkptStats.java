package io.jckpt;

/**
 * Counters and timings of one checkpointer, a snapshot taken by {@link Checkpointer#stats()}. Times are
 * in nanoseconds; "last" values describe the newest checkpoint or rollback, 0 when there was none.
 * The effective configuration ({@code replicas}, {@code diskRatio}, {@code slotCapacity}) is what the
 * checkpointer runs with now: it differs from the options when {@link MemoryShortage#DEGRADE} chose
 * fewer copies, after a {@code ctrl}, and after the slots grew.
 *
 * @param round                newest round taken or restored by this rank (0 = none)
 * @param checkpoints          here() calls that took a checkpoint
 * @param diskCheckpoints      disk rounds whose file this rank wrote durably (written, forced, renamed); a
 *                             round handed to the disk level that failed or was coalesced into a newer one
 *                             does not count
 * @param diskCommits          disk generations committed by this rank as the commit coordinator (rank 0;
 *                             always 0 on the other ranks): generations a later restore can use
 * @param diskFailures         disk rounds of this rank that failed (its file could not be written), plus, on
 *                             the coordinator, rounds whose generation could not be committed in time
 * @param lastImageBytes       bytes of the newest checkpoint image of this rank
 * @param lastBlockingNanos    time the newest here() blocked its caller
 * @param totalBlockingNanos   total time here() blocked its callers
 * @param lastReplicationNanos time the newest completed round took to reach all m replicas
 * @param lastFlushNanos       time the newest disk round took (write + force + rename)
 * @param hereWaits            here() calls that had to wait for the previous round to finish replicating
 * @param rollbacks            rollback(tag) calls: one per tag restored (not recoveries, see {@code recoveries})
 * @param lastRollbackNanos    time of the newest rollback(tag) call (the copy of a verified image into the data)
 * @param recoveries           recoveries this checkpointer took part in: 1 when its open() restored a
 *                             checkpoint (from memory or disk), else 0
 * @param replicas             effective replication degree m (copies on other ranks), -1 = not known
 * @param diskRatio            effective disk ratio (every k-th round also goes to disk); 0 when the disk level
 *                             is off (no disk directory, ratio 0, or turned off by {@link DiskUnavailable#MEMORY_ONLY}),
 *                             -1 = not known
 * @param slotCapacity         slot capacity of the node-local store in bytes (0 = no store yet)
 * @param reconfigurations     store layout switches (m changed, slots grown) since open
 * @param degraded             whether fewer copies than asked for are kept because memory does not suffice
 * @param lastHere             where the newest here() spent its time ({@link HereTimings#NONE} before the first)
 * @param lastRecovery         the steps of the newest recovery open() ({@link RecoveryTimings#NONE} when this
 *                             open restored nothing)
 * @param placement            where this rank's copies are and how many whole-host losses the job survives
 *                             from memory ({@link Placement#NONE} when not known)
 */
public record CkptStats(long round, long checkpoints, long diskCheckpoints, long diskCommits, long diskFailures,
                        long lastImageBytes, long lastBlockingNanos, long totalBlockingNanos, long lastReplicationNanos,
                        long lastFlushNanos, long hereWaits, long rollbacks, long lastRollbackNanos, long recoveries,
                        int replicas, int diskRatio, long slotCapacity, long reconfigurations, boolean degraded,
                        HereTimings lastHere, RecoveryTimings lastRecovery, Placement placement) {

    /** Stats of a checkpointer that has done nothing yet. */
    public static final CkptStats EMPTY = new CkptStats(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

    /** Null step records become their NONE values, so callers never test for null. */
    public CkptStats {
        lastHere = lastHere == null ? HereTimings.NONE : lastHere;
        lastRecovery = lastRecovery == null ? RecoveryTimings.NONE : lastRecovery;
        placement = placement == null ? Placement.NONE : placement;
    }

    /**
     * The counters without the disk commits and failures, the recoveries, the effective configuration
     * and the step timings (checkpointers that record none of them: those are 0, -1 and NONE).
     *
     * @param round                see the record
     * @param checkpoints          see the record
     * @param diskCheckpoints      see the record
     * @param lastImageBytes       see the record
     * @param lastBlockingNanos    see the record
     * @param totalBlockingNanos   see the record
     * @param lastReplicationNanos see the record
     * @param lastFlushNanos       see the record
     * @param hereWaits            see the record
     * @param rollbacks            see the record
     * @param lastRollbackNanos    see the record
     */
    public CkptStats(long round, long checkpoints, long diskCheckpoints, long lastImageBytes,
                     long lastBlockingNanos, long totalBlockingNanos, long lastReplicationNanos,
                     long lastFlushNanos, long hereWaits, long rollbacks, long lastRollbackNanos) {
        this(round, checkpoints, diskCheckpoints, 0, 0, lastImageBytes, lastBlockingNanos, totalBlockingNanos,
                lastReplicationNanos, lastFlushNanos, hereWaits, rollbacks, lastRollbackNanos, 0, -1, -1, 0, 0, false,
                HereTimings.NONE, RecoveryTimings.NONE, Placement.NONE);
    }

    /**
     * The snapshot on several lines, with units (times in ms or s, sizes in KiB/MiB/GiB): what a person
     * reads in a log or in the {@link CkptMXBean}'s summary. The fields keep full precision.
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder();
        b.append("checkpoints: round ").append(round).append(", ").append(checkpoints).append(" taken, image ")
                .append(bytes(lastImageBytes)).append(", ").append(hereWaits).append(" here() waited for the previous round\n");
        b.append("  here(): last ").append(millis(lastBlockingNanos));
        if (lastHere.totalNanos() > 0) {
            b.append(" (wait ").append(millis(lastHere.waitNanos())).append(", write ").append(millis(lastHere.writeNanos()))
                    .append(", hand-off ").append(millis(lastHere.handOffNanos())).append(')');
        }
        b.append(", total ").append(millis(totalBlockingNanos)).append('\n');
        b.append("  memory level: m = ").append(replicas < 0 ? "unknown" : Integer.toString(replicas))
                .append(degraded ? " (degraded: fewer copies than asked for)" : "")
                .append(", slot ").append(bytes(slotCapacity)).append(", ").append(reconfigurations)
                .append(" layout switches, last replication ").append(millis(lastReplicationNanos)).append('\n');
        b.append("  disk level: ").append(diskRatio == 0 ? "off" : diskRatio < 0 ? "ratio unknown" : "every " + diskRatio + " rounds")
                .append(", ").append(diskCheckpoints).append(" written, ").append(diskCommits).append(" committed, ")
                .append(diskFailures).append(" failed, last flush ").append(millis(lastFlushNanos)).append('\n');
        b.append("  rollbacks: ").append(rollbacks).append(" (last ").append(millis(lastRollbackNanos)).append("), recoveries ")
                .append(recoveries);
        if (lastRecovery.totalNanos() > 0) {
            RecoveryTimings r = lastRecovery;
            b.append(": last ").append(millis(r.totalNanos())).append(" (store open ").append(millis(r.storeOpenNanos()))
                    .append(", status ").append(millis(r.statusExchangeNanos())).append(", plan ").append(millis(r.planNanos()))
                    .append(", transfer ").append(millis(r.transferNanos())).append(", verify ").append(millis(r.verifyNanos()))
                    .append(", ring join ").append(millis(r.ringJoinNanos())).append("; sent ").append(bytes(r.bytesSent()))
                    .append(", received ").append(bytes(r.bytesReceived())).append(')');
        }
        if (placement.hostLossesSurvived() >= 0) {
            b.append("\n  copies: ").append(placement.describe());
        }
        return b.toString();
    }

    private static String millis(long nanos) {
        if (nanos >= 10_000_000_000L) {
            return String.format(java.util.Locale.ROOT, "%.1f s", nanos / 1e9);
        }
        return String.format(java.util.Locale.ROOT, nanos >= 10_000_000L ? "%.1f ms" : "%.3f ms", nanos / 1e6);
    }

    private static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double v = n;
        int u = -1;
        while (v >= 1024 && u < units.length - 1) {
            v /= 1024;
            u++;
        }
        return String.format(java.util.Locale.ROOT, "%.1f %s", v, units[u]);
    }

    /**
     * Where this rank's copies live (what SCR calls failure groups): its holders, the m ranks after it on
     * the replication ring, their hosts (the addresses the ranks' data endpoints bind), and how many whole
     * hosts the job may lose at once with every rank's newest copy still in some surviving memory: the
     * fewest distinct hosts among any rank and its holders, minus one. Computed from the current world
     * (after a recovery moved ranks, the new hosts).
     *
     * @param host               this rank's host ("" when not known)
     * @param holders            the ranks holding this rank's copies, nearest first
     * @param holderHosts        the host of each holder, in the same order
     * @param hostLossesSurvived whole-host losses the job survives from memory; -1 = not known
     */
    public record Placement(String host, java.util.List<Integer> holders, java.util.List<String> holderHosts,
                            int hostLossesSurvived) {
        /** Not known (a checkpointer that keeps no copies on other ranks, or before open). */
        public static final Placement NONE = new Placement("", java.util.List.of(), java.util.List.of(), -1);

        /** Copies the lists; holders and their hosts must pair up. */
        public Placement {
            holders = java.util.List.copyOf(holders);
            holderHosts = java.util.List.copyOf(holderHosts);
            if (holders.size() != holderHosts.size()) {
                throw new IllegalArgumentException(holders.size() + " holders but " + holderHosts.size() + " holder hosts");
            }
        }

        /**
         * @param ring      the ring: {@code ring.applyAsInt(r, d)} is the d-th successor of rank r
         * @param size      ranks in the world
         * @param rank      this rank
         * @param replicas  the effective m
         * @param hostOf    each rank's host
         * @return the placement of {@code rank}'s copies in that world
         */
        public static Placement of(java.util.function.IntBinaryOperator ring, int size, int rank, int replicas,
                                   java.util.function.IntFunction<String> hostOf) {
            int fewest = Integer.MAX_VALUE;
            for (int r = 0; r < size; r++) {
                java.util.Set<String> hosts = new java.util.HashSet<>();
                hosts.add(hostOf.apply(r));
                for (int d = 1; d <= replicas; d++) {
                    hosts.add(hostOf.apply(ring.applyAsInt(r, d)));
                }
                fewest = Math.min(fewest, hosts.size());
            }
            java.util.List<Integer> holders = new java.util.ArrayList<>();
            java.util.List<String> holderHosts = new java.util.ArrayList<>();
            for (int d = 1; d <= replicas; d++) {
                int h = ring.applyAsInt(rank, d);
                holders.add(h);
                holderHosts.add(hostOf.apply(h));
            }
            return new Placement(hostOf.apply(rank), holders, holderHosts, fewest - 1);
        }

        /** @return e.g. "on ranks 2 (127.0.0.3), 4 (127.0.0.4); the job survives the loss of any 1 host from memory" */
        public String describe() {
            StringBuilder b = new StringBuilder(holders.isEmpty() ? "none on other ranks" : "on ranks ");
            for (int i = 0; i < holders.size(); i++) {
                b.append(i == 0 ? "" : ", ").append(holders.get(i)).append(" (").append(holderHosts.get(i)).append(')');
            }
            return b.append("; this rank on ").append(host.isEmpty() ? "an unknown host" : host)
                    .append("; the job survives the loss of any ").append(hostLossesSurvived)
                    .append(hostLossesSurvived == 1 ? " host" : " hosts").append(" from memory").toString();
        }
    }

    /**
     * Where one here() spent its blocking time. The parts add up to about the whole (the rest is
     * bookkeeping: the registry walk, the disk hand-off).
     *
     * @param waitNanos    waiting for a free slot: the version to overwrite is not yet older than the
     *                     round complete on every rank, or is still being flushed to disk (0 when not)
     * @param writeNanos   writing the image (header, tag table, payloads) into the node-local slot
     * @param handOffNanos handing the slot to the replication agent (or sealing it when there is none)
     * @param totalNanos   the whole here() call
     */
    public record HereTimings(long waitNanos, long writeNanos, long handOffNanos, long totalNanos) {
        /** No here() yet. */
        public static final HereTimings NONE = new HereTimings(0, 0, 0, 0);
    }

    /**
     * The steps of one recovery open() (the paper's MPI_Ckpt_open after a failure), in the order they
     * run. The steps do not overlap; {@code totalNanos} also holds what lies between them, except the
     * ring re-join after an in-memory rollback, which happens at the first here() after it.
     *
     * @param storeOpenNanos      reopening (or creating) the node-local store: mapping its slot files
     *                            and verifying the surviving copies (CRC32C, once each)
     * @param statusExchangeNanos the status exchanges (every rank's options, store and disk status)
     * @param planNanos           computing the rollback plan (identical on every rank) and the restore
     *                            decision
     * @param transferNanos       the rollback transfers: sending copies to new ranks, receiving this
     *                            rank's own copy (verified chunk by chunk while it arrives), refilling
     *                            the copies of the restored round its holders lack, or reading a disk
     *                            generation
     * @param bytesSent           image bytes this rank sent in the rollback transfers (refills included)
     * @param bytesReceived       image bytes this rank received, its own and the refilled copies it
     *                            holds for its predecessors (or read from disk)
     * @param verifyNanos         the verification of the image used, before it is used (0 when it was
     *                            verified on receipt or at store open and not touched since)
     * @param ringJoinNanos       the end-of-transfer barrier, the ring re-connection and the start of the
     *                            replication agent; after an in-memory rollback this runs in the first
     *                            here() (so a rank restoring locally does not wait in open() for the
     *                            others' transfers) and is 0 until then
     * @param totalNanos          the whole open()
     */
    public record RecoveryTimings(long storeOpenNanos, long statusExchangeNanos, long planNanos, long transferNanos,
                                  long bytesSent, long bytesReceived, long verifyNanos, long ringJoinNanos,
                                  long totalNanos) {
        /** No recovery. */
        public static final RecoveryTimings NONE = new RecoveryTimings(0, 0, 0, 0, 0, 0, 0, 0, 0);
    }
}
