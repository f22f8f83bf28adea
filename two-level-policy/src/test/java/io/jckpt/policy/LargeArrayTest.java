package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.imem.ReplicaStore;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * A 1 GiB array through the whole in-memory pipeline: here(), replication to the next rank,
 * node loss of the owner, rollback transfer from its NEXT neighbour, bit-identical restore.
 */
@Tag("slow")
@Tag("large")
class LargeArrayTest {
    @org.junit.jupiter.api.BeforeAll
    static void largeBound() {
        RankGroup.bound(RankGroup.LARGE_BOUND);
    }

    @org.junit.jupiter.api.AfterAll
    static void usualBound() {
        RankGroup.defaultBound();
    }

    private static final int SIZE = 1 << 30;
    private static final String PREFIX = "jckpt-large-test";


    private static io.jckpt.CkptOptions options(Path nodes, int rank) {
        // 2 owners x 2 versions x 1.25 GiB per rank: above the 1 GiB cap the other tests use
        return RankGroup.options(nodes, rank, 1, null, 0).toBuilder().maxMemoryBytes(6L << 30).build();
    }

    @Test
    void aOneGibArrayIsRestoredBitIdenticallyAfterItsNodeIsLost() throws Exception {
        // node-local memory, as in production: tmpfs, not the (possibly small) disk under /tmp
        Path shm = Path.of("/dev/shm");
        Path parent = java.nio.file.Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir"));
        removeLeftovers(parent);
        Path nodes = java.nio.file.Files.createTempDirectory(parent, PREFIX);
        try {
            run(nodes);
        } finally {
            ReplicaStore.wipe(nodes);
        }
    }

    /**
     * The stores of an earlier run killed before its clean-up (the OOM killer takes this test first when
     * the machine runs short): up to 10 GiB of tmpfs that would make this run short of memory in turn.
     * One run of this test at a time on a machine is all its memory allows.
     */
    private static void removeLeftovers(Path parent) throws java.io.IOException {
        try (var old = java.nio.file.Files.newDirectoryStream(parent, PREFIX + "*")) {
            for (Path p : old) {
                ReplicaStore.wipe(p);
            }
        }
    }

    private static void run(Path nodes) throws Exception {
        byte[][] data = {new byte[SIZE], new byte[16]};
        for (int i = 0; i < SIZE; i += 4096) {
            data[0][i] = (byte) (i >>> 12);
            data[0][i + 7] = (byte) (i >>> 20);
        }
        data[0][SIZE - 1] = 42;
        List<TwoLevelCheckpointer> world0 = RankGroup.open(2, "large", 0, r -> options(nodes, r),
                r -> false);
        RankGroup.parallel(2, rank -> {
            TwoLevelCheckpointer c = world0.get(rank);
            c.register("data", data[rank]);
            c.here();
            assertTrue(c.awaitReplicated(RankGroup.LARGE_BOUND));
            return null;
        });
        RankGroup.closeAll(world0);
        ReplicaStore.wipe(nodes.resolve("node-0")); // rank 0's node is lost with its 1 GiB copy
        List<TwoLevelCheckpointer> world1 = RankGroup.open(2, "large", 1, r -> options(nodes, r),
                r -> r == 0);
        byte[] restored = new byte[SIZE];
        RankGroup.parallel(2, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            if (rank == 0) {
                assertTrue(c.restoredFrom().contains("RECEIVE"), c.restoredFrom());
                c.rollback("data", restored);
            } else {
                // every tag of the restored round is restored (or removed) before close(): the contract
                byte[] mine = new byte[data[1].length];
                c.rollback("data", mine);
                assertArrayEquals(data[1], mine);
            }
            return null;
        });
        RankGroup.closeAll(world1);
        assertArrayEquals(data[0], restored);
    }
}
