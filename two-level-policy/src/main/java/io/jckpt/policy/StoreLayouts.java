package io.jckpt.policy;

import io.jckpt.CkptException;
import io.jckpt.StorageException;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.imem.ReplicaStoreConfig;
import io.jckpt.spi.RingOrder;
import java.io.IOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The layout directories of one rank's node-local store, {@code <store>/layout-<first round>}: found
 * and opened at open, created at a switch (descriptor first, then the slot files), deleted when no
 * longer needed. A store is never resized in place; a new layout replaces it.
 */
final class StoreLayouts {
    private static final Logger LOG = LoggerFactory.getLogger(StoreLayouts.class);
    /** The marker file of {@link #recordRoundCompleteEverywhere()}, beside the layouts. */
    static final String ROUND_COMPLETE_EVERYWHERE = "round-complete-everywhere";

    private final Path storeDirectory;
    private final int rank;
    private final int ranks;
    private final int versionsKept;
    private final long memoryCap;
    private final RingOrder ring;
    /** The job's image key: every store seals and verifies its images with it. */
    private final io.jckpt.image.ImageKey imageKey;

    /** A layout of this node with its store open. */
    record Held(StoreLayout layout, ReplicaStore store) {
    }

    StoreLayouts(Path storeDirectory, int rank, int ranks, int versionsKept, long memoryCap, RingOrder ring,
                 io.jckpt.image.ImageKey imageKey) {
        if (ring.size() != ranks) {
            throw new IllegalArgumentException("ring " + ring.text() + " of " + ring.size() + " ranks for " + ranks + " ranks");
        }
        this.storeDirectory = storeDirectory;
        this.rank = rank;
        this.ranks = ranks;
        this.versionsKept = versionsKept;
        this.memoryCap = memoryCap;
        this.ring = ring;
        this.imageKey = imageKey;
    }

    /** @return the job's replication ring: every layout's store is made on it, and it is recorded in their descriptors */
    RingOrder ring() {
        return ring;
    }

    private Path directory(StoreLayout l) {
        return storeDirectory.resolve(l.directoryName());
    }

    private ReplicaStoreConfig config(StoreLayout l) {
        return new ReplicaStoreConfig(directory(l), rank, ranks, l.replicas(), l.versionsKept(), l.slotCapacity(), memoryCap,
                ring, imageKey);
    }

    /**
     * Opens every layout whose descriptor and slots are sound, oldest first. Anything else in the store
     * directory (a layout whose switch crashed before its descriptor was written, an unusable store,
     * files of an older format) is deleted: it holds nothing restorable. A sound layout made on another
     * replication ring is an error: its slots hold other ranks' copies than this ring says, and the ring
     * must stay the same for the job's life.
     *
     * @throws CkptException if a layout was made on another ring than this job's
     */
    List<Held> openSurviving() throws IOException {
        List<Held> held = new ArrayList<>();
        if (!Files.isDirectory(storeDirectory)) {
            return held;
        }
        List<Path> entries;
        try (Stream<Path> list = Files.list(storeDirectory)) {
            entries = list.sorted().toList();
        }
        for (Path p : entries) {
            if (p.getFileName().toString().equals(ROUND_COMPLETE_EVERYWHERE) && Files.isRegularFile(p)) {
                continue;
            }
            if (Files.isDirectory(p) && p.getFileName().toString().startsWith("layout-")) {
                try {
                    StoreLayoutDescriptor.Decoded d = StoreLayoutDescriptor.read(p, ranks);
                    StoreLayout l = d.layout();
                    if (!d.ring().equals(ring)) {
                        throw new CkptException("rank " + rank + ": the node-local store " + p + " was made on the"
                                + " replication ring " + d.ring().text() + " but this job's ring is " + ring.text()
                                + " (" + RingOrder.ENV_RING_ORDER + ", the launcher's --ring-order): the ring"
                                + " must stay the same for a job's life; restart with the ring " + d.ring().text()
                                + ", or start the job afresh (another job id, or without the store)");
                    }
                    if (!p.getFileName().toString().equals(l.directoryName()) || l.versionsKept() != versionsKept
                            || l.replicas() > ranks - 1) {
                        throw new IllegalArgumentException("layout " + l + " does not fit this job");
                    }
                    // a recovery: the newest copy per owner read now, the older ones if the plan needs them
                    held.add(new Held(l, ReplicaStore.open(config(l), ReplicaStore.Verification.NEWEST_PER_OWNER)));
                    continue;
                } catch (CkptException e) {
                    throw e;
                } catch (IOException | RuntimeException e) {
                    LOG.warn("rank {}: node-local store {} unusable ({}); deleted", rank, p, e.getMessage());
                }
            }
            ReplicaStore.wipe(p);
            Files.deleteIfExists(p);
        }
        held.sort(Comparator.comparingLong(h -> h.layout().firstRound()));
        return held;
    }

