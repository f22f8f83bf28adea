package io.jckpt.wire;

import io.jckpt.spi.Collective;

/**
 * A rank's part of close()'s last exchange ({@link Collective.Kind#CLOSE_SETTLED}): whether its disk
 * flushes are over and whether its own newest copy is complete (sealed). Wire body: one byte of flags,
 * bit 0 flushed, bit 1 sealed.
 *
 * @param flushed this rank's flushes are done
 * @param sealed  its own newest copy is complete
 */
public record CloseSettled(boolean flushed, boolean sealed) {
    private static final int FLUSHED = 1;
    private static final int SEALED = 2;

    /** The exchange. */
    public static final Exchange<CloseSettled> EXCHANGE = Exchange.of(Collective.Kind.CLOSE_SETTLED, 1,
            CloseSettled.class, (w, m) -> w.u8((m.flushed ? FLUSHED : 0) | (m.sealed ? SEALED : 0)), CloseSettled::read);

    private static CloseSettled read(WireReader r) {
        int flags = r.u8("flags");
        if ((flags & ~(FLUSHED | SEALED)) != 0) {
            throw new WireReader.Malformed("unknown flags " + Integer.toBinaryString(flags));
        }
        return new CloseSettled((flags & FLUSHED) != 0, (flags & SEALED) != 0);
    }
}
