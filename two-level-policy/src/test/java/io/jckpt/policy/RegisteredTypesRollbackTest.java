package io.jckpt.policy;

import io.jckpt.CkptOptions;
import io.jckpt.imem.ReplicaStore;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Every kind of data register accepts, through the real checkpointer (two ranks, ring replication or
 * the disk level): registered, checkpointed, mutated, rolled back with {@code rollback(tag, x)} whose
 * return value is ignored (the README's style), and then {@code x} itself must hold the checkpointed
 * state, bit for bit. A survivor rolls back into the objects it kept; a lost rank into new ones.
 */
class RegisteredTypesRollbackTest {
    private static final int ROUNDS = 3;
    @TempDir
    Path tmp;

    /** A program's own object, never registered with Kryo: final fields and a cycle back to itself. */
    static final class Particles {
        final double[] position;
        final List<Particles> neighbours = new ArrayList<>();
        long step;

        Particles(int n) {
            position = new double[n];
        }
    }

    /** One rank's registered data. */
    static final class Data {
        final double[] grid = new double[100];
        final double[][] u = new double[4][25];
        final int[][][] jagged = {{{0, 0}, {0}}, null, {{}, {0, 0, 0}}};
        final ByteBuffer direct = ByteBuffer.allocateDirect(64);
        final AtomicInteger sweeps = new AtomicInteger();
        final AtomicLong work = new AtomicLong();
        final AtomicIntegerArray owners = new AtomicIntegerArray(5);
        final AtomicLongArray counts = new AtomicLongArray(3);
        final ArrayList<String> log = new ArrayList<>();
        final HashMap<Integer, double[]> cache = new LinkedHashMap<>();
        final Object[] slots = new Object[3];
        final Particles particles = new Particles(8);

        Map<String, Object> all() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("grid", grid);
            m.put("u", u);
            m.put("jagged", jagged);
            m.put("direct", direct);
            m.put("sweeps", sweeps);
            m.put("work", work);
            m.put("owners", owners);
            m.put("counts", counts);
            m.put("log", log);
            m.put("cache", cache);
            m.put("slots", slots);
            m.put("particles", particles);
            return m;
        }

        /** The state after round k of rank r (deterministic, with values whose bits matter). */
        void round(int r, int k) {
            for (int i = 0; i < grid.length; i++) {
                grid[i] = Math.sin(r * 1000 + k * 7 + i) / 3;
            }
            for (double[] row : u) {
                for (int j = 0; j < row.length; j++) {
                    row[j] = Math.cos(k * 31 + r + j) * 1e-200;
                }
            }
            jagged[2][1][2] = k * 10 + r;
            jagged[0][0][1] = -k;
            direct.putLong(8, 0x0123456789abcdefL * k + r);
            sweeps.set(k);
            work.set(1L << (40 + k));
            owners.set(k % 5, r + 1);
            counts.set(k % 3, k * 1000L);
            log.add("round " + k + " on rank " + r);
            cache.put(k, new double[] {k, r, Math.PI * k});
            slots[k % 3] = "slot " + k;
            particles.step = k;
            particles.position[k] = r + k / 3.0;
            particles.neighbours.clear();
            particles.neighbours.add(particles);
        }

        String fingerprint() {
            StringBuilder b = new StringBuilder();
            b.append(Arrays.toString(bits(grid)));
            for (double[] row : u) {
                b.append(Arrays.toString(bits(row)));
            }
            b.append(Arrays.deepToString(jagged));
            for (int i = 0; i < direct.capacity(); i += 8) {
                b.append(direct.getLong(i)).append(',');
            }
            b.append(sweeps).append(work).append(owners).append(counts).append(log);
            cache.forEach((k, v) -> b.append(k).append('=').append(Arrays.toString(bits(v))));
            b.append(Arrays.toString(slots)).append(particles.step).append(Arrays.toString(bits(particles.position)));
            b.append(particles.neighbours.size()).append(particles.neighbours.get(0) == particles);
            return b.toString();
        }

        private static long[] bits(double[] d) {
            return Arrays.stream(d).mapToLong(Double::doubleToRawLongBits).toArray();
        }
    }

    @ParameterizedTest(name = "from {0}")
    @ValueSource(strings = {"memory", "disk"})
    void rollbackLeavesEveryRegisteredObjectHoldingTheCheckpoint(String level) throws Exception {
        int n = 2;
        boolean disk = level.equals("disk");
        Path nodes = tmp.resolve("nodes");
        Path diskDir = disk ? tmp.resolve("disk") : null;
        java.util.function.IntFunction<CkptOptions> options = r -> RankGroup.options(nodes, r, 1, diskDir, disk ? 1 : 0)
                .toBuilder().kryoRegistrationRequired(false).build();
        String job = "types-" + level;
        List<Data> kept = new ArrayList<>();
        List<String> expected = new ArrayList<>();
        for (int r = 0; r < n; r++) {
            kept.add(new Data());
        }
        List<TwoLevelCheckpointer> world0 = RankGroup.open(n, job, 0, options, r -> false);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world0.get(rank);
            Data d = kept.get(rank);
            d.all().forEach(c::register);
            for (int k = 1; k <= ROUNDS; k++) {
                d.round(rank, k);
                c.here();
            }
            assertTrue(c.awaitReplicated(java.time.Duration.ofSeconds(30)));
            return null;
        });
        for (Data d : kept) {
            expected.add(d.fingerprint());
        }
        // work after the last checkpoint, then the failure
        for (int r = 0; r < n; r++) {
            kept.get(r).round(r, ROUNDS + 1);
        }
        RankGroup.closeAll(world0);
        ReplicaStore.wipe(nodes.resolve("node-1"));
        if (disk) {
            ReplicaStore.wipe(nodes.resolve("node-0"));
        }
        List<TwoLevelCheckpointer> world1 = RankGroup.open(n, job, 1, options, r -> r == 1 || disk);
        RankGroup.parallel(n, rank -> {
            TwoLevelCheckpointer c = world1.get(rank);
            assertTrue(c.isRecovery());
            assertTrue(c.restoredFrom().startsWith(disk ? "disk" : "memory"), c.restoredFrom());
            // rank 0 survived with its (mutated) objects; rank 1 re-entered main and made new ones
            Data d = rank == 0 ? kept.get(0) : new Data();
            for (Map.Entry<String, Object> e : d.all().entrySet()) {
                c.rollback(e.getKey(), e.getValue()); // the return value ignored on purpose
            }
            assertEquals(expected.get(rank), d.fingerprint(), "rank " + rank);
            assertSame(d.particles, d.particles.neighbours.get(0));
            // the registered objects are the program's: the next checkpoint captures their changes
            d.round(rank, ROUNDS + 1);
            c.here();
            assertEquals(ROUNDS + 1, c.round());
            return null;
        });
        RankGroup.closeAll(world1);
    }
}
