package io.jckpt.disk;

import java.nio.file.Path;

/**
 * This rank's file of a round, durable on disk (pending until the round is committed).
 *
 * @param round       the round
 * @param path        the file
 * @param imageLength the image length
 * @param imageCrc    the image CRC32C
 * @param nanos       how long the durable write took (write, force, rename, directory sync)
 */
public record FlushedGeneration(long round, Path path, long imageLength, int imageCrc, long nanos) {
}
