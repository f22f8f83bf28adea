package io.jckpt.wire;

import io.jckpt.spi.Collective;

/**
 * A rank's part of the ctrl() exchange ({@link Collective.Kind#CTRL}): the fingerprint of the options its
 * ctrl asks for (every rank must ask for the same) and the program's step at its last here(). Wire body:
 * two longs.
 *
 * @param fingerprint the global fingerprint of the options the ctrl asks for
 * @param step        the program's step at the round the ctrl comes after
 */
public record CtrlCheck(long fingerprint, long step) {
    /** The exchange. */
    public static final Exchange<CtrlCheck> EXCHANGE = Exchange.of(Collective.Kind.CTRL, 1, CtrlCheck.class,
            (w, m) -> w.i64(m.fingerprint).i64(m.step), r -> new CtrlCheck(r.i64("options fingerprint"), r.i64("step")));
}
