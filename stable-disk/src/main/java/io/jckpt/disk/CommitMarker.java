package io.jckpt.disk;

import java.util.List;

/**
 * A durable statement by the coordinator that every rank's file of one round was durable and well
 * formed; it vouches for each rank's file by its image length and CRC (see {@link CommitMarkerDescriptor}).
 *
 * @param jobId             the job
 * @param round             the committed round
 * @param worldSize         the number of ranks that wrote the generation
 * @param committedAtMillis wall-clock time of the commit (informational)
 * @param ranks             one entry per rank, indexed by rank
 */
public record CommitMarker(String jobId, long round, int worldSize, long committedAtMillis, List<RankEntry> ranks) {

    /**
     * What the marker records about one rank's file.
     *
     * @param imageLength the image length in the rank's header
     * @param imageCrc    the image CRC32C in the rank's header
     * @param headerCrc   the header CRC32C of the rank's file
     */
    public record RankEntry(long imageLength, int imageCrc, int headerCrc) {
    }

    /**
     * @param jobId             the job
     * @param round             the committed round
     * @param worldSize         the number of ranks
     * @param committedAtMillis wall-clock time of the commit
     * @param ranks             one entry per rank
     */
    public CommitMarker {
        ranks = List.copyOf(ranks);
        if (ranks.size() != worldSize) {
            throw new IllegalArgumentException("marker of world size " + worldSize + " with " + ranks.size() + " entries");
        }
    }
}
