package io.jckpt.disk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskFlusherTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;

    /** An image that counts its releases and can hold the flusher inside the write until opened. */
    static final class GatedImage implements CheckpointImage {
        final CheckpointImage image;
        final CountDownLatch entered = new CountDownLatch(1);
        final CountDownLatch gate;
        final AtomicInteger released = new AtomicInteger();

        GatedImage(final long seed, final int length, final boolean gated) {
            image = CheckpointImage.of(TestImages.direct(seed, length));
            gate = new CountDownLatch(gated ? 1 : 0);
        }

        @Override
        public long length() {
            return image.length();
        }

        @Override
        public ByteBuffer region(final long offset, final int length) {
            entered.countDown();
            try {
                if (!gate.await(20, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("gate never opened");
                }
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            return image.region(offset, length);
        }

        @Override
        public void release() {
            released.incrementAndGet();
        }
    }

    /**
     * A slot handed over before its MAC is written: the flusher reads none of its bytes until the image is
     * complete, and writes nothing of an image that never completes (counted as a failed round).
     */
    @Test
    void nothingOfAnImageIsReadBeforeItIsComplete() throws Exception {
        final GenerationStore store = GenerationStore.open(DiskStoreConfig.of(root, "complete", 0, 1));
        final DiskFlusher flusher = DiskFlusher.start(store, OverlapPolicy.COALESCE, FlushListener.NONE);
        try {
            final GatedImage image = new GatedImage(3, 100_000, false);
            final CountDownLatch sealed = new CountDownLatch(1);
            final CountDownLatch asked = new CountDownLatch(1);
            flusher.submit(3, image.completeWhen(() -> {
                asked.countDown();
                return sealed.await(20, TimeUnit.SECONDS);
            }));
            assertTrue(asked.await(20, TimeUnit.SECONDS));
            assertEquals(1, image.entered.getCount(), "a byte was read before the image was complete");
            sealed.countDown();
            assertTrue(flusher.awaitIdle(WAIT));
            store.commit(3, 1);
            assertArrayEquals(TestImages.bytes(3, 100_000), TestImages.toArray(store.readImage(3)));
            final GatedImage never = new GatedImage(4, 100_000, false);
            flusher.submit(4, never.completeWhen(() -> false));
            assertTrue(flusher.awaitIdle(WAIT));
            assertEquals(1, never.entered.getCount(), "an image never completed was read");
            assertEquals(1, never.released.get());
            assertEquals(1, flusher.counters().failed());
            assertTrue(flusher.counters().lastFailure().contains("round 4 by rank 0 not started: its image was never"
                + " completed"), flusher.counters().lastFailure());
            assertFalse(Files.exists(store.layout().rankFile(4, 0)));
        } finally {
            flusher.close();
        }
    }

    @Test
    void flushesInBackgroundCountsAndStopsOnClose() throws Exception {
        final GenerationStore store = GenerationStore.open(DiskStoreConfig.of(root, "flush", 0, 1));
        final List<Long> durable = new CopyOnWriteArrayList<>();
        final DiskFlusher flusher = DiskFlusher.start(store, OverlapPolicy.COALESCE, new FlushListener() {
            @Override
            public void onDurable(final FlushedGeneration generation) {
                durable.add(generation.round());
            }
        });
        assertEquals("jckpt-disk-flusher-flush-r0", flusher.threadName());
        final GatedImage image = new GatedImage(5, 200_000, false);
        assertEquals(SubmitOutcome.ACCEPTED, flusher.submit(5, image));
        assertTrue(flusher.awaitIdle(WAIT));
        store.commit(5, 1);
        assertEquals(List.of(5L), durable);
        assertEquals(1, image.released.get());
        final FlushCounters counters = flusher.counters();
        assertEquals(1, counters.flushed());
        assertEquals(200_000, counters.bytesFlushed());
        assertTrue(counters.flushNanosTotal() > 0);
        assertEquals(5, counters.lastDurableRound());
        assertArrayEquals(TestImages.bytes(5, 200_000), TestImages.toArray(store.readImage(5)));
        flusher.close();
        assertFalse(flusher.isAlive());
        final GatedImage late = new GatedImage(6, 10, false);
        assertEquals(SubmitOutcome.REJECTED_CLOSED, flusher.submit(6, late));
        assertEquals(1, late.released.get());
    }

    @Test
    void retiredFilesAreDeletedInTheBackgroundAfterANewerCommit() throws Exception {
        final GenerationStore store = GenerationStore.open(DiskStoreConfig.of(root, "prune", 0, 1));
        try (DiskFlusher flusher = DiskFlusher.start(store, OverlapPolicy.COALESCE, FlushListener.NONE)) {
            for (final long round : new long[] {10, 20, 30}) {
                flusher.submit(round, new GatedImage(round, 1000, false));
                assertTrue(flusher.awaitIdle(WAIT));
                store.commit(round, 1);
            }
            flusher.submit(40, new GatedImage(40, 1000, false));
            assertTrue(flusher.awaitIdle(WAIT));
            final long deadline = System.nanoTime() + WAIT.toNanos();
            while (flusher.counters().filesPruned() < 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(1, flusher.counters().filesPruned());
            assertFalse(Files.exists(store.layout().rankFile(10, 0)));
            assertEquals(List.of(30L, 20L), store.committedRounds());
            assertTrue(Files.exists(store.layout().rankFile(20, 0)));
        }
    }

    @Test
    void roundsArrivingDuringAFlushAreCoalesced() throws Exception {
        final GenerationStore store = GenerationStore.open(DiskStoreConfig.of(root, "coalesce", 0, 1));
        try (DiskFlusher flusher = DiskFlusher.start(store, OverlapPolicy.COALESCE, FlushListener.NONE)) {
            final GatedImage first = new GatedImage(1, 100_000, true);
            flusher.submit(1, first);
            assertTrue(first.entered.await(20, TimeUnit.SECONDS));
            final GatedImage second = new GatedImage(2, 1000, false);
            final GatedImage third = new GatedImage(3, 1000, false);
            final GatedImage fourth = new GatedImage(4, 1000, false);
            assertEquals(SubmitOutcome.ACCEPTED, flusher.submit(2, second));
            assertEquals(SubmitOutcome.ACCEPTED_COALESCED, flusher.submit(3, third));
            assertEquals(SubmitOutcome.ACCEPTED_COALESCED, flusher.submit(4, fourth));
            assertEquals(2, flusher.counters().coalesced(), "readable while the flush runs");
            assertEquals(1, second.released.get());
            assertEquals(1, third.released.get());
            assertTrue(flusher.isBusy());
            first.gate.countDown();
            assertTrue(flusher.awaitIdle(WAIT));
            assertEquals(2, flusher.counters().flushed());
            assertEquals(4, flusher.counters().lastDurableRound());
            assertEquals(1, first.released.get());
            assertEquals(1, fourth.released.get());
            assertTrue(Files.exists(store.layout().rankFile(1, 0)) && Files.exists(store.layout().rankFile(4, 0)));
            assertFalse(Files.exists(store.layout().rankFile(2, 0)) || Files.exists(store.layout().rankFile(3, 0)));
        }
    }

    @Test
    void roundsArrivingDuringAFlushAreSkippedUnderSkipPolicy() throws Exception {
        final GenerationStore store = GenerationStore.open(DiskStoreConfig.of(root, "skip", 0, 1));
        try (DiskFlusher flusher = DiskFlusher.start(store, OverlapPolicy.SKIP, FlushListener.NONE)) {
            final GatedImage first = new GatedImage(1, 100_000, true);
            flusher.submit(1, first);
            assertTrue(first.entered.await(20, TimeUnit.SECONDS));
            final GatedImage second = new GatedImage(2, 1000, false);
            assertEquals(SubmitOutcome.SKIPPED_BUSY, flusher.submit(2, second));
            assertEquals(1, second.released.get());
            assertEquals(1, flusher.counters().skipped());
            first.gate.countDown();
            assertTrue(flusher.awaitIdle(WAIT));
            assertEquals(SubmitOutcome.ACCEPTED, flusher.submit(3, new GatedImage(3, 1000, false)));
            assertTrue(flusher.awaitIdle(WAIT));
            assertEquals(2, flusher.counters().flushed());
        }
    }

    @Test
    void failureIsCountedReportedAndNextRoundRetries() throws Exception {
        final AtomicInteger opens = new AtomicInteger();
        final GenerationStore store = GenerationStore.open(DiskStoreConfig.of(root, "fail", 0, 1)
            .withChannelOpener((path, options, attrs) -> {
                if (opens.incrementAndGet() == 1) {
                    throw new java.io.IOException("No space left on device");
                }
                return FileChannel.open(path, options, attrs);
            }));
        final List<StableDiskException> failures = new CopyOnWriteArrayList<>();
        try (DiskFlusher flusher = DiskFlusher.start(store, OverlapPolicy.COALESCE, new FlushListener() {
            @Override
            public void onFailed(final long round, final StableDiskException error) {
                failures.add(error);
            }
        })) {
            final GatedImage failing = new GatedImage(1, 1000, false);
            flusher.submit(1, failing);
            assertTrue(flusher.awaitIdle(WAIT));
            assertEquals(1, flusher.counters().failed());
            assertEquals(1, failing.released.get());
            assertTrue(flusher.counters().lastFailure().contains("NO_SPACE"), flusher.counters().lastFailure());
            assertEquals(DiskWriteFailedException.Reason.NO_SPACE, ((DiskWriteFailedException)failures.get(0)).reason());
            flusher.submit(2, new GatedImage(2, 1000, false));
            assertTrue(flusher.awaitIdle(WAIT));
            assertEquals(1, flusher.counters().flushed());
            store.commit(2, 1);
            assertArrayEquals(TestImages.bytes(2, 1000), TestImages.toArray(store.readImage(2)));
        }
    }

    @Test
    void closeDropsPendingAndBoundsARunningWrite() throws Exception {
        final GenerationStore store = GenerationStore.open(DiskStoreConfig.of(root, "close", 0, 1));
        final DiskFlusher flusher = DiskFlusher.start(store, OverlapPolicy.COALESCE, FlushListener.NONE, Duration.ofMillis(200));
        final GatedImage stuck = new GatedImage(1, 100_000, true);
        final GatedImage pending = new GatedImage(2, 1000, false);
        flusher.submit(1, stuck);
        assertTrue(stuck.entered.await(20, TimeUnit.SECONDS));
        flusher.submit(2, pending);
        final long start = System.nanoTime();
        flusher.close();
        assertTrue(System.nanoTime() - start < TimeUnit.SECONDS.toNanos(10));
        assertFalse(flusher.isAlive());
        assertEquals(1, pending.released.get());
        assertEquals(1, stuck.released.get());
        assertEquals(1, flusher.counters().failed(), "the interrupted write failed cleanly");
        assertFalse(Files.exists(store.layout().rankTempFile(1, 0)), "its temporary file removed");
    }
}
