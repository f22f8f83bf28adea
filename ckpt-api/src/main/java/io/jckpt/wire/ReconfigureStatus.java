package io.jckpt.wire;

import io.jckpt.spi.Collective;

/**
 * A rank's part of a store reconfiguration ({@link Collective.Kind#RECONFIGURE}): the length of its image of
 * the new round and its memory budget, from which every rank computes the same new layout. Wire body:
 * three longs.
 *
 * @param imageLength this rank's image length for the new round
 * @param memoryCap   the memory this rank's stores may use in all, in bytes
 * @param memoryFree  the memory free for them now, in bytes
 */
public record ReconfigureStatus(long imageLength, long memoryCap, long memoryFree) {
    /** The exchange. */
    public static final Exchange<ReconfigureStatus> EXCHANGE = Exchange.of(Collective.Kind.RECONFIGURE, 1,
            ReconfigureStatus.class, (w, m) -> w.i64(m.imageLength).i64(m.memoryCap).i64(m.memoryFree),
            r -> new ReconfigureStatus(r.i64("image length"), r.i64("memory cap"), r.i64("memory free")));

    /** Checks the image length. */
    public ReconfigureStatus {
        if (imageLength < 0) {
            throw new IllegalArgumentException("image length " + imageLength + " < 0");
        }
    }
}
