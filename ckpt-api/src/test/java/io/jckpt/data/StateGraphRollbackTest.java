package io.jckpt.data;

import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageSeals;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Issue 28 item 3: after {@code rollback(tag, x)} every object reachable from {@code x} is the object the
 * program held, with the checkpoint's state, for every type the state graph codec saves, with no Kryo
 * registration and no configuration: aliases taken before the rollback see the restored state, Random
 * and SplittableRandom continue the identical sequence, sharing and cycles are the saved ones.
 */
class StateGraphRollbackTest {
    enum Phase { WARMUP, RUN, DONE }

    record Config(String name, double dt, int[] sizes) {
    }

    /** A particle of the program: primitive fields, a final array, a link to another particle. */
    static final class Particle {
        final double[] position = new double[3];
        double mass;
        int id;
        Particle partner;
        Phase phase = Phase.WARMUP;
    }

    /** The program's state, holding one of everything. */
    static final class State {
        final Random rng = new Random(42);
        final SplittableRandom split = new SplittableRandom(7);
        final HashMap<String, Double> params = new HashMap<>();
        final List<Particle> particles = new ArrayList<>();
        Particle best;
        final double[][] grid = new double[3][4];
        long step;
        final TreeMap<String, Integer> byNameDesc = new TreeMap<>(Comparator.reverseOrder());
        final TreeMap<Integer, String> byLambda = new TreeMap<>((a, b) -> Integer.compare(b % 7, a % 7) * 2 + Integer.compare(a, b));
        final ArrayDeque<Integer> queue = new ArrayDeque<>();
        final LinkedList<String> log = new LinkedList<>();
        final EnumMap<Phase, Long> perPhase = new EnumMap<>(Phase.class);
        final EnumSet<Phase> seen = EnumSet.noneOf(Phase.class);
        final BitSet flags = new BitSet();
        final AtomicLong counter = new AtomicLong();
        final AtomicReference<Particle> leader = new AtomicReference<>();
        final LinkedHashMap<String, int[]> lru = new LinkedHashMap<>(16, 0.75f, true);
        final Set<String> tags = new HashSet<>();
        final LinkedHashSet<Integer> order = new LinkedHashSet<>();
        final TreeSet<Double> sorted = new TreeSet<>();
        final PriorityQueue<double[]> events = new PriorityQueue<>(Comparator.comparingDouble(e -> e[0]));
        final ConcurrentHashMap<String, Long> concurrent = new ConcurrentHashMap<>();
        final ConcurrentSkipListMap<Long, String> skip = new ConcurrentSkipListMap<>();
        final CopyOnWriteArrayList<String> cow = new CopyOnWriteArrayList<>();
        final AtomicIntegerArray hits = new AtomicIntegerArray(4);
        final AtomicLongArray totals = new AtomicLongArray(2);
        final AtomicReferenceArray<String> names = new AtomicReferenceArray<>(2);
        final AtomicBoolean done = new AtomicBoolean();
        final AtomicInteger round = new AtomicInteger();
        final LongAdder work = new LongAdder();
        final ByteBuffer heap = ByteBuffer.allocate(16);
        final ByteBuffer direct = ByteBuffer.allocateDirect(16);
        final Object lock = new Object();
        Config config = new Config("initial", 0.1, new int[] {1});
        Phase phase = Phase.WARMUP;
        String label = "start";
        BigInteger big = BigInteger.ONE;
        BigDecimal money = BigDecimal.ZERO;
        List<String> fixed = List.of();
        Map<String, Integer> fixedMap = Map.of();
        Object[] slots = new Object[3];
        Integer boxed = 0;
        char letter = 'a';
        boolean flag;
        byte tiny;
        short small;
        float ratio;
        State self = this;
        transient String cache = "kept";

