package io.jckpt.wire;

import io.jckpt.spi.Collective;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What every rank contributes to the status exchange at open ({@link Collective.Kind#OPEN}): enough for
 * every rank to check that the options and job keys agree, size the in-memory store, find the ring's
 * data endpoints, and decide (identically everywhere) which level to restore from.
 *
 * <p>Wire body: fingerprint (long), slot capacity (long), copies held (int), own newest complete round
 * (long), round complete everywhere recorded (byte), data endpoint (port int, address length int and
 * bytes), disk inventory (a byte: 1 when present, then {@link RankInventory}'s body), store layouts (count int, per layout 28 bytes:
 * first round long, replicas int, requested replicas int, slot capacity long, versions kept int), the
 * newest copies ({@link RankStatus}'s body), key id (int).
 *
 * @param fingerprint             the global options' fingerprint
 * @param slotCapacity            slot capacity of this rank's in-memory store (0 = no store yet)
 * @param copiesHeld              copies held in the in-memory store (own and replicas, verified)
 * @param ownNewestComplete       newest complete round of this rank's own data in its store (0 = none)
 * @param roundCompleteEverywhere this node recorded that a round of the current run was complete on every
 *                                rank (the global completed round reached 1 since the job's start or its
 *                                last clean start)
 * @param endpoint                the rank's data endpoint
 * @param diskInventory           the disk level's inventory; null when the disk level is off or unusable on
 *                                this rank
 * @param layouts                 the store layouts this node holds
 * @param newestCopies            the newest verified copy per owner, so that a recovery plans from this one
 *                                exchange
 * @param keyId                   the id of the job key this rank authenticates checkpoints with (no secret)
 */
public record OpenStatus(long fingerprint, long slotCapacity, int copiesHeld, long ownNewestComplete,
                         boolean roundCompleteEverywhere, InetSocketAddress endpoint, RankInventory diskInventory,
                         List<Layout> layouts, RankStatus newestCopies, int keyId) {
    /** The open exchange. */
    public static final Exchange<OpenStatus> EXCHANGE = Exchange.of(Collective.Kind.OPEN, 1, OpenStatus.class,
            OpenStatus::write, OpenStatus::read);

    /**
     * A store layout a node holds: the m and slot capacity in force from a round on.
     *
     * @param firstRound        the layout's first round
     * @param replicas          m in force
     * @param requestedReplicas m asked for
     * @param slotCapacity      bytes per slot
     * @param versionsKept      rounds kept per owner
     */
    public record Layout(long firstRound, int replicas, int requestedReplicas, long slotCapacity, int versionsKept) {
        static final int ENCODED_LENGTH = 8 + 4 + 4 + 8 + 4;

        /** Checks the fields as the policy's store layout does. */
        public Layout {
            if (firstRound < 1 || replicas < 0 || requestedReplicas < replicas || slotCapacity <= 0 || versionsKept < 2) {
                throw new IllegalArgumentException("bad store layout: first round " + firstRound + ", m " + replicas
                        + " (asked " + requestedReplicas + "), slot " + slotCapacity + " bytes, " + versionsKept
                        + " versions");
            }
        }
    }

    /** Checks and freezes the fields. */
    public OpenStatus {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(newestCopies, "newestCopies");
        layouts = List.copyOf(layouts);
    }

    /** @return whether this rank sent a disk inventory (its disk level is on and usable) */
    public boolean hasDiskInventory() {
        return diskInventory != null;
    }

    private static void write(WireWriter w, OpenStatus s) {
        w.i64(s.fingerprint).i64(s.slotCapacity).i32(s.copiesHeld).i64(s.ownNewestComplete)
                .bool(s.roundCompleteEverywhere).address(s.endpoint).bool(s.diskInventory != null);
        if (s.diskInventory != null) {
            RankInventory.write(w, s.diskInventory);
        }
        w.i32(s.layouts.size());
        for (Layout l : s.layouts) {
            w.i64(l.firstRound()).i32(l.replicas()).i32(l.requestedReplicas()).i64(l.slotCapacity()).i32(l.versionsKept());
        }
        RankStatus.write(w, s.newestCopies);
        w.i32(s.keyId);
    }

    private static OpenStatus read(WireReader r) {
        long fingerprint = r.i64("options fingerprint");
        long capacity = r.i64("slot capacity");
        int copiesHeld = r.i32("copies held");
        long ownNewest = r.i64("own newest complete round");
        boolean everywhere = r.bool("round complete everywhere");
        InetSocketAddress endpoint = r.address("data endpoint");
        RankInventory inventory = r.bool("disk inventory present") ? RankInventory.read(r) : null;
        int count = r.count("store layouts", Layout.ENCODED_LENGTH);
        List<Layout> layouts = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            layouts.add(new Layout(r.i64("layout first round"), r.i32("layout replicas"), r.i32("layout requested replicas"),
                    r.i64("layout slot capacity"), r.i32("layout versions kept")));
        }
        RankStatus newest = RankStatus.read(r);
        return new OpenStatus(fingerprint, capacity, copiesHeld, ownNewest, everywhere, endpoint, inventory, layouts,
                newest, r.i32("key id"));
    }
}
