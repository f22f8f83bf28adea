package io.jckpt.policy;

import io.jckpt.spi.RankEvent;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where one rank's checkpointer reports checkpoints, recoveries and warnings: one {@link RankEvent} each,
 * to the launcher's log when there is one ({@code events}); without it events are dropped and warnings go
 * to this rank's log.
 */
final class JobEvents {
    private static final Logger LOG = LoggerFactory.getLogger(TwoLevelCheckpointer.class);

    private final int rank;
    private final Consumer<RankEvent> events;

    JobEvents(int rank, Consumer<RankEvent> events) {
        this.rank = rank;
        this.events = events;
    }

    /** @param event an event for the launcher's log (dropped without one) */
    void event(RankEvent event) {
        if (events != null) {
            events.accept(event);
        }
    }

    /** @param text one line for the launcher's log (dropped without one) */
    void event(String text) {
        event(new RankEvent.Text(text));
    }

    /** @param text a warning: one line, to the launcher's log when there is one, else to this rank's log */
    void warn(String text) {
        if (events != null) {
            events.accept(new RankEvent.Text("WARNING: " + text));
        } else {
            LOG.warn("rank {}: {}", rank, text);
        }
    }

    /** @param text one line: to the launcher's log when there is one, else to this rank's log (info) */
    void info(String text) {
        if (events != null) {
            events.accept(new RankEvent.Text(text));
        } else {
            LOG.info("rank {}: {}", rank, text);
        }
    }
}
