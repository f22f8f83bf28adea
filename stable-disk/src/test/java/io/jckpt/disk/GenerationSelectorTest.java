package io.jckpt.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.wire.GenerationStatus;
import io.jckpt.wire.Integrity;
import io.jckpt.wire.RankInventory;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;

import org.junit.jupiter.api.Test;

class GenerationSelectorTest {

    private static GenerationStatus intact(final long round) {
        return new GenerationStatus(round, 3, Integrity.INTACT, "");
    }

    private static RankInventory inventory(final int rank, final GenerationStatus... statuses) {
        return new RankInventory("job", rank, 3, List.of(statuses));
    }

    @Test
    void newestIntactOnAllRanksIsChosenWhateverTheOrder() {
        final List<RankInventory> inventories = new ArrayList<>(List.of(
            inventory(0, intact(300), intact(200)),
            inventory(1, new GenerationStatus(300, 3, Integrity.DAMAGED, "IMAGE_CRC_MISMATCH"), intact(200)),
            inventory(2, intact(300), intact(200))));
        final DiskSelection expected = GenerationSelector.select(3, inventories);
        assertEquals(200, ((DiskSelection.Restore)expected).round());
        assertEquals(List.of("round 300: rank 1 DAMAGED (IMAGE_CRC_MISMATCH)"), expected.rejected());
        final Random random = new Random(42);
        for (int i = 0; i < 10; i++) {
            Collections.shuffle(inventories, random);
            assertEquals(expected, GenerationSelector.select(3, inventories));
        }
    }

    @Test
    void roundUnseenByOneRankIsNotChosen() {
        final DiskSelection selection = GenerationSelector.select(3, List.of(
            inventory(0, intact(300), intact(200)), inventory(1, intact(200)), inventory(2, intact(300), intact(200))));
        assertEquals(200, ((DiskSelection.Restore)selection).round());
        assertTrue(selection.rejected().get(0).contains("rank 1 sees no commit marker"));
    }

    @Test
    void nothingLeftIsAResultNotAnException() {
        final DiskSelection selection = GenerationSelector.select(3, List.of(
            inventory(0, intact(300)), inventory(1, new GenerationStatus(300, 3, Integrity.MISSING, "")), inventory(2)));
        final DiskSelection.NothingRestorable nothing = assertInstanceOf(DiskSelection.NothingRestorable.class, selection);
        assertEquals(1, nothing.rejected().size());
        assertTrue(nothing.rejected().get(0).contains("rank 1 MISSING"));
        assertTrue(nothing.rejected().get(0).contains("rank 2 sees no commit marker"));
    }

    @Test
    void otherWorldSizeIsRefused() {
        final GenerationStatus resized = new GenerationStatus(300, 4, Integrity.WORLD_SIZE_MISMATCH, "");
        final DiskSelection selection = GenerationSelector.select(3, List.of(
            inventory(0, resized), inventory(1, resized), inventory(2, resized)));
        final DiskSelection.NothingRestorable nothing = assertInstanceOf(DiskSelection.NothingRestorable.class, selection);
        assertEquals(List.of("round 300: written by 4 ranks, this run has 3 ranks; restoring on a different world size is not supported"),
            nothing.rejected());
    }

    @Test
    void malformedInputIsACallerBug() {
        assertThrows(IllegalArgumentException.class, () -> GenerationSelector.select(3, List.of(inventory(0), inventory(1))));
        assertThrows(IllegalArgumentException.class,
            () -> GenerationSelector.select(3, List.of(inventory(0), inventory(1), inventory(1))));
        assertThrows(IllegalArgumentException.class, () -> GenerationSelector.select(3, List.of(inventory(0), inventory(1),
            new RankInventory("other-job", 2, 3, List.of()))));
    }

    @Test
    void anInventoryKeepsTheNewestGenerationsAndBoundedDetails() {
        final List<GenerationStatus> many = new ArrayList<>();
        for (int i = 20; i > 0; i--) {
            many.add(new GenerationStatus(i, 3, Integrity.values()[i % Integrity.values().length], "x".repeat(500)));
        }
        final RankInventory inventory = new RankInventory("job-\u00e9", 2, 3, many);
        assertEquals(RankInventory.MAX_ENTRIES, inventory.generations().size());
        assertEquals(20, inventory.generations().get(0).round(), "the newest first");
        assertEquals(many.get(3).integrity(), inventory.generations().get(3).integrity());
        assertEquals(RankInventory.MAX_DETAIL_BYTES, inventory.generations().get(3).detail().length());
    }
}
