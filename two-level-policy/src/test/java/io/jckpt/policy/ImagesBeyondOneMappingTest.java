package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.imem.ReplicaStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Checkpoint images larger than one mapping of the node-local store (2 GiB). The whole pipeline at
 * small sizes with the largest single mapping lowered to 64 KiB (so a 400 KB image spans several
 * windows): here(), ring replication, a disk round every round, node loss (memory), total loss
 * (disk). Then once for real: a 2 GiB + 32 MiB long[] checkpointed, to disk too, restored after the
 * process is gone, and after its node-local memory is gone as well.
 */
class ImagesBeyondOneMappingTest {
    @org.junit.jupiter.api.BeforeAll
    static void largeBound() {
        RankGroup.bound(RankGroup.LARGE_BOUND);
    }

    @org.junit.jupiter.api.AfterAll
    static void usualBound() {
        RankGroup.defaultBound();
    }

    private static final String WINDOW = "jckpt.store.mappingWindow";

    @TempDir
    Path tmp;

    /** Every rank of a recovered world restores {@code round} from {@code from} (memory or disk), bit-identical; closed. */
    private static void rollBackEverywhere(List<TwoLevelCheckpointer> world, long round, int length, String from)
            throws Exception {
        RankGroup.parallel(world.size(), rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            assertTrue(c.restoredFrom().startsWith(from), c.restoredFrom());
            assertEquals(round, c.round());
            double[] target = new double[length];
            c.rollback("data", target);
            assertArrayEquals(data(rank, (int) round, length), target, "rank " + rank);
            return null;
        });
        RankGroup.closeAll(world);
    }

    private static double[] data(int rank, int round, int length) {
        return ReconfigurationTest.data(rank, round, length);
    }

    @Test
    void everyLevelWorksWhenTheImageSpansSeveralMappings() throws Exception {
        System.setProperty(WINDOW, Integer.toString(64 << 10));
        Path nodes = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-windows-test");
        try {
            int n = 3;
            int length = 50_000; // 400 KB of doubles per rank
            Path disk = tmp.resolve("disk");
            IntFunction<CkptOptions> opts = r -> RankGroup.options(nodes, r, 1, disk, 1);
            List<TwoLevelCheckpointer> world = RankGroup.open(n, "windows", 0, opts, r -> false);
            RankGroup.parallel(n, rank -> {
                TwoLevelCheckpointer c = world.get(rank);
                for (int k = 1; k <= 3; k++) {
                    if (k > 1) {
                        c.remove("data");
                    }
                    c.register("data", data(rank, k, length));
                    c.here();
                }
                assertTrue(c.awaitReplicated(Duration.ofSeconds(30)));
                return null;
            });
            RankGroup.closeAll(world);
            // node 1 lost: its image comes back from rank 2's store, across windows
            ReplicaStore.wipe(nodes.resolve("node-1"));
            rollBackEverywhere(RankGroup.open(n, "windows", 1, opts, r -> r == 1), 3, length, "memory");
            // every node lost: the disk generation (flushed from the windowed slots) restores
            for (int r = 0; r < n; r++) {
                ReplicaStore.wipe(nodes.resolve("node-" + r));
            }
            rollBackEverywhere(RankGroup.open(n, "windows", 2, opts, r -> true), 3, length, "disk");
        } finally {
            System.clearProperty(WINDOW);
            ReplicaStore.wipe(nodes);
        }
    }

    @Test
    @Tag("slow")
    void aTwoGibPlusArrayIsRestoredFromMemoryAndFromDisk() throws Exception {
        int elements = (1 << 28) + (1 << 22); // 2 GiB + 32 MiB of longs
        Path nodes = Files.createTempDirectory(Path.of("/dev/shm"), "jckpt-2gib-test");
        // the disk level on tmpfs too: the same code path above 2 GiB as on a disk, without 2 x 2 GiB
        // of real disk I/O (half of this test's time on the machine it was written on)
        Path disk = nodes.resolve("disk");
        // one rank, no replication (memory for more is beyond CI): 2 versions x 2.6 GiB of node-local memory
        IntFunction<CkptOptions> opts = r -> RankGroup.options(nodes, r, 0, disk, 1).toBuilder()
                .maxMemoryBytes(8L << 30).build();
        try {
            long[] data = new long[elements];
            for (int i = 0; i < elements; i += 512) {
                data[i] = i * 0x9E3779B97F4A7C15L;
            }
            data[elements - 1] = 42;
            List<TwoLevelCheckpointer> world = RankGroup.open(1, "big", 0, opts, r -> false);
            world.get(0).register("data", data);
            world.get(0).here();
            assertTrue(world.get(0).awaitReplicated(RankGroup.LARGE_BOUND));
            RankGroup.closeAll(world);
            long[] restored = new long[elements];
            List<TwoLevelCheckpointer> again = RankGroup.open(1, "big", 1, opts, r -> false);
            assertTrue(again.get(0).restoredFrom().startsWith("memory"), again.get(0).restoredFrom());
            again.get(0).rollback("data", restored);
            RankGroup.closeAll(again);
            assertArrayEquals(data, restored);
            java.util.Arrays.fill(restored, 0);
            ReplicaStore.wipe(nodes.resolve("node-0"));
            List<TwoLevelCheckpointer> fromDisk = RankGroup.open(1, "big", 2, opts, r -> true);
            assertTrue(fromDisk.get(0).restoredFrom().startsWith("disk"), fromDisk.get(0).restoredFrom());
            fromDisk.get(0).rollback("data", restored);
            RankGroup.closeAll(fromDisk);
            assertArrayEquals(data, restored);
        } finally {
            ReplicaStore.wipe(nodes);
        }
    }
}
