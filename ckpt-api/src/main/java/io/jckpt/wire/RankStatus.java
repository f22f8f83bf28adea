package io.jckpt.wire;

import io.jckpt.spi.Collective;
import java.util.ArrayList;
import java.util.List;

/**
 * What one rank contributes to the in-memory level's status exchange after a failure: who it is,
 * whether it was re-spawned, and every complete copy its node-local store holds. Exchanged on its
 * own ({@link Collective.Kind#RESTORE_PLAN_OLDER}) and inside every {@link OpenStatus} (the newest copies).
 *
 * <p>Wire body: rank (int), fresh (byte), copy count (int), per copy owner (int), intact (byte),
 * round (long), length (long), CRC32C (int); then the CRC32C of the body (int).
 *
 * @param rank   the rank number
 * @param fresh  true if this process was re-spawned (new) in this recovery
 * @param copies the complete copies this rank holds (its own and its predecessors'), any order
 */
public record RankStatus(int rank, boolean fresh, List<CopyStatus> copies) {
    /** The exchange of the statuses alone. */
    public static final Exchange<RankStatus> EXCHANGE = Exchange.of(Collective.Kind.RESTORE_PLAN_OLDER, 1,
            RankStatus.class, RankStatus::write, RankStatus::read);

    /** Validates and freezes the fields. */
    public RankStatus {
        if (rank < 0) {
            throw new IllegalArgumentException("rank must be >= 0: " + rank);
        }
        copies = List.copyOf(copies);
    }

    /**
     * Returns whether this rank holds an intact copy of the given owner's data at the given round.
     *
     * @param owner the owner rank
     * @param round the round
     * @return the intact copy, or {@code null}
     */
    public CopyStatus intactCopy(int owner, long round) {
        for (CopyStatus c : copies) {
            if (c.owner() == owner && c.round() == round && c.intact()) {
                return c;
            }
        }
        return null;
    }

    static void write(WireWriter w, RankStatus s) {
        int from = w.position();
        w.i32(s.rank).bool(s.fresh).i32(s.copies.size());
        for (CopyStatus c : s.copies) {
            w.i32(c.owner()).bool(c.intact()).i64(c.round()).i64(c.length()).i32(c.crc32c());
        }
        w.crc32cFrom(from);
    }

    static RankStatus read(WireReader r) {
        int from = r.position();
        int rank = r.i32("rank");
        boolean fresh = r.bool("fresh");
        int count = r.count("copies", CopyStatus.ENCODED_LENGTH);
        List<CopyStatus> copies = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            int owner = r.i32("copy owner");
            boolean intact = r.bool("copy intact");
            copies.add(new CopyStatus(owner, r.i64("copy round"), r.i64("copy length"), r.i32("copy CRC32C"), intact));
        }
        r.crc32cFrom(from, "rank status");
        return new RankStatus(rank, fresh, copies);
    }
}
