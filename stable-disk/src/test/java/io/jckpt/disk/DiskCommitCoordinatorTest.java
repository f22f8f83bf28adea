package io.jckpt.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The disk level's coordinator on real files: a flushed round's image is held until the flusher has read
 * it (then released: the owner of the slot learns it), rank 0 commits once every rank file is durable, and a round that never becomes complete is
 * counted as incomplete (every flush over) or failed (the commit timeout passed), with one line each.
 */
class DiskCommitCoordinatorTest {
    private static final Duration WAIT = Duration.ofSeconds(20);

    @TempDir
    Path root;

    /** Records what the coordinator reports; {@code fates} counts down at each commit, incomplete or failure. */
    static final class Recorder implements DiskCommitCoordinator.Listener {
        final AtomicInteger flushed = new AtomicInteger();
        final AtomicInteger failed = new AtomicInteger();
        final List<Long> committed = new CopyOnWriteArrayList<>();
        final List<Long> incomplete = new CopyOnWriteArrayList<>();
        final CountDownLatch fates = new CountDownLatch(1);
        final AtomicReference<Thread> committedOn = new AtomicReference<>();

        @Override
        public void onFlushed() {
            flushed.incrementAndGet();
        }

        @Override
        public void onFailed() {
            failed.incrementAndGet();
            fates.countDown();
        }

        @Override
        public void onCommitted(long round) {
            committedOn.set(Thread.currentThread());
            committed.add(round);
            fates.countDown();
        }

        @Override
        public void onIncomplete(long round) {
            incomplete.add(round);
            fates.countDown();
        }
    }

    @Test
    void theImageIsHeldUntilTheFlusherHasReadItAndRankZeroCommits() throws Exception {
        GenerationStore store = GenerationStore.openUsable(DiskStoreConfig.of(root, "coord", 0, 1));
        Recorder recorder = new Recorder();
        List<String> events = new CopyOnWriteArrayList<>();
        CountDownLatch event = new CountDownLatch(1);
        List<String> warnings = new CopyOnWriteArrayList<>();
        DiskCommitCoordinator c = DiskCommitCoordinator.start(store, 0, 1, WAIT, recorder, e -> {
            events.add(e.text());
            event.countDown();
        }, warnings::add);
        try {
            DiskFlusherTest.GatedImage image = new DiskFlusherTest.GatedImage(7, 100_000, true);
            CountDownLatch ownerReleased = new CountDownLatch(1); // the slot's store, told by the image's release
            c.submit(7, image.withRelease(ownerReleased::countDown));
            assertTrue(image.entered.await(20, TimeUnit.SECONDS), "the flusher reads the slot");
            assertFalse(ownerReleased.await(50, TimeUnit.MILLISECONDS), "held while the flush reads it");
            assertEquals(0, image.released.get());
            image.gate.countDown();
            assertTrue(ownerReleased.await(20, TimeUnit.SECONDS));
            assertTrue(c.awaitIdle(WAIT));
            assertTrue(event.await(20, TimeUnit.SECONDS), "the commit is announced");
            assertEquals(List.of("disk generation of round 7 committed"), events);
            assertEquals(List.of(7L), recorder.committed);
            assertEquals(1, recorder.flushed.get());
            assertTrue(store.committedRounds().contains(7L));
            assertEquals(1, image.released.get(), "released once: its own release, then the owner's action");
            assertEquals(List.of(), warnings);
        } finally {
            c.close(true, WAIT);
        }
        assertFalse(c.flusher().isAlive());
    }

    @Test
    void aRoundMissingAnotherRanksFileIsIncompleteOnceEveryFlushIsOver() throws Exception {
        GenerationStore store = GenerationStore.openUsable(DiskStoreConfig.of(root, "coord", 0, 2));
        Recorder recorder = new Recorder();
        List<String> lines = new CopyOnWriteArrayList<>();
        DiskCommitCoordinator c = DiskCommitCoordinator.start(store, 0, 2, WAIT, recorder, e -> lines.add(e.text()),
                lines::add);
        try {
            c.flushesSettled(true); // rank 1 has no flush left: its file of round 3 never comes
            c.submit(3, CheckpointImage.of(TestImages.direct(3, 4096)));
            assertTrue(recorder.fates.await(20, TimeUnit.SECONDS));
            assertEquals(List.of(3L), recorder.incomplete);
            assertEquals(List.of(), recorder.committed);
            assertEquals(0, recorder.failed.get());
            assertEquals(List.of(), lines, "an incomplete round is counted, not said");
        } finally {
            c.close(true, WAIT);
        }
    }

