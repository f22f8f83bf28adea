package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.CkptStats;
import io.jckpt.InvalidOptionException;
import io.jckpt.NotRecoverableException;
import io.jckpt.imem.ReplicaStore;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The two levels combined, ranks as threads with real sockets and real node-local files: any set
 * of up to m failed ranks, whose node-local stores are wiped (node loss) or kept (process death),
 * restores bit-identically what here() captured; beyond m, the disk level or a clear error.
 */
class TwoLevelCheckpointerTest {
    private static final int ROUNDS = 3;

    @TempDir
    Path tmp;

    /** The data of rank r at round k: distinct per rank and round, NaN payloads included. */
    static double[] grid(int rank, int round) {
        double[] g = new double[1000 + rank * 37];
        Random random = new Random(rank * 1000L + round);
        for (int i = 0; i < g.length; i++) {
            g[i] = random.nextDouble();
        }
        g[0] = Double.longBitsToDouble(0x7ff8000000000123L + round); // a NaN payload
        return g;
    }

    static Stream<Arguments> failurePatterns() {
        List<Arguments> cases = new ArrayList<>();
        Random random = new Random(7);
        int maxN = Integer.getInteger("jckpt.test.maxRanks", 8);
        for (int n = 2; n <= maxN; n++) {
            for (int m = 1; m <= n - 1; m++) {
                List<Set<Integer>> sets = new ArrayList<>();
                for (int mask = 1; mask < (1 << n); mask++) {
                    if (Integer.bitCount(mask) <= m) {
                        Set<Integer> failed = new TreeSet<>();
                        for (int r = 0; r < n; r++) {
                            if ((mask & (1 << r)) != 0) {
                                failed.add(r);
                            }
                        }
                        sets.add(failed);
                    }
                }
                // exhaustive for n <= 4, a sample above (the planner itself is exhaustive up to 6 in imem)
                int keep = n <= 4 ? sets.size() : Math.min(sets.size(), 3);
                java.util.Collections.shuffle(sets, random);
                for (Set<Integer> failed : sets.subList(0, keep)) {
                    cases.add(Arguments.of(n, m, failed, true));
                    if (n <= 3) {
                        cases.add(Arguments.of(n, m, failed, false));
                    }
                }
            }
        }
        return cases.stream();
    }

