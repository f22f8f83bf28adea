package io.jckpt.perf;

import io.jckpt.disk.CheckpointImage;
import io.jckpt.disk.DiskFlusher;
import io.jckpt.disk.DiskStoreConfig;
import io.jckpt.disk.FlushListener;
import io.jckpt.disk.GenerationStore;
import io.jckpt.disk.OverlapPolicy;
import io.jckpt.testkit.Baselines;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.SplittableRandom;

import org.apache.commons.io.file.PathUtils;

/**
 * Benchmark main (not a unit test): the stable-disk flush of one rank's image against a raw
 * durable write of the same bytes (one write loop + force + atomic rename onto a new name +
 * directory fsync), interleaved in the same run, medians printed with the ratio flush/raw.
 * Usage: {@code bin/bench --main io.jckpt.perf.FlushBench [directory]}.
 */
public final class FlushBench {
    private FlushBench() {
    }

    /**
     * @param args optional directory to write in (default: a fresh temporary directory)
     * @throws Exception on I/O errors
     */
    public static void main(final String[] args) throws Exception {
        final Path dir = args.length > 0 ? Files.createDirectories(Path.of(args[0])) : Files.createTempDirectory("flushbench");
        try {
            System.out.printf("%-8s %-22s %10s %10s %12s %8s%n", "size", "variant", "raw ms", "flush ms", "flush MB/s", "ratio");
            run(dir, 4 << 20, 21, DiskStoreConfig.DEFAULT_WRITE_CHUNK_SIZE, false);
            run(dir, 4 << 20, 21, DiskStoreConfig.DEFAULT_WRITE_CHUNK_SIZE, true);
            run(dir, 64 << 20, 9, DiskStoreConfig.DEFAULT_WRITE_CHUNK_SIZE, false);
            run(dir, 64 << 20, 9, DiskStoreConfig.DEFAULT_WRITE_CHUNK_SIZE, true);
            run(dir, 4 << 20, 21, 1 << 20, false);
            run(dir, 64 << 20, 9, 1 << 20, false);
        } finally {
            PathUtils.deleteDirectory(dir);
        }
    }

    private static void run(final Path dir, final int size, final int iterations, final int chunk, final boolean viaFlusher)
        throws Exception {
        final ByteBuffer image = image(size, size);
        final GenerationStore store = GenerationStore.open(
            DiskStoreConfig.of(dir, "bench", 0, 1).withWriteChunkSize(chunk));
        final DiskFlusher flusher = viaFlusher ? DiskFlusher.start(store, OverlapPolicy.COALESCE, FlushListener.NONE) : null;
        final long[] raw = new long[iterations];
        final long[] flush = new long[iterations];
        try {
            for (int i = -2; i < iterations; i++) { // two warm-up rounds
                final long r = Baselines.durableWrite(dir, image, size, i + 2);
                final long f = flush(store, flusher, i + 2, image);
                if (i >= 0) {
                    raw[i] = r;
                    flush[i] = f;
                }
                Files.deleteIfExists(store.layout().rankFile(i + 2, 0));
            }
        } finally {
            if (flusher != null) {
                flusher.close();
            }
        }
        final double rawMs = median(raw) / 1e6;
        final double flushMs = median(flush) / 1e6;
        System.out.printf("%-8s %-22s %10.2f %10.2f %12.0f %8.2f%n", (size >> 20) + " MiB",
            (viaFlusher ? "DiskFlusher" : "GenerationStore.write") + (chunk != DiskStoreConfig.DEFAULT_WRITE_CHUNK_SIZE
                ? "/" + (chunk >> 20) + "M" : ""),
            rawMs, flushMs, size / 1e6 / (flushMs / 1e3), flushMs / rawMs);
    }

    private static long flush(final GenerationStore store, final DiskFlusher flusher, final long round, final ByteBuffer image)
        throws Exception {
        final long start = System.nanoTime();
        if (flusher == null) {
            store.write(round, CheckpointImage.of(image));
        } else {
            flusher.submit(round, CheckpointImage.of(image));
            if (!flusher.awaitIdle(Duration.ofSeconds(60))) {
                throw new IllegalStateException("flush did not finish");
            }
        }
        return System.nanoTime() - start;
    }

    /** A direct buffer of {@code length} deterministic pseudo-random bytes. */
    private static ByteBuffer image(final long seed, final int length) {
        final ByteBuffer image = Baselines.pretouched(length);
        final SplittableRandom random = new SplittableRandom(seed);
        while (image.remaining() >= 8) {
            image.putLong(random.nextLong());
        }
        while (image.hasRemaining()) {
            image.put((byte) random.nextInt());
        }
        return image.flip();
    }

    private static double median(final long[] values) {
        final long[] sorted = values.clone();
        Arrays.sort(sorted);
        return sorted[sorted.length / 2];
    }
}
