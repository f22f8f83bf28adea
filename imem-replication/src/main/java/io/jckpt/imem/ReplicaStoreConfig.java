package io.jckpt.imem;

import io.jckpt.image.ImageKey;
import io.jckpt.spi.RingOrder;

import java.nio.file.Path;

/**
 * Configuration of one rank's {@link ReplicaStore}.
 *
 * @param directory    the rank's own store directory (created owner-only)
 * @param rank         this rank
 * @param ranks        number of ranks n
 * @param replicas     replication degree m (0..n-1): the store holds slots for this rank and its
 *                     m predecessors
 * @param versionsKept versions kept per owner (>= 2, so the previous complete round survives while
 *                     the next is written)
 * @param slotCapacity largest image size in bytes
 * @param memoryCap    upper bound on the bytes the store may occupy
 * @param ring         the replication ring (its size is {@code ranks}): which ranks are this rank's m
 *                     predecessors
 * @param imageKey     the job's image key: the images are checkpoint images, sealed with their MAC when
 *                     this rank completes its own and verified with it before any copy is trusted; null:
 *                     opaque bytes, CRC32C only
 */
public record ReplicaStoreConfig(Path directory, int rank, int ranks, int replicas, int versionsKept,
                                 long slotCapacity, long memoryCap, RingOrder ring, ImageKey imageKey) {
    /** Validates the fields. */
    public ReplicaStoreConfig {
        if (ranks < 1) {
            throw new IllegalArgumentException("ranks must be >= 1: " + ranks);
        }
        if (rank < 0 || rank >= ranks) {
            throw new IllegalArgumentException("rank " + rank + " outside 0.." + (ranks - 1));
        }
        if (replicas < 0 || replicas > ranks - 1) {
            throw new IllegalArgumentException("replication degree m=" + replicas + " must be in 0..n-1=" + (ranks - 1));
        }
        if (versionsKept < 2) {
            throw new IllegalArgumentException("versionsKept must be >= 2: " + versionsKept);
        }
        if (slotCapacity < 0) {
            throw new IllegalArgumentException("slotCapacity must be >= 0: " + slotCapacity);
        }
        if (directory == null) {
            throw new IllegalArgumentException("directory is null");
        }
        if (ring == null) {
            throw new IllegalArgumentException("ring is null");
        }
        if (ring.size() != ranks) {
            throw new IllegalArgumentException("ring " + ring.text() + " has " + ring.size() + " ranks, the job " + ranks);
        }
    }

    /** A configuration of opaque images (no image key). */
    public ReplicaStoreConfig(Path directory, int rank, int ranks, int replicas, int versionsKept, long slotCapacity,
                              long memoryCap, RingOrder ring) {
        this(directory, rank, ranks, replicas, versionsKept, slotCapacity, memoryCap, ring, null);
    }

    /**
     * @param key the job's image key
     * @return this configuration with its images sealed and verified with {@code key}
     */
    public ReplicaStoreConfig withImageKey(ImageKey key) {
        return new ReplicaStoreConfig(directory, rank, ranks, replicas, versionsKept, slotCapacity, memoryCap, ring, key);
    }

    /** A configuration of opaque images on the identity ring (rank order). */
    public ReplicaStoreConfig(Path directory, int rank, int ranks, int replicas, int versionsKept, long slotCapacity,
                              long memoryCap) {
        this(directory, rank, ranks, replicas, versionsKept, slotCapacity, memoryCap, ranks < 1 ? null : RingOrder.identity(ranks),
                null);
    }

    /** @return the bytes the store needs: (m+1) x versionsKept x slot file size */
    public long requiredBytes() {
        return (long) (replicas + 1) * versionsKept * ReplicaSlotDescriptor.fileSize(slotCapacity);
    }

    /**
     * @param d 0 for this rank, 1..m for its predecessors
     * @return the owner rank whose copies are held at ring distance d behind this rank
     */
    public int ownerAt(int d) {
        return ring.predecessor(rank, d);
    }

    /**
     * @param owner a rank
     * @return the ring distance from that owner to this rank (its copies' hop here), 0..n-1
     */
    public int distanceFrom(int owner) {
        return ring.distance(owner, rank);
    }
}
