package io.jckpt.disk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.wire.GenerationStatus;
import io.jckpt.wire.Integrity;
import io.jckpt.wire.RankInventory;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.stream.Stream;

import org.apache.commons.io.file.PathUtils;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class GenerationStoreTest {
    private static final int LENGTH = 300_000;

    @TempDir
    Path root;

    @Test
    void roundTripIsBitIdenticalAndOwnerOnly() throws Exception {
        final Ranks ranks = new Ranks(root, "job-1", 3);
        ranks.checkpoint(7, LENGTH);
        for (int rank = 0; rank < 3; rank++) {
            assertArrayEquals(TestImages.bytes(TestImages.seed(7, rank), LENGTH), TestImages.toArray(ranks.rank(rank).readImage(7)));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ranks.file(7, rank))));
            assertEquals(DiskFileDescriptor.HEADER_LENGTH + LENGTH, Files.size(ranks.file(7, rank)));
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ranks.directory())));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(ranks.marker(7))));
        assertEquals(new DiskSelection.Restore(7, List.of()), ranks.select());
        assertEquals(Integrity.INTACT, ranks.rank(1).inventory().generations().get(0).integrity());
        try (Stream<Path> files = Files.list(ranks.directory())) {
            assertTrue(files.noneMatch(p -> p.toString().endsWith(".tmp")), "no temporary file left");
        }
    }

    @Test
    void everyImageKindRoundTrips() throws Exception {
        final GenerationStore store = GenerationStore.open(
            DiskStoreConfig.of(root, "kinds", 0, 1).withWriteChunkSize(64 * 1024));
        final byte[] odd = TestImages.bytes(1, 1_000_003);
        store.write(1, CheckpointImage.of(ByteBuffer.wrap(odd)));
        store.commit(1, 1);
        assertArrayEquals(odd, TestImages.toArray(store.readImage(1)));

        store.write(2, CheckpointImage.of(ByteBuffer.allocate(0)));
        store.commit(2, 1);
        assertEquals(0, store.readImage(2).remaining());

        final Path source = root.resolve("local-copy.bin");
        Files.write(source, odd);
        try (FileChannel channel = FileChannel.open(source, StandardOpenOption.READ)) {
            store.write(3, CheckpointImage.ofFileRegion(channel, 3, odd.length - 3));
        }
        store.commit(3, 1);
        final ByteBuffer dst = ByteBuffer.allocate(odd.length);
        store.readInto(3, dst);
        assertEquals(odd.length - 3, dst.position());
        assertArrayEquals(java.util.Arrays.copyOfRange(odd, 3, odd.length), java.util.Arrays.copyOf(dst.array(), odd.length - 3));
    }

    @Test
    void twoCommittedGenerationsKeptOlderDeletedOnlyAfterNewerCommit() throws Exception {
        final Ranks ranks = new Ranks(root, "retention", 2);
        ranks.checkpoint(10, 1000);
        ranks.checkpoint(20, 1000);
        ranks.writeAll(30, 1000);
        prune(ranks, 30);
        assertEquals(List.of(20L, 10L), ranks.rank(0).committedRounds());
        assertTrue(Files.exists(ranks.file(10, 0)) && Files.exists(ranks.file(10, 1)), "10 kept: 30 is not committed");

        ranks.rank(0).commit(30, 2);
        assertEquals(List.of(30L, 20L), ranks.rank(0).committedRounds(), "committing 30 retracts 10");
        assertFalse(Files.exists(ranks.marker(10)));

        ranks.writeAll(40, 1000);
        prune(ranks, 40);
        assertFalse(Files.exists(ranks.file(10, 0)) || Files.exists(ranks.file(10, 1)), "retired files deleted");
        assertTrue(Files.exists(ranks.file(20, 1)) && Files.exists(ranks.file(30, 1)) && Files.exists(ranks.file(40, 1)));
        assertEquals(new DiskSelection.Restore(30, List.of()), ranks.select());
    }

    @Test
    void rollbackThenReplayOfSameRoundIsSafe() throws Exception {
        final Ranks ranks = new Ranks(root, "replay", 2);
        ranks.checkpoint(10, 1000);
        ranks.checkpoint(20, 1000);
        flipByte(ranks.file(20, 1), DiskFileDescriptor.IMAGE_OFFSET + 5);
        assertEquals(10, ((DiskSelection.Restore)ranks.select()).round());
        // the program resumes from 10 and reaches 20 again: rank 0 rewrites first (with other bytes)
        ranks.rank(0).write(20, CheckpointImage.of(TestImages.direct(99, 1000)));
        final RankInventory rank0 = ranks.rank(0).inventory();
        assertEquals(Integrity.DAMAGED, rank0.generations().get(0).integrity());
        assertTrue(rank0.generations().get(0).detail().contains("MARKER_MISMATCH"), rank0.generations().get(0).detail());
        ranks.rank(1).write(20, CheckpointImage.of(TestImages.direct(98, 1000)));
        ranks.rank(0).commit(20, 2);
        assertEquals(20, ((DiskSelection.Restore)ranks.select()).round());
        assertArrayEquals(TestImages.bytes(98, 1000), TestImages.toArray(ranks.rank(1).readImage(20)));
    }

    @Test
    void commitRefusedWhenARankFileIsMissing() throws Exception {
        final Ranks ranks = new Ranks(root, "refused", 3);
        ranks.checkpoint(1, 1000);
        ranks.rank(0).write(2, CheckpointImage.of(TestImages.direct(1, 1000)));
        ranks.rank(2).write(2, CheckpointImage.of(TestImages.direct(2, 1000)));
        final CommitRefusedException e = assertThrows(CommitRefusedException.class, () -> ranks.rank(0).commit(2, 3));
        assertTrue(e.getMessage().contains("rank 1 file missing"), e.getMessage());
        assertTrue(e.getMessage().contains(ranks.directory().toString()), e.getMessage());
        assertFalse(Files.exists(ranks.marker(2)));
        assertEquals(List.of(1L), ranks.rank(0).committedRounds());
    }

    @Test
    void aCommitVouchesOnlyForFilesOfItsOwnEpoch() throws Exception {
        // world 0 of 3 ranks wrote and committed round 5; rank 1 is declared failed, world 1 replaces it
        // and replays round 6; the old rank 1 (a partition healed while it lived) and the old
        // coordinator (rank 0 of world 0) still run
        final Ranks world0 = new Ranks(root, "fenced", 3);
        world0.checkpoint(5, 1000);
        final List<GenerationStore> world1 = new java.util.ArrayList<>();
        for (int rank = 0; rank < 3; rank++) {
            world1.add(GenerationStore.open(DiskStoreConfig.of(root, "fenced", rank, 3).withEpoch(1)));
        }
        world0.rank(0).write(6, CheckpointImage.of(TestImages.direct(60, 1000)));
        world0.rank(2).write(6, CheckpointImage.of(TestImages.direct(62, 1000)));
        world1.get(1).write(6, CheckpointImage.of(TestImages.direct(71, 1000)));
        assertEquals(1, DiskFileDescriptor.decode(ByteBuffer.wrap(Files.readAllBytes(world0.file(6, 1)), 0,
            DiskFileDescriptor.HEADER_LENGTH), world0.file(6, 1), Files.size(world0.file(6, 1))).epoch());

        // every file of round 6 is there, but of two worlds: neither world's coordinator commits it
        final CommitRefusedException old = assertThrows(CommitRefusedException.class, () -> world0.rank(0).commit(6, 3));
        assertTrue(old.getMessage().contains("rank 1 file written in epoch 1, not this commit's epoch 0"), old.getMessage());
        final CommitRefusedException mixed = assertThrows(CommitRefusedException.class, () -> world1.get(0).commit(6, 3));
        assertTrue(mixed.getMessage().contains("rank 0 file written in epoch 0, not this commit's epoch 1"), mixed.getMessage());
        assertTrue(mixed.getMessage().contains("rank 2 file written in epoch 0"), mixed.getMessage());
        assertFalse(Files.exists(world0.marker(6)));

        // world 1 rewrites round 6 on every rank and commits it; a late file of the old rank 1 then
        // replaces its successor's, and the old coordinator still cannot commit round 6
        world1.get(0).write(6, CheckpointImage.of(TestImages.direct(70, 1000)));
        world1.get(2).write(6, CheckpointImage.of(TestImages.direct(72, 1000)));
        world1.get(0).commit(6, 3);
        world0.rank(1).write(6, CheckpointImage.of(TestImages.direct(61, 1000)));
        final CommitRefusedException late = assertThrows(CommitRefusedException.class, () -> world0.rank(0).commit(6, 3));
        assertTrue(late.getMessage().contains("rank 0 file written in epoch 1"), late.getMessage());
        // (a rename cannot be fenced: the replaced file no longer matches the marker, so round 6 is
        // never restored from it, and round 5 is: a generation lost, never a result of mixed worlds)
        assertDamage(world0, 6, 1, DiskFileDamage.MARKER_MISMATCH);
        assertEquals(5, ((DiskSelection.Restore) GenerationSelector.select(3, world0.inventories())).round());
    }

    @Test
    void flippedImageByteDetectedOlderGenerationChosen() throws Exception {
        final Ranks ranks = twoGenerations("flip");
        flipByte(ranks.file(2, 1), DiskFileDescriptor.IMAGE_OFFSET + 1234);
        assertDamage(ranks, 2, 1, DiskFileDamage.IMAGE_CRC_MISMATCH);
        final DiskSelection.Restore restore = (DiskSelection.Restore)ranks.select();
        assertEquals(1, restore.round());
        assertTrue(restore.rejected().get(0).contains("rank 1 DAMAGED"), restore.rejected().toString());
        // the skipped generation names its file first (the inventory may cut a long detail)
        assertTrue(restore.rejected().get(0).startsWith("round 2: rank 1 DAMAGED (file " + ranks.file(2, 1) + ": "
            + DiskFileDamage.IMAGE_CRC_MISMATCH), restore.rejected().toString());
        assertArrayEquals(TestImages.bytes(TestImages.seed(1, 1), LENGTH), TestImages.toArray(ranks.rank(1).readImage(1)));
    }

    @Test
    void flippedHeaderByteDetected() throws Exception {
        final Ranks ranks = twoGenerations("header");
        flipByte(ranks.file(2, 0), DiskFileDescriptor.ROUND_OFFSET);
        assertDamage(ranks, 2, 0, DiskFileDamage.HEADER_CRC_MISMATCH);
        flipByte(ranks.file(2, 0), DiskFileDescriptor.ROUND_OFFSET);
        flipByte(ranks.file(2, 0), DiskFileDescriptor.MAGIC_OFFSET);
        assertDamage(ranks, 2, 0, DiskFileDamage.BAD_MAGIC);
        assertEquals(1, ((DiskSelection.Restore)ranks.select()).round());
    }

    @Test
    void truncatedFileDetected() throws Exception {
        final Ranks ranks = twoGenerations("truncate");
        try (FileChannel channel = FileChannel.open(ranks.file(2, 2), StandardOpenOption.WRITE)) {
            channel.truncate(LENGTH / 2);
        }
        assertDamage(ranks, 2, 2, DiskFileDamage.TRUNCATED);
        try (FileChannel channel = FileChannel.open(ranks.file(2, 2), StandardOpenOption.WRITE)) {
            channel.truncate(17);
        }
        assertDamage(ranks, 2, 2, DiskFileDamage.TRUNCATED);
        assertEquals(1, ((DiskSelection.Restore)ranks.select()).round());
    }

    @Test
    void deletedRankFileDetected() throws Exception {
        final Ranks ranks = twoGenerations("delete");
        Files.delete(ranks.file(2, 0));
        assertEquals(Integrity.MISSING, ranks.rank(0).inventory().generations().get(0).integrity());
        final StableDiskException e = assertThrows(StableDiskException.class, () -> ranks.rank(0).readImage(2));
        assertTrue(e.getMessage().contains("missing") && e.getMessage().contains(ranks.file(2, 0).toString()), e.getMessage());
        assertEquals(1, ((DiskSelection.Restore)ranks.select()).round());
    }

    @Test
    void deletedOrDamagedCommitMarkerMakesOlderChosen() throws Exception {
        final Ranks ranks = twoGenerations("marker");
        flipByte(ranks.marker(2), 40);
        assertEquals(Integrity.MARKER_DAMAGED, ranks.rank(1).inventory().generations().get(0).integrity());
        assertEquals(1, ((DiskSelection.Restore)ranks.select()).round());
        Files.delete(ranks.marker(2));
        assertEquals(new DiskSelection.Restore(1, List.of()), ranks.select());
        assertThrows(StableDiskException.class, () -> ranks.rank(0).readImage(2), "not committed any more");
    }

    @Test
    void bothGenerationsDamagedNothingRestorable() throws Exception {
        final Ranks ranks = twoGenerations("nothing");
        Files.delete(ranks.file(2, 1));
        flipByte(ranks.file(1, 2), DiskFileDescriptor.IMAGE_OFFSET);
        final DiskSelection selection = ranks.select();
        final DiskSelection.NothingRestorable nothing = assertInstanceOf(DiskSelection.NothingRestorable.class, selection);
        assertTrue(nothing.reason().contains("none of the 2 committed generation(s)"), nothing.reason());
        assertEquals(2, nothing.rejected().size());
        assertTrue(nothing.rejected().get(0).startsWith("round 2: rank 1 MISSING"), nothing.rejected().get(0));
        assertTrue(nothing.rejected().get(1).contains("IMAGE_CRC_MISMATCH"), nothing.rejected().get(1));
    }

    @Test
    void emptyDirectoryNothingRestorable() {
        final Ranks ranks = new Ranks(root, "fresh", 2);
        final DiskSelection.NothingRestorable nothing = assertInstanceOf(DiskSelection.NothingRestorable.class, ranks.select());
        assertTrue(nothing.reason().contains("no committed generation"), nothing.reason());
    }

    @Test
    void differentWorldSizeRefusedWithClearMessage() throws Exception {
        twoGenerations("resize");
        final Ranks smaller = new Ranks(root, "resize", 2);
        final DiskSelection.NothingRestorable nothing = assertInstanceOf(DiskSelection.NothingRestorable.class, smaller.select());
        assertTrue(nothing.rejected().get(0).contains("written by 3 ranks, this run has 2 ranks"), nothing.rejected().toString());
        final StableDiskException e = assertThrows(StableDiskException.class, () -> smaller.rank(0).readImage(2));
        assertTrue(e.getMessage().contains("different world size"), e.getMessage());
    }

    @Test
    void unwritableDirectoryGivesClearErrorNamingPath() throws Exception {
        final Path file = Files.writeString(root.resolve("a-regular-file"), "x");
        final Path badRoot = file.resolve("stable");
        final GenerationStore store = GenerationStore.open(DiskStoreConfig.of(badRoot, "job", 0, 1));
        final DiskWriteFailedException e = assertThrows(DiskWriteFailedException.class,
            () -> store.write(1, CheckpointImage.of(TestImages.direct(1, 100))));
        assertEquals(DiskWriteFailedException.Reason.NOT_WRITABLE, e.reason());
        assertTrue(e.getMessage().contains(badRoot.resolve("job").toString()), e.getMessage());
        assertEquals(badRoot.resolve("job"), e.path());
    }

    @Test
    void openUsableRefusesADirectoryThatCannotBeUsedNamingIt() throws Exception {
        final Path file = Files.writeString(root.resolve("not-a-directory"), "x");
        final DiskWriteFailedException e = assertThrows(DiskWriteFailedException.class,
            () -> GenerationStore.openUsable(DiskStoreConfig.of(file.resolve("stable"), "job", 2, 3)));
        assertEquals(DiskWriteFailedException.Reason.NOT_WRITABLE, e.reason());
        assertTrue(e.getMessage().contains(file.resolve("stable").resolve("job").toString()), e.getMessage());
        assertTrue(e.getMessage().contains("Not a directory"), e.getMessage());
        final GenerationStore usable = GenerationStore.openUsable(DiskStoreConfig.of(root.resolve("fine"), "job", 0, 1));
        usable.write(1, CheckpointImage.of(TestImages.direct(1, 100)));
        try (java.util.stream.Stream<Path> files = Files.list(root.resolve("fine").resolve("job"))) {
            assertEquals(List.of(usable.layout().rankFile(1, 0)), files.toList(), "the probe file is gone");
        }
    }

    @Test
    void directoryVanishingMidWriteGivesClearErrorAndNextRoundRetries() throws Exception {
        final Ranks ranks = new Ranks(root, "vanish", 1);
        ranks.checkpoint(1, 1000);
        final boolean[] vanish = {true};
        final GenerationStore store = GenerationStore.open(ranks.rank(0).config().withChannelOpener((path, options, attrs) -> {
            if (vanish[0]) {
                vanish[0] = false;
                PathUtils.deleteDirectory(path.getParent());
            }
            return FileChannel.open(path, options, attrs);
        }));
        final DiskWriteFailedException e = assertThrows(DiskWriteFailedException.class,
            () -> store.write(2, CheckpointImage.of(TestImages.direct(2, 1000))));
        assertEquals(DiskWriteFailedException.Reason.DIRECTORY_MISSING, e.reason());
        assertTrue(e.getMessage().contains(ranks.directory().toString()), e.getMessage());
        store.write(3, CheckpointImage.of(TestImages.direct(3, 1000)));
        store.commit(3, 1);
        assertArrayEquals(TestImages.bytes(3, 1000), TestImages.toArray(store.readImage(3)));
    }

    @Test
    void injectedWriteErrorLeavesPreviousGenerationAndNoTemporary() throws Exception {
        final Ranks ranks = new Ranks(root, "inject", 1);
        ranks.checkpoint(1, LENGTH);
        final GenerationStore store = GenerationStore.open(ranks.rank(0).config().withWriteChunkSize(64 * 1024)
            .withChannelOpener((path, options, attrs) -> new FaultyFileChannel(FileChannel.open(path, options, attrs),
                (delegate, src, position) -> {
                    if (position > 100_000) {
                        throw new java.io.IOException("No space left on device");
                    }
                })));
        final DiskWriteFailedException e = assertThrows(DiskWriteFailedException.class,
            () -> store.write(2, CheckpointImage.of(TestImages.direct(2, LENGTH))));
        assertEquals(DiskWriteFailedException.Reason.NO_SPACE, e.reason());
        assertTrue(e.getMessage().contains(store.layout().rankTempFile(2, 0).toString()), e.getMessage());
        assertFalse(Files.exists(store.layout().rankTempFile(2, 0)));
        assertEquals(new DiskSelection.Restore(1, List.of()), ranks.select());
        assertArrayEquals(TestImages.bytes(TestImages.seed(1, 0), LENGTH), TestImages.toArray(store.readImage(1)));
    }

    @Test
    void staleTemporaryOfThisRankRemovedOnOpen() throws Exception {
        final Ranks ranks = new Ranks(root, "stale", 2);
        ranks.checkpoint(1, 1000);
        final Path stale0 = ranks.rank(0).layout().rankTempFile(2, 0);
        final Path stale1 = ranks.rank(1).layout().rankTempFile(2, 1);
        Files.write(stale0, new byte[500]);
        Files.write(stale1, new byte[500]);
        GenerationStore.open(DiskStoreConfig.of(root, "stale", 0, 2));
        assertFalse(Files.exists(stale0));
        assertTrue(Files.exists(stale1), "another rank's temporary is its own business");
    }

    @Test
    void freshRunUnderAnOldJobIdRetractsEverything() throws Exception {
        final Ranks old = twoGenerations("reused");
        assertEquals(2, old.rank(0).retractAll());
        assertInstanceOf(DiskSelection.NothingRestorable.class, old.select());
        old.writeAll(1, 1000);
        prune(old, 1);
        assertFalse(Files.exists(old.file(2, 0)), "the earlier run's files above this run's round are deleted");
        old.rank(0).commit(1, 3);
        assertEquals(new DiskSelection.Restore(1, List.of()), old.select());
    }

    @Test
    void badJobIdRejected() {
        assertThrows(IllegalArgumentException.class, () -> DiskStoreConfig.of(root, "../escape", 0, 1));
        assertThrows(IllegalArgumentException.class, () -> DiskStoreConfig.of(root, "job", 2, 2));
    }

    static void prune(final Ranks ranks, final long written) {
        for (final GenerationStore store : ranks.stores) {
            store.pruneOwnFiles(written);
        }
    }

    private Ranks twoGenerations(final String jobId) throws StableDiskException {
        final Ranks ranks = new Ranks(root, jobId, 3);
        ranks.checkpoint(1, LENGTH);
        ranks.checkpoint(2, LENGTH);
        assertEquals(new DiskSelection.Restore(2, List.of()), ranks.select());
        return ranks;
    }

    private static void assertDamage(final Ranks ranks, final long round, final int rank, final DiskFileDamage damage) {
        final DiskFileCorruptException e = assertThrows(DiskFileCorruptException.class, () -> ranks.rank(rank).readImage(round));
        assertEquals(damage, e.damage(), e.getMessage());
        assertTrue(e.getMessage().contains(ranks.file(round, rank).toString()), e.getMessage());
        final GenerationStatus status = ranks.rank(rank).inventory().generations().stream()
            .filter(g -> g.round() == round).findFirst().orElseThrow();
        assertEquals(Integrity.DAMAGED, status.integrity());
        assertTrue(status.detail().contains(damage.name()), status.detail());
    }

    static void flipByte(final Path file, final long offset) throws java.io.IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "rw")) {
            raf.seek(offset);
            final int b = raf.read();
            raf.seek(offset);
            raf.write(b ^ 0x40);
        }
    }
}
