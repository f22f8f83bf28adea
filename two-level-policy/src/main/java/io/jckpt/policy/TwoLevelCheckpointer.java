package io.jckpt.policy;

import io.jckpt.Checkpointer;
import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.CkptStateException;
import io.jckpt.CkptStats;
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
import io.jckpt.imem.ReplicaStore;
import io.jckpt.imem.ReplicaStoreConfig;
import io.jckpt.imem.ReplicaWrite;
import io.jckpt.imem.ReplicationAgent;
import io.jckpt.imem.RingLinks;
import io.jckpt.imem.RollbackPlan;
import io.jckpt.policy.OpenStatusDescriptor.OpenStatus;
import io.jckpt.spi.JobServices;
import io.jckpt.spi.RankContext;
import io.jckpt.spi.StatusExchange;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
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
 * newest disk generation committed and intact on all ranks, else a clean start (nothing was ever
 * checkpointed, or {@link RecoveryFallback#CLEAN_START}) or {@link NotRecoverableException}.
 * {@link #isRecovery()} is true exactly when there is a checkpoint to roll back to.
 *
 * <p><b>here()</b>: the registered data is written as one image straight into this rank's next
 * version slot of the node-local store and handed to the ring replication agent (CRC32C and
 * sending happen in the background); every {@code diskRatio}-th round the same slot is also
 * flushed to stable storage in the background. The round number is the disk ratio's counter, so
 * it survives recoveries. The first here() is a collective: it agrees the slot capacity (the
 * largest image x 1.25) and joins the replication ring.
 *
 * <p><b>rollback(tag, data)</b>: served locally from the image chosen at open, any tags in any order.
 */
public final class TwoLevelCheckpointer implements Checkpointer {
    private static final Logger LOG = LoggerFactory.getLogger(TwoLevelCheckpointer.class);
    private static final String CAPACITY_FILE = "slot-capacity";
    private static final long CAPACITY_ALIGN = 4096;
    private static final long COMMIT_POLL_MILLIS = 20;

    private final RankContext context;
    private CkptOptions options;
    private final StatusExchange exchange;
    private final JobSecret secret;
    private final InetAddress bindHost;
    private final Consumer<String> events;
    private final DataAdapters adapters;
    private final TagRegistry registry;
    private final ImageWriter writer = new ImageWriter();
    private final PointerBytesStore slotView = BytesStore.nativePointer();
    private final Path storeDirectory;
    private final DataEndpoint endpoint;
    private final InetSocketAddress[] endpoints;

    private ReplicaStore store;
    private ReplicationAgent agent;
    /** Ring connections made at open, before the store exists; handed to the agent at the first here(). */
    private RingLinks links;
    private GenerationStore disk;
    private DiskFlusher flusher;
    private ExecutorService committer;
    private volatile long lastCommitted;
    private final Object pinLock = new Object();
    /** Written under pinLock; volatile so that here() can see "nothing pinned" without the lock or a slot scan. */
    private volatile int pinnedSlot = -1;

    private long round;
    /** After an in-memory rollback: the ring is joined (after one barrier) at the first here(). */
    private boolean ringJoinPending;
    private boolean recovery;
    private String restoredFrom = "nothing";
    private BytesStore<?, ?> restoreImage;
    private ImageReader restoreReader;
    private boolean closed;

    private long checkpoints;
    private long diskCheckpoints;
    private long lastImageBytes;
    private long lastBlockingNanos;
    private long totalBlockingNanos;
    private long rollbacks;
    private long lastRollbackNanos;
    private CkptStats.HereTimings lastHere = CkptStats.HereTimings.NONE;
    private CkptStats.RecoveryTimings lastRecovery = CkptStats.RecoveryTimings.NONE;

    private TwoLevelCheckpointer(CkptOptions options, RankContext context, StatusExchange exchange, byte[] secret,
                                 String bindHost, Consumer<String> events) throws IOException {
        this.options = options;
        this.context = context;
        this.exchange = exchange;
        this.secret = JobSecret.fromHex(HexFormat.of().formatHex(secret));
        this.bindHost = InetAddress.getByName(bindHost);
        this.events = events;
        this.adapters = DataAdapters.create(options, context.rank());
        this.registry = new TagRegistry(adapters);
        this.storeDirectory = options.memoryDirectory().resolve(context.jobId()).resolve("rank-" + context.rank());
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
    public static TwoLevelCheckpointer open(CkptOptions options, RankContext context, StatusExchange exchange,
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
            return c;
        } catch (RuntimeException | IOException e) {
            c.release(false);
            if (e instanceof CkptException ce) {
                throw ce;
            }
            throw new CkptException("rank " + context.rank() + ": open failed: " + e.getMessage(), e);
        }
    }

    private int rank() {
        return context.rank();
    }

    private void start() throws IOException {
        long openStart = System.nanoTime();
        // the store is opened (every copy verified) in this very open: the recovery steps reuse that
        RecoverySteps steps = new RecoverySteps(true);
        long storeOpenNanos = 0;
        long exchangeNanos = 0;
        long transferNanos = 0;
        long bytesReceived = 0;
        // 1. what survived on this node
        long capacity = readCapacityFile();
        if (capacity > 0) {
            try {
                store = ReplicaStore.open(storeConfig(capacity));
            } catch (IOException | RuntimeException e) {
                LOG.warn("rank {}: node-local store in {} unusable ({}); starting it empty", rank(), storeDirectory,
                        e.getMessage());
                ReplicaStore.wipe(storeDirectory);
                capacity = 0;
            }
        }
        if (options.diskLevelEnabled()) {
            disk = GenerationStore.open(DiskStoreConfig.of(options.diskDirectory(), context.jobId(), rank(), context.size()));
        }
        // 2. one exchange: options, store, endpoint, disk inventory
        ReplicaSlot ownNewest = store == null ? null : store.newestComplete(rank());
        OpenStatus mine = new OpenStatus(options.globalFingerprint(), capacity,
                store == null ? 0 : store.copiesAsVerified().size(), ownNewest == null ? 0 : ownNewest.round(),
                endpoint.address(),
                disk == null ? new byte[0] : disk.inventory().encode());
        long exchangeStart = System.nanoTime();
        storeOpenNanos += exchangeStart - openStart;
        byte[][] all = exchange.allgather(OpenStatusDescriptor.encode(mine), options.exchangeTimeout());
        long decideStart = System.nanoTime();
        exchangeNanos += decideStart - exchangeStart;
        List<OpenStatus> statuses = new ArrayList<>();
        for (int r = 0; r < all.length; r++) {
            statuses.add(OpenStatusDescriptor.decode(r, all[r]));
        }
        checkOptionsAgree(statuses);
        long agreed = 0;
        long copiesAnywhere = 0;
        for (int r = 0; r < statuses.size(); r++) {
            endpoints[r] = statuses.get(r).endpoint();
            agreed = Math.max(agreed, statuses.get(r).slotCapacity());
            copiesAnywhere += statuses.get(r).copiesHeld();
        }
        // 3. decide, identically on every rank, where to restore from
        long decideNanos = System.nanoTime() - decideStart;
        long restoredRound = 0;
        RollbackPlan plan = null;
        if (agreed > 0) {
            if (store == null || store.config().slotCapacity() != agreed) {
                long t = System.nanoTime();
                if (store != null) {
                    store.close();
                }
                ReplicaStore.wipe(storeDirectory);
                store = ReplicaStore.open(storeConfig(agreed));
                writeCapacityFile(agreed);
                storeOpenNanos += System.nanoTime() - t;
            }
            if (copiesAnywhere > 0) {
                plan = ImemRecovery.plan(exchange::allgather, store, context.isNewRank(), options.exchangeTimeout(),
                        steps);
            }
        }
        String lostFromMemory = plan == null ? "no rank holds an in-memory checkpoint" : describeLost(plan);
        if (plan != null && plan.recoverable()) {
            ReplicaSlot slot = ImemRecovery.restore(plan, store, endpoint, endpoints, options.replicationTimeout(),
                    steps);
            restoredRound = plan.round();
            restoreFrom(BytesStore.follow(slot.image()), "memory (" + plan.action(rank()).kind() + ")");
        } else {
            DiskSelection selection = selectDisk(statuses);
            if (selection instanceof DiskSelection.Restore restore) {
                restoredRound = restore.round();
                long t = System.nanoTime();
                ByteBuffer image = disk.readImage(restoredRound); // verified by the disk level as it reads
                ByteBuffer direct = ByteBuffer.allocateDirect(image.remaining());
                direct.put(image).flip();
                transferNanos += System.nanoTime() - t;
                bytesReceived += direct.remaining();
                restoreFrom(BytesStore.follow(direct), "disk generation of round " + restoredRound);
            } else if (neverCompletedAnywhere(statuses) && !hasAnyGeneration(statuses)) {
                // a rank whose store survived holds no complete round of its own: it never completed
                // one (a version is overwritten only after the next is complete everywhere), so no
                // round was ever complete on every rank: nothing was promised, start clean
                LOG.info("rank {}: no checkpoint round was ever complete on every rank: clean start", rank());
            } else if (copiesAnywhere > 0 || (selection instanceof DiskSelection.NothingRestorable nothing
                    && disk != null && hasAnyGeneration(statuses))) {
                String why = "memory: " + lostFromMemory + "; disk: " + (selection == null ? "level off"
                        : ((DiskSelection.NothingRestorable) selection).reason());
                if (options.recoveryFallback() == RecoveryFallback.CLEAN_START) {
                    LOG.warn("rank {}: nothing restorable ({}); starting clean as configured", rank(), why);
                    event("nothing restorable (" + why + "): clean start");
                } else {
                    throw new NotRecoverableException("rank " + rank() + ": the checkpoint cannot be restored: " + why);
                }
            }
        }
        round = restoredRound;
        if (store != null) {
            store.discardNewerThan(restoredRound);
        }
        if (recovery) {
            event("restored round " + round + " from " + restoredFrom);
        }
        // 4. join the ring now if the store exists; otherwise at the first here(). The rollback
        // transfers accept on the same data endpoint as the ring: every rank must be done with
        // them before any ring connection is made, which takes one more exchange. After an
        // in-memory rollback that exchange and the ring join wait for the first here(), so that a
        // rank restoring its own local copy leaves open() without waiting for the others' transfers.
        long joinStart = System.nanoTime();
        if (plan != null) {
            ringJoinPending = true;
        } else if (store != null) {
            startReplication();
        } else if (options.replicas() > 0 && context.size() > 1) {
            // no store until the first here() knows the image size, but the ring connections do not
            // need it: make them now, so the first here() does not pay for them
            links = endpoint.joinRing(context.size(), endpoints[(rank() + 1) % context.size()], options.exchangeTimeout());
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
                    if (rank() == 0) { // the coordinator: the lowest rank
                        committer.execute(() -> commitWhenComplete(generation.round()));
                    }
                }

                @Override
                public void onFailed(long failedRound, StableDiskException error) {
                    LOG.error("rank {}: disk flush of round {} failed: {}", rank(), failedRound, error.getMessage());
                    event("disk flush of round " + failedRound + " failed: " + error.getMessage());
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

    private static boolean neverCompletedAnywhere(List<OpenStatus> statuses) {
        for (OpenStatus s : statuses) {
            if (s.slotCapacity() > 0 && s.ownNewestComplete() == 0) {
                return true;
            }
        }
        return false;
    }

    private static boolean hasAnyGeneration(List<OpenStatus> statuses) {
        for (OpenStatus s : statuses) {
            if (s.diskInventory().length > 0 && !RankInventory.decode(s.diskInventory()).generations().isEmpty()) {
                return true;
            }
        }
        return false;
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

    private static String describeLost(RollbackPlan plan) {
        if (plan.recoverable()) {
            return "recoverable";
        }
        StringBuilder text = new StringBuilder("data of ");
        plan.lost().forEach(l -> text.append("rank ").append(l.rank()).append(" (").append(l.reason()).append(") "));
        return text.toString().trim();
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

    private ReplicaStoreConfig storeConfig(long capacity) {
        return new ReplicaStoreConfig(storeDirectory, rank(), context.size(), options.replicas(),
                options.versionsKept(), capacity, options.maxMemoryBytes());
    }

    private long readCapacityFile() {
        Path file = storeDirectory.resolve(CAPACITY_FILE);
        try {
            return Files.isRegularFile(file) ? Long.parseLong(Files.readString(file, StandardCharsets.US_ASCII).trim()) : 0;
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }

    private void writeCapacityFile(long capacity) throws IOException {
        Path tmp = storeDirectory.resolve(CAPACITY_FILE + ".tmp");
        Files.deleteIfExists(tmp);
        Files.createFile(tmp, java.nio.file.attribute.PosixFilePermissions.asFileAttribute(
                java.nio.file.attribute.PosixFilePermissions.fromString("rw-------")));
        Files.writeString(tmp, Long.toString(capacity), StandardCharsets.US_ASCII);
        Files.move(tmp, storeDirectory.resolve(CAPACITY_FILE), java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    }

    private void startReplication() throws IOException {
        if (options.replicas() == 0 || context.size() == 1) {
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
    public void here() {
        checkOpen("here");
        long start = System.nanoTime();
        long length = writer.prepare(registry.entries());
        if (store == null) {
            createStoreCollectively(length);
        } else if (ringJoinPending) {
            joinRingAfterRollback();
        }
        if (length > store.config().slotCapacity()) {
            throw new StorageException(storeDirectory, "rank " + rank() + ": the checkpoint image grew to " + length
                    + " bytes, beyond the slot capacity of " + store.config().slotCapacity()
                    + " bytes fixed at the first checkpoint (largest image then x 1.25)", null);
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
            ByteBuffer image = write.image();
            // one reusable pointer over the slot's mapping: no allocation, no reference counting per here()
            slotView.set(Jvm.address(image), image.capacity());
            writer.write(slotView, 0, new ImageHeader(rank(), context.size(), next, context.epoch()));
            long t2 = System.nanoTime();
            if (agent != null) {
                agent.commitRoundInBackground(write);
            } else {
                write.commit();
            }
            long t3 = System.nanoTime();
            waited = t1 - t0;
            written = t2 - t1;
            handedOff = t3 - t2;
            round = next;
            if (disk != null && options.diskRatio() > 0 && round % options.diskRatio() == 0) {
                diskRound(write);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CkptException("rank " + rank() + ": interrupted in here() of round " + next, e);
        } catch (IOException e) {
            throw new CkptException("rank " + rank() + ": checkpoint round " + next + " failed: " + e.getMessage(), e);
        }
        long blocked = System.nanoTime() - start;
        checkpoints++;
        lastImageBytes = length;
        lastBlockingNanos = blocked;
        totalBlockingNanos += blocked;
        lastHere = new CkptStats.HereTimings(waited, written, handedOff, blocked);
        JobServices services = JobServices.current();
        if (services != null) {
            services.checkpointed(round, length, blocked);
        }
    }

    /**
     * First here() after an in-memory rollback (a collective): once every rank is done with its
     * rollback transfers (one exchange), the ring is joined and the agent started.
     */
    private void joinRingAfterRollback() {
        long t0 = System.nanoTime();
        exchange.allgather(new byte[0], options.exchangeTimeout());
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

    /** First here(): agree the slot capacity over all ranks' image sizes, create the store, join the ring. */
    private void createStoreCollectively(long length) {
        byte[][] all = exchange.allgather(ByteBuffer.allocate(8).putLong(length).array(), options.exchangeTimeout());
        long largest = 0;
        for (byte[] part : all) {
            largest = Math.max(largest, ByteBuffer.wrap(part).getLong());
        }
        long capacity = ((largest + largest / 4 + CAPACITY_ALIGN - 1) / CAPACITY_ALIGN) * CAPACITY_ALIGN;
        try {
            long t0 = System.nanoTime();
            ReplicaStore.wipe(storeDirectory);
            store = ReplicaStore.open(storeConfig(Math.max(capacity, CAPACITY_ALIGN)));
            long t1 = System.nanoTime();
            writeCapacityFile(store.config().slotCapacity());
            startReplication();
            long t2 = System.nanoTime();
            LOG.debug("rank {}: first here(): store created in {} us, replication started in {} us", rank(),
                    (t1 - t0) / 1000, (t2 - t1) / 1000);
        } catch (IOException e) {
            throw new StorageException(storeDirectory, "rank " + rank() + ": cannot create the node-local store: "
                    + e.getMessage(), e);
        }
    }

    /** A disk round: flush this round from its memory slot in the background (the slot is pinned until then). */
    private void diskRound(ReplicaWrite write) {
        synchronized (pinLock) {
            pinnedSlot = write.slot().index();
        }
        CheckpointImage view = CheckpointImage.of(write.image());
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
                    pinnedSlot = -1;
                    pinLock.notifyAll();
                }
            }
        });
        diskCheckpoints++;
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
                event("disk generation of round " + toCommit + " committed");
                return;
            } catch (StableDiskException e) {
                if (System.nanoTime() > deadline) {
                    LOG.warn("rank {}: disk round {} not committed: {}", rank(), toCommit, e.getMessage());
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
        if (store == null || pinnedSlot < 0) {
            return; // nothing is being flushed: no slot can be pinned (the common case, and off the lock)
        }
        ReplicaSlot victim = store.nextWritable(rank());
        synchronized (pinLock) {
            long deadline = System.nanoTime() + options.hereWaitTimeout().toNanos();
            while (victim != null && pinnedSlot == victim.index()) {
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
        CkptOptions next = options.withCtrl(ctrl);
        next.validateFor(context.size());
        byte[][] all = exchange.allgather(ByteBuffer.allocate(8).putLong(next.globalFingerprint()).array(),
                options.exchangeTimeout());
        for (int r = 0; r < all.length; r++) {
            if (ByteBuffer.wrap(all[r]).getLong() != next.globalFingerprint()) {
                throw new InvalidOptionException("ctrl", ctrl, "rank " + rank() + ": rank " + r
                        + " asked for different options in the same ctrl call; ctrl must be the same on every rank");
            }
        }
        if (next.replicas() != options.replicas()) {
            throw new InvalidOptionException("replicas", next.replicas(), "rank " + rank() + ": changing the replication degree at run"
                    + " time is not supported yet (" + options.replicas() + " -> " + next.replicas()
                    + "); open with the degree wanted");
        }
        options = next;
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
        return new CkptStats(round, checkpoints, diskCheckpoints, lastImageBytes, lastBlockingNanos, totalBlockingNanos,
                replicationNanos, flushNanos, hereWaits, rollbacks, lastRollbackNanos, lastHere, lastRecovery);
    }

    /**
     * Waits (bounded) until the current round is replicated on every rank (every rank's copies of it
     * stored and verified at its m successors) and, when it is a disk round, durable on disk here.
     * For a planned stop, and for tests that need a known complete round.
     *
     * @param timeout the bound
     * @return whether that state was reached in time
     */
    public boolean awaitReplicated(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        try {
            if (agent != null && !agent.awaitGloballyCompleted(round, timeout)) {
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
        if (!abandoned) {
            // Close is a collective (as MPI_Ckpt_close): the last round must be complete everywhere,
            // and every rank must know it, before any rank leaves the ring, or a neighbour still
            // waiting for its last round would lose its successor.
            try {
                if (agent != null && agent.failure() == null && !awaitReplicated(options.replicationTimeout())) {
                    LOG.warn("rank {}: round {} not replicated everywhere within {} ms at close", rank(), round,
                            options.replicationTimeout().toMillis());
                }
                exchange.allgather(new byte[0], options.exchangeTimeout());
            } catch (CkptException e) {
                LOG.warn("rank {}: close: {}", rank(), e.getMessage());
            }
        }
        closed = true;
        release(!abandoned);
    }

    /**
     * Stops the threads and releases the stores. The node-local store's files stay: they are what a
     * re-opened checkpointer (after a recovery, or a relaunch on the same node) restores from.
     */
    private void release(boolean flushDisk) {
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
