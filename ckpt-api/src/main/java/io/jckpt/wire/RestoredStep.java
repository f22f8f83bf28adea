package io.jckpt.wire;

import io.jckpt.spi.Collective;

/**
 * A rank's part of a recovery's step check ({@link Collective.Kind#RESTORED_STEPS}): the program's step of
 * the round restored, so that a recovery never resumes ranks from different steps. Wire body: one long.
 *
 * @param step the program's step ({@code here(step)}) of the restored round
 */
public record RestoredStep(long step) {
    /** The exchange. */
    public static final Exchange<RestoredStep> EXCHANGE = Exchange.of(Collective.Kind.RESTORED_STEPS, 1,
            RestoredStep.class, (w, m) -> w.i64(m.step), r -> new RestoredStep(r.i64("step")));
}
