package io.jckpt.disk;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One rank's checkpoint as an opaque byte region (it carries its own internal checksum as well;
 * this module wraps it in its own header and CRC32C). Usually a view of the rank's local
 * checkpoint copy: the owner must not change those bytes until {@link #release()} is called.
 */
public interface CheckpointImage {

    /**
     * @return the image length in bytes
     */
    long length();

    /**
     * A view of part of the image. The returned buffer's position..limit is exactly the region;
     * the caller may move its position but never writes through it.
     *
     * @param offset offset in the image
     * @param length number of bytes, at most {@link Integer#MAX_VALUE}
     * @return a buffer over the region
     */
    ByteBuffer region(long offset, int length);

    /**
     * Waits until the image is complete: the {@link DiskFlusher} reads none of its bytes before (a memory
     * slot handed over before its MAC is written, for example). The wait is bounded by the image's owner.
     * The default is complete at once.
     *
     * @return whether the image is complete; false when it never will be (its write was abandoned) or not in time
     * @throws InterruptedException if interrupted while waiting
     */
    default boolean awaitComplete() throws InterruptedException {
        return true;
    }

    /**
     * The same bytes, complete only once {@code complete} says so ({@link #awaitComplete()}).
     *
     * @param complete waits (bounded) until the image is complete; true when it is
     * @return an image over the same bytes
     */
    default CheckpointImage completeWhen(final Completion complete) {
        return new Forwarding(this) {
            @Override
            public boolean awaitComplete() throws InterruptedException {
                return super.awaitComplete() && complete.await();
            }
        };
    }

    /** Waits, bounded, until an image is complete ({@link #completeWhen}). */
    @FunctionalInterface
    interface Completion {
        /**
         * @return whether the image is complete
         * @throws InterruptedException if interrupted while waiting
         */
        boolean await() throws InterruptedException;
    }

    /**
     * Called once by the {@link DiskFlusher} when it no longer reads the image (flushed, failed,
     * skipped or coalesced away). {@link GenerationStore#write} never calls it: a direct caller
     * owns the image throughout. The default does nothing.
     */
    default void release() {
    }

    /**
     * The same bytes, with {@code action} run after this image's own {@link #release()}: how the owner of
     * the bytes learns that the flusher is done with them (the two-level policy releases the memory slot
     * it retained in its store).
     *
     * @param action run once, when the returned image is released
     * @return an image over the same bytes
     */
    default CheckpointImage withRelease(final Runnable action) {
        return new Forwarding(this) {
            @Override
            public void release() {
                try {
                    super.release();
                } finally {
                    action.run();
                }
            }
        };
    }

    /**
     * An image over another image's bytes that forwards every call to it: what {@link #completeWhen} and
     * {@link #withRelease} add to an image overrides one call of it.
     */
    class Forwarding implements CheckpointImage {
        private final CheckpointImage image;

        /** @param image the image every call goes to */
        protected Forwarding(final CheckpointImage image) {
            this.image = image;
        }

        @Override
        public long length() {
            return image.length();
        }

        @Override
        public ByteBuffer region(final long offset, final int length) {
            return image.region(offset, length);
        }

        @Override
        public boolean awaitComplete() throws InterruptedException {
            return image.awaitComplete();
        }

        @Override
        public void release() {
            image.release();
        }
    }

    /**
     * @param buffer the image is {@code buffer}'s position..limit (heap, direct or mapped)
     * @return an image over it; the buffer's own position and limit are not changed
     */
    static CheckpointImage of(final ByteBuffer buffer) {
        final ByteBuffer view = buffer.slice();
        return new CheckpointImage() {
            @Override
            public long length() {
                return view.capacity();
            }

            @Override
            public ByteBuffer region(final long offset, final int length) {
                return view.slice(Math.toIntExact(offset), length);
            }
        };
    }

    /**
     * An image stored in a file region (for example a memory-mapped local checkpoint copy),
     * mapped read-only in windows of at most 1 GiB, so images may exceed 2 GiB.
     *
     * @param channel  an open channel; the caller keeps ownership
     * @param position the first image byte in the file
     * @param length   the image length
     * @return an image over the region
     */
    static CheckpointImage ofFileRegion(final FileChannel channel, final long position, final long length) {
        final long window = 1L << 30;
        return new CheckpointImage() {
            private MappedByteBuffer mapped;
            private long mappedStart = -1;
            private long mappedLength;

            @Override
            public long length() {
                return length;
            }

            @Override
            public synchronized ByteBuffer region(final long offset, final int regionLength) {
                if (offset < 0 || regionLength < 0 || offset + regionLength > length) {
                    throw new IndexOutOfBoundsException("region " + offset + "+" + regionLength + " of " + length);
                }
                if (mapped == null || offset < mappedStart || offset + regionLength > mappedStart + mappedLength) {
                    mappedStart = offset;
                    mappedLength = Math.min(Math.max(window, regionLength), length - offset);
                    try {
                        mapped = channel.map(FileChannel.MapMode.READ_ONLY, position + mappedStart, mappedLength);
                    } catch (final IOException e) {
                        throw new UncheckedIOException(e);
                    }
                }
                return mapped.slice(Math.toIntExact(offset - mappedStart), regionLength);
            }
        };
    }
}
