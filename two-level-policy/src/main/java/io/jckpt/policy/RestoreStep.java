package io.jckpt.policy;

import io.jckpt.CkptOptions;
import io.jckpt.CkptStats;
import io.jckpt.DiskUnavailable;
import io.jckpt.NotRecoverableException;
import io.jckpt.StorageException;
import io.jckpt.disk.DiskSelection;
import io.jckpt.disk.DiskStoreConfig;
import io.jckpt.disk.GenerationSelector;
import io.jckpt.disk.GenerationStore;
import io.jckpt.disk.StableDiskException;
import io.jckpt.image.ImageKey;
import io.jckpt.imem.DataEndpoint;
import io.jckpt.imem.ImemRecovery;
import io.jckpt.imem.RecoverySteps;
import io.jckpt.imem.Refill;
import io.jckpt.imem.ReplicaSlot;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.imem.RollbackPlan;
import io.jckpt.spi.Collective;
import io.jckpt.spi.RankContext;
import io.jckpt.spi.RankEvent;
import io.jckpt.spi.RankCollective;
import io.jckpt.wire.OpenStatus;
import io.jckpt.wire.RankInventory;
import io.jckpt.wire.RankStatus;
import io.jckpt.wire.RestoredStep;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The opening and restoring phases of one rank's open(), in two calls.
 *
 * <p>{@link #exchange()} (opening): opens what survived on this node (its store layouts: one, two when
 * a failure hit a switch) and the disk level, then makes the one open exchange: every rank's options
 * fingerprint, slot capacity, copies held, data endpoint, disk inventory and newest copies. The
 * options must agree ({@link OptionsAgreement}); a rank that cannot use the disk directory turns the
 * disk level off everywhere (MEMORY_ONLY).
 *
 * <p>{@link #restore} (restoring): takes the {@link RecoveryDecision} from the same exchanged data on
 * every rank (memory, with one more exchange only when the plan is not conclusive; else the newest
 * disk generation intact everywhere; else a clean start or {@link NotRecoverableException}), restores
 * the {@link RestoredImage}, keeps the layout in force at the restored round and deletes the others;
 * then one exchange compares the ranks' steps of the restored round ({@code here(step)}), so that a
 * recovery never resumes ranks from different steps of the program ({@link StepCheck}).
 */
final class RestoreStep {
    private static final Logger LOG = LoggerFactory.getLogger(TwoLevelCheckpointer.class);

    /**
     * Test hook: where a recovery's decision is taken and where it has been applied to this rank's
     * node-local store (restored, other layouts deleted, newer copies discarded), before the ring is
     * joined. A test parks a rank there, or throws to stand for the rank's death at that point.
     */
    interface Hook {
        /** The decision is taken; nothing is changed yet. */
        void decided(int rank, RecoveryDecision decision) throws IOException;

        /** The decision is applied to this rank's store. */
        void applied(int rank, RecoveryDecision decision) throws IOException;
    }

    private final CkptOptions options;
    private final RankContext context;
    private final RankCollective exchange;
    private final StoreLayouts layouts;
    private final DataEndpoint endpoint;
    private final InetSocketAddress[] endpoints;
    private final RestoredImage restored;
    /** The job's image key: the disk level verifies its files with it; its id is in the open exchange. */
    private final ImageKey imageKey;
    private final Consumer<RankEvent> events;
    private final Consumer<String> warnings;
    // the stores are opened (every copy verified) in this very open: the recovery steps reuse that
    private final RecoverySteps steps = new RecoverySteps(true);

    private final long openStart = System.nanoTime();
    private long storeOpenNanos;
    private long exchangeNanos;
    private long decideNanos;
    private long transferNanos;
    private long bytesReceived;
    private List<StoreLayouts.Held> held = List.of();
    /** Every layout found on this node at open (closed by the checkpointer's release if open fails). */
    private List<ReplicaStore> survivors = List.of();
    private GenerationStore disk;
    private List<OpenStatus> statuses;
    private long copiesAnywhere;
    private boolean completeEverywhereRecorded;
    private RollbackPlan plan;
    private long round;
    private StoreLayouts.Held active;

    RestoreStep(CkptOptions options, RankContext context, RankCollective exchange, StoreLayouts layouts,
                DataEndpoint endpoint, InetSocketAddress[] endpoints, RestoredImage restored, ImageKey imageKey,
                Consumer<RankEvent> events, Consumer<String> warnings) {
        this.imageKey = imageKey;
        this.options = options;
        this.context = context;
        this.exchange = exchange;
        this.layouts = layouts;
        this.endpoint = endpoint;
        this.endpoints = endpoints;
        this.restored = restored;
        this.events = events;
        this.warnings = warnings;
    }

    private int rank() {
        return context.rank();
    }

    /** The opening phase: this node's stores and disk level, then the open exchange (fills the endpoints). */
    void exchange() throws IOException {
        // 1. what survived on this node: its store layouts (one; two when a failure hit a switch of m
        // or of the slot capacity), each with the m and capacity it was made with
        held = layouts.openSurviving();
        survivors = held.stream().map(StoreLayouts.Held::store).toList();
        String diskUnusable = null;
        if (options.diskLevelEnabled()) {
            try {
                // the world's epoch goes into every rank file: a commit vouches only for files of its own world
                disk = GenerationStore.openUsable(DiskStoreConfig.of(options.diskDirectory(), context.jobId(), rank(),
                        context.size()).withEpoch(context.epoch()).withImageKey(imageKey));
            } catch (StableDiskException e) {
                if (options.diskUnavailable() == DiskUnavailable.FAIL) {
                    throw new StorageException(options.diskDirectory(), "rank " + rank() + ": the disk directory cannot"
                            + " be used (CkptOptions.diskUnavailable(DiskUnavailable.MEMORY_ONLY) runs without the disk"
                            + " level instead)", e);
                }
                diskUnusable = e.getMessage(); // MEMORY_ONLY: the exchange below turns the level off everywhere
            }
        }
        // 2. one exchange: options, stores, endpoint, disk inventory
        long ownNewest = 0;
        int copiesHeld = 0;
        for (StoreLayouts.Held h : held) {
            ReplicaSlot own = h.store().newestComplete(rank());
            ownNewest = Math.max(ownNewest, own == null ? 0 : own.round());
            copiesHeld += h.store().copiesVerifiedSoFar().size();
        }
        completeEverywhereRecorded = layouts.roundCompleteEverywhereRecorded();
        OpenStatus mine = new OpenStatus(options.globalFingerprint(),
                held.isEmpty() ? 0 : held.get(held.size() - 1).layout().slotCapacity(), copiesHeld, ownNewest,
                completeEverywhereRecorded, endpoint.address(), disk == null ? null : disk.inventory(),
                held.stream().map(h -> h.layout().toWire()).toList(),
                ImemRecovery.newestCopiesStatus(rank(), survivors, context.isNewRank()), imageKey.id());
        long exchangeStart = System.nanoTime();
        storeOpenNanos += exchangeStart - openStart;
        statuses = OpenStatus.EXCHANGE.allgather(exchange, mine, Collective.NO_ROUND, options.exchangeTimeout());
        long decideStart = System.nanoTime();
        exchangeNanos += decideStart - exchangeStart;
        OptionsAgreement.atOpen(statuses, options, rank());
        OptionsAgreement.sameKeyAtOpen(statuses, imageKey, rank());
        if (options.diskLevelEnabled()) {
            // a rank that cannot use the disk directory sends no inventory (MEMORY_ONLY; with FAIL it
            // threw above): a generation needs every rank's file, so the level is off on every rank
            List<Integer> unusable = new ArrayList<>();
            for (int r = 0; r < statuses.size(); r++) {
                if (!statuses.get(r).hasDiskInventory()) {
                    unusable.add(r);
                }
            }
            if (!unusable.isEmpty()) {
                disk = null;
                if (rank() == unusable.get(0)) { // one line for the job, from a rank that knows why
                    warnings.accept("disk level off (diskUnavailable MEMORY_ONLY): the disk directory "
                            + options.diskDirectory() + " cannot be used on rank" + (unusable.size() > 1 ? "s " : " ")
                            + unusable.toString().replaceAll("[\\[\\]]", "") + ": " + diskUnusable
                            + "; checkpoints stay in memory only");
                }
            }
        }
        for (int r = 0; r < statuses.size(); r++) {
            endpoints[r] = statuses.get(r).endpoint();
            copiesAnywhere += statuses.get(r).copiesHeld();
        }
        decideNanos = System.nanoTime() - decideStart;
    }

    /**
     * The restoring phase: decides, identically on every rank, where to restore from, and applies it to
     * this rank's store.
     *
     * @param hook the test hook, or null
     */
    void restore(Hook hook) throws IOException {
        long restoredRound = 0;
        if (copiesAnywhere > 0) {
            // the newest copies came with the open exchange: another exchange only when that plan is
            // not conclusive (a survivor would need a transfer, or a copy was damaged)
            List<RankStatus> newest = statuses.stream().map(OpenStatus::newestCopies).toList();
            plan = ImemRecovery.plan(exchange, Collective.of(Collective.Kind.RESTORE_PLAN_OLDER), rank(), survivors,
                    context.isNewRank(), options.exchangeTimeout(), steps, newest, layouts.ring());
        }
        DiskSelection selection = plan != null && plan.recoverable() ? null : selectDisk();
        RecoveryDecision decision = RecoveryDecision.decide(statuses, plan, selection, options.recoveryFallback());
        if (hook != null) {
            hook.decided(rank(), decision);
        }
        if (decision.source() == RecoveryDecision.Source.MEMORY) {
            restoredRound = plan.round();
            // the round's copies are all in the layout that was current at that round, on every rank
            long t = System.nanoTime();
            active = ensureLayout(layoutFor(restoredRound, statuses));
            storeOpenNanos += System.nanoTime() - t;
            ReplicaSlot slot = ImemRecovery.restore(plan, active.store(), endpoint, endpoints, options.replicationTimeout(),
                    steps);
            restored.restore(slot, active.store(), plan.action(rank()).kind().name());
            List<Refill> refills = plan.refills(active.store().config().replicas());
            if (rank() == 0 && !refills.isEmpty()) { // the same list on every rank: one line
                events.accept(new RankEvent.Text("copies of round " + restoredRound + " refilled where the failure left"
                        + " them missing: " + String.join(", ", refills.stream().map(f -> "rank " + f.owner() + "'s at rank "
                        + f.holder() + (f.source() == f.owner() ? "" : " (from rank " + f.source() + ")")).toList())));
            }
        } else if (decision.source() == RecoveryDecision.Source.DISK) {
            restoredRound = decision.round();
            if (selection != null && !selection.rejected().isEmpty() && rank() == 0) { // the same list everywhere: one line
                warnings.accept("newer disk generation" + (selection.rejected().size() > 1 ? "s" : "") + " skipped: "
                        + String.join("; ", selection.rejected()) + "; restoring the generation of round "
                        + restoredRound);
            }
            long t = System.nanoTime();
            // verified by the disk level as it reads; off-heap, any size (images above 2 GiB too)
            BytesStore<?, ?> image = BytesStore.nativeStoreWithFixedCapacity(disk.imageLength(restoredRound));
            long length;
            try {
                length = disk.readInto(restoredRound,
                        (offset, bytes) -> image.write(offset, bytes, bytes.position(), bytes.remaining()));
            } catch (StableDiskException | RuntimeException e) {
                image.releaseLast();
                throw e;
            }
            transferNanos += System.nanoTime() - t;
            bytesReceived += length;
            // authenticated by the disk level while it read these bytes into this process's own memory
            restored.restore(image, RankEvent.Restored.DISK, "", restoredRound, true);
            StoreLayout then = layoutFor(restoredRound, statuses);
            if (then != null) {
                active = ensureLayout(then); // continue with the m and capacity in force at that round
            }
        } else if (decision.source() == RecoveryDecision.Source.NOT_RECOVERABLE) {
            throw new NotRecoverableException("rank " + rank() + ": the checkpoint cannot be restored: " + decision.reason());
        } else if (decision.configuredFallback()) {
            LOG.warn("rank {}: nothing restorable ({}); starting clean as configured", rank(), decision.reason());
            events.accept(new RankEvent.Text("nothing restorable (" + decision.reason() + "): clean start"));
        } else if (copiesAnywhere > 0) {
            LOG.info("rank {}: {}: clean start", rank(), decision.reason());
        }
        round = restoredRound;
        if (decision.source() == RecoveryDecision.Source.CLEAN_START) {
            // a new run: nothing of it is promised yet (only a configured fallback can find this recorded)
            layouts.forgetRoundCompleteEverywhere();
            completeEverywhereRecorded = false;
        }
        // layouts older or newer than the restored round's hold nothing needed any more
        for (StoreLayouts.Held h : held) {
            if (active == null || h.store() != active.store()) {
                h.store().close();
                layouts.delete(h.layout());
            }
        }
        if (active != null) {
            active.store().discardNewerThan(restoredRound);
        }
        if (restored.isRecovery()) {
            events.accept(restored.event());
        } else if (context.epoch() > 0 && decision.source() == RecoveryDecision.Source.CLEAN_START) {
            // a recovery's world with nothing to restore: the launcher's recovery line says so
            events.accept(new RankEvent.Restarted(decision.reason()));
        }
        if (hook != null) {
            hook.applied(rank(), decision);
        }
        if (restored.isRecovery()) { // the same decision on every rank: every rank makes this exchange
            List<RestoredStep> steps = RestoredStep.EXCHANGE.allgather(exchange, new RestoredStep(restored.step()), round,
                    options.exchangeTimeout());
            StepCheck.compare(rank(), round, StepCheck.steps(steps, RestoredStep::step), "in the checkpoint of round " + round
                    + " this recovery restored (a recovery never resumes ranks from different steps)");
        }
    }

    private DiskSelection selectDisk() {
        if (disk == null) {
            return null;
        }
        List<RankInventory> inventories = new ArrayList<>();
        for (OpenStatus s : statuses) {
            inventories.add(s.diskInventory());
        }
        return GenerationSelector.select(context.size(), inventories);
    }

    /**
     * The layout in force at {@code restored}: among every layout any rank reported, the one with the
     * newest first round not after it (the lowest reporting rank's on a conflict). Null if none.
     */
    private static StoreLayout layoutFor(long restored, List<OpenStatus> statuses) {
        StoreLayout best = null;
        for (OpenStatus s : statuses) {
            for (OpenStatus.Layout l : s.layouts()) {
                if (l.firstRound() <= restored && (best == null || l.firstRound() > best.firstRound())) {
                    best = StoreLayout.of(l);
                }
            }
        }
        return best;
    }

    /** This rank's store of layout {@code l}: the surviving one, or a new empty one (its node was lost). */
    private StoreLayouts.Held ensureLayout(StoreLayout l) throws IOException {
        for (StoreLayouts.Held h : held) {
            if (h.layout().equals(l)) {
                return h;
            }
        }
        StoreLayouts.Held made = new StoreLayouts.Held(l, layouts.create(l));
        held.add(made);
        List<ReplicaStore> all = new ArrayList<>(survivors);
        all.add(made.store());
        survivors = all;
        return made;
    }

    /** @return every store opened at this open (closed by the checkpointer's release; no-op for the one in use) */
    List<ReplicaStore> survivors() {
        return survivors;
    }

    /** @return the disk level's store, or null when it is off (not enabled, or unusable on some rank) */
    GenerationStore disk() {
        return disk;
    }

    /** @return whether this node recorded that a round of the current run was complete on every rank */
    boolean completeEverywhereRecorded() {
        return completeEverywhereRecorded;
    }

    /** @return the in-memory plan, or null when no rank held a copy */
    RollbackPlan plan() {
        return plan;
    }

    /** @return the round restored (0 on a clean start) */
    long round() {
        return round;
    }

    /** @return the layout to continue in and its store, or null (no store until the first here()) */
    StoreLayouts.Held active() {
        return active;
    }

    /** @return where this open spent its time, with {@code joinNanos} for the ring join */
    CkptStats.RecoveryTimings timings(long joinNanos) {
        return new CkptStats.RecoveryTimings(storeOpenNanos, exchangeNanos + steps.statusExchangeNanos(),
                decideNanos + steps.planNanos(), transferNanos + steps.transferNanos(), steps.bytesSent(),
                bytesReceived + steps.bytesReceived(), steps.verifyNanos(), joinNanos, System.nanoTime() - openStart);
    }
}
