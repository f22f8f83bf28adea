package io.jckpt.spi;

import io.jckpt.Checkpointer;
import io.jckpt.CkptOptions;

/**
 * Creates the {@link Checkpointer} implementation. Implementations live in other modules (the
 * two-level policy) and are found with {@link java.util.ServiceLoader}: list the class in
 * {@code META-INF/services/io.jckpt.spi.CheckpointerProvider}. See {@link CheckpointerProviders} for
 * how one is chosen when several are present.
 */
public interface CheckpointerProvider {

    /**
     * Opens a checkpointer for one rank: sets up stores and, when {@code context.isRecovery()}, finds
     * what can be restored. Collective: every rank calls it.
     *
     * @param options validated options
     * @param context the rank
     * @return the open checkpointer
     */
    Checkpointer create(CkptOptions options, RankContext context);

    /** @return a short name for messages, e.g. "two-level" */
    default String name() {
        return getClass().getName();
    }

    /** @return higher wins when several providers are on the class path */
    default int priority() {
        return 0;
    }
}
