package io.jckpt.policy;

import io.jckpt.spi.RingOrder;

import io.jckpt.Checkpointer;
import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.CkptStats;
import io.jckpt.CollectiveMismatchException;
import io.jckpt.CtrlOptions;
import io.jckpt.ExchangeTimeoutException;
import io.jckpt.NotRecoverableException;
import io.jckpt.RecoveryFallback;
import io.jckpt.StepMismatchException;
import io.jckpt.UnrestoredTagsException;
import io.jckpt.data.DataAdapters;
import io.jckpt.data.TagRegistry;
import io.jckpt.disk.DiskCommitCoordinator;
import io.jckpt.imem.DataEndpoint;
import io.jckpt.imem.JobSecret;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.imem.RollbackPlan;
import io.jckpt.imem.WaitFence;
import io.jckpt.policy.PhaseMachine.Phase;
import io.jckpt.policy.interval.CheckpointSchedule;
import io.jckpt.policy.interval.IntervalController;
import io.jckpt.spi.JobServices;
import io.jckpt.spi.RankCollective;
import io.jckpt.spi.RankContext;
import io.jckpt.spi.RankEvent;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@link Checkpointer} of jckpt: the paper's two levels combined (its Figure 4).
 *
 * <p><b>Open</b> (collective): one status exchange; from it every rank takes the same
 * {@link RecoveryDecision}: restore from memory when every rank's data of a common round survives
 * somewhere, else from the newest disk generation committed and intact on all ranks, else a clean
 * start ({@link RecoveryFallback#CLEAN_START}, or no round was ever complete on every rank) or
 * {@link NotRecoverableException}. {@link #isRecovery()} is true exactly when there is a checkpoint to
 * roll back to; rollback(tag) is served locally from the image chosen at open, any tags in any order.
 *
 * <p><b>here()</b>: the registered data is written as one image straight into this rank's next version
 * slot of the node-local store and handed to the ring replication agent; every {@code diskRatio}-th
 * round the same slot is also flushed to stable storage in the background. The round number is the
 * disk ratio's counter, so it survives recoveries. here() starts with the layout step: the slot-size
 * agreement, growth and ctrl(m) switch to a new store layout at the same round on every rank. The
 * program's step ({@code here(step)}) is written with the round and compared across ranks on the
 * exchanges that already happen ({@link StepCheck}).
 *
 * <p><b>After a recovery</b> the program restores its data by registering it ({@link RestoreCheck}: the
 * first here(), ctrl() or close() checks every rank accounted for every tag of the restored image).
 *
 * <p><b>A coordinator that delegates</b>: this class keeps here / ctrl / close as a {@link PhaseMachine}
 * (opening → restoring → running ⇄ switching → closing) and the order of the ranks' exchanges; the
 * work is done by {@link RestoreStep} and {@link RestoredImage}, {@link RoundWriter}, {@link LayoutSwitcher}
 * (the store, the ring agent, the switches), {@link SizeAgreement}, {@link IntervalSteps},
 * {@link OptionsAgreement}, {@link CollectiveClose}, the disk level's {@link DiskCommitCoordinator} (the
 * store retains the slot a flush reads, and the slot the restored image views), and {@link CkptStatsRecorder}.
 */
public final class TwoLevelCheckpointer implements Checkpointer {
    private static final Logger LOG = LoggerFactory.getLogger(TwoLevelCheckpointer.class);

    private final RankContext context;
    /** What the program asked for: the options of open, with every ctrl applied. */
    private CkptOptions requested;
    /** What runs now: {@link #requested} with the effective m and disk ratio of the current layout. */
    private CkptOptions options;
    private final RankCollective exchange;
    private final JobEvents events;
    private final DataAdapters adapters;
    private final TagRegistry registry;
    private final DataEndpoint endpoint;
    /**
     * Ends this world's data-channel waits (ring join, rollback transfers) at once when the runtime
     * abandons the world: a thread of the old world must not hold up the next one (open holds the
     * process's open lock while it waits), nor wait for a peer that was stopped or killed.
     */
    private final WaitFence fence = new WaitFence();
    private final RankCollective.Registration abandonment;
    /** Every rank's data endpoint in this world (from the open exchange): where the copies go, on which host. */
    private final InetSocketAddress[] endpoints;
    private final PhaseMachine phases;
    private final CkptStatsRecorder stats = new CkptStatsRecorder();
    private final RestoredImage restored;
    private final RestoreCheck restoreCheck;
    /** The job's image key: sealed into and verified on every copy of every level. */
    private final io.jckpt.image.ImageKey imageKey;
    private final SizeAgreement agreement;
    private final IntervalSteps interval;
    private final RestoreStep restore;
    private final LayoutSwitcher switcher;
    private final RoundWriter rounds;
    private final CollectiveClose closing;
    /** The disk level: flushes, (rank 0) commits; null when it is off. */
    private DiskCommitCoordinator disk;
    private long round;
    /** The program's step at {@link #round} (its last here(step), or the restored round's), or NO_STEP. */
    private long step = NO_STEP;
    /** After an in-memory rollback: the ring is joined (after one barrier) at the first here(). */
    private boolean ringJoinPending;
    private boolean released;

    /** Test hook of the restoring phase ({@link RestoreStep.Hook}); null (no hook) outside tests. */
    interface RecoveryHook extends RestoreStep.Hook {
    }

    static volatile RecoveryHook recoveryHook;

    private TwoLevelCheckpointer(CkptOptions options, RankContext context, RankCollective exchange, byte[] secret,
                                 byte[] jobKey, String bindHost, Consumer<RankEvent> events) throws IOException {
        int rank = context.rank();
        this.options = options;
        this.requested = options;
        this.context = context;
        this.exchange = exchange;
        this.events = new JobEvents(rank, events);
        this.adapters = DataAdapters.create(options, rank);
        this.registry = new TagRegistry(adapters);
        // every copy of every level is sealed and verified with the job's key: nothing this job did not write
        // is ever handed to an adapter
        JobKeys.Resolved key = JobKeys.resolve(options, context, jobKey, System.getenv());
        this.imageKey = key.key();
        if (rank == 0 && context.epoch() == 0) { // one line for the job, not one per recovery: which key (its id,
            // no secret) and where it lives
            this.events.info("checkpoints authenticated (HMAC-SHA256) with job key " + imageKey.idHex() + " from "
                    + key.source());
        }
        this.restored = new RestoredImage(rank, imageKey);
        Path storeDirectory = options.memoryDirectory().resolve(context.jobId()).resolve("rank-" + rank);
        StoreLayouts layouts = new StoreLayouts(storeDirectory, rank, context.size(), options.versionsKept(),
                options.maxMemoryBytes(), context.ring(), imageKey);
        this.endpoint = DataEndpoint.bind(InetAddress.getByName(bindHost), rank, JobSecret.of(secret), fence);
        this.endpoints = new InetSocketAddress[context.size()];
        this.phases = new PhaseMachine(rank);
        this.agreement = new SizeAgreement(rank, context.epoch(), exchange);
        this.interval = new IntervalSteps(rank, context.size());
        this.restore = new RestoreStep(options, context, exchange, layouts, endpoint, endpoints, restored, imageKey,
                this.events::event, this.events::warn);
        this.switcher = new LayoutSwitcher(rank, context.size(), exchange, layouts, storeDirectory, endpoint, endpoints,
                agreement, interval, stats, phases, t -> disk == null || disk.awaitIdle(t),
                this.events::event);
        this.rounds = new RoundWriter(context, registry, layouts, switcher, interval, () -> disk, stats, imageKey);
        this.closing = new CollectiveClose(rank, exchange, agreement, switcher);
        this.restoreCheck = new RestoreCheck(rank, exchange, restored);
        // last: a world abandoned already raises the fence now, and nothing above needs undoing then
        this.abandonment = exchange.onAbandoned(context.epoch(),
                () -> fence.raise("MPJ world " + context.epoch() + " abandoned after a failure"));
    }

    /**
     * Opens the checkpointer of one rank: a collective over {@code exchange}.
     *
     * @param options   the options (global options identical on every rank)
     * @param context   the rank and its world
     * @param exchange  the status exchange of the current world
     * @param secret    the per-job secret authenticating the data channels
     * @param jobKey    the launcher's job key (the same on every rank), or null: the job's key file
     *                  ({@link JobKeys}); checkpoints are authenticated with a key derived from it
     * @param bindHost  the address of this rank's data endpoint
     * @param events    where to report checkpoints and recoveries (the launcher's log)
     * @return the open checkpointer
     */
    public static TwoLevelCheckpointer open(CkptOptions options, RankContext context, RankCollective exchange,
                                            byte[] secret, byte[] jobKey, String bindHost, Consumer<RankEvent> events) {
        options.validateFor(context.size());
        TwoLevelCheckpointer c;
        try {
            c = new TwoLevelCheckpointer(options, context, exchange, secret, jobKey, bindHost, events);
        } catch (IOException e) {
            throw new CkptException("rank " + context.rank() + ": cannot open the data endpoint: " + e.getMessage(), e);
        }
        try {
            c.start();
            c.interval.start(c.round, c.requested, c.restored.isRecovery() || context.epoch() > 0, c.intervalSources());
            c.phases.moveTo(Phase.RUNNING, c.round);
            return c;
        } catch (RuntimeException | Error | IOException e) {
            c.phases.moveTo(Phase.CLOSED, c.round);
            c.release(false); // also when a thread of an abandoned world is fenced (an Error)
            if (e instanceof CkptException ce) {
                throw ce;
            }
            if (e instanceof Error error) {
                throw error;
            }
            if (c.abandoned()) {
                // a peer of the abandoned world closed its channels first (its error came before ours)
                throw new CkptException("rank " + context.rank() + ": open failed: MPJ world " + context.epoch()
                        + " abandoned after a failure (" + e.getMessage() + ")", e);
            }
            throw new CkptException("rank " + context.rank() + ": open failed: " + e.getMessage(), e);
        }
    }

    /**
     * @return whether this rank's world is abandoned: asked of the exchange, which knows before every
     *         rank's fence is raised (a peer's raised fence closes its channels, and its reset can reach
     *         this rank before its own fence goes up)
     */
    private boolean abandoned() {
        if (fence.raised()) {
            return true;
        }
        java.util.concurrent.atomic.AtomicBoolean now = new java.util.concurrent.atomic.AtomicBoolean();
        exchange.onAbandoned(context.epoch(), () -> now.set(true)).close();
        return now.get();
    }

    private int rank() {
        return context.rank();
    }

    /** The opening and restoring phases ({@link RestoreStep}), then the ring join and the disk level. */
    private void start() throws IOException {
        restore.exchange();
        phases.moveTo(Phase.RESTORING, round);
        restore.restore(recoveryHook);
        round = restore.round();
        step = restored.step();
        restoreCheck.opened(round);
        rounds.completeEverywhereRecorded(restore.completeEverywhereRecorded());
        if (restore.active() != null) {
            switcher.adopt(restore.active());
            // the m asked for at that round (a ctrl before it) stays asked for
            int m = restore.active().layout().requestedReplicas();
            requested = requested.toBuilder().replicas(m).minReplicas(Math.min(requested.minReplicas(), m)).build();
            options = switcher.effective(requested);
        }
        // Join the ring now; after an in-memory rollback (the same decision on every rank) the join waits
        // for the first here(), so that a rank restoring its own local copy leaves open() without waiting
        // for the others' transfers.
        long joinStart = System.nanoTime();
        RollbackPlan plan = restore.plan();
        ringJoinPending = plan != null && plan.recoverable();
        if (!ringJoinPending) {
            switcher.joinRing(plan != null, round, requested, options);
        }
        long joinNanos = ringJoinPending ? 0 : System.nanoTime() - joinStart; // else set at the first here()
        if (restore.disk() != null) {
            disk = DiskCommitCoordinator.start(restore.disk(), rank(), context.size(), options.replicationTimeout(),
                    stats, events::event, events::warn);
        }
        if (restored.isRecovery()) {
            stats.recordRecovery(restore.timings(joinNanos));
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

    /**
     * During a recovery (before its first here(), ctrl() or close()) a tag the restored checkpoint holds
     * is restored into {@code data} in place, as {@link #rollback} does; any other tag is registered.
     */
    @Override
    public void register(String tag, Object data) {
        phases.requireOpen("register");
        if (restoreCheck.pending(tag)) { // never registered yet: registering or restoring a tag accounts for it
            rollback(tag, data);
            return;
        }
        registry.register(tag, data);
    }

    @Override
    public boolean needCheckpoint() {
        return interval.schedule().due();
    }

    @Override
    public void here() {
        checkpoint(NO_STEP);
    }

    @Override
    public void here(long step) {
        if (step < 0) {
            throw new IllegalArgumentException("rank " + rank() + ": here(step) takes the program's step (its iteration"
                    + " count), >= 0; got " + step);
        }
        checkpoint(step);
    }

    /** here() with the program's step at this round ({@link #NO_STEP} when it gave none). */
    private void checkpoint(long programStep) {
        phases.requireOpen("here");
        long start = System.nanoTime();
        restoreCheck.run(options.exchangeTimeout()); // the first call after a recovery: before any other exchange
        // without a ring agent the previous round is sealed in the background: complete before this one
        // goes on (the layout step below counts on this rank's own copy being complete)
        rounds.awaitOwnCommitted(round, options);
        intervalAtHere();
        long length = rounds.prepare();
        if (ringJoinPending) {
            joinRingAfterRollback();
        }
        StoreLayout before = switcher.layout();
        boolean take;
        try {
            // running -> switching -> running when it switches
            take = switcher.beforeRound(length, round, programStep, requested);
        } finally {
            if (switcher.layout() != before) {
                options = switcher.effective(requested);
            }
        }
        if (!take) {
            round++; // not taken on this rank: its image outgrew the slots, which grow at the next here()
            step = programStep;
            stats.recordSkippedRound();
            return;
        }
        long next = round + 1;
        CkptStats.HereTimings t;
        try {
            t = rounds.write(next, length, programStep, options, r -> {
                round = r;
                step = programStep;
            });
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CkptException("rank " + rank() + ": interrupted in here() of round " + next, e);
        } catch (IOException e) {
            throw LayoutSwitcher.ringFailure(exchange, "rank " + rank() + ": checkpoint round " + next + " failed: "
                    + e.getMessage(), e);
        }
        long blocked = System.nanoTime() - start;
        stats.recordHere(length, t.waitNanos(), t.writeNanos(), t.handOffNanos(), blocked);
        interval.hereEnded(blocked, rounds.diskRound(round, options), round);
        JobServices services = JobServices.current();
        if (services != null) {
            services.checkpointed(round, length, blocked);
        }
    }

    /**
     * First here() after an in-memory rollback (a collective, entered by every rank since the plan is
     * the same everywhere): the ring is joined and the agent started. Every rank is done with its
     * rollback transfers: the restore check made at the recovery's first here(), ctrl() or close() was
     * entered by every rank after its open() returned.
     */
    private void joinRingAfterRollback() {
        long t0 = System.nanoTime();
        try {
            switcher.joinRing(false, round, requested, options);
        } catch (IOException e) {
            throw new CkptException("rank " + rank() + ": cannot rejoin the replication ring after the rollback: "
                    + e.getMessage(), e);
        }
        ringJoinPending = false;
        stats.recordRingJoin(System.nanoTime() - t0);
    }

    @Override
    public <T> T rollback(String tag, T data) {
        phases.requireOpen("rollback");
        long start = System.nanoTime();
        T value = restored.rollback(rank(), tag, reader -> reader.restore(tag, data, adapters), registry);
        restoreCheck.accountFor(tag);
        stats.recordRollback(System.nanoTime() - start);
        return value;
    }

    @Override
    public <T> T rollbackObject(String tag, Class<T> type) {
        phases.requireOpen("rollback");
        T value = restored.rollback(rank(), tag, reader -> reader.restoreObject(tag, type, adapters), registry);
        restoreCheck.accountFor(tag);
        stats.recordRollbackObject();
        return value;
    }

    /** During a recovery, a tag of the restored checkpoint not restored is dropped (accounted for). */
    @Override
    public void remove(String tag) {
        phases.requireOpen("remove");
        if (restoreCheck.pending(tag) && registry.get(tag) == null) {
            restoreCheck.accountFor(tag);
            return;
        }
        registry.remove(tag);
        restoreCheck.accountFor(tag);
    }

    @Override
    public void ctrl(CtrlOptions ctrl) {
        phases.requireOpen("ctrl");
        CkptOptions next = requested.withCtrl(ctrl);
        next.validateFor(context.size());
        restoreCheck.run(options.exchangeTimeout()); // the first call after a recovery: before any other exchange
        agreement.join(round, options); // one exchange at a time, in the same order on every rank
        OptionsAgreement.atCtrl(exchange, next, ctrl, rank(), round, step, options.exchangeTimeout());
        requested = next;
        if (ctrl.interval().isPresent()) {
            interval.restart(round, requested, intervalSources()); // on every rank at this call, identically
        }
        if (ctrl.replicas().isPresent()) {
            switcher.requestReplicas(next.replicas()); // applied collectively at the next here()
        }
        options = switcher.effective(requested);
    }

    @Override
    public boolean isRecovery() {
        return restored.isRecovery();
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
        StoreLayout layout = switcher.layout();
        return stats.snapshot(round, restored.isRecovery(), options, layout, switcher.agent(), disk, placement(layout));
    }

    /** Where this rank's copies are in this world, from the ring, the effective m and the ranks' endpoints. */
    private CkptStats.Placement placement(StoreLayout layout) {
        if (layout == null) {
            return CkptStats.Placement.NONE;
        }
        for (InetSocketAddress e : endpoints) {
            if (e == null) {
                return CkptStats.Placement.NONE;
            }
        }
        return CkptStats.Placement.of(context.ring()::successor, context.size(), context.rank(), layout.replicas(),
                r -> endpoints[r].getAddress().getHostAddress());
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
        return closing.awaitReplicated(round, timeout, options, disk);
    }

    /** Where this start restored from ("memory (LOCAL)", "disk generation of round 2000", "nothing"). */
    public String restoredFrom() {
        return restored.from();
    }

    @Override
    public void close() {
        if (phases.closed()) {
            return;
        }
        JobServices services = JobServices.current();
        boolean abandoned = services != null && services.context().epoch() > context.epoch();
        String summary = interval.close(options.replicas(), stats.lastImageBytes(), abandoned); // exposure saved
        if (summary != null) {
            events.event(summary);
        }
        if (!abandoned) {
            events.event(stats.totals()); // the launcher's end-of-job summary adds up every rank's

            phases.moveTo(Phase.CLOSING, round);
            try {
                restoreCheck.run(options.exchangeTimeout()); // the first call after a recovery: before the close's exchanges
                closing.run(round, step, options, disk);
            } catch (CollectiveMismatchException | ExchangeTimeoutException | UnrestoredTagsException
                     | StepMismatchException | Error e) {
                // the ranks did not close together (said on every rank), or a fenced thread of an abandoned world
                phases.moveTo(Phase.CLOSED, round);
                release(false);
                throw e;
            } catch (CkptException e) {
                LOG.warn("rank {}: close: {}", rank(), e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                LOG.warn("rank {}: close interrupted", rank());
            }
        }
        phases.moveTo(Phase.CLOSED, round);
        release(!abandoned);
        if (!abandoned && disk != null && rank() == 0) {
            events.info(stats.diskSummary()); // the job's disk level in one line: rank 0 knows every generation's fate
        }
    }

    /** Where the interval policy's controller reads its inputs (rank 0). */
    private IntervalSteps.Sources intervalSources() {
        // beside the disk generations when the disk level is usable; else in rank 0's node-local job directory
        Path dir = (disk != null ? options.diskDirectory() : options.memoryDirectory()).resolve(context.jobId());
        JobServices services = JobServices.current();
        return new IntervalSteps.Sources(dir, disk != null, switcher::agent, () -> disk == null ? null : disk.flusher(),
                options.replicas(), stats.lastImageBytes(), stats.lastRecovery().totalNanos(),
                services == null ? -1 : services.worldLostNanos());
    }

    /** Start of here(): the schedule from rank 0's previous decision, its disk ratio, rank 0's next decision. */
    private void intervalAtHere() {
        CkptOptions next = interval.atHere(round, requested, disk != null, options.replicas(), stats.lastImageBytes(),
                () -> interval.receivedDecision(round, agreement, switcher.ringAgreement(), options, exchange));
        if (next != requested) { // on every rank at this round
            requested = next;
            options = switcher.effective(requested);
        }
    }

    /** @return needCheckpoint()'s schedule (tests) */
    CheckpointSchedule schedule() {
        return interval.schedule();
    }

    /** @return rank 0's controller, or null on other ranks and without a deciding policy (tests) */
    IntervalController intervalController() {
        return interval.controller();
    }

    /**
     * The death of this rank's process, for tests: no collective close, no flush awaited; the
     * node-local files stay exactly as they are (a retiring store included).
     */
    void crashForTest() {
        if (!phases.closed()) {
            phases.moveTo(Phase.CLOSED, round);
        }
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
        switcher.closeAgent();
        if (disk != null) {
            disk.close(flushDisk, options.replicationTimeout());
        }
        agreement.close(); // an exchange of an abandoned world or a crash: never completes
        restored.release(); // gives its slot back before the stores close
        abandonment.close();
        switcher.closeStores();
        for (ReplicaStore s : restore.survivors()) {
            s.close(); // no-op for the one in use; the others if open failed half-way
        }
        try {
            endpoint.close();
        } catch (IOException e) {
            LOG.debug("rank {}: closing the data endpoint: {}", rank(), e.toString());
        }
        rounds.release();
    }
}
