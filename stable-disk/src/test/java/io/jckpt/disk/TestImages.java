package io.jckpt.disk;

import java.nio.ByteBuffer;
import java.util.SplittableRandom;

/** Deterministic test images. */
final class TestImages {
    private TestImages() {
    }

    static byte[] bytes(final long seed, final int length) {
        final byte[] bytes = new byte[length];
        final SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < length; i += 8) {
            long v = random.nextLong();
            for (int j = 0; j < 8 && i + j < length; j++) {
                bytes[i + j] = (byte)v;
                v >>>= 8;
            }
        }
        return bytes;
    }

    static ByteBuffer direct(final long seed, final int length) {
        return ByteBuffer.allocateDirect(length).put(bytes(seed, length)).flip();
    }

    static byte[] toArray(final ByteBuffer buffer) {
        final byte[] bytes = new byte[buffer.remaining()];
        buffer.duplicate().get(bytes);
        return bytes;
    }

    /** Seed of a rank's image in a round, shared by tests and child processes. */
    static long seed(final long round, final int rank) {
        return round * 1_000_003L + rank;
    }
}
