package io.jckpt.imem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import net.openhft.chronicle.core.Jvm;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The one-call allocation and population of slot pages, on a real tmpfs file of this machine (Linux 6). */
class SlotPagesTest {
    private static final long SIZE = 8L << 20;
    private Path file;

    @BeforeEach
    void create() throws IOException {
        file = Files.createTempFile(Path.of("/dev/shm"), "jckpt-slot-pages", ".slot");
    }

    @AfterEach
    void delete() throws IOException {
        Files.deleteIfExists(file);
    }

    @Test
    void allocatesEveryBlockOfTheRangeInOneCall() throws Exception {
        assertTrue(SlotPages.allocate(file, 0, SIZE));
        assertEquals(SIZE, Files.size(file));
        assertTrue(ReplicaStoreTest.allocatedBytes(file) >= SIZE, "blocks allocated: " + ReplicaStoreTest.allocatedBytes(file));
    }

    @Test
    void aFullFileSystemIsAnIoErrorNamingTheFile() {
        IOException e = assertThrows(IOException.class, () -> SlotPages.allocate(file, 0, 1L << 50));
        assertTrue(e.getMessage().contains(file.toString()) && e.getMessage().contains("no space"), e.getMessage());
    }

    @Test
    void populatesEveryPageOfAMappingWithoutChangingAByte() throws Exception {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
            ch.truncate(SIZE);
            MappedByteBuffer m = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
            m.put(4096 * 3, (byte) 7);
            MappedByteBuffer second = ch.map(FileChannel.MapMode.READ_WRITE, 0, SIZE);
            long address = Jvm.address(second);
            assertEquals(0, residentBytes(address), "a new mapping has no page yet");
            assertTrue(SlotPages.populate(second));
            assertEquals(SIZE, residentBytes(address));
            assertEquals(7, second.get(4096 * 3));
            assertTrue(ReplicaStoreTest.allocatedBytes(file) >= SIZE, "populating a hole allocates it on tmpfs");
            ReplicaStore.Unmapper.unmap(second);
            ReplicaStore.Unmapper.unmap(m);
        }
    }

    /** Rss of the mapping starting at {@code address}, from /proc/self/smaps. */
    private static long residentBytes(long address) throws IOException {
        String start = Long.toHexString(address);
        boolean in = false;
        for (String line : Files.readAllLines(Path.of("/proc/self/smaps"))) {
            if (line.matches("^[0-9a-f]+-[0-9a-f]+ .*")) {
                in = line.startsWith(start + "-");
            } else if (in && line.startsWith("Rss:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
            }
        }
        throw new AssertionError("no mapping at 0x" + start + " in /proc/self/smaps");
    }
}
