package io.jckpt.disk;

import io.jckpt.wire.RankInventory;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The stores of all ranks of one job in one directory, for tests. */
final class Ranks {
    final Path root;
    final String jobId;
    final int worldSize;
    final List<GenerationStore> stores = new ArrayList<>();

    Ranks(final Path root, final String jobId, final int worldSize) {
        this.root = root;
        this.jobId = jobId;
        this.worldSize = worldSize;
        for (int rank = 0; rank < worldSize; rank++) {
            stores.add(GenerationStore.open(DiskStoreConfig.of(root, jobId, rank, worldSize)));
        }
    }

    GenerationStore rank(final int rank) {
        return stores.get(rank);
    }

    /** Every rank writes its image of the round (seeded by round and rank). */
    void writeAll(final long round, final int length) throws StableDiskException {
        for (int rank = 0; rank < worldSize; rank++) {
            rank(rank).write(round, CheckpointImage.of(TestImages.direct(TestImages.seed(round, rank), length)));
        }
    }

    /** Every rank writes, then rank 0 commits. */
    void checkpoint(final long round, final int length) throws StableDiskException {
        writeAll(round, length);
        rank(0).commit(round, worldSize);
    }

    List<RankInventory> inventories() {
        final List<RankInventory> inventories = new ArrayList<>();
        for (final GenerationStore store : stores) {
            inventories.add(store.inventory());
        }
        return inventories;
    }

    DiskSelection select() {
        return GenerationSelector.select(worldSize, inventories());
    }

    Path file(final long round, final int rank) {
        return rank(rank).layout().rankFile(round, rank);
    }

    Path marker(final long round) {
        return rank(0).layout().markerFile(round);
    }

    Path directory() {
        return rank(0).layout().jobDirectory();
    }
}