        /** One round of deterministic work from the state's own generators. */
        void round() {
            step++;
            double g = rng.nextGaussian();
            long s = split.nextLong();
            params.merge("sum", g, Double::sum);
            params.put("p" + step, (double) (s % 1000));
            Particle p = new Particle();
            p.id = (int) step;
            p.mass = rng.nextDouble();
            for (int i = 0; i < 3; i++) {
                p.position[i] = rng.nextDouble() * step;
            }
            p.partner = particles.isEmpty() ? p : particles.get(particles.size() - 1);
            p.phase = step > 2 ? Phase.RUN : Phase.WARMUP;
            particles.add(p);
            if (best == null || p.mass > best.mass) {
                best = p;
            }
            for (double[] row : grid) {
                for (int j = 0; j < row.length; j++) {
                    row[j] += g * (j + 1);
                }
            }
            byNameDesc.put("n" + step, (int) step);
            byLambda.put((int) (s & 0xFF), "l" + step);
            queue.addLast((int) step);
            if (queue.size() > 3) {
                queue.removeFirst();
            }
            log.add("round " + step);
            perPhase.merge(p.phase, 1L, Long::sum);
            seen.add(p.phase);
            flags.set((int) (step * 3));
            counter.addAndGet(step);
            leader.set(best);
            lru.put("k" + (step % 3), new int[] {(int) step});
            lru.get("k0");
            tags.add("t" + (step % 2));
            order.add((int) (s & 7));
            sorted.add(g);
            events.add(new double[] {rng.nextDouble(), step});
            concurrent.put("c" + step, s);
            skip.put(s, "s" + step);
            cow.add("w" + step);
            hits.incrementAndGet((int) (step % 4));
            totals.addAndGet(1, s);
            names.set(0, "name" + step);
            done.set(step % 2 == 0);
            round.set((int) step);
            work.add(step);
            heap.putInt(0, (int) s);
            direct.putLong(8, s);
            config = new Config("cfg" + step, 0.1 * step, new int[] {(int) step, 2});
            phase = p.phase;
            label = "step " + step;
            big = big.multiply(BigInteger.valueOf(1_000_003L));
            money = money.add(new BigDecimal("0.01"));
            fixed = List.of("a" + step, "b");
            fixedMap = Map.of("m", (int) step);
            slots[(int) (step % 3)] = step % 2 == 0 ? p : "slot" + step;
            boxed = (int) step;
            letter++;
            flag = !flag;
            tiny++;
            small += 2;
            ratio += 0.5f;
        }

        /** Everything saved, as text (bit patterns of the doubles included). */
        String describe() {
            StringBuilder b = new StringBuilder();
            b.append(step).append(params).append(best == null ? -1 : best.id);
            for (Particle p : particles) {
                b.append('|').append(p.id).append(',').append(Double.doubleToRawLongBits(p.mass)).append(',')
                        .append(Arrays.toString(p.position)).append(',').append(p.partner.id).append(',').append(p.phase);
            }
            b.append(Arrays.deepToString(grid)).append(byNameDesc).append(byLambda).append(queue).append(log)
                    .append(perPhase).append(seen).append(flags).append(counter).append(leader.get() == null ? -1 : leader.get().id)
                    .append(lru.keySet()).append(tags).append(order).append(sorted);
            PriorityQueue<double[]> copy = new PriorityQueue<>(events);
            while (!copy.isEmpty()) {
                b.append(Arrays.toString(copy.poll()));
            }
            b.append(new java.util.TreeMap<>(concurrent)).append(skip).append(cow).append(hits).append(totals).append(names)
                    .append(done).append(round).append(work.sum()).append(heap.getInt(0)).append(direct.getLong(8))
                    .append(config.name()).append(config.dt()).append(Arrays.toString(config.sizes())).append(phase)
                    .append(label).append(big).append(money).append(fixed).append(fixedMap).append(boxed).append(letter)
                    .append(flag).append(tiny).append(small).append(ratio);
            for (Object s : slots) {
                b.append(s instanceof Particle p ? "P" + p.id : String.valueOf(s));
            }
            return b.toString();
        }
    }

    private final BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(1 << 20);
    private final DataAdapters adapters = DataAdapters.builder().rank(3).build(); // Kryo registration required, nothing registered
    private final TagRegistry reg = new TagRegistry(adapters);

    @AfterEach
    void release() {
        store.releaseLast();
    }

    private ImageReader checkpoint() {
        ImageSeals.writer().writeImage(reg.entries(), store, 0, new ImageHeader(3, 4, 1, 0));
        ImageSeals.seal(store, 0);
        return ImageSeals.open(store, 0);
    }

