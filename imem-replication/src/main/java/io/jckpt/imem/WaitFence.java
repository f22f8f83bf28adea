package io.jckpt.imem;

import java.nio.channels.Selector;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Ends the socket waits of one world's data channels at once, from another thread: once raised, every
 * wait of {@link ChannelIo} that was given this fence (a ring join, a rollback transfer, their
 * handshakes) wakes and fails with a {@link ReplicationException} saying why, and every later one fails
 * before it waits. Its owner raises it when the world its endpoint serves is abandoned after a failure:
 * a peer stopped or killed in the middle of such a wait never answers, and the wait would otherwise
 * last its whole deadline (the exchange timeout), holding up the rank's next world. Closing a channel
 * does not wake a selector waiting on it, so the waits register their selectors here and a raise wakes
 * them ({@link Selector#wakeup()}, which a select not yet begun keeps for later).
 */
public final class WaitFence {
    /** A fence that is never raised: waits end by their deadlines only. */
    public static final WaitFence NEVER = new WaitFence(false);

    private final boolean raisable;
    private final Set<Selector> waiting = ConcurrentHashMap.newKeySet();
    private volatile String reason;

    /** A fence not raised yet. */
    public WaitFence() {
        this(true);
    }

    private WaitFence(boolean raisable) {
        this.raisable = raisable;
    }

    /**
     * Ends every wait given this fence, now and later (the first reason stays). Never blocks.
     *
     * @param why what the waits' errors say (e.g. "MPJ world 0 abandoned after a failure")
     * @throws IllegalStateException on {@link #NEVER}
     */
    public void raise(String why) {
        if (!raisable) {
            throw new IllegalStateException("WaitFence.NEVER cannot be raised");
        }
        synchronized (this) {
            if (reason == null) {
                reason = why;
            }
        }
        for (Selector selector : waiting) {
            selector.wakeup();
        }
    }

    /** @return whether the fence was raised */
    public boolean raised() {
        return reason != null;
    }

    /** @return how many waits are on this fence now (tests) */
    int waiting() {
        return waiting.size();
    }

    /** A wait on {@code selector} begins: a raise from now on wakes it. */
    void enter(Selector selector) {
        if (raisable) {
            waiting.add(selector);
        }
    }

    /** The wait on {@code selector} is over. */
    void exit(Selector selector) {
        if (raisable) {
            waiting.remove(selector);
        }
    }

    /**
     * @param what the wait, for the error
     * @throws ReplicationException when the fence was raised
     */
    void check(String what) throws ReplicationException {
        String why = reason;
        if (why != null) {
            throw new ReplicationException(what + ": " + why);
        }
    }
}
