package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.CkptStateException;
import io.jckpt.StorageException;
import io.jckpt.imem.ReplicaStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A recovery restores a round in place (its image is a view of its memory slot), then the program's
 * state grows: the rounds after the recovery go into the store the image views, one of them into the
 * restored slot itself (after {@code versionsKept} rounds), and later the slots grow (a layout switch,
 * the restored store released). Nothing may read that slot once it can be written again: the restored
 * image stays the restored round's, and every round stays restorable bit-identically. The window is
 * opened by the program's own sequence of calls on every rank (no timing), with the round complete
 * everywhere awaited where the store's release depends on it. Ranks are threads with real sockets and
 * real node-local files.
 */
class GrowthAfterRecoveryTest {
    private static final Duration WAIT = Duration.ofSeconds(30);
    private static final int BASE = 1000;

    @TempDir
    Path tmp;

    private static double[] data(int rank, int round, int length) {
        return ReconfigurationTest.data(rank, round, length);
    }

    private static long[] bits(double[] values) {
        long[] b = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = Double.doubleToRawLongBits(values[i]);
        }
        return b;
    }

    /** The layout directories of a rank's node-local store. */
    private static List<String> layouts(Path nodes, String job, int rank) throws Exception {
        Path dir = nodes.resolve("node-" + rank).resolve(job).resolve("rank-" + rank);
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(name -> name.startsWith("layout-")).sorted().toList();
        }
    }

    /** Rounds 1 to 3 of every rank: "data" holds round k's values; round 3 replicated everywhere, then the job stops. */
    private static void firstWorld(String job, int n, IntFunction<CkptOptions> options) throws Exception {
        List<TwoLevelCheckpointer> world = RankGroup.open(n, job, 0, options, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            double[] d = data(rank, 0, BASE);
            double[] b = data(rank + 100, 0, 700);
            c.register("data", d);
            c.register("b", b);
            for (int k = 1; k <= 3; k++) {
                System.arraycopy(data(rank, k, BASE), 0, d, 0, BASE);
                System.arraycopy(data(rank + 100, k, 700), 0, b, 0, 700);
                c.here();
            }
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
    }

    /** Rolls back every tag of round 3 (what a program does at once after a recovery). */
    private static void rollBackRound3(TwoLevelCheckpointer c, int rank) {
        assertTrue(c.isRecovery(), "rank " + rank);
        assertEquals(3, c.round());
        assertTrue(c.restoredFrom().startsWith("memory"), c.restoredFrom());
        double[] d = c.rollback("data", new double[BASE]);
        assertArrayEquals(bits(data(rank, 3, BASE)), bits(d), "rank " + rank);
        double[] b = c.rollback("b", new double[700]);
        assertArrayEquals(bits(data(rank + 100, 3, 700)), bits(b), "rank " + rank);
    }

    /**
     * The failure: after the recovery the image grows within the slots for {@code versionsKept}
     * rounds (the last of them written into the restored slot), then beyond them: the slots grow, and
     * the store the restored image viewed is released. Then a node is lost: the newest round comes back
     * bit-identically.
     */
    @ParameterizedTest(name = "versionsKept={0}")
    @ValueSource(ints = {2, 3})
    void theSlotsGrowAfterARecoveryOnceTheRestoredSlotWasWrittenAgain(int versionsKept) throws Exception {
        int n = 3;
        Path nodes = tmp.resolve("nodes");
        String job = "grow-after";
        IntFunction<CkptOptions> options = r -> RankGroup.options(nodes, r, 1, null, 0).toBuilder()
                .versionsKept(versionsKept).build();
        firstWorld(job, n, options);
        int bigRound = 4 + versionsKept; // the first round whose image outgrows the slots
        int[] bigLength = new int[1];
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, job, 1, options, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            rollBackRound3(c, rank);
            long capacity = c.stats().slotCapacity();
            // rounds 4 .. 3 + versionsKept grow within the slots; the last goes into round 3's slot
            c.register("extra", data(rank + 10, 4, 1));
            c.here();
            int step = (int) ((capacity - c.stats().lastImageBytes() - 256) / 8 / versionsKept);
            assertTrue(step > 100, "room in the slot: " + capacity + " bytes, " + c.stats().lastImageBytes() + " used");
            for (int k = 5; k < bigRound; k++) {
                c.remove("extra");
                c.register("extra", data(rank + 10, k, (k - 4) * step));
                c.here();
            }
            assertEquals(capacity, c.stats().slotCapacity(), "rank " + rank + ": no growth yet");
            assertEquals(0, c.stats().reconfigurations());
            bigLength[0] = (int) (4 * capacity / 8);
            c.remove("extra");
            c.register("extra", data(rank + 10, bigRound, bigLength[0]));
            c.here(); // outgrows the slots: skipped on every rank
            c.here(); // every rank learnt it: the slots grow (a layout switch; the restored store retires)
            assertEquals(1, c.stats().reconfigurations(), "rank " + rank);
            assertTrue(c.awaitReplicated(WAIT));
            c.here(); // the new layout's first round is complete everywhere: the retiring store is released
            assertEquals(List.of("layout-" + (bigRound + 1)), layouts(nodes, job, rank), "rank " + rank);
            assertEquals(bigRound + 2, c.round());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world1);

        ReplicaStore.wipe(nodes.resolve("node-1"));
        List<TwoLevelCheckpointer> world2 = RankGroup.open(n, job, 2, options, r -> r == 1);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world2.get(rank);
            assertEquals(bigRound + 2, c.round());
            double[] d = c.rollback("data", new double[BASE]);
            assertArrayEquals(bits(data(rank, 3, BASE)), bits(d), "rank " + rank + ": the restored values, unchanged");
            double[] extra = c.rollback("extra", new double[bigLength[0]]);
            assertArrayEquals(bits(data(rank + 10, bigRound, bigLength[0])), bits(extra), "rank " + rank);
            double[] b = c.rollback("b", new double[700]);
            assertArrayEquals(bits(data(rank + 100, 3, 700)), bits(b), "rank " + rank);
            c.here();
            return null;
        });
        RankGroup.closeAll(world2);
    }

    /**
     * The restored slot is written again once the recovery's tags are accounted for: a rollback after
     * the first here() is refused (the restored image is settled there, before anything is written) and
     * never reads the bytes of a newer round; the round written into the restored slot restores
     * bit-identically.
     */
    @ParameterizedTest(name = "versionsKept={0}")
    @ValueSource(ints = {2, 3})
    void aRollbackAfterTheFirstHereIsRefusedAndTheRestoredSlotIsWrittenAgain(int versionsKept) throws Exception {
        int n = 3;
        Path nodes = tmp.resolve("nodes");
        String job = "late";
        IntFunction<CkptOptions> options = r -> RankGroup.options(nodes, r, 1, null, 0).toBuilder()
                .versionsKept(versionsKept).build();
        firstWorld(job, n, options);
        int last = 3 + versionsKept; // goes into round 3's slot
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, job, 1, options, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            double[] d = c.rollback("data", new double[BASE]);
            double[] b = c.rollback("b", new double[700]);
            assertArrayEquals(bits(data(rank + 100, 3, 700)), bits(b), "rank " + rank);
            for (int k = 4; k <= last; k++) {
                System.arraycopy(data(rank, k, BASE), 0, d, 0, BASE);
                System.arraycopy(data(rank + 100, k, 700), 0, b, 0, 700);
                c.here();
            }
            CkptStateException late = assertThrows(CkptStateException.class,
                    () -> c.rollback("b", new double[700]));
            assertTrue(late.getMessage().contains("after the first here()"), late.getMessage());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world1);
        List<TwoLevelCheckpointer> world2 = RankGroup.open(n, job, 2, options, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world2.get(rank);
            assertEquals(last, c.round(), "rank " + rank);
            assertArrayEquals(bits(data(rank, last, BASE)), bits(c.rollback("data", new double[BASE])), "rank " + rank);
            assertArrayEquals(bits(data(rank + 100, last, 700)), bits(c.rollback("b", new double[700])), "rank " + rank);
            c.here();
            return null;
        });
        RankGroup.closeAll(world2);
    }

    /**
     * Growth after a recovery where the slots cannot grow: a slot capacity fixed by the options, and
     * a memory cap that cannot hold the grown slots. Each is a clear error naming the option, and the
     * newest round taken stays restorable bit-identically.
     */
    @Test
    void afterARecoveryAFixedSlotOrTheMemoryCapStopsGrowthWithAClearErrorAndLosesNothing() throws Exception {
        int n = 3;
        Path nodes = tmp.resolve("nodes");
        long slot = 64 * 1024;
        IntFunction<CkptOptions> fixed = r -> RankGroup.options(nodes, r, 1, null, 0).toBuilder().slotCapacity(slot)
                .build();
        firstWorld("fixed", n, fixed);
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, "fixed", 1, fixed, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            rollBackRound3(c, rank);
            c.register("extra", data(rank + 10, 4, 10));
            c.here();
            c.here(); // round 5 goes into round 3's slot
            c.remove("extra");
            c.register("extra", data(rank + 10, 6, (int) (slot / 8)));
            StorageException e = assertThrows(StorageException.class, c::here);
            assertTrue(e.getMessage().contains("rank " + rank + ": the checkpoint image grew to ")
                    && e.getMessage().contains("beyond the slot capacity of " + slot
                    + " bytes fixed by the option slotCapacity"), e.getMessage());
            assertEquals(5, c.round());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world1);
        List<TwoLevelCheckpointer> world2 = RankGroup.open(n, "fixed", 2, fixed, r -> r == 2);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world2.get(rank);
            assertEquals(5, c.round());
            assertArrayEquals(bits(data(rank, 3, BASE)), bits(c.rollback("data", new double[BASE])), "rank " + rank);
            assertArrayEquals(bits(data(rank + 10, 4, 10)), bits(c.rollback("extra", new double[10])), "rank " + rank);
            c.remove("b"); // the recovery's contract: every tag of the restored round restored or removed
            return null;
        });
        RankGroup.closeAll(world2);

        // room for (1+1) x 2 slots of a ~12 KB image, not of a 256 KB one
        long cap = 160 * 1024;
        IntFunction<CkptOptions> capped = r -> RankGroup.options(nodes, r, 1, null, 0).toBuilder().maxMemoryBytes(cap)
                .build();
        firstWorld("cap", n, capped);
        List<TwoLevelCheckpointer> capped1 = RankGroup.open(n, "cap", 1, capped, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = capped1.get(rank);
            rollBackRound3(c, rank);
            c.register("extra", data(rank + 10, 4, 10));
            c.here();
            c.here(); // round 5 goes into round 3's slot
            c.remove("extra");
            c.register("extra", data(rank + 10, 6, rank == 1 ? 32 * BASE : 10));
            c.here(); // rank 1's image outgrew its slot: round 6 is skipped there
            StorageException e = assertThrows(StorageException.class, c::here);
            assertTrue(e.getMessage().contains("can hold only") && e.getMessage().contains("maxMemoryBytes " + cap),
                    e.getMessage());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(capped1);
        List<TwoLevelCheckpointer> capped2 = RankGroup.open(n, "cap", 2, capped, r -> r == 0);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = capped2.get(rank);
            assertEquals(5, c.round(), "round 6 is complete nowhere");
            assertArrayEquals(bits(data(rank, 3, BASE)), bits(c.rollback("data", new double[BASE])), "rank " + rank);
            assertArrayEquals(bits(data(rank + 10, 4, 10)), bits(c.rollback("extra", new double[10])), "rank " + rank);
            c.remove("b"); // the recovery's contract: every tag of the restored round restored or removed
            return null;
        });
        RankGroup.closeAll(capped2);
    }
}
