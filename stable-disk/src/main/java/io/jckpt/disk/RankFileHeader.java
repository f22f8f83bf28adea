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
 */
public record RankFileHeader(String jobId, int rank, int worldSize, long round, long imageLength, int imageCrc,
                             int headerCrc) {
}
