package io.jckpt.disk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.wire.Integrity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Real rank processes killed with SIGKILL at the worst moments; the previous generation must restore. */
@Tag("slow")
class CrashRecoveryTest {
    private static final int LENGTH = 4 << 20;
    private static final int SMALL = 64 * 1024;

    @TempDir
    Path root;

    @Test
    void rankKilledMidWritePreviousGenerationRestoresAndPartialFileIsCleaned() throws Exception {
        final Ranks ranks = new Ranks(root, "kill-write", 2);
        ranks.checkpoint(1, LENGTH);
        ranks.rank(0).write(2, CheckpointImage.of(TestImages.direct(TestImages.seed(2, 0), LENGTH)));
        try (ChildProcess child = ChildProcess.start("stall-write", root, "kill-write", 1, 2, 2, LENGTH)) {
            child.awaitLine("STALLED");
            child.kill();
        }
        final Path partial = ranks.rank(1).layout().rankTempFile(2, 1);
        assertTrue(Files.exists(partial) && Files.size(partial) > 0, "the killed rank left a partial file");
        assertFalse(Files.exists(ranks.file(2, 1)));
        assertRestores(new Ranks(root, "kill-write", 2), 1, LENGTH);
        assertFalse(Files.exists(partial), "reopening rank 1's store removed its partial file");
    }

    @Test
    void rankKilledMidBackgroundFlush() throws Exception {
        final Ranks ranks = new Ranks(root, "kill-flush", 2);
        ranks.checkpoint(1, LENGTH);
        try (ChildProcess child = ChildProcess.start("stall-flush", root, "kill-flush", 0, 2, 2, LENGTH)) {
            child.awaitLine("STALLED");
            child.kill();
        }
        ranks.rank(1).write(2, CheckpointImage.of(TestImages.direct(TestImages.seed(2, 1), LENGTH)));
        assertRestores(new Ranks(root, "kill-flush", 2), 1, LENGTH);
    }

    @Test
    void coordinatorKilledDuringCommit() throws Exception {
        final Ranks ranks = new Ranks(root, "kill-commit", 2);
        ranks.checkpoint(1, SMALL);
        ranks.writeAll(2, SMALL);
        // every rank's file of round 2 is durable, the marker not yet written: round 2 does not count
        assertRestores(new Ranks(root, "kill-commit", 2), 1, SMALL);
        // the coordinator process is killed with half of the marker written
        try (ChildProcess coordinator = ChildProcess.start("stall-marker", root, "kill-commit", 0, 2, 2, SMALL)) {
            coordinator.awaitLine("STALLED");
            coordinator.kill();
        }
        final Path halfMarker = ranks.rank(0).layout().markerTempFile(2);
        assertTrue(Files.exists(halfMarker), "the killed coordinator left a half-written marker");
        assertFalse(Files.exists(ranks.marker(2)));
        assertRestores(new Ranks(root, "kill-commit", 2), 1, SMALL);

        // a half-written marker under the final name (a file system that reordered the rename) is refused too
        final byte[] marker = Files.readAllBytes(halfMarker);
        Files.write(ranks.marker(2), marker);
        final Ranks again = new Ranks(root, "kill-commit", 2);
        assertEquals(Integrity.MARKER_DAMAGED, again.rank(1).inventory().generations().get(0).integrity());
        assertRestores(again, 1, SMALL);
        // the next commit by a live coordinator cleans up the leftovers
        again.rank(0).commit(1, 2);
        assertFalse(Files.exists(halfMarker));
        assertFalse(Files.exists(ranks.marker(2)));
    }

    @Test
    void totalLossEveryRankKilledFreshStartRestoresFromDisk() throws Exception {
        final int worldSize = 3;
        for (final long round : new long[] {1000, 2000}) {
            final List<ChildProcess> children = new ArrayList<>();
            for (int rank = 0; rank < worldSize; rank++) {
                children.add(ChildProcess.start("write", root, "total-loss", rank, worldSize, round, SMALL));
            }
            for (final ChildProcess child : children) {
                child.waitForExit();
                child.close();
            }
            assertEquals(0, ChildProcess.run("commit", root, "total-loss", 0, worldSize, round, SMALL));
        }
        final List<ChildProcess> dying = new ArrayList<>();
        for (int rank = 0; rank < worldSize; rank++) {
            dying.add(ChildProcess.start("stall-write", root, "total-loss", rank, worldSize, 3000, LENGTH));
        }
        for (final ChildProcess child : dying) {
            child.awaitLine("STALLED");
        }
        for (final ChildProcess child : dying) {
            child.kill();
            child.close();
        }
        assertRestores(new Ranks(root, "total-loss", worldSize), 2000, SMALL);
    }

    private static void assertRestores(final Ranks ranks, final long round, final int length) throws Exception {
        final DiskSelection selection = ranks.select();
        assertEquals(round, ((DiskSelection.Restore)selection).round(), selection.toString());
        for (int rank = 0; rank < ranks.worldSize; rank++) {
            assertArrayEquals(TestImages.bytes(TestImages.seed(round, rank), length),
                TestImages.toArray(ranks.rank(rank).readImage(round)), "rank " + rank);
        }
    }
}
