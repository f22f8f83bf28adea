package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.imem.ReplicaStore;
import io.jckpt.spi.LocalRankCollective;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * How many collective exchanges (launcher round trips, in a launched job) a recovery costs: the open
 * exchange carries every rank's newest copies, so the restore plan needs no exchange of its own; one
 * more in open compares the ranks' steps of the restored round, and the restore check at the first
 * here() (every rank restored its tags; it also marks the end of every rank's transfers before the
 * ring is joined) is the only other one.
 */
class RecoveryRoundTripsTest {
    private static final int N = 4;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path nodes;

    @Test
    void aNodeLossIsRecoveredWithThreeExchanges() throws Exception {
        String job = "round-trips";
        List<TwoLevelCheckpointer> world0 = RankGroup.open(N, job, 0, r -> RankGroup.options(nodes, r, 1, null, 0),
                r -> false);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world0.get(rank);
            c.register("grid", TwoLevelCheckpointerTest.grid(rank, 1));
            c.here();
            c.here();
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        world0.forEach(TwoLevelCheckpointer::crashForTest);
        ReplicaStore.wipe(nodes.resolve("node-2")); // rank 2's node lost: its copy comes from rank 3

        List<LocalRankCollective> exchanges = LocalRankCollective.group(N);
        List<TwoLevelCheckpointer> world1 = RankGroup.open(exchanges, job, 1,
                r -> RankGroup.options(nodes, r, 1, null, 0), r -> r == 2, r -> null);
        for (int r = 0; r < N; r++) {
            assertEquals(2, exchanges.get(r).exchanges(), "rank " + r + ": exchanges in open(): status, restored steps");
        }
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            double[] grid = new double[TwoLevelCheckpointerTest.grid(rank, 1).length];
            c.rollback("grid", grid);
            assertArrayEquals(TwoLevelCheckpointerTest.grid(rank, 1), grid, "rank " + rank);
            assertEquals(2, c.round());
            c.here(); // the restore check, then the ring is rejoined: the third exchange
            return null;
        });
        for (int r = 0; r < N; r++) {
            assertEquals(3, exchanges.get(r).exchanges(), "rank " + r + ": exchanges of the recovery");
        }
        RankGroup.closeAll(world1);
    }
}
