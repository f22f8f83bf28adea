package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.CkptStateException;
import io.jckpt.CtrlOptions;
import io.jckpt.InvalidOptionException;
import io.jckpt.MemoryShortage;
import io.jckpt.StorageException;
import io.jckpt.imem.ReplicaStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import io.jckpt.spi.LocalRankCollective;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.io.TempDir;

/**
 * The store reconfigured while the job runs, ranks as threads with real sockets and real node-local
 * files: ctrl(m) applied collectively at the next here(), slots that grow with the image, and the
 * memory policy choosing fewer copies; after each, failures restore bit-identically.
 */
class ReconfigurationTest {
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    /** Rank r's data at round k, {@code length} doubles, distinct per rank and round. */
    static double[] data(int rank, int round, int length) {
        double[] d = new double[length];
        Random random = new Random(rank * 7919L + round);
        for (int i = 0; i < length; i++) {
            d[i] = random.nextDouble();
        }
        d[0] = Double.longBitsToDouble(0x7ff8000000000000L + round); // a NaN payload
        return d;
    }

    private static long[] bits(double[] values) {
        long[] b = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            b[i] = Double.doubleToRawLongBits(values[i]);
        }
        return b;
    }

    /** A checkpoint of round {@code k}: the program's data replaced by that round's (its size may change), then here(). */
    private static void checkpoint(TwoLevelCheckpointer c, int rank, int k, int length, boolean registered) {
        if (registered) {
            c.remove("data");
        }
        c.register("data", data(rank, k, length));
        c.here();
    }

    private IntFunction<CkptOptions> options(Path nodes, int m) {
        return r -> RankGroup.options(nodes, r, m, null, 0);
    }

    /** The layout directories (their first rounds) of a rank's node-local store. */
    private static List<String> layouts(Path nodes, String job, int rank) throws Exception {
        Path dir = nodes.resolve("node-" + rank).resolve(job).resolve("rank-" + rank);
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(name -> name.startsWith("layout-")).sorted().toList();
        }
    }

    /** Opens world {@code epoch} with {@code wiped} nodes lost, checks every rank restores round {@code k}. */
    private List<TwoLevelCheckpointer> reopenAndCheck(Path nodes, String job, int n, int m, List<Integer> wiped, int k,
                                                      int length) throws Exception {
        for (int r : wiped) {
            ReplicaStore.wipe(nodes.resolve("node-" + r));
        }
        List<TwoLevelCheckpointer> world = RankGroup.open(n, job, 1, options(nodes, m), wiped::contains);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            assertTrue(c.isRecovery(), "rank " + rank);
            assertEquals(k, c.round());
            double[] target = new double[length];
            c.rollback("data", target);
            assertArrayEquals(bits(data(rank, k, length)), bits(target), "rank " + rank + " round " + k);
            if (wiped.contains(rank)) {
                assertTrue(c.restoredFrom().contains("RECEIVE"), c.restoredFrom());
            }
            return null;
        });
        return world;
    }

    @Test
    void ctrlFromOneToTwoReplicasThenTwoAdjacentNodesLostRestoresBitIdentically() throws Exception {
        int n = 4;
        Path nodes = tmp.resolve("nodes");
        int length = 2000;
        List<TwoLevelCheckpointer> world = RankGroup.open(n, "up", 0, options(nodes, 1), r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            double[] d = data(rank, 0, length);
            c.register("data", d);
            for (int k = 1; k <= 6; k++) {
                System.arraycopy(data(rank, k, length), 0, d, 0, length);
                if (k == 4) {
                    c.ctrl(CtrlOptions.builder().replicas(2).build());
                    assertEquals(1, c.stats().replicas(), "m changes at the next here(), not at ctrl");
                }
                c.here();
                assertEquals(k < 4 ? 1 : 2, c.stats().replicas(), "round " + k);
            }
            assertEquals(1, c.stats().reconfigurations());
            assertEquals(2, c.options().replicas());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
        // the old layout is gone once the new one held a round complete everywhere
        assertEquals(List.of("layout-4"), layouts(nodes, "up", 0));
        // the program opens again with the options it started with (m = 1): the stores say m = 2
        List<TwoLevelCheckpointer> world1 = reopenAndCheck(nodes, "up", n, 1, List.of(1, 2), 6, length);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            assertEquals(2, c.stats().replicas(), "recovery continues with the m recorded in the stores");
            c.remove("data");
            c.register("data", data(rank, 7, length));
            c.here();
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world1);
        // and m = 2 still holds after that recovery: two more adjacent nodes lost
        RankGroup.closeAll(reopenAndCheck(nodes, "up", n, 1, List.of(3, 0), 7, length));
    }

    @Test
    void ctrlFromTwoReplicasToOneFreesTheLargerStoreAndStillRestores() throws Exception {
        int n = 4;
        Path nodes = tmp.resolve("nodes");
        int length = 1500;
        List<TwoLevelCheckpointer> world = RankGroup.open(n, "down", 0, options(nodes, 2), r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            double[] d = data(rank, 0, length);
            c.register("data", d);
            for (int k = 1; k <= 5; k++) {
                System.arraycopy(data(rank, k, length), 0, d, 0, length);
                if (k == 3) {
                    c.ctrl(CtrlOptions.builder().replicas(1).build());
                }
                c.here();
            }
            assertEquals(1, c.stats().replicas());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
        assertEquals(List.of("layout-3"), layouts(nodes, "down", 2));
        try (Stream<Path> files = Files.list(nodes.resolve("node-2/down/rank-2/layout-3"))) {
            assertEquals(4, files.filter(p -> p.toString().endsWith(".slot")).count(), "(m+1) x versions slot files");
        }
        RankGroup.closeAll(reopenAndCheck(nodes, "down", n, 2, List.of(2), 5, length));
    }

    @Test
    void aFailureDuringTheSwitchRestoresTheLastRoundOfTheOldLayout() throws Exception {
        int n = 4;
        Path nodes = tmp.resolve("nodes");
        int length = 1000;
        List<TwoLevelCheckpointer> world = RankGroup.open(n, "mid", 0, options(nodes, 1), r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            double[] d = data(rank, 0, length);
            c.register("data", d);
            for (int k = 1; k <= 3; k++) {
                System.arraycopy(data(rank, k, length), 0, d, 0, length);
                c.here();
            }
            c.ctrl(CtrlOptions.builder().replicas(2).build());
            System.arraycopy(data(rank, 4, length), 0, d, 0, length);
            c.here(); // round 4: the first of the new layout; the old one (round 3) is still kept
            return null;
        });
        for (TwoLevelCheckpointer c : world) {
            c.crashForTest(); // every process dies before round 4 is known complete everywhere
        }
        assertEquals(List.of("layout-1", "layout-4"), layouts(nodes, "mid", 0));
        // rank 1's node lost its new store only (as if the switch had not reached it): round 4 cannot be
        // restored for rank 1 from the new layout's m = 2 copies either, once rank 2 and 3's are gone too
        for (int r = 1; r <= 3; r++) {
            ReplicaStore.wipe(nodes.resolve("node-" + r).resolve("mid").resolve("rank-" + r).resolve("layout-4"));
        }
        List<TwoLevelCheckpointer> world1 = reopenAndCheck(nodes, "mid", n, 1, List.of(), 3, length);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            assertEquals(1, c.stats().replicas(), "rolled back before the switch: the old m");
            return null;
        });
        RankGroup.closeAll(world1);
        assertEquals(List.of("layout-1"), layouts(nodes, "mid", 0), "the newer layout is dropped");
    }

    @Test
    void ranksAskingForDifferentReplicasAllGetAClearErrorAndGoOn() throws Exception {
        int n = 3;
        Path nodes = tmp.resolve("nodes");
        List<TwoLevelCheckpointer> world = RankGroup.open(n, "disagree", 0, options(nodes, 1), r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            double[] d = data(rank, 1, 100);
            c.register("data", d);
            c.here();
            InvalidOptionException e = assertThrows(InvalidOptionException.class,
                    () -> c.ctrl(CtrlOptions.builder().replicas(rank == 1 ? 2 : 1).build()));
            assertTrue(e.getMessage().contains("ctrl must be the same on every rank"), e.getMessage());
            InvalidOptionException tooMany = assertThrows(InvalidOptionException.class,
                    () -> c.ctrl(CtrlOptions.builder().replicas(3).build()));
            assertTrue(tooMany.getMessage().contains("must be <= n-1 = 2"), tooMany.getMessage());
            c.here(); // nothing changed, nothing hangs
            assertEquals(1, c.stats().replicas());
            assertEquals(0, c.stats().reconfigurations());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
    }

    /**
     * With two versions kept the size agreement rides on the ring (no exchange per here()); with
     * three it is a background exchange per here(). Both grow together and restore exactly.
     */
    @ParameterizedTest(name = "versionsKept={0}")
    @ValueSource(ints = {2, 3})
    void slotsGrowWithAnImageFourTimesLargerThenANodeLossRestoresBitIdentically(int versionsKept) throws Exception {
        int n = 4;
        Path nodes = tmp.resolve("nodes");
        int base = 1000;
        List<LocalRankCollective> exchanges = LocalRankCollective.group(n);
        List<TwoLevelCheckpointer> world = RankGroup.open(exchanges, "grow", 0,
                r -> options(nodes, 1).apply(r).toBuilder().versionsKept(versionsKept).build(), r -> false, r -> null);
        long[] firstCapacity = new long[n];
        long[] steadyExchanges = new long[n];
        long[] sinceRound2 = new long[n];
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            for (int k = 1; k <= 6; k++) {
                if (k == 2) {
                    steadyExchanges[rank] = exchanges.get(rank).exchanges();
                    sinceRound2[rank] = steadyExchanges[rank];
                } else if (k == 3) {
                    // round 2 changed nothing: no exchange on the ring; a background agreement per here() otherwise
                    steadyExchanges[rank] = exchanges.get(rank).exchanges() - steadyExchanges[rank];
                }
                // rank 2's data grows to 4x over the rounds; the others stay the same
                checkpoint(c, rank, k, rank == 2 ? base * (k <= 2 ? 1 : k <= 4 ? 2 : 4) : base, k > 1);
                if (k == 1) {
                    firstCapacity[rank] = c.stats().slotCapacity();
                }
            }
            assertEquals(2, c.stats().reconfigurations(), "grown twice (2x, then 4x)");
            assertTrue(c.stats().slotCapacity() >= 4L * base * 8, "capacity " + c.stats().slotCapacity());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
        assertTrue(firstCapacity[0] < 2L * base * 8, "first capacity " + firstCapacity[0]);
        for (int r = 0; r < n; r++) {
            if (versionsKept == 2) {
                assertEquals(0, steadyExchanges[r], "exchanges of rank " + r + " in a steady here()");
            } else { // one background agreement per here() from round 2 on, all joined by close
                long since = exchanges.get(r).exchanges() - sinceRound2[r];
                assertTrue(since >= 5, "rank " + r + ": " + since + " exchanges from round 2 on");
            }
        }
        // rank 2's own node is lost: its 4x image comes back from rank 3's grown store
        ReplicaStore.wipe(nodes.resolve("node-2"));
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, "grow", 1,
                r -> options(nodes, 1).apply(r).toBuilder().versionsKept(versionsKept).build(), r -> r == 2);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            int length = rank == 2 ? 4 * base : base;
            double[] target = new double[length];
            c.rollback("data", target);
            assertEquals(6, c.round());
            assertArrayEquals(bits(data(rank, 6, length)), bits(target), "rank " + rank);
            return null;
        });
        RankGroup.closeAll(world1);
    }

    @Test
    void aRankAloneGrowsItsSlotsAtOnceWithNoExchangeAndTakesEveryRound() throws Exception {
        Path nodes = tmp.resolve("alone");
        List<LocalRankCollective> exchanges = LocalRankCollective.group(1);
        List<TwoLevelCheckpointer> world = RankGroup.open(exchanges, "alone", 0, options(nodes, 0), r -> false, r -> null);
        TwoLevelCheckpointer c = world.get(0);
        long beforeSteady = 0;
        for (int k = 1; k <= 6; k++) {
            if (k == 6) {
                beforeSteady = exchanges.get(0).exchanges();
            }
            int kk = Math.min(k, 5);
            checkpoint(c, 0, k, 1000 * kk * kk, k > 1); // outgrows the 1.25x slack at rounds 2 to 5
            assertEquals(k, c.round());
        }
        assertEquals(beforeSteady, exchanges.get(0).exchanges(), "a here() that changes nothing makes no exchange");
        assertEquals(4, c.stats().reconfigurations(), "one growth per round from round 2 to 5");
        assertEquals(6, c.stats().checkpoints(), "every round taken, none skipped");
        assertTrue(c.stats().slotCapacity() >= 25_000L * 8);
        RankGroup.closeAll(world);
        List<TwoLevelCheckpointer> again = RankGroup.open(1, "alone", 1, options(nodes, 0), r -> false);
        double[] target = new double[25_000];
        again.get(0).rollback("data", target);
        assertEquals(6, again.get(0).round());
        assertArrayEquals(bits(data(0, 6, 25_000)), bits(target));
        RankGroup.closeAll(again);
    }

    /** A rank skipped the newest round (its image outgrew its slot) and a node is lost before the next here(). */
    @ParameterizedTest(name = "versionsKept={0}")
    @ValueSource(ints = {2, 3})
    void aNodeLostRightAfterARoundSomeRankSkippedRestoresTheRoundBeforeEverywhere(int versionsKept) throws Exception {
        int n = 4;
        Path nodes = tmp.resolve("nodes");
        int base = 1000;
        IntFunction<CkptOptions> opts = r -> options(nodes, 1).apply(r).toBuilder().versionsKept(versionsKept).build();
        List<TwoLevelCheckpointer> world = RankGroup.open(n, "skip", 0, opts, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            for (int k = 1; k <= 4; k++) {
                checkpoint(c, rank, k, rank == 2 && k == 4 ? 4 * base : base, k > 1);
            }
            assertEquals(4, c.round());
            assertEquals(rank == 2 ? 3 : 4, c.stats().checkpoints(), "round 4 is skipped on rank 2 only");
            assertTrue(c.awaitReplicated(WAIT), "round 3, the newest every rank took, is replicated everywhere");
            return null;
        });
        RankGroup.closeAll(world);
        ReplicaStore.wipe(nodes.resolve("node-1"));
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, "skip", 1, opts, r -> r == 1);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            assertTrue(c.isRecovery());
            assertEquals(3, c.round(), "rank " + rank + ": round 4 exists nowhere for rank 2");
            double[] target = new double[base];
            c.rollback("data", target);
            assertArrayEquals(bits(data(rank, 3, base)), bits(target), "rank " + rank);
            // and the job goes on: rank 2's larger image is skipped once more (round 4), then every
            // rank grows the slots together at round 5
            for (int k = 4; k <= 5; k++) {
                checkpoint(c, rank, k, rank == 2 ? 4 * base : base, true);
            }
            assertEquals(rank == 2 ? 1 : 2, c.stats().checkpoints(), "rank " + rank + " in the new world");
            assertTrue(c.stats().slotCapacity() >= 4L * base * 8, "capacity " + c.stats().slotCapacity());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world1);
        // rank 2's grown image comes back after its own node is lost
        ReplicaStore.wipe(nodes.resolve("node-2"));
        List<TwoLevelCheckpointer> world2 = RankGroup.open(n, "skip", 2, opts, r -> r == 2);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world2.get(rank);
            assertEquals(5, c.round());
            double[] target = new double[rank == 2 ? 4 * base : base];
            c.rollback("data", target);
            assertArrayEquals(bits(data(rank, 5, target.length)), bits(target), "rank " + rank);
            return null;
        });
        RankGroup.closeAll(world2);
    }

    @Test
    void growthBeyondTheMemoryCapIsAClearErrorAndThePreviousRoundStaysRestorable() throws Exception {
        int n = 3;
        Path nodes = tmp.resolve("nodes");
        int base = 1000;
        long cap = 160 * 1024; // room for (1+1) x 2 slots of a ~8 KB image, not of a 256 KB one
        IntFunction<CkptOptions> capped = r -> RankGroup.options(nodes, r, 1, null, 0).toBuilder().maxMemoryBytes(cap).build();
        List<TwoLevelCheckpointer> world = RankGroup.open(n, "cap", 0, capped, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            c.register("data", data(rank, 1, base));
            c.here();
            c.remove("data");
            c.register("data", data(rank, 2, base));
            c.here();
            c.remove("data");
            c.register("data", data(rank, 3, rank == 1 ? 32 * base : base));
            c.here(); // rank 1's image outgrew its slot: round 3 is skipped there, every rank learns it below
            StorageException e = assertThrows(StorageException.class, c::here);
            assertTrue(e.getMessage().contains("rank 1 can hold only") || e.getMessage().contains("can hold only"),
                    e.getMessage());
            assertTrue(e.getMessage().contains("maxMemoryBytes " + cap), e.getMessage());
            assertTrue(e.getMessage().contains("memoryShortage(DEGRADE)"), e.getMessage());
            assertEquals(3, c.round(), "round 4 was not taken (and round 3 is complete nowhere)");
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, "cap", 1, capped, r -> r == 1);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            double[] target = new double[base];
            c.rollback("data", target);
            assertEquals(2, c.round());
            assertArrayEquals(bits(data(rank, 2, base)), bits(target), "rank " + rank);
            return null;
        });
        RankGroup.closeAll(world1);
    }

    @Test
    void memoryForFewerCopiesOnlyDegradesWithAWarningAndStillRestores() throws Exception {
        int n = 4;
        Path nodes = tmp.resolve("nodes");
        Path disk = tmp.resolve("disk");
        long slot = 64 * 1024;
        long perCopy = 2 * io.jckpt.imem.ReplicaSlotDescriptor.fileSize(slot);
        long cap = 2 * perCopy + perCopy / 2; // m = 1 fits, m = 2 does not
        IntFunction<CkptOptions> degrade = r -> RankGroup.options(nodes, r, 2, disk, 8).toBuilder().maxMemoryBytes(cap)
                .slotCapacity(slot).memoryShortage(MemoryShortage.DEGRADE).minReplicas(1).build();
        ConcurrentLinkedQueue<String> events = new ConcurrentLinkedQueue<>();
        List<TwoLevelCheckpointer> world = RankGroup.open(n, "degrade", 0, degrade, r -> false, r -> e -> events.add(e.text()));
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            double[] d = data(rank, 0, 1000);
            c.register("data", d);
            for (int k = 1; k <= 3; k++) {
                System.arraycopy(data(rank, k, 1000), 0, d, 0, 1000);
                c.here();
            }
            assertEquals(1, c.stats().replicas());
            assertEquals(4, c.stats().diskRatio(), "one copy dropped: disk rounds twice as often");
            assertTrue(c.stats().degraded());
            assertEquals(2, c.options().minReplicas() + 1);
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
        String warning = events.stream().filter(e -> e.startsWith("memory policy:")).findFirst().orElseThrow();
        assertTrue(warning.contains("(2+1) x 2 x " + io.jckpt.imem.ReplicaSlotDescriptor.fileSize(slot)), warning);
        assertTrue(warning.contains("can hold only " + cap + " bytes"), warning);
        assertTrue(warning.contains("keeping m=1 copies"), warning);
        assertTrue(warning.contains("a disk round every 4 rounds instead of every 8"), warning);
        RankGroup.closeAll(reopenAndCheck(nodes, "degrade", n, 2, List.of(1), 3, 1000));

        // the same shortage with FAIL (the default): a clear error naming the numbers, at the first here()
        IntFunction<CkptOptions> fail = r -> degrade.apply(r).toBuilder().memoryShortage(MemoryShortage.FAIL).build();
        List<TwoLevelCheckpointer> strict = RankGroup.open(n, "strict", 0, fail, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = strict.get(rank);
            c.register("data", data(rank, 1, 1000));
            StorageException e = assertThrows(StorageException.class, c::here);
            assertTrue(e.getMessage().contains("for m=2") && e.getMessage().contains("can hold only " + cap), e.getMessage());
            assertFalse(c.isRecovery());
            return null;
        });
        RankGroup.closeAll(strict);
    }

    /**
     * The restored image (a view of a slot of the layout the restore came from) lives until the
     * recovery's first here(), which settles it before anything is written: the slots grow and the old
     * layout is retired later without the restored data being read from a slot in use, and a rollback
     * after that first here() is refused rather than read from memory that may be reused.
     */
    @Test
    void theRestoredImageIsSettledAtTheFirstHereBeforeTheLayoutItCameFromIsRetired() throws Exception {
        int n = 3;
        Path nodes = tmp.resolve("nodes");
        List<TwoLevelCheckpointer> world = RankGroup.open(n, "late", 0, options(nodes, 1), r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            c.register("a", data(rank, 2, 500));
            c.register("b", data(rank, 2, 700));
            c.here();
            c.here();
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, "late", 1, options(nodes, 1), r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            double[] a = new double[500];
            double[] b = new double[700];
            c.rollback("a", a);
            c.register("b", b); // restored in place
            c.register("big", new double[8000]); // round 3 outgrows the slots: skipped, then a new layout
            c.here();
            assertTrue(c.awaitReplicated(WAIT));
            c.here(); // round 4: every rank learnt that round 3 did not fit; the slots grow
            assertEquals(List.of("layout-1", "layout-4"), layouts(nodes, "late", rank));
            assertTrue(c.awaitReplicated(WAIT));
            c.here(); // round 4 is complete everywhere: the layout the restore came from is released here
            assertEquals(List.of("layout-4"), layouts(nodes, "late", rank));
            assertArrayEquals(bits(data(rank, 2, 700)), bits(b), "rank " + rank);
            assertArrayEquals(bits(data(rank, 2, 500)), bits(a), "rank " + rank);
            assertThrows(CkptStateException.class, () -> c.rollback("b", new double[700]));
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world1);
    }

    @Test
    void downToNoCopiesAndBackWithAFixedSlotAndADiskRoundEveryRound() throws Exception {
        int n = 3;
        Path nodes = tmp.resolve("nodes");
        Path disk = tmp.resolve("disk");
        IntFunction<CkptOptions> fixed = r -> RankGroup.options(nodes, r, 1, disk, 1).toBuilder().slotCapacity(64 * 1024)
                .build();
        List<TwoLevelCheckpointer> world = RankGroup.open(n, "zero", 0, fixed, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            double[] d = data(rank, 0, 1000);
            c.register("data", d);
            for (int k = 1; k <= 6; k++) {
                System.arraycopy(data(rank, k, 1000), 0, d, 0, 1000);
                if (k == 3) {
                    c.ctrl(CtrlOptions.builder().replicas(0).build());
                } else if (k == 5) {
                    c.ctrl(CtrlOptions.builder().replicas(1).build());
                }
                c.here();
                if (k == 5) {
                    // layout-1 went at the barrier of round 4, or, if a disk flush still read one of its
                    // slots then, at this switch (which waits for the flusher): never unmapped under it
                    assertEquals(List.of("layout-3", "layout-5"), layouts(nodes, "zero", rank));
                }
                assertEquals(k >= 3 && k < 5 ? 0 : 1, c.stats().replicas(), "round " + k);
            }
            assertEquals(2, c.stats().reconfigurations());
            assertEquals(64 * 1024, c.stats().slotCapacity());
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
        assertEquals(List.of("layout-5"), layouts(nodes, "zero", 1));
        RankGroup.closeAll(reopenAndCheck(nodes, "zero", n, 1, List.of(1), 6, 1000));
    }
}
