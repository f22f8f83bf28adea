package io.jckpt.disk;

import io.jckpt.image.ImageKey;
import java.nio.file.Path;
import java.util.Objects;

/**
 * Where and as whom a {@link GenerationStore} works.
 *
 * @param root           the stable-storage root; the job's directory is {@code root/jobId}
 * @param jobId          the job id (letters, digits, '.', '_', '-'; at most 64)
 * @param rank           this process's rank
 * @param worldSize      the number of ranks of this run
 * @param writeChunkSize bytes per write call (large sequential writes; the CRC is computed on the
 *                       same chunk just before it is written, while it is in cache)
 * @param channelOpener  how files are opened for writing (a seam for fault injection)
 * @param epoch          the world (epoch) this process's rank belongs to: written into its rank files, and
 *                       the only epoch whose files a commit of this store vouches for (0 by default)
 * @param imageKey       the job's image key: the images are checkpoint images, and a rank's file is trusted
 *                       only when its image's MAC verifies with it and the image is that rank's of that
 *                       round; null: opaque images, CRC32C only
 */
public record DiskStoreConfig(Path root, String jobId, int rank, int worldSize, int writeChunkSize,
                              ChannelOpener channelOpener, int epoch, ImageKey imageKey) {
    /** Default bytes per write call: 4 MiB (measured by FlushBench: fewer calls beat a CRC chunk that fits L2). */
    public static final int DEFAULT_WRITE_CHUNK_SIZE = 4 << 20;

    /**
     * Validates the values.
     *
     * @param root           root directory
     * @param jobId          job id
     * @param rank           rank
     * @param worldSize      world size
     * @param writeChunkSize bytes per write call
     * @param channelOpener  channel opener
     * @param epoch          epoch, not negative
     * @param imageKey       the job's image key, or null
     */
    public DiskStoreConfig {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(channelOpener, "channelOpener");
        if (!GenerationLayout.JOB_ID.matcher(Objects.requireNonNull(jobId, "jobId")).matches()) {
            throw new IllegalArgumentException("job id must match " + GenerationLayout.JOB_ID.pattern() + ": '" + jobId + "'");
        }
        if (worldSize < 1 || worldSize > CommitMarkerDescriptor.MAX_WORLD_SIZE) {
            throw new IllegalArgumentException("world size " + worldSize + " out of range [1, "
                + CommitMarkerDescriptor.MAX_WORLD_SIZE + "]");
        }
        if (rank < 0 || rank >= worldSize) {
            throw new IllegalArgumentException("rank " + rank + " out of range [0, " + worldSize + ")");
        }
        if (writeChunkSize < 4096) {
            throw new IllegalArgumentException("write chunk size " + writeChunkSize + " below 4096");
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("epoch " + epoch + " is negative");
        }
    }

    /**
     * @param root      root directory
     * @param jobId     job id
     * @param rank      rank
     * @param worldSize world size
     * @return a configuration with default chunk size and channel opener
     */
    public static DiskStoreConfig of(final Path root, final String jobId, final int rank, final int worldSize) {
        return new DiskStoreConfig(root, jobId, rank, worldSize, DEFAULT_WRITE_CHUNK_SIZE, ChannelOpener.DEFAULT, 0, null);
    }

    /**
     * @param opener another channel opener
     * @return a copy using it
     */
    public DiskStoreConfig withChannelOpener(final ChannelOpener opener) {
        return new DiskStoreConfig(root, jobId, rank, worldSize, writeChunkSize, opener, epoch, imageKey);
    }

    /**
     * @param chunkSize another write chunk size
     * @return a copy using it
     */
    public DiskStoreConfig withWriteChunkSize(final int chunkSize) {
        return new DiskStoreConfig(root, jobId, rank, worldSize, chunkSize, channelOpener, epoch, imageKey);
    }

    /**
     * @param worldEpoch the epoch (MPJ world) of the rank using the store
     * @return a copy for it
     */
    public DiskStoreConfig withEpoch(final int worldEpoch) {
        return new DiskStoreConfig(root, jobId, rank, worldSize, writeChunkSize, channelOpener, worldEpoch, imageKey);
    }

    /**
     * @param key the job's image key
     * @return a copy whose rank files are trusted only when their image is authenticated with it
     */
    public DiskStoreConfig withImageKey(final ImageKey key) {
        return new DiskStoreConfig(root, jobId, rank, worldSize, writeChunkSize, channelOpener, epoch, key);
    }
}
