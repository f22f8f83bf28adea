package io.jckpt.spi;

/**
 * What the job's runtime (the launcher's rank side, module {@code runtime}) gives the library inside
 * a rank: the current world, the typed collective between ranks, the per-job secret that authenticates the
 * library's own data channels, and typed events for the launcher's log ({@link RankEvent}). Installed by
 * the runtime before the program's main runs; absent when a program runs without the launcher (then
 * {@link io.jckpt.Ckpt#open} reads the rank from the environment and only single-rank jobs work).
 */
public interface JobServices {

    /** @return the current world of this rank: epoch, recovery, new rank (changes at each recovery) */
    RankContext context();

    /** @return the typed collective through the launcher, for the current world */
    RankCollective collective();

    /** @return the per-job secret (never logged); data channels authenticate peers with it */
    byte[] jobSecret();

    /**
     * @return the job's key (never logged), the same for every start of the job that the launcher knows of:
     *     checkpoints are authenticated with a key derived from it; null when the launcher gave none (the
     *     job's key file is used then)
     */
    default byte[] jobKey() {
        return null;
    }

    /** @return the address this rank's data endpoint binds to and announces (loopback by default) */
    String bindHost();

    /**
     * Sends one event to the launcher's log (a disk commit, a restore, the totals at close, a line of text),
     * recorded as the event of its type ({@code docs/events.md}) and shown as its {@link RankEvent#text()}.
     *
     * @param event the event
     */
    void event(RankEvent event);

    /**
     * Reports a completed here() (round, image bytes, time the caller was blocked) to the launcher,
     * which shows progress and can inject failures at a given round. Must not block.
     *
     * @param round         the round just taken
     * @param bytes         the image size
     * @param blockingNanos how long here() blocked the caller
     */
    default void checkpointed(long round, long bytes, long blockingNanos) {
    }

    /**
     * Reports that {@link io.jckpt.Ckpt#open} returned on this rank, for the job's events ({@code rank_open}:
     * the report page shows the open as a start-up phase). Must not block.
     *
     * @param openNanos how long the open took, from its call to its return
     */
    default void opened(long openNanos) {
    }

    /**
     * When the failure that lost this process's previous world was detected, on this process's clock:
     * the launcher's order to recover (or, re-spawned, its start) less the failure's age the launcher
     * gave with it. The interval policy measures the restart from it to the end of the recovery's open().
     *
     * @return a {@link System#nanoTime()} value, or -1 when not known (no recovery, a warm standby)
     */
    default long worldLostNanos() {
        return -1;
    }

    /**
     * Fences threads of an abandoned MPJ world: throws an {@link Error} when the calling thread
     * belongs to a world older than the current one, so stale data is never checkpointed.
     */
    void checkCurrentWorld();

    /**
     * Installs the services of this rank (the runtime does, once per rank).
     *
     * @param services the services, or {@code null} to remove them
     */
    static void install(JobServices services) {
        Holder.services = services;
    }

    /** @return the installed services, or {@code null} outside a launched rank */
    static JobServices current() {
        return Holder.services;
    }

    /** Holds the installed instance (interfaces cannot have private static fields). */
    final class Holder {
        private static volatile JobServices services;

        private Holder() {
        }
    }
}
