package io.jckpt.spi;

import io.jckpt.CkptException;

import java.time.Duration;

/**
 * The collective the library uses between the ranks of one world (status at open, the restore plan
 * at recovery, size agreements, ctrl and close). Every call is typed: it says which
 * {@link Collective} it is, and the exchange completes only when every rank made that same call at
 * the same position of its sequence of exchanges. Implemented over the launcher's control channel
 * in the runtime module, and in one JVM by {@link LocalRankCollective} for tests.
 */
public interface RankCollective {

    /** @return this endpoint's rank */
    int rank();

    /** @return number of ranks */
    int worldSize();

    /**
     * Gives this rank's bytes and receives every rank's.
     *
     * @param call    which collective this is (compared across ranks)
     * @param mine    this rank's contribution (not modified; may be empty, not null)
     * @param timeout bound of the wait
     * @return contributions indexed by rank ({@code result[rank()]} equals {@code mine})
     * @throws io.jckpt.ExchangeTimeoutException naming the ranks that did not arrive in time
     * @throws io.jckpt.CollectiveMismatchException when another rank made a different call, naming both
     */
    byte[][] allgather(Collective call, byte[] mine, Duration timeout);

    /**
     * @return what the failed exchange of this world threw on every rank (a
     *         {@link io.jckpt.CollectiveMismatchException} when ranks called different collectives, an
     *         {@link io.jckpt.ExchangeTimeoutException} when some did not arrive), made anew for this rank,
     *         so that a rank whose peer left after such a failure throws what the others threw;
     *         {@code null} while none failed
     */
    default CkptException failure() {
        return null;
    }

    /**
     * Runs {@code action} once the world {@code epoch} is abandoned for a newer one after a failure (the
     * runtime's order to recover), or at once when it already is. The exchanges of an abandoned world
     * fail by themselves; the library's other waits of that world (its data channels: the ring join,
     * rollback transfers) end with this, so that a thread of the abandoned world never holds up the next
     * one. Runs on the thread that learns of the new world: it must not block. Default: never (a world
     * that is never replaced).
     *
     * @param epoch  the world the caller belongs to
     * @param action what ends its waits; non-blocking
     * @return the registration, closed once the action is no longer wanted
     */
    default Registration onAbandoned(int epoch, Runnable action) {
        return () -> { };
    }

    /** An {@link #onAbandoned} registration; closing it drops the action (idempotent, never throws). */
    @FunctionalInterface
    interface Registration extends AutoCloseable {
        @Override
        void close();
    }
}
