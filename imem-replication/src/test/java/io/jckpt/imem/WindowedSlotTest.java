package io.jckpt.imem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Slot files larger than one mapping (images above 2 GiB in production), at small sizes: the
 * largest single mapping lowered to 64 KiB ({@link SlotMapping#WINDOW_PROPERTY}), so 300 KB images
 * span five overlapping windows and a contiguous native mapping. Ring replication (cut-through,
 * zero-copy and not), CRC32C verification, damage in a later window, rollback transfers: all
 * bit-identical.
 */
class WindowedSlotTest {
    private static final int SIZE = 300_000;
    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        System.setProperty(SlotMapping.WINDOW_PROPERTY, Integer.toString(64 << 10));
        Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jckpt-window-test");
    }

    @AfterEach
    void tearDown() throws IOException {
        System.clearProperty(SlotMapping.WINDOW_PROPERTY);
        ReplicaStore.wipe(root);
    }

    @Test
    void aSlotBeyondOneMappingIsWrittenVerifiedAndDamageInALaterWindowIsFound() throws IOException {
        ReplicaStoreConfig cfg = new ReplicaStoreConfig(root.resolve("store"), 0, 2, 1, 2, SIZE + 1024, 1L << 30);
        byte[] image = RingReplicationTest.image(0, 1, SIZE);
        Path file;
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            ReplicaWrite w = s.beginWrite(0, 1, image.length);
            assertFalse(w.slot().singleMapping());
            assertThrows(IllegalStateException.class, w::image, "no single ByteBuffer over several windows");
            TestRing.fill(w, image);
            w.commit();
            ReplicaSlot slot = s.find(0, 1);
            assertArrayEquals(image, RingReplicationTest.read(slot));
            // the contiguous mapping shows the same bytes as the windows
            for (int at : new int[] {0, 65_535, 65_536, 131_071, 200_000, image.length - 1}) {
                assertEquals(image[at], net.openhft.chronicle.core.UnsafeMemory.MEMORY.readByte(slot.imageAddress() + at),
                        "byte " + at);
            }
            file = slot.path();
        }
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            assertEquals(0, s.corruptFoundAtOpen());
            assertArrayEquals(image, RingReplicationTest.read(s.find(0, 1)));
        }
        try (RandomAccessFile f = new RandomAccessFile(file.toFile(), "rw")) {
            long at = ReplicaSlotDescriptor.HEADER_LENGTH + 250_000; // in the fourth window
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x10);
        }
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            assertEquals(1, s.corruptFoundAtOpen());
            assertNull(s.find(0, 1));
        }
    }

    @Test
    void ringReplicationAcrossWindowsIsBitIdentical() throws Exception {
        for (boolean zeroCopy : new boolean[] {false, true}) {
            try (TestRing ring = new TestRing(root.resolve("ring" + zeroCopy), 3, 2, SIZE + 1024, zeroCopy)) {
                RollbackEndToEndTest.replicate(ring, 1, 3, SIZE);
                RingReplicationTest.assertReplicated(ring, new long[] {2, 3}, SIZE);
            }
        }
        // above CRC_FOLLOWS_MIN: the owner's CRC32C computed chunk by chunk ahead of the send, in windows
        int big = 9 << 20;
        try (TestRing ring = new TestRing(root.resolve("big"), 3, 2, big + 1024, true)) {
            ring.backgroundCrc = true;
            RollbackEndToEndTest.replicate(ring, 1, 2, big);
            RingReplicationTest.assertReplicated(ring, new long[] {1, 2}, big);
        }
    }

    @Test
    void aWipedRankGetsItsCopyBackAcrossWindows() throws Exception {
        try (TestRing ring = new TestRing(root.resolve("rollback"), 4, 1, SIZE + 1024, false)) {
            RollbackEndToEndTest.replicate(ring, 1, 2, SIZE);
            assertEquals(2, RollbackEndToEndTest.recover(ring, Set.of(2), true, SIZE, 2));
        }
        try (TestRing ring = new TestRing(root.resolve("local"), 3, 1, SIZE + 1024, true)) {
            RollbackEndToEndTest.replicate(ring, 1, 2, SIZE);
            assertTrue(RollbackEndToEndTest.recover(ring, Set.of(1), false, SIZE, 2) == 2);
        }
    }
}