    @Test
    void aRoundNotCompleteWithinTheCommitTimeoutIsWarnedAndCountedFailed() throws Exception {
        GenerationStore store = GenerationStore.openUsable(DiskStoreConfig.of(root, "coord", 0, 2));
        Recorder recorder = new Recorder();
        List<String> warnings = new CopyOnWriteArrayList<>();
        CountDownLatch warned = new CountDownLatch(1);
        DiskCommitCoordinator c = DiskCommitCoordinator.start(store, 0, 2, Duration.ofMillis(200), recorder,
                e -> { }, w -> {
                    warnings.add(w);
                    warned.countDown();
                });
        try {
            c.submit(3, CheckpointImage.of(TestImages.direct(3, 4096)));
            assertTrue(warned.await(20, TimeUnit.SECONDS), "warned once the 200 ms commit timeout passed");
            assertEquals(1, recorder.failed.get());
            assertEquals(List.of(), recorder.committed);
            assertEquals(1, warnings.size());
            assertTrue(warnings.get(0).startsWith("disk generation of round 3 not committed within 200 ms: "),
                    warnings.get(0));
        } finally {
            c.close(true, WAIT);
        }
    }

    @Test
    void onlyRankZeroHasACommitAgentAndItIsGoneAfterClose() throws Exception {
        GenerationStore store0 = GenerationStore.openUsable(DiskStoreConfig.of(root, "agent", 0, 2));
        GenerationStore store1 = GenerationStore.openUsable(DiskStoreConfig.of(root, "agent", 1, 2));
        Recorder recorder = new Recorder();
        Recorder other = new Recorder();
        List<String> events = new CopyOnWriteArrayList<>();
        CountDownLatch event = new CountDownLatch(1);
        DiskCommitCoordinator c0 = DiskCommitCoordinator.start(store0, 0, 2, WAIT, recorder, e -> {
            events.add(e.text());
            event.countDown();
        }, events::add);
        DiskCommitCoordinator c1 = DiskCommitCoordinator.start(store1, 1, 2, WAIT, other, e -> events.add(e.text()),
                events::add);
        try {
            assertTrue(threadNamed("jckpt-disk-commit-r0"), "rank 0's commit agent");
            assertFalse(threadNamed("jckpt-disk-commit-r1"), "the other ranks commit nothing");
            c0.submit(4, CheckpointImage.of(TestImages.direct(4, 4096)));
            assertTrue(c0.awaitIdle(WAIT)); // rank 0's file is durable: its agent polls for rank 1's
            c1.submit(4, CheckpointImage.of(TestImages.direct(4, 4096)));
            assertTrue(c1.awaitIdle(WAIT));
            assertTrue(event.await(20, TimeUnit.SECONDS), "committed once rank 1's file is durable");
            assertEquals(List.of(4L), recorder.committed);
            assertEquals(List.of("disk generation of round 4 committed"), events);
            assertEquals("jckpt-disk-commit-r0", recorder.committedOn.get().getName());
            assertTrue(recorder.committedOn.get().isDaemon());
            assertEquals(List.of(), other.committed);
            assertEquals(1, other.flushed.get());
        } finally {
            c1.close(true, WAIT);
            c0.close(true, WAIT);
        }
        assertFalse(recorder.committedOn.get().isAlive(), "stopped by close");
        assertTrue(store0.committedRounds().contains(4L));
    }

    private static boolean threadNamed(String name) {
        return Thread.getAllStackTraces().keySet().stream().anyMatch(t -> t.isAlive() && t.getName().equals(name));
    }
}
