package io.jckpt.wire;

import io.jckpt.CkptException;
import io.jckpt.spi.Collective;

/**
 * A rank's contribution to an exchange that is not a message of that exchange: cut short, longer than
 * its fields, another kind's message, another layout version, or a field out of range. Names the
 * exchange and the rank that sent it; nothing is read from such bytes.
 */
public final class WireFormatException extends CkptException {
    private static final long serialVersionUID = 1L;

    private final Collective.Kind kind;
    private final int rank;

    WireFormatException(Collective.Kind kind, int rank, String detail, Throwable cause) {
        super((rank == UNKNOWN_RANK ? "a" : "rank " + rank + "'s") + " " + kind.what() + " message ("
                + kind.name() + ", " + kind.call() + ") is malformed: " + detail, cause);
        this.kind = kind;
        this.rank = rank;
    }

    /** @return the exchange whose message was malformed */
    public Collective.Kind kind() {
        return kind;
    }

    /** @return the rank that sent it, or {@link CkptException#UNKNOWN_RANK} */
    public int rank() {
        return rank;
    }
}
