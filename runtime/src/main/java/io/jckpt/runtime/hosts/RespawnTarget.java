package io.jckpt.runtime.hosts;

/**
 * Where one failed rank restarts, and why there ({@link RespawnPlanner}).
 *
 * @param rank   the failed rank
 * @param from   the host it ran on
 * @param host   the host it restarts on
 * @param reason which rule chose the host
 * @param fromUnanswered whether it left {@code from} because that host had not answered yet (not known lost)
 */
public record RespawnTarget(int rank, String from, String host, Reason reason, boolean fromUnanswered) {
    /** A target whose rank, if it moved, left a host known lost. */
    public RespawnTarget(int rank, String from, String host, Reason reason) {
        this(rank, from, host, reason, false);
    }

    /** The rules, in the order they are tried. */
    public enum Reason {
        /** Its host lives: it restarts there, in its own slot. */
        SAME_HOST,
        /** Its host is lost (or has not answered yet): another job host with a free slot. */
        FREE_SLOT,
        /** Its host is lost and no job host has a free slot: a spare host, which joins the job. */
        SPARE_HOST
    }

    /** @return e.g. {@code "rank 3: host b lost, restarts on spare host d"} */
    public String describe() {
        String left = "rank " + rank + ": host " + from + (fromUnanswered ? " does not answer" : " lost");
        return switch (reason) {
            case SAME_HOST -> "rank " + rank + ": restarts on its host " + host;
            case FREE_SLOT -> left + ", restarts on " + host + " (free slot)";
            case SPARE_HOST -> left + ", restarts on spare host " + host;
        };
    }
}
