package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.imem.ReplicaSlotDescriptor;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Wrong "cannot be restored" verdicts around the first round, through the real open. The reported
 * one: 4 ranks, m = 1, rank 3 killed at the first
 * checkpoint before its copy of round 1 was complete, so the first recovery rightly starts clean
 * (no round was ever complete on every rank); rank 1 is killed in the middle of that recovery, after
 * the other ranks applied the clean start (their stores deleted) and before it applied it (its
 * store still holds round 1). The second recovery must start clean again: before the fix it read the
 * deleted stores as stores lost with their nodes and declared rank 2's and rank 3's data lost
 * ("no rank holds any copy of it") on every rank. The window is opened with
 * {@link TwoLevelCheckpointer#recoveryHook}, never a sleep.
 */
class SecondFailureDuringRecoveryTest {
    private static final int N = 4;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    @AfterEach
    void removeHook() {
        TwoLevelCheckpointer.recoveryHook = null;
    }

    @Test
    void aFailureDuringTheCleanStartOfTheFirstRoundIsACleanStartAgain() throws Exception {
        Path nodes = tmp.resolve("nodes");
        String job = "second-failure";
        List<TwoLevelCheckpointer> world0 = RankGroup.open(N, job, 0, r -> RankGroup.options(nodes, r, 1, null, 0),
                r -> false);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world0.get(rank);
            c.register("grid", TwoLevelCheckpointerTest.grid(rank, 1));
            c.here();
            // every copy of round 1 in place, so the state below is exactly the one described
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        world0.forEach(TwoLevelCheckpointer::crashForTest);
        // rank 3 died after copying its image, before its agent marked the copy COMPLETE and sent it:
        // its own slot is torn and its successor never got the copy
        assertEquals(1, tear(nodes.resolve("node-3"), 3, 1));
        assertEquals(1, tear(nodes.resolve("node-0"), 3, 1));
        // in that state G never reached 1, so no node recorded a round complete everywhere
        forgetRecordedRounds(nodes, job);

        // recovery 1 (rank 3 new): every rank decides; ranks 0, 2, 3 apply the decision; rank 1 dies
        // between its decision and applying it; the others' world is abandoned
        Map<Integer, RecoveryDecision> decided = new ConcurrentHashMap<>();
        CountDownLatch othersApplied = new CountDownLatch(N - 1);
        TwoLevelCheckpointer.recoveryHook = new TwoLevelCheckpointer.RecoveryHook() {
            @Override
            public void decided(int rank, RecoveryDecision decision) throws IOException {
                decided.put(rank, decision);
                if (rank == 1) {
                    await(othersApplied);
                    throw new IOException("rank 1 killed before applying the decision");
                }
            }

            @Override
            public void applied(int rank, RecoveryDecision decision) throws IOException {
                othersApplied.countDown();
                throw new IOException("world abandoned: rank 1 failed");
            }
        };
        Exception first = assertThrows(Exception.class, () -> RankGroup.open(N, job, 1,
                r -> RankGroup.options(nodes, r, 1, null, 0), r -> r == 3));
        assertTrue(first.getMessage().contains("killed") || first.getMessage().contains("abandoned"), first.toString());
        assertEquals(N, decided.size(), decided.toString());
        decided.values().forEach(d -> assertEquals(RecoveryDecision.Source.CLEAN_START, d.source(), d.toString()));
        TwoLevelCheckpointer.recoveryHook = null;
        // what the window leaves: ranks 0, 2, 3 deleted their stores, rank 1's still holds round 1
        for (int r : new int[] {0, 2, 3}) {
            assertEquals(0, layoutsOf(nodes, job, r), "rank " + r);
        }
        assertEquals(1, layoutsOf(nodes, job, 1));

        // recovery 2 (rank 1 new): nothing was ever promised, so a clean start again, on every rank
        List<TwoLevelCheckpointer> world2 = RankGroup.open(N, job, 2, r -> RankGroup.options(nodes, r, 1, null, 0),
                r -> r == 1);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world2.get(rank);
            assertFalse(c.isRecovery(), "rank " + rank);
            assertEquals(0, c.round());
            double[] g = TwoLevelCheckpointerTest.grid(rank, 1);
            c.register("grid", g);
            c.here();
            assertEquals(1, c.round());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world2);
        // and the job goes on from there: its round 1 restores bit-identically
        List<TwoLevelCheckpointer> world3 = RankGroup.open(N, job, 3, r -> RankGroup.options(nodes, r, 1, null, 0),
                r -> false);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world3.get(rank);
            assertTrue(c.isRecovery());
            double[] target = new double[TwoLevelCheckpointerTest.grid(rank, 1).length];
            c.rollback("grid", target);
            assertArrayEquals(TwoLevelCheckpointerTest.grid(rank, 1), target);
            return null;
        });
        RankGroup.closeAll(world3);
    }

    /**
     * The first round complete at every owner but rank 3's copy not yet at its holder (G still 0), then
     * rank 3's node lost: nothing was promised, so a clean start (it was "cannot be restored": the
     * lost store left no trace that it never completed a round). Once the ring's G has reached 1 the
     * node records it, and the same loss is then a clear error.
     */
    @Test
    void aNodeLostBeforeTheFirstRoundIsCompleteEverywhereIsACleanStart() throws Exception {
        Path nodes = tmp.resolve("nodes");
        String job = "first-round-node-loss";
        List<TwoLevelCheckpointer> world0 = RankGroup.open(N, job, 0, r -> RankGroup.options(nodes, r, 1, null, 0),
                r -> false);
        RankGroup.parallel(N, rank -> {
            world0.get(rank).register("grid", TwoLevelCheckpointerTest.grid(rank, 1));
            world0.get(rank).here();
            assertTrue(world0.get(rank).awaitReplicated(WAIT));
            return null;
        });
        world0.forEach(TwoLevelCheckpointer::crashForTest);
        assertEquals(1, tear(nodes.resolve("node-0"), 3, 1)); // rank 3's copy never reached rank 0
        forgetRecordedRounds(nodes, job); // so G never reached 1
        io.jckpt.imem.ReplicaStore.wipe(nodes.resolve("node-3"));
        List<TwoLevelCheckpointer> world1 = RankGroup.open(N, job, 1, r -> RankGroup.options(nodes, r, 1, null, 0),
                r -> r == 3);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            assertFalse(c.isRecovery(), "rank " + rank);
            c.register("grid", TwoLevelCheckpointerTest.grid(rank, 1));
            c.here();
            c.here();
            assertTrue(c.awaitReplicated(WAIT)); // G >= 2 on this rank's agent
            c.here(); // round 3 (overwrites round 1: it waits for G >= 2 anyway) records it
            return null;
        });
        world1.forEach(TwoLevelCheckpointer::crashForTest);
        for (int r = 0; r < N; r++) {
            assertTrue(Files.exists(rankDirectory(nodes, job, r).resolve(StoreLayouts.ROUND_COMPLETE_EVERYWHERE)),
                    "rank " + r);
        }
        // now two adjacent nodes lost with m = 1: a promised round is gone, and the error says so
        io.jckpt.imem.ReplicaStore.wipe(nodes.resolve("node-2"));
        io.jckpt.imem.ReplicaStore.wipe(nodes.resolve("node-3"));
        Exception e = assertThrows(Exception.class, () -> RankGroup.open(N, job, 2,
                r -> RankGroup.options(nodes, r, 1, null, 0), r -> r >= 2));
        assertTrue(e instanceof io.jckpt.NotRecoverableException, e.toString());
        assertTrue(e.getMessage().contains("rank 2"), e.getMessage());
    }

    private static Path rankDirectory(Path nodes, String job, int r) {
        return nodes.resolve("node-" + r).resolve(job).resolve("rank-" + r);
    }

    private static void await(CountDownLatch latch) throws IOException {
        try {
            if (!latch.await(WAIT.toSeconds(), TimeUnit.SECONDS)) {
                throw new IOException("the other ranks did not apply the decision within " + WAIT);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException(e);
        }
    }

    /**
     * Deletes every node's record that a round was complete on every rank. The tests build their
     * "copy never completed" states by tearing slots after a world 0 in which every copy did
     * complete; a here() descheduled past its own background copy can see G = 1 there and record it
     * (it did once in CI), which the torn state could never have produced.
     */
    private static void forgetRecordedRounds(Path nodes, String job) throws IOException {
        for (int r = 0; r < N; r++) {
            Files.deleteIfExists(rankDirectory(nodes, job, r).resolve(StoreLayouts.ROUND_COMPLETE_EVERYWHERE));
        }
    }

    /** How many layout directories rank r's node holds for the job. */
    private static long layoutsOf(Path nodes, String job, int r) throws IOException {
        Path dir = rankDirectory(nodes, job, r);
        if (!Files.isDirectory(dir)) {
            return 0;
        }
        try (Stream<Path> list = Files.list(dir)) {
            return list.filter(p -> p.getFileName().toString().startsWith("layout-")).count();
        }
    }

    /**
     * Marks the COMPLETE slot files under {@code node} holding {@code owner}'s round {@code round} as
     * WRITING: what a process killed between the copy and the COMPLETE leaves.
     *
     * @return how many slots were torn
     */
    private static int tear(Path node, int owner, long round) throws IOException {
        int torn = 0;
        List<Path> slots;
        try (Stream<Path> walk = Files.walk(node)) {
            slots = walk.filter(p -> p.getFileName().toString().startsWith("o" + owner + "-v")).toList();
        }
        for (Path p : slots) {
            try (FileChannel ch = FileChannel.open(p, StandardOpenOption.READ, StandardOpenOption.WRITE)) {
                ByteBuffer header = ByteBuffer.allocate(ReplicaSlotDescriptor.HEADER_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
                ch.read(header, 0);
                if (header.getInt(ReplicaSlotDescriptor.STATE_OFFSET) == ReplicaSlotDescriptor.STATE_COMPLETE
                        && header.getLong(ReplicaSlotDescriptor.ROUND_OFFSET) == round) {
                    ByteBuffer state = ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN)
                            .putInt(0, ReplicaSlotDescriptor.STATE_WRITING);
                    ch.write(state, ReplicaSlotDescriptor.STATE_OFFSET);
                    torn++;
                }
            }
        }
        return torn;
    }
}