    @ParameterizedTest(name = "n={0} m={1} failed={2} wiped={3}")
    @MethodSource("failurePatterns")
    void upToMFailuresRestoreBitIdentically(int n, int m, Set<Integer> failed, boolean wiped) throws Exception {
        Path nodes = tmp.resolve("nodes");
        String job = "job-" + n + "-" + m;
        List<double[]> grids = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            grids.add(grid(r, 0));
        }
        List<TwoLevelCheckpointer> world0 = RankGroup.open(n, job, 0, r -> RankGroup.options(nodes, r, m, null, 0),
                r -> false);
        long[] imageBytes = new long[n];
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world0.get(rank);
            assertFalse(c.isRecovery());
            assertEquals(CkptStats.RecoveryTimings.NONE, c.stats().lastRecovery());
            int[] counter = {0};
            c.register("grid", grids.get(rank));
            c.register("counter", counter);
            for (int k = 1; k <= ROUNDS; k++) {
                System.arraycopy(grid(rank, k), 0, grids.get(rank), 0, grids.get(rank).length);
                counter[0] = k;
                c.here();
                assertHereTimings(c.stats());
            }
            imageBytes[rank] = c.stats().lastImageBytes();
            // every rank's last round fully replicated before the "failure"
            assertTrue(c.awaitReplicated(java.time.Duration.ofSeconds(30)));
            return null;
        });
        RankGroup.closeAll(world0);
        for (int r : failed) {
            if (wiped) {
                ReplicaStore.wipe(nodes.resolve("node-" + r));
            }
        }
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, job, 1, r -> RankGroup.options(nodes, r, m, null, 0),
                failed::contains);
        // the recovery's steps, as CkptStats reports them: a rank receives its whole image when it
        // restores from a holder, plus the copies of its m predecessors when its store was wiped (the
        // refills: every round was replicated before the failure, so no other copy is missing), and
        // every byte sent was received by someone
        long sent = 0;
        long received = 0;
        for (int rank = 0; rank < n; rank++) {
            CkptStats.RecoveryTimings t = world1.get(rank).stats().lastRecovery();
            boolean receives = world1.get(rank).restoredFrom().contains("RECEIVE");
            long refilled = 0;
            if (wiped && failed.contains(rank)) {
                for (int d = 1; d <= m; d++) {
                    refilled += imageBytes[Math.floorMod(rank - d, n)];
                }
            }
            assertEquals((receives ? imageBytes[rank] : 0) + refilled, t.bytesReceived(), "rank " + rank + ": " + t);
            assertTrue(t.storeOpenNanos() > 0 && t.statusExchangeNanos() > 0 && t.planNanos() > 0, "rank " + rank + ": " + t);
            assertEquals(0, t.ringJoinNanos(), "the ring is re-joined at the first here(): " + t);
            assertTrue(!receives || t.transferNanos() > 0, "rank " + rank + ": " + t);
            assertTrue(t.totalNanos() >= t.storeOpenNanos() + t.statusExchangeNanos() + t.planNanos()
                    + t.transferNanos() + t.verifyNanos() + t.ringJoinNanos(), "rank " + rank + ": " + t);
            sent += t.bytesSent();
            received += t.bytesReceived();
        }
        assertEquals(received, sent);
        long refills = 0;
        for (int r : failed) {
            for (int d = 1; d <= m && wiped; d++) {
                refills += imageBytes[Math.floorMod(r - d, n)];
            }
        }
        assertEquals(wiped ? failed.stream().mapToLong(r -> imageBytes[r]).sum() + refills : 0, received);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            assertTrue(c.isRecovery(), "rank " + rank + " should roll back");
            double[] target = new double[grids.get(rank).length];
            int[] counter = new int[1];
            c.rollback("counter", counter);
            c.rollback("grid", target);
            assertEquals(ROUNDS, counter[0]);
            assertArrayEquals(doubleBits(grid(rank, ROUNDS)), doubleBits(target), "rank " + rank);
            assertEquals(ROUNDS, c.round());
            if (failed.contains(rank) && wiped) {
                assertTrue(c.restoredFrom().contains("RECEIVE"), c.restoredFrom());
            } else {
                assertTrue(c.restoredFrom().contains("LOCAL"), c.restoredFrom());
            }
            c.here(); // the job goes on: round ROUNDS + 1 replicates in the new world
            assertEquals(ROUNDS + 1, c.round());
            assertTrue(c.stats().lastRecovery().ringJoinNanos() > 0, c.stats().lastRecovery().toString());
            assertTrue(c.awaitReplicated(java.time.Duration.ofSeconds(30)));
            return null;
        });
        RankGroup.closeAll(world1);
    }

    /** here()'s parts are each measured and add up to at most the whole call. */
    private static void assertHereTimings(CkptStats stats) {
        CkptStats.HereTimings h = stats.lastHere();
        assertEquals(stats.lastBlockingNanos(), h.totalNanos());
        assertTrue(h.waitNanos() >= 0 && h.writeNanos() > 0 && h.handOffNanos() > 0, h.toString());
        assertTrue(h.waitNanos() + h.writeNanos() + h.handOffNanos() <= h.totalNanos(), h.toString());
    }

    private static long[] doubleBits(double[] values) {
        long[] bits = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            bits[i] = Double.doubleToRawLongBits(values[i]);
        }
        return bits;
    }

    @Test
    void mPlusOneAdjacentLossesWithoutDiskGiveAClearError() throws Exception {
        int n = 4;
        Path nodes = tmp.resolve("nodes");
        runRounds(n, 1, nodes, null, 0, "adjacent");
        ReplicaStore.wipe(nodes.resolve("node-1"));
        ReplicaStore.wipe(nodes.resolve("node-2"));
        Exception e = assertThrows(Exception.class, () -> RankGroup.open(n, "adjacent", 1,
                r -> RankGroup.options(nodes, r, 1, null, 0), r -> r == 1 || r == 2));
        assertTrue(e instanceof NotRecoverableException, e.toString());
        assertTrue(e.getMessage().contains("rank 1"), e.getMessage());
    }

    @Test
    void mPlusOneAdjacentLossesRestoreFromTheDiskGeneration() throws Exception {
        int n = 4;
        Path nodes = tmp.resolve("nodes");
        Path disk = tmp.resolve("disk");
        // disk ratio 2: rounds 2 (and 4, ...) go to disk; 3 rounds run, so round 2 is on disk
        runRounds(n, 1, nodes, disk, 2, "todisk");
        ReplicaStore.wipe(nodes.resolve("node-1"));
        ReplicaStore.wipe(nodes.resolve("node-2"));
        // commit happens at the next disk round or at close; the round-2 generation is committed by now
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, "todisk", 1, r -> RankGroup.options(nodes, r, 1, disk, 2),
                r -> r == 1 || r == 2);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            assertTrue(c.isRecovery());
            assertTrue(c.restoredFrom().startsWith("disk generation of round 2"), c.restoredFrom());
            CkptStats.RecoveryTimings t = c.stats().lastRecovery();
            assertEquals(0, t.bytesSent());
            assertTrue(t.bytesReceived() > grid(rank, 0).length * 8L, t.toString()); // the image: data, header, table
            assertTrue(t.transferNanos() > 0 && t.totalNanos() > t.transferNanos(), t.toString());
            double[] target = new double[grid(rank, 0).length];
            c.rollback("grid", target);
            assertArrayEquals(doubleBits(grid(rank, 2)), doubleBits(target));
            return null;
        });
        RankGroup.closeAll(world1);
    }

    @Test
    void ranksThatDisagreeOnOptionsAreToldWhich() throws Exception {
        Path nodes = tmp.resolve("nodes");
        Exception e = assertThrows(Exception.class, () -> RankGroup.open(3, "disagree", 0,
                r -> RankGroup.options(nodes, r, r == 2 ? 2 : 1, null, 0), r -> false));
        assertTrue(e instanceof InvalidOptionException, e.toString());
        assertTrue(e.getMessage().contains("ranks [2]") || e.getMessage().contains("ranks [0, 1]"), e.getMessage());
    }

    @Test
    void recoveryBeforeAnyCheckpointIsACleanStart() throws Exception {
        Path nodes = tmp.resolve("nodes");
        List<TwoLevelCheckpointer> world1 = RankGroup.open(3, "early", 1, r -> RankGroup.options(nodes, r, 1, null, 0),
                r -> r == 1);
        for (TwoLevelCheckpointer c : world1) {
            assertFalse(c.isRecovery());
            assertThrows(NotRecoverableException.class, () -> c.rollback("grid", new double[3]));
        }
        RankGroup.closeAll(world1);
    }

    /** n ranks, 3 rounds with data grid(rank, k), then closed. */
    private static void runRounds(int n, int m, Path nodes, Path disk, int ratio, String job) throws Exception {
        List<TwoLevelCheckpointer> world = RankGroup.open(n, job, 0, r -> RankGroup.options(nodes, r, m, disk, ratio),
                r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            double[] g = grid(rank, 0);
            c.register("grid", g);
            for (int k = 1; k <= ROUNDS; k++) {
                System.arraycopy(grid(rank, k), 0, g, 0, g.length);
                c.here();
            }
            assertTrue(c.awaitReplicated(java.time.Duration.ofSeconds(30)));
            return null;
        });
        RankGroup.closeAll(world);
    }

    static CkptOptions unused() {
        return CkptOptions.defaults();
    }
}
