package io.jckpt.policy;

import io.jckpt.Checkpointer;
import io.jckpt.CkptException;
import io.jckpt.ExchangeTimeoutException;
import io.jckpt.CollectiveMismatchException;
import io.jckpt.CkptOptions;
import io.jckpt.CkptStateException;
import io.jckpt.CkptStats;
import io.jckpt.DiskUnavailable;
import io.jckpt.CtrlOptions;
import io.jckpt.InvalidOptionException;
import io.jckpt.NotRecoverableException;
import io.jckpt.RecoveryFallback;
import io.jckpt.StorageException;
import io.jckpt.data.DataAdapters;
import io.jckpt.data.TagRegistry;
import io.jckpt.disk.CheckpointImage;
import io.jckpt.disk.DiskFlusher;
import io.jckpt.disk.DiskSelection;
import io.jckpt.disk.DiskStoreConfig;
import io.jckpt.disk.FlushListener;
import io.jckpt.disk.FlushedGeneration;
import io.jckpt.disk.GenerationSelector;
import io.jckpt.disk.GenerationStore;
import io.jckpt.disk.OverlapPolicy;
import io.jckpt.disk.RankInventory;
import io.jckpt.disk.StableDiskException;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageWriter;
import io.jckpt.imem.DataEndpoint;
import io.jckpt.imem.ImemRecovery;
import io.jckpt.imem.JobSecret;
import io.jckpt.imem.RecoverySteps;
import io.jckpt.imem.ReplicaSlot;
import io.jckpt.imem.ReplicaSlotDescriptor;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.imem.ReplicaWrite;
import io.jckpt.imem.ReplicationAgent;
import io.jckpt.imem.RingLinks;
import io.jckpt.imem.RollbackPlan;
import io.jckpt.policy.OpenStatusDescriptor.OpenStatus;
import io.jckpt.policy.interval.CheckpointSchedule;
import io.jckpt.policy.interval.FailureHistory;
import io.jckpt.policy.interval.IntervalController;
import io.jckpt.policy.interval.IntervalDecision;
import io.jckpt.policy.interval.IntervalMeter;
import io.jckpt.policy.interval.ThreadCpu;
import io.jckpt.spi.Collective;
import io.jckpt.spi.JobServices;
import io.jckpt.spi.RankContext;
import io.jckpt.spi.RankCollective;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.PointerBytesStore;
import net.openhft.chronicle.core.Jvm;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Checkpointer} of jckpt: the paper's two levels combined (its Figure 4).
 *
 * <p><b>Open</b> (collective): one status exchange carries every rank's options fingerprint, the
 * slot capacity and copies of its node-local store, its data endpoint and its disk inventory.
 * From the same exchanged data every rank takes the same decision: restore from memory when every
 * rank's data of a common round survives somewhere (the {@code RollbackPlanner}), else from the
 * newest disk generation committed and intact on all ranks, else a clean start (no round was ever
 * complete on every rank, or {@link RecoveryFallback#CLEAN_START}) or {@link NotRecoverableException}
 * ({@link RecoveryDecision}). A node records once per run, at the first here() whose ring reports a
 * round complete everywhere, that a checkpoint is promised; the decision reads that record, never the
 * absence of a store. {@link #isRecovery()} is true exactly when there is a checkpoint to roll back to.
 *
 * <p><b>here()</b>: the registered data is written as one image straight into this rank's next
 * version slot of the node-local store and handed to the ring replication agent (CRC32C and
 * sending happen in the background); every {@code diskRatio}-th round the same slot is also
 * flushed to stable storage in the background. The round number is the disk ratio's counter, so
 * it survives recoveries. here() starts with a collective step ({@code applyPendingReconfiguration}):
 * at the first here() it agrees the slot capacity (the largest image x 1.25) and joins the ring;
 * later it grows the slots when an image outgrew them, and applies a ctrl(m); each such change is a
 * switch to a new store layout at the same round on every rank (see {@link StoreLayout}), sized by the
 * memory policy ({@code MemoryPolicy}: m copies fit everywhere, or fewer with a warning, or a clear
 * error). With a slot capacity fixed by the options and nothing pending, that step costs nothing.
 *
 * <p><b>Recovery after switches</b>: open() reads every layout left on the node (two when a failure hit
 * a switch), plans over all their copies, and continues in the layout of the round restored.
 *
 * <p><b>rollback(tag, data)</b>: served locally from the image chosen at open, any tags in any order.
 *
 * <p><b>Size</b> (past 600 lines): it still holds, besides here / ctrl / close, the open and restore
 * sequence, the layout switches, the size agreement, the disk pins and commit poller and the stats.
 * The pure parts are out already ({@link RecoveryDecision}, {@code interval.*}, {@link MemoryPolicy},
 * {@link StoreLayouts}); the rest moves out along the same seams (LayoutSwitcher, SizeAgreement, the
 * disk level's commit coordinator, a stats recorder) in the architecture issue's next step.
 */
public final class TwoLevelCheckpointer implements Checkpointer {
    private static final Logger LOG = LoggerFactory.getLogger(TwoLevelCheckpointer.class);
    private static final long CAPACITY_ALIGN = 4096;
    private static final long COMMIT_POLL_MILLIS = 20;

    private final RankContext context;
    /** What the program asked for: the options of open, with every ctrl applied. */
    private CkptOptions requested;
    /** What runs now: {@link #requested} with the effective m and disk ratio of the current layout. */
    private CkptOptions options;
    private final RankCollective exchange;
    private final JobSecret secret;
    private final InetAddress bindHost;
    private final Consumer<String> events;
    private final DataAdapters adapters;
    private final TagRegistry registry;
    private final ImageWriter writer = new ImageWriter();
    private final PointerBytesStore slotView = BytesStore.nativePointer();
    private final Path storeDirectory;
    private final StoreLayouts layouts;
    private final DataEndpoint endpoint;
    private final InetSocketAddress[] endpoints;

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
    /** Every layout found on this node at open (closed by release() if open fails). */
    private List<ReplicaStore> survivors = List.of();
    /** The m of a ctrl not yet applied (at the next here()), or -1. */
    private int pendingReplicas = -1;
    /** Set when a switch failed half-way: every later here() names it. */
    private String broken;
    private long reconfigurations;
    private long skippedRounds;
    /** The background thread running the size agreement of growing slots; made at the first use. */
    private ExecutorService agreementThread;
    /** The size agreement of the newest round, in flight; joined before any other exchange. */
    private java.util.concurrent.Future<byte[][]> agreement;
    /** Its result, once joined and not yet used by the next here(). */
    private byte[][] agreed;
    /** The round the agreement in flight is about. */
    private long agreementRound;
    /** The newest round some rank skipped (complete nowhere), known from the agreements; -1 = none. */
    private long incompleteRound = -1;
    private ReplicationAgent agent;
    /** Ring connections made at open, before the store exists; handed to the agent at the first here(). */
    private RingLinks links;
    private GenerationStore disk;
    private DiskFlusher flusher;
    private ExecutorService committer;
    private volatile long lastCommitted;
    /** Set at close once every rank's flushes are done: a rank file not durable by then never will be. */
    private volatile boolean flushesSettled;
    private final Object pinLock = new Object();
    /**
     * Slots a disk flush still reads (submitted, not yet released by the flusher), and how many per
     * store: a pinned slot is not overwritten, a store with pins is not unmapped. Several rounds can be
     * in the flusher at once (one writing, one pending), so one pin is not enough.
     */
    private final java.util.IdentityHashMap<ReplicaSlot, Integer> slotPins = new java.util.IdentityHashMap<>();
    private final java.util.IdentityHashMap<ReplicaStore, Integer> storePins = new java.util.IdentityHashMap<>();
    /**
     * Pins outstanding, written under pinLock; volatile so that here() sees "nothing pinned" (the common
     * case) without the lock. Only here()'s thread adds pins, so a zero it reads cannot be stale.
     */
    private volatile int pinCount;

    private long round;
    /** This node recorded that a round of the current run was complete on every rank ({@link StoreLayouts}). */
    private boolean completeEverywhereRecorded;
    /** After an in-memory rollback: the ring is joined (after one barrier) at the first here(). */
    private boolean ringJoinPending;
    private boolean recovery;
    private String restoredFrom = "nothing";
    private BytesStore<?, ?> restoreImage;
    private ImageReader restoreReader;
    /** The store whose slot {@link #restoreImage} maps (memory restores), or null. */
    private ReplicaStore restoreStore;
    private boolean closed;

    private long checkpoints;
    private boolean released;
    /** Disk rounds handed to the flusher (the old meaning of {@link CkptStats#diskCheckpoints()}). */
    private long diskRounds;
    /** This rank's disk rounds made durable, failed; generations committed (rank 0), rounds never complete. */
    private final AtomicLong diskFlushed = new AtomicLong();
    private final AtomicLong diskFailures = new AtomicLong();
    private final AtomicLong diskCommits = new AtomicLong();
    private final AtomicLong diskIncomplete = new AtomicLong();
    /** The reason of this rank's previous disk failure: a repeated reason is not reported again. */
    private volatile String lastDiskFailure;
    private long lastImageBytes;
    private long lastBlockingNanos;
    private long totalBlockingNanos;
    private long rollbacks;
    private long lastRollbackNanos;
    private CkptStats.HereTimings lastHere = CkptStats.HereTimings.NONE;
    private CkptStats.RecoveryTimings lastRecovery = CkptStats.RecoveryTimings.NONE;

    // the interval policy (io.jckpt.policy.interval): needCheckpoint()'s schedule on every rank, rank 0's decisions
    private final CheckpointSchedule schedule = new CheckpointSchedule();
    /** Rank 0 with a policy that decides (adaptive interval, automatic disk ratio); else null. */
    private IntervalController intervalController;
    /** Rank 0's decision taken at the here() of round {@link #ownDecisionRound} ({@link IntervalDecision}). */
    private long ownDecision;
    private long ownDecisionRound = -1;
    /** The round open() restored (0 on a fresh start): the here() after it is not measured. */
    private long openRound;

    /**
     * Test hook: where a recovery's decision is taken and where it has been applied to this rank's
     * node-local store (restored, other layouts deleted, newer copies discarded), before the ring is
     * joined. A test parks a rank there, or throws to stand for the rank's death at that point. Null
     * (no hook) outside tests.
     */
    interface RecoveryHook {
        /** The decision is taken; nothing is changed yet. */
        void decided(int rank, RecoveryDecision decision) throws IOException;

        /** The decision is applied to this rank's store. */
        void applied(int rank, RecoveryDecision decision) throws IOException;
    }

    static volatile RecoveryHook recoveryHook;

    private TwoLevelCheckpointer(CkptOptions options, RankContext context, RankCollective exchange, byte[] secret,
                                 String bindHost, Consumer<String> events) throws IOException {
        this.options = options;
        this.requested = options;
        this.context = context;
        this.exchange = exchange;
        this.secret = JobSecret.of(secret);
        this.bindHost = InetAddress.getByName(bindHost);
        this.events = events;
        this.adapters = DataAdapters.create(options, context.rank());
        this.registry = new TagRegistry(adapters);
        this.storeDirectory = options.memoryDirectory().resolve(context.jobId()).resolve("rank-" + context.rank());
        this.layouts = new StoreLayouts(storeDirectory, context.rank(), context.size(), options.versionsKept(),
                options.maxMemoryBytes());
        this.endpoint = DataEndpoint.bind(this.bindHost, context.rank(), this.secret);
        this.endpoints = new InetSocketAddress[context.size()];
    }

    /**
     * Opens the checkpointer of one rank: a collective over {@code exchange}.
     *
     * @param options   the options (global options identical on every rank)
     * @param context   the rank and its world
     * @param exchange  the status exchange of the current world
     * @param secret    the per-job secret authenticating the data channels
     * @param bindHost  the address of this rank's data endpoint
     * @param events    where to report checkpoints and recoveries (the launcher's log)
     * @return the open checkpointer
     */
    public static TwoLevelCheckpointer open(CkptOptions options, RankContext context, RankCollective exchange,
                                            byte[] secret, String bindHost, Consumer<String> events) {
        options.validateFor(context.size());
        TwoLevelCheckpointer c;
        try {
            c = new TwoLevelCheckpointer(options, context, exchange, secret, bindHost, events);
        } catch (IOException e) {
            throw new CkptException("rank " + context.rank() + ": cannot open the data endpoint: " + e.getMessage(), e);
        }
        try {
            c.start();
            c.startIntervalPolicy();
            return c;
        } catch (RuntimeException | Error | IOException e) {
            c.release(false); // also when a thread of an abandoned world is fenced (an Error)
            if (e instanceof CkptException ce) {
                throw ce;
            }
            if (e instanceof Error error) {
                throw error;
            }
            throw new CkptException("rank " + context.rank() + ": open failed: " + e.getMessage(), e);
        }
    }

    private int rank() {
        return context.rank();
    }

    /** Why the ranks' collective calls failed, when they did: the cause of a ring its peers closed. */
    private String collectiveFailure() {
        String failure = exchange.failure();
        return failure == null ? "" : "; the ranks' collective calls had failed before: " + failure;
    }

    private void start() throws IOException {
        long openStart = System.nanoTime();
        // the stores are opened (every copy verified) in this very open: the recovery steps reuse that
        RecoverySteps steps = new RecoverySteps(true);
        long storeOpenNanos = 0;
        long exchangeNanos = 0;
        long transferNanos = 0;
        long bytesReceived = 0;
        // 1. what survived on this node: its store layouts (one; two when a failure hit a switch of m
        // or of the slot capacity), each with the m and capacity it was made with
        List<StoreLayouts.Held> held = layouts.openSurviving();
        survivors = held.stream().map(StoreLayouts.Held::store).toList();
        String diskUnusable = null;
        if (options.diskLevelEnabled()) {
            try {
                disk = GenerationStore.openUsable(DiskStoreConfig.of(options.diskDirectory(), context.jobId(), rank(),
                        context.size()));
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
                completeEverywhereRecorded, endpoint.address(), disk == null ? new byte[0] : disk.inventory().encode(),
                held.stream().map(StoreLayouts.Held::layout).toList(),
                ImemRecovery.newestCopiesStatus(rank(), survivors, context.isNewRank()));
        long exchangeStart = System.nanoTime();
        storeOpenNanos += exchangeStart - openStart;
        byte[][] all = exchange.allgather(Collective.of(Collective.Kind.OPEN), OpenStatusDescriptor.encode(mine),
                options.exchangeTimeout());
        long decideStart = System.nanoTime();
        exchangeNanos += decideStart - exchangeStart;
        List<OpenStatus> statuses = new ArrayList<>();
        for (int r = 0; r < all.length; r++) {
            statuses.add(OpenStatusDescriptor.decode(r, all[r]));
        }
        checkOptionsAgree(statuses);
        if (options.diskLevelEnabled()) {
            // a rank that cannot use the disk directory sends no inventory (MEMORY_ONLY; with FAIL it
            // threw above): a generation needs every rank's file, so the level is off on every rank
            List<Integer> unusable = new ArrayList<>();
            for (int r = 0; r < statuses.size(); r++) {
                if (statuses.get(r).diskInventory().length == 0) {
                    unusable.add(r);
                }
            }
            if (!unusable.isEmpty()) {
                disk = null;
                if (rank() == unusable.get(0)) { // one line for the job, from a rank that knows why
                    warn("disk level off (diskUnavailable MEMORY_ONLY): the disk directory " + options.diskDirectory()
                            + " cannot be used on rank" + (unusable.size() > 1 ? "s " : " ")
                            + unusable.toString().replaceAll("[\\[\\]]", "") + ": " + diskUnusable
                            + "; checkpoints stay in memory only");
                }
            }
        }
        long copiesAnywhere = 0;
        for (int r = 0; r < statuses.size(); r++) {
            endpoints[r] = statuses.get(r).endpoint();
            copiesAnywhere += statuses.get(r).copiesHeld();
        }
        // 3. decide, identically on every rank, where to restore from
        long decideNanos = System.nanoTime() - decideStart;
        long restoredRound = 0;
        RollbackPlan plan = null;
        if (copiesAnywhere > 0) {
            // the newest copies came with the open exchange: another exchange only when that plan is
            // not conclusive (a survivor would need a transfer, or a copy was damaged)
            byte[][] newest = new byte[statuses.size()][];
            for (int r = 0; r < newest.length; r++) {
                newest[r] = statuses.get(r).copiesStatus();
            }
            plan = ImemRecovery.plan((bytes, bound) -> exchange.allgather(
                    Collective.of(Collective.Kind.RESTORE_PLAN_OLDER), bytes, bound), rank(), survivors,
                    context.isNewRank(), options.exchangeTimeout(), steps, newest);
        }
        DiskSelection selection = plan != null && plan.recoverable() ? null : selectDisk(statuses);
        RecoveryDecision decision = RecoveryDecision.decide(statuses, plan, selection, options.recoveryFallback());
        RecoveryHook hook = recoveryHook;
        if (hook != null) {
            hook.decided(rank(), decision);
        }
        StoreLayouts.Held active = null;
        if (decision.source() == RecoveryDecision.Source.MEMORY) {
            restoredRound = plan.round();
            // the round's copies are all in the layout that was current at that round, on every rank
            long t = System.nanoTime();
            active = ensureLayout(held, layoutFor(restoredRound, statuses));
            storeOpenNanos += System.nanoTime() - t;
            ReplicaSlot slot = ImemRecovery.restore(plan, active.store(), endpoint, endpoints, options.replicationTimeout(),
                    steps);
            restoreFrom(imageOf(slot), "memory (" + plan.action(rank()).kind() + ")");
            restoreStore = active.store();
        } else if (decision.source() == RecoveryDecision.Source.DISK) {
            restoredRound = decision.round();
            if (selection != null && !selection.rejected().isEmpty() && rank() == 0) { // the same list everywhere: one line
                warn("newer disk generation" + (selection.rejected().size() > 1 ? "s" : "") + " skipped: "
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
            restoreFrom(image, "disk generation of round " + restoredRound);
            StoreLayout then = layoutFor(restoredRound, statuses);
            if (then != null) {
                active = ensureLayout(held, then); // continue with the m and capacity in force at that round
            }
        } else if (decision.source() == RecoveryDecision.Source.NOT_RECOVERABLE) {
            throw new NotRecoverableException("rank " + rank() + ": the checkpoint cannot be restored: " + decision.reason());
        } else if (decision.configuredFallback()) {
            LOG.warn("rank {}: nothing restorable ({}); starting clean as configured", rank(), decision.reason());
            event("nothing restorable (" + decision.reason() + "): clean start");
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
            store = active.store();
            layout = active.layout();
            store.discardNewerThan(restoredRound);
            // the m asked for at that round (a ctrl before it) stays asked for
            requested = requested.toBuilder().replicas(layout.requestedReplicas())
                    .minReplicas(Math.min(requested.minReplicas(), layout.requestedReplicas())).build();
            options = effectiveOptions();
        }
        if (recovery) {
            event("restored round " + round + " from " + restoredFrom);
        }
        if (hook != null) {
            hook.applied(rank(), decision);
        }
        // 4. join the ring now if the store exists; otherwise at the first here(). The rollback
        // transfers accept on the same data endpoint as the ring: every rank must be done with
        // them before any ring connection is made, which takes one more exchange. After an
        // in-memory rollback (the same decision on every rank) that exchange and the ring join wait
        // for the first here(), so that a rank restoring its own local copy leaves open() without
        // waiting for the others' transfers.
        long joinStart = System.nanoTime();
        ringJoinPending = plan != null && plan.recoverable();
        if (!ringJoinPending) {
            if (plan != null) {
                exchange.allgather(Collective.of(Collective.Kind.RESTORE_DONE), new byte[0], options.exchangeTimeout());
            }
            if (store != null) {
                startReplication();
            } else if (requested.replicas() > 0 && context.size() > 1) {
                // no store until the first here() knows the image size, but the ring connections do not
                // need it: make them now, so the first here() does not pay for them
                links = endpoint.joinRing(context.size(), endpoints[(rank() + 1) % context.size()],
                        options.exchangeTimeout());
            }
        }
        long joinNanos = ringJoinPending ? 0 : System.nanoTime() - joinStart; // else set at the first here()
        if (disk != null) {
            lastCommitted = disk.committedRounds().stream().mapToLong(Long::longValue).max().orElse(0);
            committer = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "jckpt-disk-commit-r" + rank());
                t.setDaemon(true);
                return t;
            });
            flusher = DiskFlusher.start(disk, OverlapPolicy.COALESCE, new FlushListener() {
                @Override
                public void onDurable(FlushedGeneration generation) {
                    diskFlushed.incrementAndGet();
                    if (rank() == 0) { // the coordinator: the lowest rank
                        committer.execute(() -> commitWhenComplete(generation.round()));
                    }
                }

                @Override
                public void onFailed(long failedRound, StableDiskException error) {
                    diskFailures.incrementAndGet();
                    // one line per reason: the same failure every disk round is counted, not repeated
                    String reason = error.getMessage();
                    if (reason.equals(lastDiskFailure)) {
                        LOG.debug("rank {}: disk round {} failed again: {}", rank(), failedRound, reason);
                    } else {
                        lastDiskFailure = reason;
                        warn("disk round " + failedRound + " failed: " + reason
                                + " (later failures for this reason are counted, not repeated)");
                    }
                }
            });
        }
        if (recovery) {
            lastRecovery = new CkptStats.RecoveryTimings(storeOpenNanos, exchangeNanos + steps.statusExchangeNanos(),
                    decideNanos + steps.planNanos(), transferNanos + steps.transferNanos(), steps.bytesSent(),
                    bytesReceived + steps.bytesReceived(), steps.verifyNanos(), joinNanos,
                    System.nanoTime() - openStart);
        }
    }

    private DiskSelection selectDisk(List<OpenStatus> statuses) {
        if (disk == null) {
            return null;
        }
        List<RankInventory> inventories = new ArrayList<>();
        for (OpenStatus s : statuses) {
            inventories.add(RankInventory.decode(s.diskInventory()));
        }
        return GenerationSelector.select(context.size(), inventories);
    }

    /** A view of a slot's image through its contiguous mapping: any size, images above 2 GiB too. */
    private static BytesStore<?, ?> imageOf(ReplicaSlot slot) {
        PointerBytesStore view = BytesStore.nativePointer();
        view.set(slot.imageAddress(), slot.length());
        return view;
    }

    private void restoreFrom(BytesStore<?, ?> image, String source) {
        restoreImage = image;
        restoreReader = ImageReader.openTrusted(image, 0);
        recovery = true;
        restoredFrom = source;
    }

    private void checkOptionsAgree(List<OpenStatus> statuses) {
        long mine = options.globalFingerprint();
        List<Integer> differ = new ArrayList<>();
        for (int r = 0; r < statuses.size(); r++) {
            if (statuses.get(r).fingerprint() != mine) {
                differ.add(r);
            }
        }
        if (!differ.isEmpty()) {
            throw new InvalidOptionException("options", options.globalSummary(), "rank " + rank() + ": ranks " + differ
                    + " opened with different global options than this rank (" + options.globalSummary()
                    + "); options must be the same on every rank");
        }
    }

    /**
     * The layout in force at {@code restored}: among every layout any rank reported, the one with the
     * newest first round not after it (the lowest reporting rank's on a conflict). Null if none.
     */
    private static StoreLayout layoutFor(long restored, List<OpenStatus> statuses) {
        StoreLayout best = null;
        for (OpenStatus s : statuses) {
            for (StoreLayout l : s.layouts()) {
                if (l.firstRound() <= restored && (best == null || l.firstRound() > best.firstRound())) {
                    best = l;
                }
            }
        }
        return best;
    }

    /** This rank's store of layout {@code l}: the surviving one, or a new empty one (its node was lost). */
    private StoreLayouts.Held ensureLayout(List<StoreLayouts.Held> held, StoreLayout l) throws IOException {
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

    /** {@link #requested} with the m of the current layout and, when it is degraded, the more frequent disk rounds. */
    private CkptOptions effectiveOptions() {
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

    private void startReplication() throws IOException {
        if (layout.replicas() == 0 || context.size() == 1) {
            return;
        }
        RingLinks ring = links != null ? links
                : endpoint.joinRing(context.size(), endpoints[(rank() + 1) % context.size()], options.exchangeTimeout());
        links = null;
        agent = ReplicationAgent.start(store, ring, options.replicationTimeout(), round);
    }

    private void event(String text) {
        if (events != null) {
            events.accept(text);
        }
    }

    /** A warning: one line, to the launcher's log when there is one, else to this rank's log. */
    private void warn(String text) {
        if (events != null) {
            events.accept("WARNING: " + text);
        } else {
            LOG.warn("rank {}: {}", rank(), text);
        }
    }

    private void checkOpen(String operation) {
        if (closed) {
            throw new CkptStateException(operation + " on rank " + rank() + " after close");
        }
    }

    @Override
    public RankContext context() {
        return context;
    }

    @Override
    public CkptOptions options() {
        return options;
    }

    @Override
    public void register(String tag, Object data) {
        checkOpen("register");
        registry.register(tag, data);
    }

    @Override
    public boolean needCheckpoint() {
        return schedule.due();
    }

    @Override
    public void here() {
        checkOpen("here");
        long start = System.nanoTime();
        intervalAtHere();
        long length = writer.prepare(registry.entries());
        if (ringJoinPending) {
            joinRingAfterRollback();
        }
        if (!applyPendingReconfiguration(length)) {
            round++; // not taken on this rank: its image outgrew the slots, which grow at the next here()
            skippedRounds++;
            return;
        }
        long next = round + 1;
        long waited;
        long written;
        long handedOff;
        try {
            long t0 = System.nanoTime();
            awaitUnpinned();
            ReplicaWrite write = agent != null
                    ? agent.beginRound(next, length, options.hereWaitTimeout())
                    : store.beginWrite(rank(), next, length);
            long t1 = System.nanoTime();
            // one reusable pointer over the slot's mapping: no allocation, no reference counting per here()
            slotView.set(write.address(), write.length());
            writer.write(slotView, 0, new ImageHeader(rank(), context.size(), next, context.epoch()));
            long t2 = System.nanoTime();
            if (agent != null) {
                offerDecision(next);
                agent.commitRoundInBackground(write);
            } else {
                write.commit();
            }
            long t3 = System.nanoTime();
            waited = t1 - t0;
            written = t2 - t1;
            handedOff = t3 - t2;
            round = next;
            if (!completeEverywhereRecorded && (agent != null ? agent.globalCompletedRound() >= 1 : context.size() == 1)) {
                // once per run: from now on a recovery that cannot restore declares the checkpoint lost
                layouts.recordRoundCompleteEverywhere();
                completeEverywhereRecorded = true;
            }
            if (disk != null && options.diskRatio() > 0 && round % options.diskRatio() == 0) {
                diskRound(write);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CkptException("rank " + rank() + ": interrupted in here() of round " + next, e);
        } catch (IOException e) {
            throw new CkptException("rank " + rank() + ": checkpoint round " + next + " failed: " + e.getMessage()
                    + collectiveFailure(), e);
        }
        long blocked = System.nanoTime() - start;
        checkpoints++;
        lastImageBytes = length;
        lastBlockingNanos = blocked;
        totalBlockingNanos += blocked;
        lastHere = new CkptStats.HereTimings(waited, written, handedOff, blocked);
        if (intervalController != null) {
            intervalController.hereEnded(schedule.calls(), blocked,
                    disk != null && options.diskRatio() > 0 && round % options.diskRatio() == 0, round > openRound + 1);
        }
        JobServices services = JobServices.current();
        if (services != null) {
            services.checkpointed(round, length, blocked);
        }
    }

    /**
     * First here() after an in-memory rollback (a collective, entered by every rank since the plan is
     * the same everywhere): once every rank is done with its rollback transfers (one exchange), the
     * ring is joined and the agent started.
     */
    private void joinRingAfterRollback() {
        long t0 = System.nanoTime();
        exchange.allgather(Collective.of(Collective.Kind.RESTORE_DONE), new byte[0], options.exchangeTimeout());
        try {
            startReplication();
        } catch (IOException e) {
            throw new CkptException("rank " + rank() + ": cannot rejoin the replication ring after the rollback: "
                    + e.getMessage(), e);
        }
        ringJoinPending = false;
        CkptStats.RecoveryTimings r = lastRecovery;
        lastRecovery = new CkptStats.RecoveryTimings(r.storeOpenNanos(), r.statusExchangeNanos(), r.planNanos(),
                r.transferNanos(), r.bytesSent(), r.bytesReceived(), r.verifyNanos(), System.nanoTime() - t0,
                r.totalNanos());
    }

    /**
     * The reconfiguration step of here(), before the image is written: grow the slots when an image
     * outgrew them, apply a pending ctrl(m), run the memory policy, switch the store layout when any
     * of that changes it; at the first here() agree the slot capacity.
     *
     * <p>Cost: with a slot capacity fixed by the options and nothing pending, nothing. With growing
     * slots (the default) a rank whose image does not fit skips the round (its previous round stays
     * the newest complete one), and at the next here() every rank learns it and grows the slots
     * together. How it learns: on the replication ring with two versions kept, from the ring's
     * watermarks ({@link #agreementOnRing()}: no exchange, no thread); otherwise each here() hands one
     * 8-byte status exchange to a background thread ({@code jckpt-size-agreement-r<rank>}) saying
     * whether this rank's image fit, and the next here() collects it. A switch (growth, ctrl(m)) costs
     * one more exchange with every rank's image length and memory budget.
     *
     * @param length this rank's image length for the new round
     * @return whether to write the round; false when it is skipped on this rank (its image did not fit)
     */
    private boolean applyPendingReconfiguration(long length) {
        if (broken != null) {
            throw new CkptStateException(broken);
        }
        releaseRetiringIfComplete();
        boolean fixed = requested.slotCapacity() > 0;
        long need = 0; // the largest image of the previous round that did not fit its slot, on any rank
        int needRank = -1;
        long[] needs = null;
        if (!fixed) {
            byte[][] previous = takeAgreement();
            if (previous != null) {
                needs = new long[previous.length];
                for (int r = 0; r < previous.length; r++) {
                    needs[r] = ByteBuffer.wrap(previous[r]).getLong();
                }
            } else if (agreementOnRing()) {
                needs = settledNeeds(round);
            }
        }
        if (needs != null) {
            for (int r = 0; r < needs.length; r++) {
                if (needs[r] > need) {
                    need = needs[r];
                    needRank = r;
                }
            }
        }
        // without an agent nothing tells when the new layout's first round is complete everywhere: every
        // rank reaching the next here() does (its own copy is written synchronously); the condition is
        // the same on every rank, so the exchange below is entered by all or by none
        boolean barrier = barrierPending && round >= layout.firstRound();
        boolean alone = context.size() == 1; // grows at once: nobody to agree with
        if (barrier && alone) { // its own copy of the new layout's first round is written: complete everywhere
            barrierPending = false;
            barrier = false;
            retiringComplete = true;
            releaseRetiring();
        }
        if (layout != null && pendingReplicas < 0 && !barrier && need == 0 && !(alone && length > layout.slotCapacity())) {
            if (length <= layout.slotCapacity()) {
                if (backgroundAgreement()) {
                    startAgreement(0);
                }
                return true;
            }
            if (fixed) {
                throw new StorageException(storeDirectory, "rank " + rank() + ": the checkpoint image grew to " + length
                        + " bytes, beyond the slot capacity of " + layout.slotCapacity()
                        + " bytes fixed by the option slotCapacity; raise it, or set 0 to let the slots grow", null);
            }
            LOG.info("rank {}: the image of round {} ({} bytes) outgrew the slot capacity of {} bytes: the round is"
                    + " skipped here, the slots grow at the next here()", rank(), round + 1, length, layout.slotCapacity());
            if (agreementOnRing()) {
                try {
                    offerDecision(round + 1);
                    agent.skipRound(round + 1, length);
                } catch (IOException e) {
                    throw new CkptException("rank " + rank() + ": checkpoint round " + (round + 1) + " failed: "
                            + e.getMessage(), e);
                }
            } else {
                startAgreement(length);
            }
            return false;
        }
        reconfigure(length, need, barrier, need > 0 ? "rank " + needRank + "'s image of round " + round + " (" + need
                + " bytes) outgrew the slots; that round is not taken there" : pendingReplicas >= 0 ? "ctrl(replicas="
                + pendingReplicas + ")" : layout == null ? "the first here()" : "the image (" + length
                + " bytes) outgrew the slots");
        if (backgroundAgreement()) {
            startAgreement(0);
        }
        return true;
    }

    /**
     * Whether growing slots agree on the slot size over the replication ring instead of an exchange
     * of their own: with an agent and two versions kept, here() of round r + 1 already waits until
     * round r is complete everywhere (its slot replaces round r - 1's), and a rank whose image did
     * not fit says so in the ring's watermarks ({@link ReplicationAgent#skipRound}), so the answer
     * costs nothing more. With more versions kept here() may run ahead of the ring; then the
     * agreement is a background exchange per here() (collected at the next one).
     */
    private boolean agreementOnRing() {
        return agent != null && layout != null && layout.versionsKept() == 2;
    }

    /** Whether the size agreement of this here() is a background exchange (growing slots, several ranks, not on the ring). */
    private boolean backgroundAgreement() {
        return (requested.slotCapacity() == 0 || decides()) && context.size() > 1 && !agreementOnRing();
    }

    /**
     * Waits (bounded like here()'s wait for the previous round) until round {@code r} is complete or
     * skipped on every rank.
     *
     * @return per rank, the slot capacity its image needs if it skipped the round, else 0
     */
    private long[] settledNeeds(long r) {
        try {
            long[] needs = agent.awaitSettled(r, options.hereWaitTimeout());
            if (needs == null) {
                throw new CkptException("rank " + rank() + ", round " + (r + 1) + ": round " + r
                        + " is not yet replicated on every rank after " + options.hereWaitTimeout().toMillis()
                        + " ms (global completed round " + agent.globalCompletedRound() + ")");
            }
            return needs;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CkptException("rank " + rank() + ": interrupted in here() of round " + (r + 1), e);
        } catch (IOException e) {
            throw new CkptException("rank " + rank() + ": checkpoint round " + (r + 1) + " failed: " + e.getMessage()
                    + collectiveFailure(), e);
        }
    }

    /** The collective part: every rank's image length and budget, then a switch if anything changes. */
    private void reconfigure(long length, long need, boolean barrier, String why) {
        boolean fixed = requested.slotCapacity() > 0;
        MemoryPolicy.Budget own = layouts.budget();
        byte[][] all = exchange.allgather(Collective.of(Collective.Kind.RECONFIGURE, round + 1), ByteBuffer.allocate(24).putLong(length).putLong(own.cap()).putLong(own.free())
                .array(), options.exchangeTimeout());
        long largest = 0;
        int largestRank = 0;
        MemoryPolicy.Budget[] budgets = new MemoryPolicy.Budget[all.length];
        for (int r = 0; r < all.length; r++) {
            ByteBuffer b = ByteBuffer.wrap(all[r]);
            long l = b.getLong();
            if (l > largest) {
                largest = l;
                largestRank = r;
            }
            budgets[r] = new MemoryPolicy.Budget(b.getLong(), b.getLong());
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
                throw new StorageException(storeDirectory, "rank " + rank() + ": rank " + largestRank
                        + "'s checkpoint image of round " + (round + 1) + " has " + largest
                        + " bytes, beyond the slot capacity of " + capacity
                        + " bytes fixed by the option slotCapacity; raise it, or set 0 to let the slots grow", null);
            }
        } else if (layout == null || largest > layout.slotCapacity() || need > 0) {
            capacity = sizedFor(Math.max(largest, need)); // the first here(), or growth: the largest image x 1.25
        } else {
            capacity = layout.slotCapacity();
        }
        int wanted = pendingReplicas >= 0 ? pendingReplicas
                : layout == null ? requested.replicas() : layout.requestedReplicas();
        if (layout != null && capacity == layout.slotCapacity() && wanted == layout.requestedReplicas()) {
            pendingReplicas = -1;
            return;
        }
        MemoryPolicy.Decision decision = MemoryPolicy.decide(wanted, requested, capacity, budgets, rank(), storeDirectory);
        if (decision.warning() != null) {
            LOG.warn("rank {}: {}", rank(), decision.warning());
            if (rank() == 0) {
                event("memory policy: " + decision.warning());
            }
        }
        StoreLayout target = new StoreLayout(round + 1, decision.replicas(), wanted, capacity, requested.versionsKept());
        if (layout != null && target.replicas() == layout.replicas() && capacity == layout.slotCapacity()) {
            // only the m asked for changed, and memory still allows no other: the store stays as it is
            layout = new StoreLayout(layout.firstRound(), layout.replicas(), wanted, capacity, layout.versionsKept());
            layouts.record(layout);
            pendingReplicas = -1;
            options = effectiveOptions();
            return;
        }
        // a round some rank skipped is complete nowhere: the switch waits for the one before it
        switchTo(target, need > 0 ? round - 1 : round, largest > capacityBefore() ? why + "; an image of round "
                + (round + 1) + " has " + largest + " bytes" : why);
        pendingReplicas = -1;
    }

    /**
     * Hands this round's size agreement to the background thread: 8 bytes, 0 when the image fit, else
     * its length. Bounded like here()'s own wait for the previous round: the slowest rank may reach
     * this here() up to hereWaitTimeout later.
     */
    private void startAgreement(long overflow) {
        if (agreementThread == null) {
            agreementThread = Executors.newSingleThreadExecutor(r -> {
                Thread t = new Thread(r, "jckpt-size-agreement-r" + rank());
                t.setDaemon(true);
                return t;
            });
        }
        // rank 0's interval decision rides along (0 = none); the other ranks' second long is 0
        byte[] mine = ByteBuffer.allocate(16).putLong(overflow)
                .putLong(ownDecisionRound == round + 1 ? ownDecision : IntervalDecision.NONE).array();
        agreementRound = round + 1; // called in here() before the round is counted
        java.time.Duration bound = options.exchangeTimeout().plus(options.hereWaitTimeout());
        int epoch = context.epoch();
        long about = agreementRound;
        agreement = agreementThread.submit(() -> {
            // this thread is not fenced like the program's: a late task of an abandoned world must not
            // take part in the next world's exchanges
            JobServices services = JobServices.current();
            if (services != null && services.context().epoch() != epoch) {
                throw new CkptStateException("rank " + rank() + ": the size agreement of round " + about
                        + " belongs to world " + epoch + ", abandoned after a failure");
            }
            return exchange.allgather(Collective.of(Collective.Kind.SIZE_AGREEMENT, about), mine, bound);
        });
    }

    /** Waits (bounded) for the size agreement in flight, keeping its result for the next here(). */
    private void joinAgreement() {
        if (agreement == null) {
            return;
        }
        java.util.concurrent.Future<byte[][]> pending = agreement;
        agreement = null;
        try {
            agreed = pending.get(options.exchangeTimeout().plus(options.hereWaitTimeout()).toNanos() + 1_000_000_000L,
                    TimeUnit.NANOSECONDS);
            for (byte[] part : agreed) {
                if (ByteBuffer.wrap(part).getLong() > 0) {
                    incompleteRound = agreementRound;
                }
            }
        } catch (java.util.concurrent.ExecutionException e) {
            Throwable cause = e.getCause();
            throw cause instanceof CkptException ce ? ce : new CkptException("rank " + rank()
                    + ": the size agreement of round " + round + " failed: " + cause, cause);
        } catch (java.util.concurrent.TimeoutException e) {
            pending.cancel(true);
            throw new CkptException("rank " + rank() + ": the size agreement of round " + round + " did not complete", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CkptException("rank " + rank() + ": interrupted in the size agreement of round " + round, e);
        }
    }

    /** @return the previous round's size agreement (joined now if still in flight), or null; consumed */
    private byte[][] takeAgreement() {
        joinAgreement();
        byte[][] result = agreed;
        agreed = null;
        return result;
    }

    /** @return the newest round every rank wrote: the current one, or the one before when some rank skipped it */
    private long newestWrittenEverywhere() {
        joinAgreement();
        return round == incompleteRound ? round - 1 : round;
    }

    /**
     * @return the newest round every rank wrote, as {@link #newestWrittenEverywhere()}, learnt from the
     *         ring when the agreement rides on it; -1 if that is not known within {@code timeout}
     */
    private long newestWrittenEverywhere(Duration timeout) throws IOException, InterruptedException {
        if (agreement == null && agreed == null && agreementOnRing()) {
            long[] needs = agent.awaitSettled(round, timeout);
            if (needs == null) {
                return -1;
            }
            for (long x : needs) {
                if (x > 0) {
                    return round - 1;
                }
            }
            return round;
        }
        return newestWrittenEverywhere();
    }

    private long capacityBefore() {
        return layout == null ? Long.MAX_VALUE : layout.slotCapacity();
    }

    /** The largest image x 1.25, 4 KiB aligned: room to grow a little without a switch. */
    private static long sizedFor(long largest) {
        long capacity = ((largest + largest / 4 + CAPACITY_ALIGN - 1) / CAPACITY_ALIGN) * CAPACITY_ALIGN;
        return Math.max(capacity, CAPACITY_ALIGN);
    }

    /**
     * Moves every rank to a new store layout at the same round. The last round of the current layout
     * is first complete on every rank, and every rank knows it (one exchange), before any rank leaves
     * the current ring; the current store then stays untouched (retiring) until the new layout's first
     * round is complete everywhere, so a complete round is restorable at every moment: the old one, or
     * the new one, whichever a recovery finds newest (it reads both layouts).
     */
    private void switchTo(StoreLayout target, long last, String why) {
        StoreLayout from = layout;
        if (from != null) {
            String problem = null;
            try {
                if (agent != null && !agent.awaitGloballyCompleted(last, options.replicationTimeout())) {
                    problem = "round " + last + " not replicated on every rank within "
                            + options.replicationTimeout().toMillis() + " ms";
                }
                // an older layout still waiting to go: the current one holds a round complete everywhere
                // once the wait above succeeded; a disk flush may still read one of its slots
                if (problem == null && retiringStore != null) {
                    retiringComplete = true;
                    if (flusher != null && !flusher.awaitIdle(options.replicationTimeout())) {
                        problem = "a disk flush of round " + last + " or earlier still runs after "
                                + options.replicationTimeout().toMillis() + " ms";
                    }
                    releaseRetiring();
                    if (problem == null && retiringStore != null) {
                        problem = "the store of " + retiringLayout.describe() + " cannot be released yet";
                    }
                }
            } catch (IOException e) {
                problem = e.getMessage();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                problem = "interrupted";
            }
            byte[][] all = exchange.allgather(Collective.of(Collective.Kind.LAYOUT_SWITCH, round + 1), problem == null ? new byte[0] : problem.getBytes(StandardCharsets.UTF_8),
                    options.exchangeTimeout());
            for (int r = 0; r < all.length; r++) {
                if (all[r].length > 0) {
                    throw new CkptException("rank " + rank() + ": cannot switch to " + target.describe() + ": rank " + r
                            + ": " + new String(all[r], StandardCharsets.UTF_8) + "; the current store is unchanged");
                }
            }
            if (agent != null) {
                agent.close();
                agent = null;
            }
            retiringStore = store;
            retiringLayout = from;
            retiringComplete = false;
            barrierPending = target.replicas() == 0 || context.size() == 1;
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
            options = effectiveOptions();
            startReplication();
        } catch (IOException | RuntimeException e) {
            broken = "rank " + rank() + ": the node-local store for " + target.describe() + " could not be made: "
                    + e.getMessage() + (from == null ? "" : "; round " + last + " stays restorable from the previous store");
            throw new StorageException(storeDirectory, broken, e);
        }
        if (from != null) {
            reconfigurations++;
            String what = "store layout switched from " + from.describe() + " to " + target.describe() + " (" + why + ")";
            LOG.info("rank {}: {} in {} us", rank(), what, (System.nanoTime() - t0) / 1000);
            if (rank() == 0) {
                event(what);
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

    /** Closes and deletes the retiring store, unless a disk flush still reads one of its slots (then later). */
    private void releaseRetiring() {
        if (retiringStore == null) {
            return;
        }
        synchronized (pinLock) {
            if (storePins.containsKey(retiringStore)) {
                return;
            }
        }
        if (restoreStore == retiringStore) {
            // a rollback(tag) may still come: its image must outlive the mapping about to be released
            BytesStore<?, ?> copy = BytesStore.nativeStoreWithFixedCapacity(restoreImage.readRemaining());
            restoreImage.copyTo(copy);
            restoreImage.releaseLast();
            restoreFrom(copy, restoredFrom);
            restoreStore = null;
        }
        retiringStore.close();
        try {
            layouts.delete(retiringLayout);
        } catch (IOException e) {
            LOG.warn("rank {}: the previous store {} could not be deleted: {}", rank(), retiringLayout.directoryName(),
                    e.getMessage());
        }
        retiringStore = null;
        retiringLayout = null;
    }

    /** A disk round: flush this round from its memory slot in the background (the slot is pinned until then). */
    private void diskRound(ReplicaWrite write) {
        ReplicaSlot slot = write.slot();
        ReplicaStore from = store;
        synchronized (pinLock) {
            slotPins.merge(slot, 1, Integer::sum);
            storePins.merge(from, 1, Integer::sum);
            pinCount++;
        }
        // above 2 GiB the flusher maps the slot file itself, in windows
        CheckpointImage view = write.slot().singleMapping() ? CheckpointImage.of(write.image())
                : CheckpointImage.ofFileRegion(write.slot().fileChannel(), ReplicaSlotDescriptor.HEADER_LENGTH, write.length());
        flusher.submit(round, new CheckpointImage() {
            @Override
            public long length() {
                return view.length();
            }

            @Override
            public ByteBuffer region(long offset, int regionLength) {
                return view.region(offset, regionLength);
            }

            @Override
            public void release() {
                synchronized (pinLock) {
                    slotPins.computeIfPresent(slot, (k, v) -> v == 1 ? null : v - 1);
                    storePins.computeIfPresent(from, (k, v) -> v == 1 ? null : v - 1);
                    pinCount--;
                    pinLock.notifyAll();
                }
            }
        });
        diskRounds++;
    }

    /**
     * The coordinator (rank 0) commits a round once every rank's file of it is durable, which it
     * sees on the shared disk itself: a rank file gets its final name only after write, force and
     * rename. Polls (bounded, no spinning) on the commit thread; a newer round supersedes.
     */
    private void commitWhenComplete(long toCommit) {
        long deadline = System.nanoTime() + options.replicationTimeout().toNanos();
        for (;;) {
            if (toCommit <= lastCommitted) {
                return;
            }
            try {
                disk.commit(toCommit, context.size());
                lastCommitted = toCommit;
                diskCommits.incrementAndGet();
                event("disk generation of round " + toCommit + " committed");
                return;
            } catch (StableDiskException e) {
                if (flushesSettled) {
                    // a rank coalesced this round into a newer one (its flusher skips rounds that
                    // queue up), or its flush failed, and every flush is over: it will never be complete
                    diskIncomplete.incrementAndGet();
                    LOG.debug("rank {}: disk round {} not committed at close: {}", rank(), toCommit, e.getMessage());
                    return;
                }
                if (System.nanoTime() > deadline) {
                    diskFailures.incrementAndGet();
                    warn("disk generation of round " + toCommit + " not committed within "
                            + options.replicationTimeout().toMillis() + " ms: " + e.getMessage());
                    return;
                }
            }
            try {
                Thread.sleep(COMMIT_POLL_MILLIS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /** The slot of a round still being flushed is not overwritten: wait (bounded) for the flusher. */
    private void awaitUnpinned() throws InterruptedException {
        if (store == null || pinCount == 0) {
            return; // nothing is being flushed: no slot can be pinned
        }
        ReplicaSlot victim = store.nextWritable(rank());
        synchronized (pinLock) {
            long deadline = System.nanoTime() + options.hereWaitTimeout().toNanos();
            while (victim != null && slotPins.containsKey(victim)) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    throw new StorageException(options.diskDirectory(), "rank " + rank()
                            + ": the disk flush of an earlier round is still running after "
                            + options.hereWaitTimeout().toMillis() + " ms; its memory slot cannot be reused", null);
                }
                TimeUnit.NANOSECONDS.timedWait(pinLock, left);
            }
        }
    }

    @Override
    public <T> T rollback(String tag, T data) {
        checkOpen("rollback");
        long start = System.nanoTime();
        T restored = reader(tag).restore(tag, data, adapters);
        rebind(tag, restored);
        rollbacks++;
        lastRollbackNanos = System.nanoTime() - start;
        return restored;
    }

    @Override
    public <T> T rollbackObject(String tag, Class<T> type) {
        checkOpen("rollback");
        T restored = reader(tag).restoreObject(tag, type, adapters);
        rebind(tag, restored);
        rollbacks++;
        return restored;
    }

    private void rebind(String tag, Object restored) {
        if (registry.get(tag) == null) {
            registry.register(tag, restored);
        } else {
            registry.rebind(tag, restored);
        }
    }

    private ImageReader reader(String tag) {
        if (restoreReader == null) {
            throw new NotRecoverableException("rank " + rank() + ": rollback of '" + tag
                    + "' but this start has no checkpoint to roll back to (isRecovery() is false)");
        }
        return restoreReader;
    }

    @Override
    public void remove(String tag) {
        checkOpen("remove");
        registry.remove(tag);
    }

    @Override
    public void ctrl(CtrlOptions ctrl) {
        checkOpen("ctrl");
        CkptOptions next = requested.withCtrl(ctrl);
        next.validateFor(context.size());
        joinAgreement(); // one exchange at a time, in the same order on every rank
        byte[][] all = exchange.allgather(Collective.of(Collective.Kind.CTRL, round),
                ByteBuffer.allocate(8).putLong(next.globalFingerprint()).array(),
                options.exchangeTimeout());
        for (int r = 0; r < all.length; r++) {
            if (ByteBuffer.wrap(all[r]).getLong() != next.globalFingerprint()) {
                throw new InvalidOptionException("ctrl", ctrl, "rank " + rank() + ": rank " + r
                        + " asked for different options in the same ctrl call; ctrl must be the same on every rank");
            }
        }
        requested = next;
        if (ctrl.interval().isPresent()) {
            restartIntervalPolicy(); // on every rank at this call: the schedule starts again, identically
        }
        if (ctrl.replicas().isPresent()) {
            pendingReplicas = next.replicas(); // applied collectively at the next here(): all ranks switch at one round
        }
        options = effectiveOptions();
    }

    @Override
    public boolean isRecovery() {
        return recovery;
    }

    @Override
    public boolean isNewRank() {
        return context.isNewRank();
    }

    @Override
    public long round() {
        return round;
    }

    @Override
    public CkptStats stats() {
        long replicationNanos = agent == null ? 0 : agent.counters().lastRoundReplicationNanos();
        long hereWaits = agent == null ? 0 : agent.counters().overlapWaits();
        long flushNanos = flusher == null ? 0 : flusher.counters().lastFlushNanos();
        return new CkptStats(round, checkpoints, diskFlushed.get(), diskCommits.get(), diskFailures.get(), lastImageBytes,
                lastBlockingNanos, totalBlockingNanos, replicationNanos, flushNanos, hereWaits, rollbacks,
                lastRollbackNanos, recovery ? 1 : 0, options.replicas(),
                disk == null ? 0 : options.diskRatio(), layout == null ? 0 : layout.slotCapacity(), reconfigurations,
                layout != null && layout.degraded(), lastHere, lastRecovery);
    }

    /**
     * Waits (bounded) until the newest round every rank took (the current one, or the one before when
     * some rank skipped it because its image outgrew the slots) is replicated on every rank (every rank's copies of it
     * stored and verified at its m successors) and, when it is a disk round, durable on disk here.
     * For a planned stop, and for tests that need a known complete round.
     *
     * @param timeout the bound
     * @return whether that state was reached in time
     */
    public boolean awaitReplicated(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            long newest = newestWrittenEverywhere(timeout);
            if (newest < 0 || agent != null && !agent.awaitGloballyCompleted(newest, timeout)) {
                return false;
            }
            return flusher == null || flusher.awaitIdle(Duration.ofNanos(Math.max(1, deadline - System.nanoTime())));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        } catch (IOException e) {
            throw new CkptException("rank " + rank() + ": replication of round " + round + " failed: " + e.getMessage(), e);
        }
    }

    /** Where this start restored from ("memory (LOCAL)", "disk generation of round 2000", "nothing"). */
    public String restoredFrom() {
        return restoredFrom;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        JobServices services = JobServices.current();
        boolean abandoned = services != null && services.context().epoch() > context.epoch();
        if (intervalController != null) {
            intervalController.save(options.replicas(), lastImageBytes); // an abandoned world's exposure counts too
            if (!abandoned) {
                event(intervalController.summary(options.replicas(), lastImageBytes));
            }
        }
        if (!abandoned) {
            // Close is a collective (as MPI_Ckpt_close): the last round must be complete everywhere,
            // and every rank must know it, before any rank leaves the ring, or a neighbour still
            // waiting for its last round would lose its successor.
            try {
                joinAgreement(); // before the exchanges below: one at a time, in the same order everywhere
                // every rank closes at the same round: a rank that skipped a here() is named now, not
                // after waiting for a round it will never take
                exchange.allgather(Collective.of(Collective.Kind.CLOSE, round), new byte[0], options.exchangeTimeout());
                boolean replicated = agent == null || agent.failure() != null || awaitReplicated(options.replicationTimeout());
                if (!replicated) {
                    LOG.warn("rank {}: round {} not replicated everywhere within {} ms at close", rank(), round,
                            options.replicationTimeout().toMillis());
                }
                if (replicated && layout != null && round >= layout.firstRound() && (agent == null || agent.failure() == null)) {
                    // the newest round is complete everywhere, in the current layout (without an agent:
                    // every rank reached close, so every rank's own copy is written)
                    if (agent != null) {
                        retiringComplete = true;
                        releaseRetiring();
                    }
                }
                boolean flushed = flusher == null || flusher.awaitIdle(options.replicationTimeout());
                byte[][] all = exchange.allgather(Collective.of(Collective.Kind.CLOSE_SETTLED, round), new byte[] {(byte) (flushed ? 1 : 0)}, options.exchangeTimeout());
                boolean settled = true;
                for (byte[] part : all) {
                    settled &= part.length == 1 && part[0] == 1;
                }
                flushesSettled = settled; // no rank has a flush left: what is not durable now never will be
                if (agent == null && layout != null && round >= layout.firstRound()) {
                    retiringComplete = true;
                    releaseRetiring();
                }
            } catch (CollectiveMismatchException | ExchangeTimeoutException e) {
                // the ranks did not close together: the program's error, said on every rank
                closed = true;
                release(false);
                throw e;
            } catch (Error e) {
                closed = true; // a thread of an abandoned world (fenced): its resources go all the same
                release(false);
                throw e;
            } catch (CkptException e) {
                LOG.warn("rank {}: close: {}", rank(), e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.warn("rank {}: close interrupted", rank());
            }
        }
        closed = true;
        release(!abandoned);
        if (!abandoned && disk != null && rank() == 0) {
            // the job's disk level in one line (the coordinator knows every generation's fate)
            String summary = "disk level at close: " + diskCommits.get() + " generation" + (diskCommits.get() == 1 ? "" : "s")
                    + " committed, " + diskFailures.get() + " disk round" + (diskFailures.get() == 1 ? "" : "s")
                    + " failed, " + diskIncomplete.get() + " not complete on every rank (" + diskRounds
                    + " disk round" + (diskRounds == 1 ? "" : "s") + " taken here)";
            if (events != null) {
                event(summary);
            } else {
                LOG.info("rank 0: {}", summary);
            }
        }
    }

    // ---------------------------------------------------------------- the interval policy

    /** Whether ranks need rank 0's decisions: an adaptive interval policy or an automatic disk ratio. */
    private boolean decides() {
        return requested.interval().adaptive() || requested.diskRatioAuto();
    }

    /** End of open(): the schedule starts from its deterministic state on every rank; rank 0 measures and decides. */
    private void startIntervalPolicy() {
        openRound = round;
        schedule.restart(requested.interval(), round);
        if (rank() == 0 && decides()) {
            startIntervalController(recovery || context.epoch() > 0); // this open follows a failure of the job id
        }
    }

    /** Rank 0: the controller, with the job's failure history (one more failure counted when {@code afterFailure}). */
    private void startIntervalController(boolean afterFailure) {
        // beside the disk generations when the disk level is usable; else in rank 0's node-local job directory
        Path dir = (disk != null ? options.diskDirectory() : options.memoryDirectory()).resolve(context.jobId());
        FailureHistory history = FailureHistory.load(dir.resolve(FailureHistory.FILE_NAME));
        if (afterFailure) {
            history.recordFailure();
        }
        ThreadCpu ring = new ThreadCpu();
        ThreadCpu flush = new ThreadCpu();
        IntervalMeter meter = new IntervalMeter() {
            @Override
            public long nanoTime() {
                return System.nanoTime();
            }

            @Override
            public long backgroundCpuNanos() {
                ReplicationAgent a = agent;
                return ring.sample(a, a == null ? -1 : a.cpuTimeNanos());
            }

            @Override
            public long flushCpuNanos() {
                DiskFlusher f = flusher;
                return flush.sample(f, f == null ? -1 : f.cpuTimeNanos());
            }
        };
        intervalController = new IntervalController(requested.interval(), requested.diskRatioAuto() && disk != null,
                requested.diskRatio(), requested.nodeMtbf(), requested.failureNodes(context.size()), context.size(),
                meter, history);
        intervalController.recoveredIn(lastRecovery.totalNanos());
        intervalController.save(options.replicas(), lastImageBytes);
    }

    /** A ctrl changed the policy: every rank restarts the schedule at the same call. */
    private void restartIntervalPolicy() {
        schedule.restart(requested.interval(), round);
        if (intervalController != null) {
            intervalController.policy(requested.interval());
        } else if (rank() == 0 && decides()) {
            startIntervalController(false);
        }
    }

    /**
     * Start of here() of round {@code round + 1}: fixes the next checkpoint's call number from rank 0's
     * decision taken at the here() of {@code round}, applies its disk ratio, and (rank 0) takes this
     * round's decision.
     */
    private void intervalAtHere() {
        if (!decides()) {
            schedule.atHere(round, IntervalDecision.NONE);
            return;
        }
        long d = receivedDecision();
        schedule.atHere(round, d);
        int k = schedule.decisionUsable(round) ? IntervalDecision.diskRatio(d) : 0;
        if (k > 0 && requested.diskRatioAuto() && disk != null && k != requested.diskRatio()) {
            requested = requested.toBuilder().diskRatio(k).build(); // on every rank at this round
            options = effectiveOptions();
        }
        if (intervalController != null) {
            ownDecision = intervalController.decide(schedule.calls(), options.replicas(), lastImageBytes);
            ownDecisionRound = round + 1;
        }
    }

    /**
     * Rank 0's decision taken at the here() of {@code round}, from where it travelled: itself (one rank),
     * the background size agreement that here() started, or the ring's watermarks (awaited as here()
     * awaits round {@code round} anyway). The same on every rank: every rank took the same path.
     */
    private long receivedDecision() {
        if (context.size() == 1) {
            return ownDecisionRound == round ? ownDecision : IntervalDecision.NONE;
        }
        if (agreement != null || agreed != null && agreementRound == round) {
            joinAgreement();
            return agreed != null && agreementRound == round && agreed[0].length >= 16
                    ? ByteBuffer.wrap(agreed[0]).getLong(8) : IntervalDecision.NONE;
        }
        if (agreementOnRing()) {
            try {
                long v = agent.awaitDecision(round, options.hereWaitTimeout());
                return v == ReplicationAgent.NO_DECISION ? IntervalDecision.NONE : v;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new CkptException("rank " + rank() + ": interrupted in here() of round " + (round + 1), e);
            } catch (IOException e) {
                throw new CkptException("rank " + rank() + ": checkpoint round " + (round + 1) + " failed: "
                        + e.getMessage() + collectiveFailure(), e);
            }
        }
        return IntervalDecision.NONE;
    }

    /** Rank 0: attaches this round's decision to the ring's watermarks, before the round is handed over or skipped. */
    private void offerDecision(long r) {
        if (ownDecisionRound == r) {
            agent.offerDecision(r, ownDecision);
        }
    }

    /** @return needCheckpoint()'s schedule (tests) */
    CheckpointSchedule schedule() {
        return schedule;
    }

    /** @return rank 0's controller, or null on other ranks and without a deciding policy (tests) */
    IntervalController intervalController() {
        return intervalController;
    }

    /**
     * The death of this rank's process, for tests: no collective close, no flush awaited; the
     * node-local files stay exactly as they are (a retiring store included).
     */
    void crashForTest() {
        closed = true;
        release(false);
    }

    /**
     * Stops the threads and releases the stores. The node-local store's files stay: they are what a
     * re-opened checkpointer (after a recovery, or a relaunch on the same node) restores from.
     */
    private void release(boolean flushDisk) {
        if (released) {
            return; // a close that failed half-way released already
        }
        released = true;
        if (agent != null) {
            agent.close();
        }
        if (flusher != null) {
            if (flushDisk) {
                try {
                    flusher.awaitIdle(options.replicationTimeout());
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            flusher.close();
        }
        if (agreementThread != null) {
            agreementThread.shutdownNow(); // an exchange of an abandoned world or a crash: never completes
            try {
                agreementThread.awaitTermination(5, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (committer != null) {
            committer.shutdown();
            try {
                committer.awaitTermination(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        if (links != null) {
            links.close();
        }
        if (store != null) {
            store.close();
        }
        if (retiringStore != null) {
            retiringStore.close(); // its files stay: a failure may still need its round
        }
        for (ReplicaStore s : survivors) {
            s.close(); // no-op for the one in use; the others if open failed half-way
        }
        try {
            endpoint.close();
        } catch (IOException e) {
            LOG.debug("rank {}: closing the data endpoint: {}", rank(), e.toString());
        }
        if (restoreImage != null) {
            restoreImage.releaseLast();
            restoreImage = null;
        }
        slotView.releaseLast();
    }
}
