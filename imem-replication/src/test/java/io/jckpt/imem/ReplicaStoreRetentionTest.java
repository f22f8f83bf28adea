package io.jckpt.imem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The store owns the retains of its slots (a disk flush reading a round): counted per slot by identity,
 * a retained slot is never written into nor unmapped by a close, a waiter is woken by the last release,
 * and a release the store did not make, or a second one, is an error naming the slot and its round.
 */
class ReplicaStoreRetentionTest {
    private static final Duration WAIT = Duration.ofSeconds(20);
    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jckpt-retain-test");
    }

    @AfterEach
    void tearDown() throws IOException {
        ReplicaStore.wipe(root);
    }

    private ReplicaStore open(String name) throws IOException {
        // rank 0 of 2, m = 1, two versions per owner
        return ReplicaStore.open(new ReplicaStoreConfig(root.resolve(name), 0, 2, 1, 2, 8192, 1 << 20));
    }

    @Test
    void retainsCountPerSlotByIdentityAndTheLastReleaseWakesTheWaiter() throws Exception {
        try (ReplicaStore s = open("count")) {
            ReplicaStoreTest.write(s, 0, 1, ReplicaStoreTest.data(1, 4000));
            ReplicaSlot slot = s.find(0, 1);
            assertFalse(s.retainsAny());
            assertTrue(s.awaitReleased(null, Duration.ZERO), "no slot: nothing to wait for");
            assertTrue(s.awaitReleased(slot, Duration.ZERO), "never retained");
            RetainedSlot first = s.retain(slot);
            RetainedSlot second = s.retain(slot); // two rounds in the flusher (one writing, one pending)
            assertEquals(1, first.round());
            assertTrue(s.retainsAny());
            assertEquals(2, s.retainsOf(slot));
            ReplicaSlot other = s.nextWritable(0); // the other version of the same owner
            assertNotSame(slot, other);
            assertEquals(0, s.retainsOf(other));
            assertTrue(s.awaitReleased(other, Duration.ZERO), "another slot is not retained");
            s.release(first);
            assertFalse(s.awaitReleased(slot, Duration.ofMillis(20)), "one retain left");
            assertTrue(s.retainsAny());
            Thread releaser = new Thread(() -> s.release(second), "releaser");
            releaser.start();
            assertTrue(s.awaitReleased(slot, WAIT));
            releaser.join(WAIT.toMillis());
            assertFalse(s.retainsAny());
            assertEquals(0, s.retainsOf(slot));
        }
    }

    @Test
    void aRetainedSlotIsNotWrittenIntoUntilReleased() throws Exception {
        try (ReplicaStore s = open("write")) {
            ReplicaStoreTest.write(s, 0, 1, ReplicaStoreTest.data(1, 4000));
            ReplicaStoreTest.write(s, 0, 2, ReplicaStoreTest.data(2, 4000));
            ReplicaSlot oldest = s.nextWritable(0); // round 1's slot: where round 3 would go
            assertEquals(1, oldest.round());
            RetainedSlot retained = s.retain(oldest);
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> s.beginWrite(0, 3, 100));
            assertTrue(e.getMessage().contains("cannot write round 3 of rank 0 into " + oldest.path())
                    && e.getMessage().contains("it is retained (round 1 "), e.getMessage());
            assertEquals(1, s.find(0, 1).round(), "round 1 untouched");
            assertTrue(ReplicaStoreTest.read(s.find(0, 1)).length == 4000);
            s.beginWrite(1, 3, 100).commit(); // the predecessor's slots are not retained
            s.release(retained);
            ReplicaStoreTest.write(s, 0, 3, ReplicaStoreTest.data(3, 4000));
            assertEquals(3, s.newestComplete(0).round());
        }
    }

    @Test
    void aSecondReleaseOrAReleaseOfAnotherStoreIsAnErrorNamingSlotAndRound() throws Exception {
        try (ReplicaStore s = open("a"); ReplicaStore t = open("b")) {
            ReplicaStoreTest.write(s, 0, 5, ReplicaStoreTest.data(5, 100));
            ReplicaStoreTest.write(t, 0, 6, ReplicaStoreTest.data(6, 100));
            ReplicaSlot slot = s.find(0, 5);
            RetainedSlot retained = s.retain(slot);
            s.release(retained);
            IllegalStateException twice = assertThrows(IllegalStateException.class, () -> s.release(retained));
            assertEquals("rank 0: the retain of " + slot.path().getFileName() + " (round 5) of " + slot.path()
                    + " was already released", twice.getMessage());

            RetainedSlot foreign = t.retain(t.find(0, 6));
            IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> s.release(foreign));
            assertTrue(unknown.getMessage().contains("(round 6): it was made by another store"), unknown.getMessage());
            assertTrue(t.retainsAny(), "the foreign retain is untouched");
            t.release(foreign);

            IllegalArgumentException notOurs = assertThrows(IllegalArgumentException.class,
                    () -> s.retain(t.find(0, 6)));
            assertTrue(notOurs.getMessage().contains("cannot retain " + t.find(0, 6).path() + " (round 6): not a slot"
                    + " of this store"), notOurs.getMessage());
            assertThrows(IllegalArgumentException.class, () -> s.awaitReleased(t.find(0, 6), Duration.ZERO));
            assertFalse(s.retainsAny());
        }
    }

    @Test
    void aSlotRetainedAtCloseStaysMappedForItsReaderUntilItsLastRelease() throws Exception {
        ReplicaStore s = open("reader");
        byte[] bytes = ReplicaStoreTest.data(7, 4000);
        ReplicaStoreTest.write(s, 0, 1, bytes);
        ReplicaStoreTest.write(s, 0, 2, ReplicaStoreTest.data(8, 4000));
        ReplicaSlot slot = s.find(0, 1);
        ReplicaSlot other = s.find(0, 2);
        RetainedSlot first = s.retain(slot);
        RetainedSlot second = s.retain(slot);
        s.close(); // a reader (a flush that outlived its wait) still reads round 1
        assertFalse(other.channel().isOpen(), "a slot nobody retains is closed and unmapped at once");
        assertTrue(slot.channel().isOpen(), "the retained slot stays mapped for its reader");
        assertArrayEquals(bytes, ReplicaStoreTest.read(slot), "its reader still reads round 1");
        s.release(first);
        assertTrue(slot.channel().isOpen(), "one retain left");
        assertArrayEquals(bytes, ReplicaStoreTest.read(slot));
        s.release(second);
        assertFalse(slot.channel().isOpen(), "unmapped by its last release");
        assertFalse(s.retainsAny());
    }

    @Test
    void aReleaseAfterCloseIsAllowedButARetainIsNot() throws Exception {
        ReplicaStore s = open("closed");
        ReplicaStoreTest.write(s, 0, 1, ReplicaStoreTest.data(1, 100));
        ReplicaSlot slot = s.find(0, 1);
        RetainedSlot retained = s.retain(slot);
        s.close(); // a flush may end after its store was closed
        s.release(retained);
        assertFalse(s.retainsAny());
        assertThrows(IllegalStateException.class, () -> s.retain(slot));
    }
}
