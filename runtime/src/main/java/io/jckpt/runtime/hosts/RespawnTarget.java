package io.jckpt.runtime.hosts;

/**
 * Where one failed rank restarts, and why there ({@link RespawnPlanner}).
 *
 * @param rank   the failed rank
 * @param from   the host it ran on
 * @param host   the host it restarts on
 * @param reason which rule chose the host
 */
public record RespawnTarget(int rank, String from, String host, Reason reason) {
    /** The rules, in the order they are tried. */
    public enum Reason {
        /** Its host lives: it restarts there, in its own slot. */
        SAME_HOST,
        /** Its host is lost: another job host with a free slot. */
        FREE_SLOT,
        /** Its host is lost and no job host has a free slot: a spare host, which joins the job. */
        SPARE_HOST
    }

    /** @return e.g. {@code "rank 3: host b lost, restarts on spare host d"} */
    public String describe() {
        return switch (reason) {
            case SAME_HOST -> "rank " + rank + ": restarts on its host " + host;
            case FREE_SLOT -> "rank " + rank + ": host " + from + " lost, restarts on " + host + " (free slot)";
            case SPARE_HOST -> "rank " + rank + ": host " + from + " lost, restarts on spare host " + host;
        };
    }
}
