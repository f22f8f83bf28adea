package io.jckpt.disk;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * Where {@link GenerationStore#readInto(long, ImageSink)} puts an image it reads: chunk by chunk, in
 * order, each already part of the CRC32C being checked, so a destination of any size (off-heap
 * memory above 2 GiB) can take it. The image is verified only when the last chunk has been read:
 * a caller must not use what it received if the read throws.
 */
@FunctionalInterface
public interface ImageSink {
    /**
     * @param offset the offset of these bytes in the image
     * @param bytes  the bytes (position..limit), valid only during the call
     * @throws IOException if the destination fails
     */
    void accept(long offset, ByteBuffer bytes) throws IOException;
}