    @Test
    void everyObjectReachableIsTheProgramsOwnWithTheCheckpointsState() {
        State s = new State();
        for (int i = 0; i < 5; i++) {
            s.round();
        }
        reg.register("state", s);
        assertEquals(TypeCode.STATE_GRAPH, reg.get("state").typeCode());
        ImageReader image = checkpoint();
        String saved = s.describe();
        // twins of the generators at the checkpoint, for the sequences that must follow
        State twin = new State();
        for (int i = 0; i < 5; i++) {
            twin.round();
        }
        assertEquals(saved, twin.describe(), "the work is deterministic");

        // aliases the program takes before the rollback (the case: Random rng = state.rng)
        Random rng = s.rng;
        SplittableRandom split = s.split;
        List<Particle> particles = s.particles;
        Particle first = s.particles.get(0);
        Particle best = s.best;
        double[] row = s.grid[1];
        HashMap<String, Double> params = s.params;
        Object[] slots = s.slots;
        for (int i = 0; i < 3; i++) {
            s.round();
        }
        s.particles.remove(0);
        s.params.clear();
        s.cache = "changed after the checkpoint";
        assertNotEquals(saved, s.describe());

        assertSame(s, image.restore("state", s, adapters));
        assertEquals(saved, s.describe());
        assertSame(rng, s.rng);
        assertSame(split, s.split);
        assertSame(particles, s.particles);
        assertSame(params, s.params);
        assertSame(row, s.grid[1]);
        assertSame(slots, s.slots);
        assertSame(s, s.self, "a cycle through the root is the registered object");
        assertSame(s.best, s.leader.get(), "sharing is the saved one");
        assertSame(s.particles.get(1), s.particles.get(2).partner);
        assertEquals("changed after the checkpoint", s.cache, "a transient field keeps the program's value");
        assertEquals("kept", twin.cache);
        // the generators continue the identical sequences, through the aliases taken before the rollback
        for (int i = 0; i < 100; i++) {
            assertEquals(twin.rng.nextGaussian(), rng.nextGaussian());
            assertEquals(twin.rng.nextLong(), rng.nextLong());
            assertEquals(twin.split.nextLong(), split.nextLong());
        }
        // and so does the whole program: three more rounds give the same state as the twin's
        for (int i = 0; i < 3; i++) {
            s.round();
            twin.round();
        }
        assertEquals(twin.describe(), s.describe());
        assertTrue(first != s.particles.get(0) || first.id == 1, "positions hold the saved state");
        assertNotNull(best);
    }

    @Test
    void aFreshGraphBuiltByTheProgramIsFilledInPlace() {
        State s = new State();
        for (int i = 0; i < 4; i++) {
            s.round();
        }
        reg.register("state", s);
        ImageReader image = checkpoint();
        String saved = s.describe();

        // a recovered rank runs main again: a new state, its aliases taken before the rollback
        State fresh = new State();
        Random rng = fresh.rng;
        TreeMap<Integer, String> byLambda = fresh.byLambda;
        PriorityQueue<double[]> events = fresh.events;
        double[] row = fresh.grid[2];
        ByteBuffer direct = fresh.direct;
        AtomicLong counter = fresh.counter;
        assertSame(fresh, image.restore("state", fresh, adapters));
        assertEquals(saved, fresh.describe());
        assertSame(rng, fresh.rng);
        assertSame(byLambda, fresh.byLambda, "a lambda comparator's map is restored into the program's map");
        assertSame(events, fresh.events);
        assertSame(row, fresh.grid[2]);
        assertSame(direct, fresh.direct);
        assertSame(counter, fresh.counter);
        assertSame(fresh, fresh.self);
        for (int i = 0; i < 3; i++) {
            s.round();
            fresh.round();
        }
        assertEquals(s.describe(), fresh.describe(), "the same run from here on");
    }

    @Test
    void aRankWithNothingToRestoreIntoGetsANewGraph() {
        State s = new State();
        for (int i = 0; i < 3; i++) {
            s.round();
        }
        reg.register("state", s);
        ImageReader image = checkpoint();
        String saved = s.describe();
        State made = image.restoreObject("state", State.class, adapters);
        assertNotSame(s, made);
        assertEquals(saved, made.describe(), "made with its constructor: the lambda comparators' collections are there");
        assertSame(made, made.self);
        assertEquals("kept", made.cache);
    }

    @Test
    void randomAndCollectionsRegisteredDirectlyAreRestoredInPlace() {
        Random rng = new Random(1);
        SplittableRandom split = new SplittableRandom(2);
        HashMap<String, Double> map = new HashMap<>(Map.of("a", 1.5, "b", -0.0));
        Particle own = new Particle();
        own.mass = 3;
        reg.register("rng", rng);
        reg.register("split", split);
        reg.register("map", map);
        reg.register("own", own);
        rng.nextInt();
        ImageReader image = checkpoint();
        Random twin = new Random(1);
        twin.nextInt();
        SplittableRandom splitTwin = new SplittableRandom(2);
        for (int i = 0; i < 10; i++) {
            rng.nextInt();
            split.nextInt();
        }
        map.put("c", 2.0);
        own.mass = 4;
        assertSame(rng, image.restore("rng", rng, adapters));
        assertSame(split, image.restore("split", split, adapters));
        assertSame(map, image.restore("map", map, adapters));
        assertSame(own, image.restore("own", own, adapters));
        assertEquals(twin.nextLong(), rng.nextLong());
        assertEquals(splitTwin.nextLong(), split.nextLong());
        assertEquals(Map.of("a", 1.5, "b", -0.0), map);
        assertEquals(3, own.mass);
    }

