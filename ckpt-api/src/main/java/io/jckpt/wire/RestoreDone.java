package io.jckpt.wire;

import io.jckpt.spi.Collective;

/**
 * A rank's rollback transfers are done ({@link Collective.Kind#RESTORE_DONE}): the barrier in a
 * recovery's open() before any rank joins the ring on the data endpoint the transfers used. No fields.
 */
public record RestoreDone() {
    /** The exchange. */
    public static final Exchange<RestoreDone> EXCHANGE = Exchange.of(Collective.Kind.RESTORE_DONE, 1,
            RestoreDone.class, (w, m) -> { }, r -> new RestoreDone());
}