    /** Creates the directory, the descriptor, then the slot files of a new layout (a stale one is replaced). */
    ReplicaStore create(StoreLayout l) throws IOException {
        Path dir = directory(l);
        ReplicaStore.wipe(dir);
        ReplicaStore.createPrivateDirectories(dir);
        StoreLayoutDescriptor.write(dir, l, ring);
        try {
            return ReplicaStore.open(config(l));
        } catch (IOException | RuntimeException e) {
            ReplicaStore.wipe(dir);
            throw e;
        }
    }

    /** Rewrites the descriptor of an existing layout (the m asked for changed, nothing else). */
    void record(StoreLayout l) {
        try {
            StoreLayoutDescriptor.write(directory(l), l, ring);
        } catch (IOException e) {
            throw new StorageException(directory(l), "rank " + rank + ": cannot record the store layout: "
                    + e.getMessage(), e);
        }
    }

    /** Deletes a layout's directory (its store must be closed). */
    void delete(StoreLayout l) throws IOException {
        ReplicaStore.wipe(directory(l));
    }

    /**
     * Whether this node recorded that a round of the current run was complete on every rank (the
     * replication ring's global completed round G reached 1 since the job's start or its last clean
     * start). The file lives beside the layouts and goes with them when the node is lost; the
     * library deletes it only at a clean start. It is what tells a recovery that finds no
     * restorable round whether a checkpoint was promised (then it is lost) or never was (a clean
     * start): the stores themselves cannot tell, since a clean start deletes them rank by rank and a
     * node loss leaves the same absence.
     *
     * @return true if recorded
     */
    boolean roundCompleteEverywhereRecorded() {
        return Files.isRegularFile(storeDirectory.resolve(ROUND_COMPLETE_EVERYWHERE));
    }

    /** Records {@link #roundCompleteEverywhereRecorded()} (once per run; an empty owner-only file). */
    void recordRoundCompleteEverywhere() {
        try {
            ReplicaStore.createPrivateDirectories(storeDirectory);
            Files.createFile(storeDirectory.resolve(ROUND_COMPLETE_EVERYWHERE),
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
        } catch (FileAlreadyExistsException e) {
            // recorded already
        } catch (IOException e) {
            throw new StorageException(storeDirectory, "rank " + rank + ": cannot record that a round is complete on"
                    + " every rank: " + e.getMessage(), e);
        }
    }

    /** Forgets {@link #roundCompleteEverywhereRecorded()}: a clean start begins a run with nothing promised. */
    void forgetRoundCompleteEverywhere() throws IOException {
        Files.deleteIfExists(storeDirectory.resolve(ROUND_COMPLETE_EVERYWHERE));
    }

    /** This rank's memory budget: its cap, and the free space of its store's file system (current stores counted). */
    MemoryPolicy.Budget budget() {
        try {
            ReplicaStore.createPrivateDirectories(storeDirectory);
            return new MemoryPolicy.Budget(memoryCap, ReplicaStore.usableSpace(storeDirectory));
        } catch (IOException e) {
            throw new StorageException(storeDirectory, "rank " + rank + ": the node-local store directory is not usable: "
                    + e.getMessage(), e);
        }
    }
}
