package io.jckpt.disk;

/**
 * The decoded header of one rank's checkpoint file (see {@link DiskFileDescriptor}).
 *
 * @param jobId       the job the file belongs to
 * @param rank        the rank that wrote it
 * @param worldSize   the number of ranks of the job when it was written
 * @param round       the checkpoint round
 * @param imageLength the length of the image in bytes
 * @param imageCrc    the CRC32C of the image
 * @param headerCrc   the CRC32C of the header (0 before encoding)
 * @param epoch       the epoch (MPJ world) of the rank that wrote it; 0 in files written before epochs were
 *                    recorded (the field was reserved, zero)
 */
public record RankFileHeader(String jobId, int rank, int worldSize, long round, long imageLength, int imageCrc,
                             int headerCrc, int epoch) {
    /**
     * A header of epoch 0.
     *
     * @param jobId       the job
     * @param rank        the rank
     * @param worldSize   the world size
     * @param round       the round
     * @param imageLength the image length
     * @param imageCrc    the image CRC32C
     * @param headerCrc   the header CRC32C
     */
    public RankFileHeader(String jobId, int rank, int worldSize, long round, long imageLength, int imageCrc,
                          int headerCrc) {
        this(jobId, rank, worldSize, round, imageLength, imageCrc, headerCrc, 0);
    }
}
