package io.jckpt.imem;

import static io.jckpt.imem.ReplicaSlotDescriptor.*;

import io.jckpt.image.ImageMac;
import io.jckpt.spi.AgentThreads;
import io.jckpt.wire.CopyStatus;
import io.jckpt.wire.RankStatus;
import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.agrona.concurrent.Agent;
import org.agrona.concurrent.AgentRunner;
import org.agrona.concurrent.AgentTerminationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node-local store of one rank: its own checkpoint images and the replicas of its m
 * predecessors, {@code versionsKept} versions each, in memory-mapped files (by default under
 * /dev/shm, so they survive the death of the JVM). One fixed-size file per (owner, version), created
 * and mapped once at open and reused. Its pages are allocated and mapped ("prepared") before its
 * first write, so a write never takes a page fault: at open for every file that already existed
 * and for this rank's first own version (where a new rank's restored image goes); the other new
 * files (its second own version, the predecessors' replicas) are prepared by a named background
 * thread, own versions first, or by their first write if it comes first, so that a new rank's
 * open (after a node loss) allocates one slot, not (m + 1) x versions, before it can restore
 * (measured with 64 MiB images: the new rank's store open was most of the recovery). Owner-only permissions; a
 * file lock keeps a second live process for the same rank out (the kernel drops the lock when the
 * process dies).
 *
 * <p>Reopening after a crash verifies the COMPLETE slots ({@link Verification}: every one, or per
 * owner only the newest that verifies, the others when first asked for); torn (WRITING) slots are
 * discarded and counted. A slot handed out for reading ({@link #find}, {@link #newestComplete}) has
 * always been verified in this process. A write never goes into the owner's newest COMPLETE version, so the previous complete
 * round stays intact until the next one is complete.
 *
 * <p>A reader outside the store (the disk level's flush of a round, the restored image a rollback reads)
 * {@link #retain retains} the slot it reads and {@link #release releases} it when done; the store refuses
 * to write into a retained slot, {@link #awaitReleased} lets the writer wait for it (bounded), and
 * {@link #close} leaves it mapped until its last release. The store owns the retains: a release it
 * did not make, or a second release, is an error naming the slot and its round.
 *
 * <p>With the job's image key ({@link ReplicaStoreConfig#imageKey()}) every own image is sealed with its
 * MAC when its write is committed, and every verification (at open, before a copy is reported or handed
 * out) checks the MAC and that the image is the round of the owner its slot names: a copy this job did
 * not write, or altered by one byte, is reported not intact (the plan then uses another copy or round)
 * and never handed out. A rank without a ring agent (m = 0) hands its own writes to
 * {@link #commitInBackground}: its {@link OwnCopySealer} seals and commits them, so here() only copies.
 *
 * <p>Thread-safety: slot selection is synchronized; the image bytes are written by one thread per
 * owner (the caller for its own rank, the replication agent for the others).
 *
 * <p><b>Size</b> (past 600 lines): one place owns the node-local store's files (their layout, creation,
 * verification at open, the version each owner's copy is in, who still reads a slot) so that no other class
 * maps, overwrites or deletes them; the mapping of images beyond 2 GiB in windows is a fifth of it, the
 * retain API (its counts kept by {@link SlotRetention}) a tenth.
 */
public final class ReplicaStore implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(ReplicaStore.class);
    private static final Set<PosixFilePermission> DIR_PERMS = PosixFilePermissions.fromString("rwx------");
    private static final Set<PosixFilePermission> FILE_PERMS = PosixFilePermissions.fromString("rw-------");
    private static final int ALLOCATE_CHUNK = 1 << 20;

    private final ReplicaStoreConfig config;
    private final ReplicaSlot[][] slots; // [distance d = 0..m][version]
    private final FileChannel lockChannel;
    private final FileLock lock;
    private final int tornFound;
    private final int corruptFound;
    private final AgentRunner preparer;
    /** The slots a reader outside the store (a disk flush) still reads: never written into meanwhile. */
    private final SlotRetention retention = new SlotRetention();
    /** Completes the own writes of a rank without replication agent ({@link #commitInBackground}). */
    private final OwnCopySealer sealer;
    private volatile boolean closing;
    private boolean closed;

    private ReplicaStore(ReplicaStoreConfig config, ReplicaSlot[][] slots, FileChannel lockChannel, FileLock lock,
                         int tornFound, int corruptFound) {
        this.config = config;
        this.slots = slots;
        this.lockChannel = lockChannel;
        this.lock = lock;
        this.tornFound = tornFound;
        this.corruptFound = corruptFound;
        boolean anyUnprepared = false;
        for (ReplicaSlot[] versions : slots) {
            for (ReplicaSlot s : versions) {
                anyUnprepared |= !s.prepared();
            }
        }
        this.preparer = anyUnprepared ? AgentThreads.start(new Preparer()) : null;
        this.sealer = new OwnCopySealer(config.rank());
    }

    /**
     * The background preparation of the new slot files, own versions first, one slot per cycle (an
     * agent, see {@link AgentThreads}); ends when all are prepared, or between slots at close.
     */
    private final class Preparer implements Agent {
        private int next; // index over [distance][version], in that order

        @Override
        public String roleName() {
            return "jckpt-store-prepare-r" + config.rank();
        }

        @Override
        public int doWork() {
            int versions = slots[0].length;
            ReplicaSlot s = null;
            while (s == null && next < slots.length * versions) {
                ReplicaSlot candidate = slots[next / versions][next % versions];
                next++;
                s = candidate.prepared() ? null : candidate;
            }
            if (closing || s == null) {
                throw new AgentTerminationException();
            }
            try {
                s.prepare();
            } catch (IOException | RuntimeException e) {
                // not fatal here: the slot's first write prepares it again and reports the error
                LOG.warn("rank {}: preparing {} in the background failed: {}", config.rank(), s.path(), e.toString());
            }
            return 1;
        }
    }

    /**
     * Opens (or reopens after a crash) the store of {@code config.rank()}.
     *
     * @param config the configuration
     * @return the open store
     * @throws StoreCapacityException if the store does not fit the memory cap or the file system
     * @throws IOException            if the directory cannot be created, is in use by another live
     *                                process, or a slot file cannot be mapped
     */
    public static ReplicaStore open(ReplicaStoreConfig config) throws IOException {
        return open(config, Verification.EVERY_COPY);
    }

    /** How much of a reopened store is CRC-verified at open. */
    public enum Verification {
        /** Every COMPLETE slot. */
        EVERY_COPY,
        /**
         * Per owner, the COMPLETE slots newest round first until one verifies; the older versions
         * are verified when first asked for ({@link #find}, {@link #copiesAsVerified()}). A recovery
         * needs the newest copies first: planning with them alone either finds the newest round
         * every rank can restore or finds none (then the older copies are read and it plans again),
         * so a recovery reads one copy per owner instead of every version.
         */
        NEWEST_PER_OWNER
    }

    /**
     * Opens (or reopens after a crash) the store of {@code config.rank()}.
     *
     * @param config       the configuration
     * @param verification what is CRC-verified at open
     * @return the open store
     * @throws StoreCapacityException if the store does not fit the memory cap or the file system
     * @throws IOException            if the directory cannot be created, is in use by another live
     *                                process, or a slot file cannot be mapped
     */
    public static ReplicaStore open(ReplicaStoreConfig config, Verification verification) throws IOException {
        long fileSize = fileSize(config.slotCapacity());
        long required = config.requiredBytes();
        if (required > config.memoryCap()) {
            throw new StoreCapacityException("rank " + config.rank() + ": the in-memory store needs (m+1) x versions x slot = "
                    + (config.replicas() + 1) + " x " + config.versionsKept() + " x " + fileSize + " = " + required
                    + " bytes, more than the configured cap of " + config.memoryCap() + " bytes");
        }
        Path dir = config.directory();
        createPrivateDirectories(dir);
        FileChannel lockChannel = FileChannel.open(dir.resolve("store.lock"), Set.of(StandardOpenOption.CREATE,
                StandardOpenOption.WRITE), perms(FILE_PERMS));
        FileLock lock;
        try {
            lock = lockChannel.tryLock();
        } catch (OverlappingFileLockException e) {
            lock = null;
        }
        if (lock == null) {
            lockChannel.close();
            throw new IOException("replica store " + dir + " is in use by another live process or store");
        }
        // each thread (caller, agent, sealer, recovery) its own MAC engine of the job's image key
        ThreadLocal<ImageMac> macs = config.imageKey() == null ? null : ThreadLocal.withInitial(config.imageKey()::newMac);
        Supplier<ImageMac> mac = macs == null ? null : macs::get;
        try {
            long existing = 0;
            for (int d = 0; d <= config.replicas(); d++) {
                for (int v = 0; v < config.versionsKept(); v++) {
                    Path p = slotPath(dir, config.ownerAt(d), v);
                    if (Files.exists(p)) {
                        existing += Files.size(p);
                    }
                }
            }
            long usable = usableSpace(dir);
            if (required - existing > usable) {
                throw new StoreCapacityException("rank " + config.rank() + ": the in-memory store needs " + required
                        + " bytes in " + dir + " but its file system has only " + usable + " bytes free");
            }
            ReplicaSlot[][] slots = new ReplicaSlot[config.replicas() + 1][config.versionsKept()];
            int torn = 0;
            int corrupt = 0;
            for (int d = 0; d <= config.replicas(); d++) {
                int owner = config.ownerAt(d);
                List<ReplicaSlot> complete = new ArrayList<>();
                for (int v = 0; v < config.versionsKept(); v++) {
                    // the first own version now; the rest in the background (or at their first write)
                    ReplicaSlot s = mapSlot(slotPath(dir, owner, v), v, config.slotCapacity(), fileSize, d == 0 && v == 0,
                            mac);
                    slots[d][v] = s;
                    int state = s.state();
                    if (state == STATE_WRITING) {
                        LOG.warn("rank {}: torn slot discarded after a crash: {}", config.rank(), s);
                        s.discard();
                        torn++;
                    } else if (state == STATE_COMPLETE) {
                        complete.add(s);
                    } else if (state != STATE_EMPTY) {
                        s.discard();
                    }
                }
                complete.sort(Comparator.comparingLong(ReplicaSlot::round).reversed());
                boolean intactFound = false;
                for (ReplicaSlot s : complete) {
                    if (intactFound && verification == Verification.NEWEST_PER_OWNER) {
                        break; // older versions: read when first asked for
                    }
                    if (verifyHeld(s, owner)) {
                        intactFound = true;
                    } else {
                        LOG.warn("rank {}: {} (rank {}'s round {}) not trusted: {}", config.rank(), s.path(), owner,
                                s.round(), s.problem());
                        corrupt++;
                    }
                }
            }
            return new ReplicaStore(config, slots, lockChannel, lock, torn, corrupt);
        } catch (IOException | RuntimeException e) {
            lock.release();
            lockChannel.close();
            throw e;
        }
    }

    private static ReplicaSlot mapSlot(Path p, int version, long capacity, long fileSize, boolean prepareNew,
                                       Supplier<ImageMac> macs) throws IOException {
        boolean fresh = !Files.exists(p);
        FileChannel ch = FileChannel.open(p, Set.of(StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE), perms(FILE_PERMS));
        try {
            long size = ch.size();
            if (!fresh && size != fileSize && size != 0) {
                throw new StoreCapacityException("slot file " + p + " has " + size + " bytes, the configuration needs "
                        + fileSize + "; the slot capacity changed: wipe the store or use the earlier capacity");
            }
            boolean created = size != fileSize;
            if (created) {
                ch.truncate(0);
                ch.write(ByteBuffer.allocate(PAGE), 0); // the header's page; the rest is allocated by prepare()
                ch.write(ByteBuffer.allocate(1), fileSize - 1);
            }
            ReplicaSlot s = new ReplicaSlot(p, version, ch, SlotMapping.map(ch, fileSize), capacity, created, macs);
            if (!created || prepareNew) {
                s.prepare();
            }
            if (!s.headerValid()) {
                if (s.state() != STATE_EMPTY && !fresh) {
                    LOG.warn("slot file {} has an unknown header; reinitialised", p);
                }
                s.discard();
                s.initialiseHeader();
            }
            return s;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /**
     * Gives a slot file's pages in {@code [from, to)} their memory with write(2) of zeros in large
     * chunks: the kernel allocates them about twice as fast as one page fault per page through the
     * mapping would (measured on /dev/shm), and a full file system is a clean IOException here
     * rather than a SIGBUS in a later write through the mapping. Only for a region never written.
     */
    static void allocate(FileChannel ch, long from, long to) throws IOException {
        ByteBuffer zeros = ByteBuffer.allocateDirect((int) Math.min(Math.max(to - from, 1), ALLOCATE_CHUNK));
        try {
            for (long pos = from; pos < to; ) {
                zeros.clear().limit((int) Math.min(zeros.capacity(), to - pos));
                pos += ch.write(zeros, pos);
            }
        } finally {
            Unmapper.free(zeros);
        }
    }

    private static Path slotPath(Path dir, int owner, int version) {
        return dir.resolve("o" + owner + "-v" + version + ".slot");
    }

    private static FileAttribute<?>[] perms(Set<PosixFilePermission> p) {
        return new FileAttribute<?>[] {PosixFilePermissions.asFileAttribute(p)};
    }

    /**
     * Creates {@code dir} and its missing parents readable by the owner only (rwx------), as every
     * node-local directory of the job is; tolerates another rank or launcher creating them at the same
     * moment.
     *
     * @param dir the directory
     * @throws IOException when it cannot be created or is not a writable directory
     */
    public static void createPrivateDirectories(Path dir) throws IOException {
        Path abs = dir.toAbsolutePath();
        List<Path> missing = new ArrayList<>();
        for (Path p = abs; p != null && !Files.exists(p); p = p.getParent()) {
            missing.add(0, p);
        }
        for (Path p : missing) {
            try {
                Files.createDirectory(p, PosixFilePermissions.asFileAttribute(DIR_PERMS));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // created concurrently by another rank: fine
            }
        }
        if (!Files.isDirectory(abs) || !Files.isWritable(abs)) {
            throw new IOException(abs + " is not a writable directory");
        }
        Files.setPosixFilePermissions(abs, DIR_PERMS);
    }

    /** @return the configuration */
    public ReplicaStoreConfig config() {
        return config;
    }

    /** @return this rank */
    public int rank() {
        return config.rank();
    }

    /** @return how many torn (WRITING) slots were found and discarded at open */
    public int tornFoundAtOpen() {
        return tornFound;
    }

    /** @return how many COMPLETE slots failed verification at open */
    public int corruptFoundAtOpen() {
        return corruptFound;
    }

    /**
     * @param owner an owner rank
     * @return true if this store holds slots for that owner (this rank or one of its m predecessors)
     */
    public boolean holds(int owner) {
        return distanceOf(owner) >= 0;
    }

    private int distanceOf(int owner) {
        if (owner < 0 || owner >= config.ranks()) {
            return -1;
        }
        int d = config.distanceFrom(owner);
        return d <= config.replicas() ? d : -1;
    }

    private ReplicaSlot[] versionsOf(int owner) {
        int d = distanceOf(owner);
        if (d < 0) {
            throw new IllegalArgumentException("rank " + config.rank() + " holds no copies of rank " + owner
                    + " (m=" + config.replicas() + ")");
        }
        return slots[d];
    }

    /**
     * The slot the next write for {@code owner} will use: among the slots without a write in progress,
     * one that is not COMPLETE, else a corrupt one, else the COMPLETE one with the oldest round.
     *
     * @param owner an owner rank held here
     * @return the slot, or null if every version has a write in progress
     */
    public synchronized ReplicaSlot nextWritable(int owner) {
        requireOpen();
        ReplicaSlot best = null;
        for (ReplicaSlot s : versionsOf(owner)) {
            if (s.inUse()) {
                continue;
            }
            if (s.state() != STATE_COMPLETE || s.corrupt()) {
                return s;
            }
            if (best == null || s.round() < best.round()) {
                best = s;
            }
        }
        return best;
    }

    /**
     * Begins writing an image for (owner, round) into {@link #nextWritable(int)}, never the newest
     * complete version. The returned slot is WRITING; fill {@link ReplicaWrite#image()} and
     * {@link ReplicaWrite#commit()} it.
     *
     * @param owner  owner rank (this rank or a predecessor within m)
     * @param round  the round; must be newer than every complete round held for the owner
     * @param length image length
     * @return the write in progress
     * @throws StoreCapacityException if the image exceeds the slot capacity
     * @throws IllegalStateException  if the round is not newer than a complete round held
     */
    public synchronized ReplicaWrite beginWrite(int owner, long round, long length) {
        requireOpen();
        if (length > config.slotCapacity() || length < 0) {
            throw new StoreCapacityException("rank " + owner + " round " + round + ": image of " + length
                    + " bytes exceeds the slot capacity of " + config.slotCapacity() + " bytes");
        }
        ReplicaSlot newest = newestComplete(owner);
        if (newest != null && newest.round() >= round) {
            throw new IllegalStateException("rank " + config.rank() + " already holds complete round " + newest.round()
                    + " of rank " + owner + "; cannot write round " + round + " (discard newer rounds after a rollback)");
        }
        ReplicaSlot slot = nextWritable(owner);
        if (slot == null || slot == newest) {
            throw new IllegalStateException("rank " + config.rank() + ": no free version for rank " + owner + " round "
                    + round + " (every other version has a write in progress)");
        }
        if (retention.any() && retention.of(slot) > 0) {
            throw new IllegalStateException("rank " + config.rank() + ": cannot write round " + round + " of rank "
                    + owner + " into " + slot.path() + ": it is retained (round " + slot.round()
                    + " is still read, e.g. by a disk flush); awaitReleased it first");
        }
        try {
            slot.prepare(); // at once unless the background thread has not reached it yet
        } catch (IOException e) {
            throw new StoreCapacityException("rank " + config.rank() + ": cannot allocate " + slot.path() + ": "
                    + e.getMessage());
        }
        slot.begin(owner, round, length);
        return new ReplicaWrite(slot, owner, round, length);
    }

    /**
     * @param owner an owner rank held here
     * @return the newest COMPLETE, not known corrupt, slot of that owner, or null
     */
    public synchronized ReplicaSlot newestComplete(int owner) {
        requireOpen();
        ReplicaSlot best = null;
        for (ReplicaSlot s : versionsOf(owner)) {
            if (s.completeAndIntact() && (best == null || s.round() > best.round())) {
                best = s;
            }
        }
        return best;
    }

    /**
     * @param owner an owner rank
     * @param round a round
     * @return the COMPLETE, not known corrupt, slot holding that copy, or null
     */
    public synchronized ReplicaSlot find(int owner, long round) {
        requireOpen();
        if (!holds(owner)) {
            return null;
        }
        for (ReplicaSlot s : versionsOf(owner)) {
            if (s.completeAndIntact() && s.round() == round) {
                // an older version a NEWEST_PER_OWNER open did not read (or a received copy whose MAC is not
                // checked yet) is verified before it is handed out
                if (s.verified() || verifyHeld(s, owner)) {
                    return s;
                }
                LOG.warn("rank {}: {} (rank {}'s round {}) not trusted: {}", config.rank(), s.path(), owner, round,
                        s.problem());
                return null;
            }
        }
        return null;
    }

    /**
     * @param owner an owner rank
     * @param round a round
     * @return the COMPLETE slot said to hold that copy, trusted or not (for its {@link ReplicaSlot#problem()}), or null
     */
    synchronized ReplicaSlot slotOf(int owner, long round) {
        requireOpen();
        if (holds(owner)) {
            for (ReplicaSlot s : versionsOf(owner)) {
                if (s.state() == STATE_COMPLETE && s.round() == round) {
                    return s;
                }
            }
        }
        return null;
    }

    /**
     * Retains a slot of this store for a reader outside it (a disk flush of its round): the store does
     * not write into it until every retain is {@link #release released}. A slot may be retained several
     * times (one round being flushed, one pending).
     *
     * @param slot a slot of this store
     * @return the retain, to give back to {@link #release}
     * @throws IllegalArgumentException if {@code slot} is not one of this store's slots
     * @throws IllegalStateException    if the store is closed
     */
    public RetainedSlot retain(ReplicaSlot slot) {
        requireOpen();
        requireOwn(slot, "retain");
        RetainedSlot retained = new RetainedSlot(this, slot, slot.round());
        retention.retain(slot);
        return retained;
    }

    /**
     * Gives back one retain; wakes {@link #awaitReleased} waiters when it was the slot's last. Allowed
     * after {@link #close()} (a flush may end after the store was closed): the close left the slot mapped
     * for its reader, and its last release unmaps it.
     *
     * @param retained a retain made by this store's {@link #retain}
     * @throws IllegalArgumentException if {@code retained} was made by another store
     * @throws IllegalStateException    if it was released already
     */
    public void release(RetainedSlot retained) {
        if (retained.store() != this) {
            throw new IllegalArgumentException("rank " + config.rank() + ": cannot release the " + retained
                    + ": it was made by another store (rank " + retained.store().rank() + ", "
                    + retained.store().config().directory() + "), not this one (" + config.directory() + ")");
        }
        SlotRetention.Released released = retention.release(retained);
        if (released == SlotRetention.Released.ALREADY) {
            throw new IllegalStateException("rank " + config.rank() + ": the " + retained + " of " + retained.slot().path()
                    + " was already released");
        }
        if (released == SlotRetention.Released.LAST_AFTER_CLOSE) {
            unmap(retained.slot()); // the store was closed while this reader still read it
        }
    }

    /**
     * @return whether a slot of this store is retained (no lock taken): the store must stay open meanwhile
     */
    public boolean retainsAny() {
        return retention.any();
    }

    /**
     * @param slot a slot of this store
     * @return how many retains it holds
     * @throws IllegalArgumentException if {@code slot} is not one of this store's slots
     */
    public int retainsOf(ReplicaSlot slot) {
        requireOwn(slot, "count the retains of");
        return retention.of(slot);
    }

    /**
     * Waits until {@code slot} is retained no more (before it is written again).
     *
     * @param slot    a slot of this store; null returns true at once
     * @param timeout the bound
     * @return whether the slot is free; false if still retained after {@code timeout}
     * @throws IllegalArgumentException if {@code slot} is not one of this store's slots
     * @throws InterruptedException     if interrupted while waiting
     */
    public boolean awaitReleased(ReplicaSlot slot, Duration timeout) throws InterruptedException {
        if (slot == null) {
            return true;
        }
        requireOwn(slot, "await the release of");
        return !retention.any() || retention.awaitReleased(slot, timeout);
    }

    private void requireOwn(ReplicaSlot slot, String what) {
        for (ReplicaSlot[] versions : slots) {
            for (ReplicaSlot s : versions) {
                if (s == slot) {
                    return;
                }
            }
        }
        throw new IllegalArgumentException("rank " + config.rank() + ": cannot " + what + " " + slot.path()
                + " (round " + slot.round() + "): not a slot of this store (" + config.directory() + ")");
    }

    /**
     * Verifies a COMPLETE slot held for {@code owner}: CRC32C, header, MAC (with a key), and that the
     * header names that owner.
     */
    private static boolean verifyHeld(ReplicaSlot s, int owner) {
        boolean ok = s.verify();
        if (ok && s.owner() != owner) {
            s.markCorrupt("its header names rank " + s.owner() + ", its file rank " + owner);
            ok = false;
        }
        return ok;
    }

    /**
     * Hands an own write, filled, to the store's sealing agent ({@link OwnCopySealer}, thread
     * {@code jckpt-store-seal-r<rank>}): it seals the image (its MAC, with the job's key), computes its
     * CRC32C and marks it COMPLETE, off the caller's thread. Until then a crash of this process loses this
     * round's copy (the previous version stays intact); {@link #awaitCommitted} waits for it. For a rank
     * without a replication agent (m = 0), whose agent does this otherwise.
     *
     * @param write an own write from {@link #beginWrite}, filled; the agent's from now on
     * @throws IllegalStateException if the store is closed
     */
    public void commitInBackground(ReplicaWrite write) {
        if (write.owner() != config.rank()) {
            throw new IllegalArgumentException("rank " + config.rank() + ": not an own write: rank " + write.owner());
        }
        sealer.submit(write);
    }

    /**
     * Waits (bounded) until every write handed to {@link #commitInBackground} is committed.
     *
     * @param timeout the bound
     * @return whether none is pending any more
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitCommitted(Duration timeout) throws InterruptedException {
        return sealer.awaitIdle(timeout);
    }

    /**
     * What this store vouches for without reading anything: every copy verified in this process (at
     * open, or as it was written or received) and every copy found corrupt; the older versions a
     * {@link Verification#NEWEST_PER_OWNER} open left unread are not in it.
     *
     * @return the copies, by owner and round
     */
    public synchronized List<CopyStatus> copiesVerifiedSoFar() {
        return copies(CopyRead.NONE);
    }

    /**
     * Re-verifies every COMPLETE slot and reports what this store holds, for the status exchange.
     * Copies failing verification are reported with {@code intact = false}.
     *
     * @return the copies held
     */
    public synchronized List<CopyStatus> verifiedCopies() {
        return copies(CopyRead.AGAIN);
    }

    /**
     * What this store holds, each COMPLETE slot verified unless it was verified earlier in this process
     * (at open, or when its image was written or received) and not written since: for a recovery
     * that opened the store itself, so every copy is read once, not once per step.
     *
     * @return the copies held
     */
    public synchronized List<CopyStatus> copiesAsVerified() {
        return copies(CopyRead.ONCE);
    }

    /** How {@link #copies} treats a COMPLETE slot's image. */
    enum CopyRead {
        /** Read and verified again. */
        AGAIN,
        /** Verified unless already verified in this process. */
        ONCE,
        /** Not read: reported only when verified or found corrupt already. */
        NONE
    }

    synchronized List<CopyStatus> copies(CopyRead read) {
        requireOpen();
        List<CopyStatus> out = new ArrayList<>();
        for (ReplicaSlot[] versions : slots) {
            for (ReplicaSlot s : versions) {
                if (s.state() != STATE_COMPLETE || read == CopyRead.NONE && !s.verified() && !s.corrupt()) {
                    continue;
                }
                boolean ok = switch (read) {
                    case AGAIN -> s.verify();
                    case ONCE -> s.verifyUnlessVerified();
                    case NONE -> s.verified() && !s.corrupt();
                };
                if (s.owner() >= 0 && s.owner() < config.ranks() && s.round() >= 0 && s.length() >= 0) {
                    out.add(new CopyStatus(s.owner(), s.round(), s.length(), s.crc32c(), ok));
                }
            }
        }
        out.sort(Comparator.comparingInt(CopyStatus::owner).thenComparingLong(CopyStatus::round));
        return out;
    }

    /**
     * @param fresh whether this process is re-spawned
     * @return this rank's status for the exchange (verifies every copy)
     */
    public RankStatus rankStatus(boolean fresh) {
        return new RankStatus(config.rank(), fresh, verifiedCopies());
    }

    /**
     * @param fresh    whether this process is re-spawned
     * @param reverify read every copy again ({@link #verifiedCopies()}), or trust a verification done
     *                 earlier in this process ({@link #copiesAsVerified()})
     * @return this rank's status for the exchange
     */
    public RankStatus rankStatus(boolean fresh, boolean reverify) {
        return new RankStatus(config.rank(), fresh, reverify ? verifiedCopies() : copiesAsVerified());
    }

    /**
     * Discards every copy of a round newer than {@code round} (after a rollback to it), so the
     * re-executed rounds can be written again.
     *
     * @param round the round rolled back to
     * @return how many slots were discarded
     */
    public synchronized int discardNewerThan(long round) {
        requireOpen();
        int n = 0;
        for (ReplicaSlot[] versions : slots) {
            for (ReplicaSlot s : versions) {
                if (s.state() != STATE_EMPTY && s.round() > round) {
                    s.discard();
                    n++;
                }
            }
        }
        return n;
    }

    private void requireOpen() {
        if (closed) {
            throw new IllegalStateException("replica store of rank " + config.rank() + " is closed");
        }
    }

    /**
     * Unmaps the slots and releases the lock; the files stay (they are the point). A slot still retained
     * stays mapped until its last {@link #release}: a reader that outlived its wait never reads unmapped memory.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        closing = true;
        // the own copies handed over are complete in memory: the sealer commits them before it ends
        if (!sealer.close(10_000)) {
            LOG.error("rank {}: the sealing agent did not stop within 10 s; mappings left to the GC", config.rank());
            releaseLock();
            return;
        }
        // never interrupted: that would close the slot file it is preparing
        if (preparer != null && !AgentThreads.close(preparer, 10_000)) {
            // it may still touch the mappings: leave them to the GC rather than unmap under it
            LOG.error("rank {}: slot preparation did not stop within 10 s; mappings left to the GC", config.rank());
            releaseLock();
            return;
        }
        List<ReplicaSlot> all = new ArrayList<>();
        for (ReplicaSlot[] versions : slots) {
            all.addAll(List.of(versions));
        }
        // a slot a reader still retains (a disk flush that outlived its wait) stays mapped until its last release
        for (ReplicaSlot s : retention.close(all)) {
            unmap(s);
        }
        releaseLock();
    }

    private static void unmap(ReplicaSlot s) {
        try {
            s.channel().close();
        } catch (IOException e) {
            LOG.debug("closing {}", s.path(), e);
        }
        s.unmap();
    }

    private void releaseLock() {
        try {
            lock.release();
            lockChannel.close();
        } catch (IOException e) {
            LOG.debug("releasing store lock", e);
        }
    }

    /**
     * The bytes this process may still allocate on the file system of a directory: one statvfs call.
     * Not {@code Files.getFileStore(dir).getUsableSpace()}, which first reads the whole mount table
     * (~0.1 ms, on every store open of a recovery's critical path).
     *
     * @param dir an existing directory
     * @return its file system's usable bytes
     * @throws IOException if {@code dir} is not a directory
     */
    public static long usableSpace(Path dir) throws IOException {
        long usable = dir.toFile().getUsableSpace();
        if (usable == 0 && !Files.isDirectory(dir)) { // 0 is also what File reports for a missing path
            throw new java.nio.file.NotDirectoryException(dir.toString());
        }
        return usable;
    }

    /**
     * Deletes a store directory and everything in it (node loss, or the end of a job).
     *
     * @param dir the store directory
     * @throws IOException if deleting fails
     */
    public static void wipe(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> walk = Files.walk(dir)) {
            for (Path p : walk.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /**
     * Releases a mapping at once instead of waiting for GC (the JDK's supported cleaner hook). Not
     * Agrona's {@code IoUtil.unmap}: Agrona 2 reaches {@code jdk.internal.misc.Unsafe}, which needs an
     * {@code --add-exports} the user's own JVM (an in-process or multicore rank) does not have.
     */
    static final class Unmapper {
        private static final Object UNSAFE;
        private static final Method INVOKE_CLEANER;

        static {
            Object u = null;
            Method m = null;
            try {
                Class<?> c = Class.forName("sun.misc.Unsafe");
                Field f = c.getDeclaredField("theUnsafe");
                f.setAccessible(true);
                u = f.get(null);
                m = c.getMethod("invokeCleaner", ByteBuffer.class);
            } catch (ReflectiveOperationException | RuntimeException e) {
                LOG.debug("no explicit unmapping; mappings are released by GC", e);
            }
            UNSAFE = u;
            INVOKE_CLEANER = m;
        }

        private Unmapper() {
        }

        /** Frees a direct buffer at once (the same cleaner hook). */
        static void free(ByteBuffer b) {
            if (INVOKE_CLEANER != null && b.isDirect()) {
                try {
                    INVOKE_CLEANER.invoke(UNSAFE, b);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    LOG.debug("free failed", e);
                }
            }
        }

        static void unmap(MappedByteBuffer b) {
            if (INVOKE_CLEANER != null) {
                try {
                    INVOKE_CLEANER.invoke(UNSAFE, b);
                } catch (ReflectiveOperationException | RuntimeException e) {
                    LOG.debug("unmap failed", e);
                }
            }
        }
    }
}
