package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.MemoryShortage;
import io.jckpt.StorageException;
import io.jckpt.imem.ReplicaSlotDescriptor;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The memory part of Figure 4 as a function of every rank's budget: identical input, identical decision. */
class MemoryPolicyTest {
    private static final long SLOT = 1 << 20;
    private static final long PER_COPY = 2 * ReplicaSlotDescriptor.fileSize(SLOT); // two versions

    private static MemoryPolicy.Budget[] budgets(long... bytes) {
        MemoryPolicy.Budget[] b = new MemoryPolicy.Budget[bytes.length];
        for (int r = 0; r < bytes.length; r++) {
            b[r] = new MemoryPolicy.Budget(bytes[r], Long.MAX_VALUE);
        }
        return b;
    }

    private static CkptOptions.Builder asked(int m) {
        return CkptOptions.builder().replicas(m).maxMemoryBytes(1L << 30);
    }

    @Test
    void enoughMemoryEverywhereKeepsWhatWasAsked() {
        MemoryPolicy.Decision d = MemoryPolicy.decide(2, asked(2).build(), SLOT,
                budgets(3 * PER_COPY, 3 * PER_COPY, 5 * PER_COPY), 0, Path.of("/x"));
        assertEquals(2, d.replicas());
        assertEquals(CkptOptions.DEFAULT_DISK_RATIO, d.diskRatio());
        assertNull(d.warning());
    }

    @Test
    void theSmallestBudgetDecidesAndFailIsTheDefault() {
        StorageException e = assertThrows(StorageException.class, () -> MemoryPolicy.decide(2, asked(2).build(), SLOT,
                budgets(9 * PER_COPY, 2 * PER_COPY, 9 * PER_COPY), 0, Path.of("/x")));
        assertTrue(e.getMessage().contains("rank 1 can hold only " + 2 * PER_COPY + " bytes"), e.getMessage());
        assertTrue(e.getMessage().contains("= " + 3 * PER_COPY + " bytes on every rank for m=2"), e.getMessage());
    }

    @Test
    void degradeDropsCopiesAndMakesDiskRoundsMoreFrequent() {
        CkptOptions o = asked(3).diskDirectory(Path.of("/d")).diskRatio(100).memoryShortage(MemoryShortage.DEGRADE).build();
        MemoryPolicy.Decision d = MemoryPolicy.decide(3, o, SLOT, budgets(2 * PER_COPY, 4 * PER_COPY), 1, Path.of("/x"));
        assertEquals(1, d.replicas());
        assertEquals(25, d.diskRatio(), "two copies dropped: the ratio halved twice");
        assertTrue(d.warning().contains("keeping m=1 copies"), d.warning());
        assertTrue(d.warning().contains("every 25 rounds instead of every 100"), d.warning());
    }

    @Test
    void degradeWithoutDiskSaysWhatIsNoLongerSurvivable() {
        CkptOptions o = asked(1).memoryShortage(MemoryShortage.DEGRADE).build();
        MemoryPolicy.Decision d = MemoryPolicy.decide(1, o, SLOT, budgets(PER_COPY, PER_COPY), 0, Path.of("/x"));
        assertEquals(0, d.replicas());
        assertTrue(d.warning().contains("a node loss is not survivable"), d.warning());
    }

    @Test
    void degradeStopsAtTheFloorAndWhenNotEvenTheLocalCopyFits() {
        CkptOptions floor = asked(2).memoryShortage(MemoryShortage.DEGRADE).minReplicas(2).build();
        StorageException e = assertThrows(StorageException.class, () -> MemoryPolicy.decide(2, floor, SLOT,
                budgets(2 * PER_COPY, 9 * PER_COPY), 0, Path.of("/x")));
        assertTrue(e.getMessage().contains("at most m=1, below the floor minReplicas=2"), e.getMessage());
        CkptOptions any = asked(2).memoryShortage(MemoryShortage.DEGRADE).build();
        StorageException none = assertThrows(StorageException.class, () -> MemoryPolicy.decide(2, any, SLOT,
                budgets(PER_COPY / 2, 9 * PER_COPY), 0, Path.of("/x")));
        assertTrue(none.getMessage().contains("not even the local copy"), none.getMessage());
    }

    @Test
    void freeSpaceCountsAsMuchAsTheCap() {
        MemoryPolicy.Budget[] b = {new MemoryPolicy.Budget(1L << 40, 2 * PER_COPY), new MemoryPolicy.Budget(1L << 40, 1L << 40)};
        StorageException e = assertThrows(StorageException.class, () -> MemoryPolicy.decide(2, asked(2).build(), SLOT, b, 1,
                Path.of("/x")));
        assertTrue(e.getMessage().contains(2 * PER_COPY + " bytes free in its store's file system"), e.getMessage());
    }
}
