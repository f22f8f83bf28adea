package io.jckpt.policy;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.CkptStateException;
import io.jckpt.StorageException;
import io.jckpt.imem.DataEndpoint;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.imem.ReplicationAgent;
import io.jckpt.imem.RingLinks;
import io.jckpt.spi.Collective;
import io.jckpt.spi.RankCollective;
import io.jckpt.wire.ReconfigureStatus;
import io.jckpt.wire.RestoreDone;
import io.jckpt.wire.SizeVote;
import io.jckpt.wire.SwitchReady;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-local store layout in force on one rank (its {@link StoreLayout}, store, ring links and
 * replication agent) and the switches to a new one, taken by every rank at the same round.
 *
 * <p>{@link #beforeRound} is here()'s reconfiguration step, before the image is written: grow the slots
 * when an image outgrew them, apply a pending ctrl(m), run the memory policy ({@link MemoryPolicy}),
 * switch the layout when any of that changes it; at the first here() agree the slot capacity. With a
 * slot capacity fixed by the options and nothing pending, it costs nothing. With growing slots (the
 * default) a rank whose image does not fit skips the round, and at the next here() every rank learns
 * it and grows the slots together: from the ring's watermarks when the ring carries the agreement
 * ({@link #agreementOnRing()}), else from the {@link SizeAgreement}. A switch costs one exchange with
 * every rank's image length and memory budget, and one more before leaving the current ring.
 *
 * <p>A switch keeps a complete round restorable at every moment: the last round of the current layout
 * is complete on every rank, and every rank knows it, before any rank leaves the current ring; the
 * current store then stays untouched (retiring) until the new layout's first round is complete
 * everywhere, and while a disk flush still reads one of its slots (it retains it: {@link ReplicaStore#retainsAny()}). A switch that
 * fails half-way leaves the store broken: every later here() names it.
 */
final class LayoutSwitcher {
    private static final Logger LOG = LoggerFactory.getLogger(TwoLevelCheckpointer.class);

    /** Waits (bounded) until no disk flush runs; true when there is no disk level. */
    interface FlushWait {
        /** @return whether the flusher became idle in time */
        boolean awaitIdle(Duration timeout) throws InterruptedException;
    }

    private final int rank;
    private final int size;
    private final RankCollective exchange;
    private final StoreLayouts layouts;
    private final Path storeDirectory;
    private final DataEndpoint endpoint;
    private final InetSocketAddress[] endpoints;
    private final SizeAgreement agreement;
    private final IntervalSteps interval;
    private final CkptStatsRecorder stats;
    private final PhaseMachine phases;
    private final FlushWait flushes;
    private final Consumer<String> events;

    private ReplicaStore store;
    /** The configuration of {@link #store}; null until the first here() (or a restore) made one. */
    private StoreLayout layout;
    /** The previous layout's store after a switch, kept until the new layout's first round is complete everywhere. */
    private ReplicaStore retiringStore;
    private StoreLayout retiringLayout;
    /** The current layout's first round is known complete everywhere: the retiring store may go. */
    private boolean retiringComplete;
    /**
     * A switch to a layout without ring agent waits for the barrier of the next here() to know its first
     * round complete everywhere. Set and cleared identically on every rank (it decides a collective).
     */
    private boolean barrierPending;
    /** The m of a ctrl not yet applied (at the next here()), or -1. */
    private int pendingReplicas = -1;
    /** Set when a switch failed half-way: every later here() names it. */
    private String broken;
    private ReplicationAgent agent;
    /** Ring connections made at open, before the store exists; handed to the agent at the first here(). */
    private RingLinks links;

    LayoutSwitcher(int rank, int size, RankCollective exchange, StoreLayouts layouts, Path storeDirectory,
                   DataEndpoint endpoint, InetSocketAddress[] endpoints,
                   SizeAgreement agreement, IntervalSteps interval, CkptStatsRecorder stats, PhaseMachine phases,
                   FlushWait flushes, Consumer<String> events) {
        this.rank = rank;
        this.size = size;
        this.exchange = exchange;
        this.layouts = layouts;
        this.storeDirectory = storeDirectory;
        this.endpoint = endpoint;
        this.endpoints = endpoints;
        this.agreement = agreement;
        this.interval = interval;
        this.stats = stats;
        this.phases = phases;
        this.flushes = flushes;
        this.events = events;
    }

    /**
     * The error of a round whose ring failed: when an exchange of this world failed before (ranks called
     * different collectives, or did not arrive), the peer that left did so because of it, and this rank
     * throws what every rank of that exchange threw, with what it saw itself suppressed; else {@code what}.
     */
    static CkptException ringFailure(RankCollective exchange, String what, Throwable cause) {
        CkptException failure = exchange.failure();
        if (failure == null) {
            return new CkptException(what, cause);
        }
        failure.addSuppressed(new CkptException(what, cause));
        return failure;
    }

    /** @return the current store, or null before the first layout */
    ReplicaStore store() {
        return store;
    }

    /** @return the current layout, or null before the first */
    StoreLayout layout() {
        return layout;
    }

    /** @return the ring replication agent, or null (no ring, m = 0, one rank) */
    ReplicationAgent agent() {
        return agent;
    }

    /** Continues in the layout a restore kept. */
    void adopt(StoreLayouts.Held active) {
        store = active.store();
        layout = active.layout();
    }

    /** The m of a ctrl, applied collectively at the next here(): all ranks switch at one round. */
    void requestReplicas(int m) {
        pendingReplicas = m;
    }

    /**
     * Joins the ring after open, or at the first here() after an in-memory rollback. The rollback
     * transfers accept on the same data endpoint as the ring: every rank must be done with them before
     * any ring connection is made, which takes one more exchange in open ({@code afterPlan}); at the
     * first here() the recovery's restore check, entered by every rank after its open(), did that.
     * Without a store yet (it waits for the first here() to know the image size) only the ring
     * connections are made.
     */
    void joinRing(boolean afterPlan, long round, CkptOptions requested, CkptOptions options) throws IOException {
        if (afterPlan) {
            RestoreDone.EXCHANGE.allgather(exchange, new RestoreDone(), Collective.NO_ROUND, options.exchangeTimeout());
        }
        if (store != null) {
            startReplication(round, options);
        } else if (requested.replicas() > 0 && size > 1) {
            // the first here() does not pay for the connections
            links = endpoint.joinRing(layouts.ring(), endpoints[layouts.ring().next(rank)], options.exchangeTimeout());
        }
    }

    /** @return {@code requested} with the m of the current layout and, when it is degraded, the more frequent disk rounds */
    CkptOptions effective(CkptOptions requested) {
        if (layout == null) {
            return requested;
        }
        CkptOptions.Builder b = requested.toBuilder().replicas(layout.replicas())
                .minReplicas(Math.min(requested.minReplicas(), layout.replicas()));
        if (layout.degraded() && requested.diskLevelEnabled()) {
            int dropped = layout.requestedReplicas() - layout.replicas();
            b.diskRatio(Math.max(1, dropped >= 31 ? 1 : requested.diskRatio() >> dropped));
        }
        return b.build();
    }

    /** Joins the ring (or uses the links made early) and starts the agent, unless there is no ring. */
    private void startReplication(long round, CkptOptions options) throws IOException {
        if (layout.replicas() == 0 || size == 1) {
            return;
        }
        RingLinks ring = links != null ? links : endpoint.joinRing(layouts.ring(), endpoints[layouts.ring().next(rank)],
                options.exchangeTimeout());
        links = null;
        agent = ReplicationAgent.start(store, ring, options.replicationTimeout(), round);
    }

    /**
     * Whether growing slots agree on the slot size over the replication ring instead of an exchange
     * of their own: with an agent and two versions kept, here() of round r + 1 already waits until
     * round r is complete everywhere (its slot replaces round r - 1's), and a rank whose image did
     * not fit says so in the ring's watermarks ({@link ReplicationAgent#skipRound}), so the answer
     * costs nothing more. With more versions kept here() may run ahead of the ring; then the
     * agreement is a background exchange per here() (collected at the next one).
     */
    boolean agreementOnRing() {
        return agent != null && layout != null && layout.versionsKept() == 2;
    }

    /** @return the agent when the agreement rides on the ring, else null */
    ReplicationAgent ringAgreement() {
        return agreementOnRing() ? agent : null;
    }

    /** Whether the size agreement of this here() is a background exchange (growing slots, several ranks, not on the ring). */
    private boolean backgroundAgreement(CkptOptions requested) {
        return (requested.slotCapacity() == 0 || IntervalSteps.decides(requested)) && size > 1 && !agreementOnRing();
    }

    private void startAgreement(long round, long overflow, long step, CkptOptions requested) {
        // rank 0's interval decision rides along (0 = none); the other ranks' second long is 0
        agreement.start(round, overflow, interval.ownDecisionOf(round + 1), step, requested);
    }

    /**
     * here()'s reconfiguration step, before the image of round {@code round + 1} is written.
     *
     * @param length    this rank's image length for the new round
     * @param round     the current round
     * @param step      the program's step at the new round (carried by the agreement, compared at the next)
     * @param requested the options asked for (with every ctrl)
     * @return whether to write the round; false when it is skipped on this rank (its image did not fit)
     */
    boolean beforeRound(long length, long round, long step, CkptOptions requested) {
        if (broken != null) {
            throw new CkptStateException(broken);
        }
        releaseRetiringIfComplete();
        boolean fixed = requested.slotCapacity() > 0;
        long[] needs = null;
        if (!fixed) {
            List<SizeVote> previous = agreement.take(round, requested);
            if (previous != null) {
                needs = SizeAgreement.needs(previous);
            } else if (agreementOnRing()) {
                needs = settledNeeds(round, requested);
            }
        }
        int needRank = needs == null ? -1 : SizeAgreement.largest(needs);
        long need = needRank < 0 ? 0 : needs[needRank]; // the largest image of the previous round that did not fit
        // without an agent nothing tells when the new layout's first round is complete everywhere: every
        // rank reaching the next here() does (its own copy is written synchronously); the condition is
        // the same on every rank, so the exchange below is entered by all or by none
        boolean barrier = barrierPending && round >= layout.firstRound();
        boolean alone = size == 1; // grows at once: nobody to agree with
        if (barrier && alone) { // its own copy of the new layout's first round is written: complete everywhere
            barrierPending = false;
            barrier = false;
            retiringComplete = true;
            releaseRetiring();
        }
        if (layout != null && pendingReplicas < 0 && !barrier && need == 0 && !(alone && length > layout.slotCapacity())) {
            if (length <= layout.slotCapacity()) {
                if (backgroundAgreement(requested)) {
                    startAgreement(round, 0, step, requested);
                }
                return true;
            }
            if (fixed) {
                throw new StorageException(storeDirectory, "rank " + rank + ": the checkpoint image grew to " + length
                        + " bytes, beyond the slot capacity of " + layout.slotCapacity()
                        + " bytes fixed by the option slotCapacity; raise it, or set 0 to let the slots grow", null);
            }
            LOG.info("rank {}: the image of round {} ({} bytes) outgrew the slot capacity of {} bytes: the round is"
                    + " skipped here, the slots grow at the next here()", rank, round + 1, length, layout.slotCapacity());
            if (agreementOnRing()) {
                try {
                    interval.offerDecision(agent, round + 1);
                    agent.offerStep(round + 1, step);
                    agent.skipRound(round + 1, length);
                } catch (IOException e) {
                    throw new CkptException("rank " + rank + ": checkpoint round " + (round + 1) + " failed: "
                            + e.getMessage(), e);
                }
            } else {
                startAgreement(round, length, step, requested);
            }
            return false;
        }
        String why = need > 0 ? "rank " + needRank + "'s image of round " + round + " (" + need
                + " bytes) outgrew the slots; that round is not taken there" : pendingReplicas >= 0 ? "ctrl(replicas="
                + pendingReplicas + ")" : layout == null ? "the first here()" : "the image (" + length
                + " bytes) outgrew the slots";
        phases.moveTo(PhaseMachine.Phase.SWITCHING, round);
        try {
            reconfigure(length, need, barrier, round, requested, why);
        } catch (RuntimeException | Error e) {
            if (broken == null) { // the current store is unchanged: running on (a broken one stays switching)
                phases.moveTo(PhaseMachine.Phase.RUNNING, round);
            }
            throw e;
        }
        phases.moveTo(PhaseMachine.Phase.RUNNING, round);
        if (backgroundAgreement(requested)) {
            startAgreement(round, 0, step, requested);
        }
        return true;
    }

    /**
     * Waits (bounded like here()'s wait for the previous round) until round {@code r} is complete or
     * skipped on every rank, then compares the ranks' steps of round {@code r} ({@link StepCheck}).
     *
     * @return per rank, the slot capacity its image needs if it skipped the round, else 0
     */
    private long[] settledNeeds(long r, CkptOptions requested) {
        try {
            long[] needs = agent.awaitSettled(r, requested.hereWaitTimeout());
            if (needs == null) {
                throw new CkptException("rank " + rank + ", round " + (r + 1) + ": round " + r
                        + " is not yet replicated on every rank after " + requested.hereWaitTimeout().toMillis()
                        + " ms (global completed round " + agent.globalCompletedRound() + ")");
            }
            StepCheck.onRing(rank, r, agent);
            return needs;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CkptException("rank " + rank + ": interrupted in here() of round " + (r + 1), e);
        } catch (IOException e) {
            throw ringFailure(exchange, "rank " + rank + ": checkpoint round " + (r + 1) + " failed: " + e.getMessage(),
                    e);
        }
    }

    /** The collective part: every rank's image length and budget, then a switch if anything changes. */
    private void reconfigure(long length, long need, boolean barrier, long round, CkptOptions requested, String why) {
        boolean fixed = requested.slotCapacity() > 0;
        MemoryPolicy.Budget own = layouts.budget();
        List<ReconfigureStatus> all = ReconfigureStatus.EXCHANGE.allgather(exchange,
                new ReconfigureStatus(length, own.cap(), own.free()), round + 1, requested.exchangeTimeout());
        long largest = 0;
        int largestRank = 0;
        MemoryPolicy.Budget[] budgets = new MemoryPolicy.Budget[all.size()];
        for (int r = 0; r < all.size(); r++) {
            ReconfigureStatus s = all.get(r);
            if (s.imageLength() > largest) {
                largest = s.imageLength();
                largestRank = r;
            }
            budgets[r] = new MemoryPolicy.Budget(s.memoryCap(), s.memoryFree());
        }
        if (barrier) {
            barrierPending = false;
            retiringComplete = true;
            releaseRetiring();
        }
        long capacity;
        if (fixed) {
            capacity = requested.slotCapacity();
            if (largest > capacity) {
                throw new StorageException(storeDirectory, "rank " + rank + ": rank " + largestRank
                        + "'s checkpoint image of round " + (round + 1) + " has " + largest
                        + " bytes, beyond the slot capacity of " + capacity
                        + " bytes fixed by the option slotCapacity; raise it, or set 0 to let the slots grow", null);
            }
        } else if (layout == null || largest > layout.slotCapacity() || need > 0) {
            capacity = SizeAgreement.sizedFor(Math.max(largest, need)); // the first here(), or growth
        } else {
            capacity = layout.slotCapacity();
        }
        int wanted = pendingReplicas >= 0 ? pendingReplicas
                : layout == null ? requested.replicas() : layout.requestedReplicas();
        if (layout != null && capacity == layout.slotCapacity() && wanted == layout.requestedReplicas()) {
            pendingReplicas = -1;
            return;
        }
        MemoryPolicy.Decision decision = MemoryPolicy.decide(wanted, requested, capacity, budgets, rank, storeDirectory);
        if (decision.warning() != null) {
            LOG.warn("rank {}: {}", rank, decision.warning());
            if (rank == 0) {
                events.accept("memory policy: " + decision.warning());
            }
        }
        StoreLayout target = new StoreLayout(round + 1, decision.replicas(), wanted, capacity, requested.versionsKept());
        if (layout != null && target.replicas() == layout.replicas() && capacity == layout.slotCapacity()) {
            // only the m asked for changed, and memory still allows no other: the store stays as it is
            layout = new StoreLayout(layout.firstRound(), layout.replicas(), wanted, capacity, layout.versionsKept());
            layouts.record(layout);
            pendingReplicas = -1;
            return;
        }
        long before = layout == null ? Long.MAX_VALUE : layout.slotCapacity();
        // a round some rank skipped is complete nowhere: the switch waits for the one before it
        switchTo(target, need > 0 ? round - 1 : round, round, requested, largest > before ? why
                + "; an image of round " + (round + 1) + " has " + largest + " bytes" : why);
        pendingReplicas = -1;
    }

    /**
     * Moves every rank to a new store layout at the same round (see the class comment); the first
     * here() makes the first layout this way.
     */
    private void switchTo(StoreLayout target, long last, long round, CkptOptions requested, String why) {
        StoreLayout from = layout;
        if (from != null) {
            String problem = null;
            try {
                if (agent != null && !agent.awaitGloballyCompleted(last, requested.replicationTimeout())) {
                    problem = "round " + last + " not replicated on every rank within "
                            + requested.replicationTimeout().toMillis() + " ms";
                }
                // an older layout still waiting to go: the current one holds a round complete everywhere
                // once the wait above succeeded; a disk flush may still read one of its slots
                if (problem == null && retiringStore != null) {
                    retiringComplete = true;
                    if (!flushes.awaitIdle(requested.replicationTimeout())) {
                        problem = "a disk flush of round " + last + " or earlier still runs after "
                                + requested.replicationTimeout().toMillis() + " ms";
                    }
                    releaseRetiring();
                    if (problem == null && retiringStore != null) {
                        problem = "the store of " + retiringLayout.describe() + " cannot be released yet";
                    }
                }
            } catch (IOException e) {
                // never empty: an empty problem says ready
                problem = e.getMessage() == null || e.getMessage().isEmpty() ? e.toString() : e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                problem = "interrupted";
            }
            List<SwitchReady> all = SwitchReady.EXCHANGE.allgather(exchange,
                    problem == null ? SwitchReady.READY : new SwitchReady(problem), round + 1, requested.exchangeTimeout());
            for (int r = 0; r < all.size(); r++) {
                if (!all.get(r).ready()) {
                    throw new CkptException("rank " + rank + ": cannot switch to " + target.describe() + ": rank " + r
                            + ": " + all.get(r).problem() + "; the current store is unchanged");
                }
            }
            if (agent != null) {
                agent.close();
                agent = null;
            }
            retiringStore = store;
            retiringLayout = from;
            retiringComplete = false;
            barrierPending = target.replicas() == 0 || size == 1;
            store = null;
        }
        if (links != null && target.replicas() == 0) {
            links.close(); // made at open for the m asked for; the memory policy chose none
            links = null;
        }
        long t0 = System.nanoTime();
        try {
            store = layouts.create(target);
            layout = target;
            startReplication(round, requested);
        } catch (IOException | RuntimeException e) {
            broken = "rank " + rank + ": the node-local store for " + target.describe() + " could not be made: "
                    + e.getMessage() + (from == null ? "" : "; round " + last + " stays restorable from the previous store");
            throw new StorageException(storeDirectory, broken, e);
        }
        if (from != null) {
            stats.recordReconfiguration();
            String what = "store layout switched from " + from.describe() + " to " + target.describe() + " (" + why + ")";
            LOG.info("rank {}: {} in {} us", rank, what, (System.nanoTime() - t0) / 1000);
            if (rank == 0) {
                events.accept(what);
            }
        }
    }

    /** Releases the retiring store once the current layout's first round is complete everywhere (no wait). */
    private void releaseRetiringIfComplete() {
        if (retiringStore != null && (retiringComplete
                || (agent != null && agent.globalCompletedRound() >= layout.firstRound()))) {
            retiringComplete = true;
            releaseRetiring(); // may wait for a later here() if a disk flush still reads it
        }
    }

    /** At close: the newest round is complete everywhere in the current layout; the retiring store may go. */
    void retiringCompleteAtClose() {
        retiringComplete = true;
        releaseRetiring();
    }

    /** Closes and deletes the retiring store, unless a disk flush still reads one of its slots (then later). */
    private void releaseRetiring() {
        if (retiringStore == null) {
            return;
        }
        if (retiringStore.retainsAny()) {
            return;
        }
        retiringStore.close();
        try {
            layouts.delete(retiringLayout);
        } catch (IOException e) {
            LOG.warn("rank {}: the previous store {} could not be deleted: {}", rank, retiringLayout.directoryName(),
                    e.getMessage());
        }
        retiringStore = null;
        retiringLayout = null;
    }

    /** Stops the agent (first in a release: nothing is replicated any more). */
    void closeAgent() {
        if (agent != null) {
            agent.close();
        }
    }

    /** Closes the links and the stores; their files stay (a recovery restores from them). */
    void closeStores() {
        if (links != null) {
            links.close();
        }
        if (store != null) {
            store.close();
        }
        if (retiringStore != null) {
            retiringStore.close(); // its files stay: a failure may still need its round
        }
    }
}
