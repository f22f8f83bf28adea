package io.jckpt.wire;

import io.jckpt.spi.Collective;

/**
 * A rank's readiness to leave the current store layout ({@link Collective.Kind#LAYOUT_SWITCH}): ready, or
 * what keeps it (then no rank switches). Wire body: the problem as a string, empty when ready.
 *
 * @param problem why this rank cannot switch now; empty when it is ready
 */
public record SwitchReady(String problem) {
    /** The exchange. */
    public static final Exchange<SwitchReady> EXCHANGE = Exchange.of(Collective.Kind.LAYOUT_SWITCH, 1,
            SwitchReady.class, (w, m) -> w.string(m.problem), r -> new SwitchReady(r.string("problem")));

    /** A rank that is ready. */
    public static final SwitchReady READY = new SwitchReady("");

    /** Checks the problem is not null. */
    public SwitchReady {
        java.util.Objects.requireNonNull(problem, "problem");
    }

    /** @return whether the rank is ready to switch */
    public boolean ready() {
        return problem.isEmpty();
    }
}
