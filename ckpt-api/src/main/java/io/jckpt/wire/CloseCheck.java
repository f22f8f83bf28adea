package io.jckpt.wire;

import io.jckpt.spi.Collective;

/**
 * A rank's part of close()'s first exchange ({@link Collective.Kind#CLOSE}, at the round every rank closes
 * at): the program's step at its last here(). Wire body: one long.
 *
 * @param step the program's step at the round closed at
 */
public record CloseCheck(long step) {
    /** The exchange. */
    public static final Exchange<CloseCheck> EXCHANGE = Exchange.of(Collective.Kind.CLOSE, 1, CloseCheck.class,
            (w, m) -> w.i64(m.step), r -> new CloseCheck(r.i64("step")));
}