    /** An object whose place in the saved graph changes: sharing and cycles are the saved ones, not the held ones. */
    static final class Node {
        Node next;
        int value;
    }

    static final class Pair {
        Node left;
        Node right;
    }

    @Test
    void sharingAndCyclesAreTheSavedOnes() {
        Pair p = new Pair();
        p.left = new Node();
        p.right = new Node();
        p.left.next = p.right;
        p.right.next = p.left; // a cycle
        p.left.value = 1;
        p.right.value = 2;
        reg.register("pair", p);
        ImageReader image = checkpoint();
        Node left = p.left;
        Node right = p.right;
        // the program now shares one node at both places and breaks the cycle
        p.right = p.left;
        p.left.next = null;
        p.left.value = 9;
        assertSame(p, image.restore("pair", p, adapters));
        assertSame(left, p.left);
        assertNotSame(p.left, p.right, "the saved graph had two nodes");
        assertSame(p.right, p.left.next);
        assertSame(p.left, p.right.next, "the cycle is back");
        assertEquals(1, p.left.value);
        assertEquals(2, p.right.value);
        assertNotSame(right, p.right, "the held graph had one node at both places: the second place gets a new one");
    }

    @Test
    void hashMapIterationOrderIsTheSavedOneWhateverTheTargetsTableSize() {
        HashMap<String, Integer> map = new HashMap<>();
        for (int i = 0; i < 200; i++) {
            map.put("key" + i, i);
        }
        for (int i = 10; i < 200; i++) {
            map.remove("key" + i); // the table stays at 256 buckets: the order is that table's
        }
        HashSet<String> set = new HashSet<>(map.keySet());
        for (int i = 0; i < 100; i++) {
            set.add("x" + i);
        }
        set.removeIf(k -> k.startsWith("x"));
        reg.register("map", map);
        reg.register("set", set);
        ImageReader image = checkpoint();
        List<String> order = new ArrayList<>(map.keySet());
        List<String> setOrder = new ArrayList<>(set);
        HashMap<String, Integer> fresh = new HashMap<>(); // a recovered rank's new map: 16 buckets
        HashSet<String> freshSet = new HashSet<>();
        image.restore("map", fresh, adapters);
        image.restore("set", freshSet, adapters);
        assertEquals(order, new ArrayList<>(fresh.keySet()));
        assertEquals(setOrder, new ArrayList<>(freshSet));
        HashMap<String, Integer> made = image.restoreObject("map", HashMap.class, adapters);
        assertEquals(order, new ArrayList<>(made.keySet()));
    }

    /** Chronicle Bytes and arrays of any depth as fields. */
    static final class Holder {
        final Bytes<?> bytes = Bytes.allocateElasticOnHeap(64);
        int[][][] cube = {{{1, 2}, {3}}, null};
        long[] longs = {Long.MIN_VALUE, -1};
        boolean[] bits = {true, false, true};
        char[] chars = "hé".toCharArray();
    }

    @Test
    void bytesAndNestedArraysInsideObjects() {
        Holder h = new Holder();
        h.bytes.append("saved text");
        reg.register("h", h);
        ImageReader image = checkpoint();
        Bytes<?> bytes = h.bytes;
        int[] inner = h.cube[0][0];
        h.bytes.clear().append("other");
        h.cube[0][0][1] = 7;
        h.cube[1] = new int[][] {{5}};
        h.longs = new long[5];
        h.bits[1] = true;
        assertSame(h, image.restore("h", h, adapters));
        assertSame(bytes, h.bytes);
        assertEquals("saved text", h.bytes.toString());
        assertSame(inner, h.cube[0][0]);
        assertEquals("[[[1, 2], [3]], null]", Arrays.deepToString(h.cube));
        assertArrayEquals(new long[] {Long.MIN_VALUE, -1}, h.longs);
        assertArrayEquals(new boolean[] {true, false, true}, h.bits);
        assertEquals("hé", new String(h.chars));
        bytes.releaseLast();
    }
}
