package io.jckpt.wire;

import io.jckpt.spi.Collective;

/**
 * A rank's part of the background slot-size agreement of growing slots ({@link Collective.Kind#SIZE_AGREEMENT},
 * when it does not ride on the replication ring): whether its image of the round fit, rank 0's interval
 * decision riding along, and the program's step of the round. Wire body: three longs.
 *
 * @param overflow 0 when this rank's image fit its slot, else the image's length (the round is skipped here)
 * @param decision rank 0's interval decision for the round; {@code 0} (none) on the other ranks
 * @param step     the program's step at the round ({@code here(step)})
 */
public record SizeVote(long overflow, long decision, long step) {
    /** The exchange. */
    public static final Exchange<SizeVote> EXCHANGE = Exchange.of(Collective.Kind.SIZE_AGREEMENT, 1, SizeVote.class,
            (w, m) -> w.i64(m.overflow).i64(m.decision).i64(m.step),
            r -> new SizeVote(r.i64("overflow"), r.i64("interval decision"), r.i64("step")));

    /** Checks the overflow. */
    public SizeVote {
        if (overflow < 0) {
            throw new IllegalArgumentException("overflow " + overflow + " < 0");
        }
    }
}
