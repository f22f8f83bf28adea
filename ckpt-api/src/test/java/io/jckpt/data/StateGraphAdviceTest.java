package io.jckpt.data;

import io.jckpt.CkptException;
import io.jckpt.DataMismatchException;
import io.jckpt.UnsupportedDataException;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageSeals;
import net.openhft.chronicle.bytes.BytesStore;
import org.agrona.collections.Int2IntHashMap;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.WeakHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.DoubleUnaryOperator;
import java.util.function.Function;

import static org.junit.jupiter.api.Assertions.*;

/**
 * Every refusal of the state graph codec names the tag, the path to the object and what to do instead;
 * each "do this instead" is done here exactly as the message says, and gives back the checkpoint's state
 * (issue 28 item 3). A payload that does not fit the program changes nothing.
 */
class StateGraphAdviceTest {
    private final BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(1 << 22);
    private final DataAdapters adapters = DataAdapters.builder().rank(5).build();
    private final TagRegistry reg = new TagRegistry(adapters);

    @AfterEach
    void release() {
        store.releaseLast();
    }

    private ImageReader checkpoint() {
        ImageSeals.writer().writeImage(reg.entries(), store, 0, new ImageHeader(5, 8, 1, 0));
        ImageSeals.seal(store, 0);
        return ImageSeals.open(store, 0);
    }

    private static void contains(Exception e, String... fragments) {
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "'" + f + "' not in: " + e.getMessage());
        }
    }

    private UnsupportedDataException refused(String tag, Object data) {
        UnsupportedDataException e = assertThrows(UnsupportedDataException.class, () -> reg.register(tag, data));
        contains(e, "tag '" + tag + "' on rank 5");
        assertNull(reg.get(tag), "nothing registered");
        return e;
    }

    /**
     * Registers, checkpoints, changes, rolls back: the object must hold the checkpoint's state again.
     *
     * @return the restored object (the registered one)
     */
    private <T> T roundTrip(String tag, T data, Consumer<T> change, Function<T, String> describe) {
        reg.register(tag, data);
        ImageReader image = checkpoint();
        String saved = describe.apply(data);
        change.accept(data);
        assertNotEquals(saved, describe.apply(data), "the change must show");
        assertSame(data, image.restore(tag, data, adapters));
        assertEquals(saved, describe.apply(data));
        reg.remove(tag);
        return data;
    }

    // ------------------------------------------------------------------ registered objects (roots)

    @Test
    void aBoxedCounterIsRefusedAndItsTwoAlternativesWork() {
        long counter = 7;
        contains(refused("counter", counter), "java.lang.Long is immutable", "Register a long[1]", "or an AtomicLong");
        roundTrip("counter", new long[] {7}, c -> c[0]++, c -> Long.toString(c[0]));
        roundTrip("counter", new AtomicLong(7), AtomicLong::incrementAndGet, c -> Long.toString(c.get()));
    }

    @Test
    void everyBoxedTypeIsRefusedAndTheArrayOrAtomicItNamesWorks() {
        contains(refused("i", 1), "Register an int[1]", "or an AtomicInteger");
        contains(refused("d", 1.0), "Register a double[1]");
        contains(refused("f", 1f), "Register a float[1]");
        contains(refused("z", true), "Register a boolean[1] or an AtomicBoolean");
        contains(refused("s", (short) 1), "Register a short[1]");
        contains(refused("b", (byte) 1), "Register a byte[1]");
        contains(refused("c", 'x'), "Register a char[1]");
        roundTrip("i", new int[] {1}, a -> a[0]++, a -> Integer.toString(a[0]));
        roundTrip("i", new java.util.concurrent.atomic.AtomicInteger(1), java.util.concurrent.atomic.AtomicInteger::incrementAndGet,
                a -> Integer.toString(a.get()));
        roundTrip("d", new double[] {1}, a -> a[0] = 0.5, a -> Double.toString(a[0]));
        roundTrip("f", new float[] {1}, a -> a[0] = 0.5f, a -> Float.toString(a[0]));
        roundTrip("z", new boolean[] {true}, a -> a[0] = false, a -> Boolean.toString(a[0]));
        roundTrip("z", new java.util.concurrent.atomic.AtomicBoolean(true), a -> a.set(false), a -> Boolean.toString(a.get()));
        roundTrip("s", new short[] {1}, a -> a[0]++, a -> Short.toString(a[0]));
        roundTrip("b", new byte[] {1}, a -> a[0]++, a -> Byte.toString(a[0]));
        roundTrip("c", new char[] {'x'}, a -> a[0] = 'y', String::new);
    }

    @Test
    void anEnumRootIsRefusedAndItsOrdinalInAnIntArrayWorks() {
        contains(refused("e", Thread.State.WAITING), "or register its ordinal in an int[1]");
        int[] ordinal = {Thread.State.WAITING.ordinal()};
        roundTrip("e", ordinal, a -> a[0] = Thread.State.BLOCKED.ordinal(), a -> Thread.State.values()[a[0]].name());
    }

    /** A field of an object of the program's own class, for the values refused as roots. */
    static final class Holder {
        String text = "saved";
        Thread.State state = Thread.State.NEW;
        Point point = new Point(1, 2);
        BigInteger big = BigInteger.TEN;
    }

    record Point(int x, int y) {
    }

    @Test
    void immutableRootsAreRefusedAndTheirAlternativesWork() {
        contains(refused("s", "text"), "String is immutable", "Register a char[] or byte[]",
                "a field of an object of your own class", "AtomicReference<String>");
        contains(refused("e", Thread.State.NEW), "enum constant", "field of an object of your own class", "AtomicReference");
        contains(refused("p", new Point(1, 2)), "record", "field of an object of your own class", "AtomicReference");
        contains(refused("b", BigInteger.ONE), "java.math.BigInteger cannot be restored in place",
                "field of an object of your own class", "AtomicReference");
        contains(refused("l", List.of(1)), "unmodifiable", "register a modifiable one (new ArrayList<>(...)");
        roundTrip("s", "text".toCharArray(), c -> c[0] = 'X', String::new);
        roundTrip("s", "text".getBytes(), c -> c[0] = 'X', String::new);
        roundTrip("h", new Holder(), h -> {
            h.text = "changed";
            h.state = Thread.State.RUNNABLE;
            h.point = new Point(3, 4);
            h.big = BigInteger.TWO;
        }, h -> h.text + h.state + h.point + h.big);
        roundTrip("r", new AtomicReference<>("saved"), r -> r.set("changed"), AtomicReference::get);
        roundTrip("r", new AtomicReference<>(Thread.State.NEW), r -> r.set(Thread.State.BLOCKED), r -> r.get().name());
        roundTrip("r", new AtomicReference<>(new Point(1, 2)), r -> r.set(new Point(0, 0)), r -> r.get().toString());
        roundTrip("r", new AtomicReference<>(BigInteger.ONE), r -> r.set(BigInteger.ZERO), r -> r.get().toString());
        roundTrip("l", new ArrayList<>(List.of(1)), l -> l.add(2), List::toString);
    }

    @Test
    void aNonByteBufferIsRefusedAndItsAlternativesWork() {
        contains(refused("ib", IntBuffer.allocate(4)), "is not supported: register its backing array, or a ByteBuffer");
        roundTrip("ib", new int[4], a -> a[1] = 9, java.util.Arrays::toString);
        ByteBuffer bytes = ByteBuffer.allocate(16);
        IntBuffer view = bytes.asIntBuffer();
        roundTrip("ib", bytes, b -> view.put(1, 9), b -> Integer.toString(view.get(1)));
    }

    // ------------------------------------------------------------------ objects inside the graph

    static final class WithThread {
        final double[] data = {1, 2};
        Thread worker = new Thread(() -> { }, "worker");
    }

    static final class WithTransientThread {
        final double[] data = {1, 2};
        transient Thread worker = new Thread(() -> { }, "worker");
    }

    @Test
    void aThreadInAFieldIsRefusedWithItsPathAndATransientFieldWorks() {
        contains(refused("w", new WithThread()), "cannot save w.worker", "java.lang.Thread",
                "mark the field that holds it transient");
        WithTransientThread w = new WithTransientThread();
        Thread worker = w.worker;
        roundTrip("w", w, x -> {
            x.data[0] = 5;
            x.worker = new Thread(() -> { }, "other");
        }, x -> java.util.Arrays.toString(x.data));
        assertNotSame(worker, w.worker, "a transient field is left as it is: the program's value");
        assertEquals("other", w.worker.getName());
    }

    static final class WithLambda {
        double scale = 2;
        DoubleUnaryOperator f = x -> x * 2;
    }

    static final class WithTransientLambda {
        double scale = 2;
        transient DoubleUnaryOperator f = x -> x * 2;
    }

    @Test
    void aLambdaInAFieldIsRefusedAndATransientFieldWorks() {
        contains(refused("f", new WithLambda()), "cannot save f.f", "a lambda", "mark the field that holds it transient");
        roundTrip("f", new WithTransientLambda(), x -> x.scale = 3, x -> x.scale + " " + x.f.applyAsDouble(1));
    }

    static final class WithLibraryObject {
        int n = 1;
        Int2IntHashMap counts = new Int2IntHashMap(-1);
    }

    static final class WithTransientLibraryObject {
        int n = 1;
        transient Int2IntHashMap counts = new Int2IntHashMap(-1);
    }

    @Test
    void aLibraryObjectIsRefusedAndATransientFieldWorks() {
        contains(refused("b", new WithLibraryObject()), "cannot save b.counts", "org.agrona.collections.Int2IntHashMap",
                "belongs to a library", "mark the field that holds it transient");
        roundTrip("b", new WithTransientLibraryObject(), x -> x.n = 2, x -> Integer.toString(x.n));
    }

    static final class WithInstant {
        Instant start = Instant.ofEpochMilli(1000);
    }

    static final class WithEpochMillis {
        long startMillis = 1000;
    }

    @Test
    void anUnsupportedJdkClassIsRefusedAndItsStateInAFieldWorks() {
        contains(refused("t", new WithInstant()), "cannot save t.start", "java.time.Instant is not among the JDK classes",
                "keep its state in fields of your own class (a long, an array, ...)", "or mark the field");
        roundTrip("t", new WithEpochMillis(), x -> x.startMillis = 2000, x -> Long.toString(x.startMillis));
    }

    static final class WithWeakMap {
        WeakHashMap<String, Integer> cache = new WeakHashMap<>();
    }

    static final class WithHashMap {
        HashMap<String, Integer> cache = new HashMap<>(Map.of("a", 1));
    }

    @Test
    void anUnsupportedCollectionIsRefusedAndAHashMapWorks() {
        contains(refused("c", new WithWeakMap()), "cannot save c.cache", "java.util.WeakHashMap is not among the collections",
                "hold an ArrayList, ArrayDeque, HashMap, TreeMap, HashSet");
        roundTrip("c", new WithHashMap(), x -> x.cache.put("b", 2), x -> x.cache.toString());
    }

    static final class WithWrapper {
        final List<String> backing = new ArrayList<>(List.of("a"));
        List<String> view = Collections.unmodifiableList(backing);
    }

    static final class WithModifiable {
        final List<String> backing = new ArrayList<>(List.of("a"));
        List<String> names = new ArrayList<>(backing);
        List<String> fixed = List.of("x", "y");
    }

    @Test
    void aWrapperIsRefusedAndAModifiableCollectionOrListOfWorks() {
        contains(refused("w", new WithWrapper()), "cannot save w.view", "a view, a wrapper or a fixed-size list",
                "hold a modifiable collection (new ArrayList<>(...), new HashMap<>(...)) or List.of / Set.of / Map.of");
        WithModifiable m = roundTrip("w", new WithModifiable(), x -> {
            x.names.add("b");
            x.fixed = List.of("z");
        }, x -> x.names + " " + x.fixed);
        assertEquals(List.of("x", "y"), m.fixed);
    }

    static final class WithThreadLocalRandom {
        ThreadLocalRandom rng = ThreadLocalRandom.current();
    }

    static final class WithRandoms {
        final Random random = new Random(3);
        final SplittableRandom splittable = new SplittableRandom(4);
    }

    @Test
    void aThreadLocalRandomIsRefusedAndRandomOrSplittableRandomContinueTheirSequence() {
        contains(refused("r", new WithThreadLocalRandom()), "cannot save r.rng", "ThreadLocalRandom cannot be restored",
                "use a java.util.Random or a java.util.SplittableRandom");
        WithRandoms twin = new WithRandoms();
        roundTrip("r", new WithRandoms(), x -> {
            x.random.nextLong();
            x.splittable.nextLong();
        }, x -> {
            // describes the state by the next values of copies that follow the same sequence
            return twinDraws(x);
        });
        assertNotNull(twin);
    }

    /** The next values of a Random and a SplittableRandom, drawn without changing them (from a restored copy). */
    private String twinDraws(WithRandoms x) {
        DataAdapters own = DataAdapters.builder().rank(5).build();
        TagRegistry r = new TagRegistry(own);
        r.register("copy", x);
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(1 << 12);
        try {
            ImageSeals.writer().writeImage(r.entries(), s, 0, new ImageHeader(5, 8, 1, 0));
            ImageSeals.seal(s, 0);
            WithRandoms copy = ImageSeals.open(s, 0).restoreObject("copy", WithRandoms.class, own);
            return copy.random.nextLong() + " " + copy.random.nextGaussian() + " " + copy.splittable.nextLong();
        } finally {
            s.releaseLast();
        }
    }

    static final class WithReadOnlyView {
        final ByteBuffer buffer = ByteBuffer.allocate(8);
        ByteBuffer view = buffer.asReadOnlyBuffer();
    }

    static final class WithWritableBuffer {
        final ByteBuffer buffer = ByteBuffer.allocate(8);
    }

    @Test
    void aReadOnlyBufferIsRefusedAndTheWritableOneWorks() {
        contains(refused("b", new WithReadOnlyView()), "cannot save b.view", "a read-only ByteBuffer",
                "hold the writable buffer it views instead");
        WithWritableBuffer w = new WithWritableBuffer();
        ByteBuffer view = w.buffer.asReadOnlyBuffer(); // the program's view, outside the registered graph
        roundTrip("b", w, x -> x.buffer.putLong(0, 5), x -> Long.toString(view.getLong(0)));
    }

    static final class WithIntBuffer {
        IntBuffer ints = IntBuffer.allocate(2);
    }

    static final class WithIntsAndBytes {
        int[] ints = new int[2];
        ByteBuffer bytes = ByteBuffer.allocate(8);
    }

    @Test
    void aNonByteBufferInAFieldIsRefusedAndItsAlternativesWork() {
        contains(refused("i", new WithIntBuffer()), "cannot save i.ints", "hold its backing array, or a ByteBuffer");
        roundTrip("i", new WithIntsAndBytes(), x -> {
            x.ints[1] = 3;
            x.bytes.asIntBuffer().put(1, 4);
        }, x -> x.ints[1] + " " + x.bytes.asIntBuffer().get(1));
    }

    static final class Registry extends HashMap<String, Integer> {
        private static final long serialVersionUID = 1L;
    }

    static final class HoldsAMap {
        final HashMap<String, Integer> entries = new HashMap<>();
    }

    @Test
    void aClassExtendingAJdkCollectionIsRefusedAndHoldingOneWorks() {
        contains(refused("r", new Registry()), "extends java.util.HashMap", "hold a HashMap in a field instead of extending it");
        HoldsAMap h = new HoldsAMap();
        h.entries.put("a", 1);
        roundTrip("r", h, x -> x.entries.put("b", 2), x -> x.entries.toString());
    }

    /** An object compared by identity, the map keyed by it, and the advice's two ways. */
    static final class Cell {
        double value;
    }

    static final class KeyedByCell {
        final Map<Cell, Double> weights = new HashMap<>();
        final List<Cell> cells = new ArrayList<>();
    }

    static final class CellsFirst {
        final List<Cell> cells = new ArrayList<>();
        final Map<Cell, Double> weights = new HashMap<>();
    }

    static final class KeyedById {
        final List<Cell> cells = new ArrayList<>();
        final Map<Integer, Double> weights = new HashMap<>();
    }

    @Test
    void anIdentityKeyFirstReachedInAMapIsRefusedAndBothAlternativesKeepLookupsWorking() {
        KeyedByCell bad = new KeyedByCell();
        Cell c = new Cell();
        bad.cells.add(c);
        bad.weights.put(c, 1.0);
        contains(refused("k", bad), "cannot save k.weights[key #0]", "compared by identity",
                "reach it first through a field, list or array declared before this collection", "or key by a value (an id)");

        CellsFirst first = new CellsFirst();
        Cell a = new Cell();
        a.value = 1;
        first.cells.add(a);
        first.weights.put(a, 0.5);
        roundTrip("k", first, x -> {
            x.cells.get(0).value = 2;
            x.weights.put(x.cells.get(0), 0.7);
        }, x -> x.cells.get(0).value + " " + x.weights.get(x.cells.get(0)) + " " + x.weights.size());
        assertSame(a, first.cells.get(0));
        assertEquals(0.5, first.weights.get(a), "a lookup with the object the program holds finds the restored value");

        KeyedById byId = new KeyedById();
        byId.cells.add(new Cell());
        byId.weights.put(0, 0.5);
        roundTrip("k", byId, x -> x.weights.put(0, 0.9), x -> x.weights.toString());
    }

    /** A TreeMap sorted by a lambda, in a field the constructor leaves empty. */
    static final class LateSorted {
        TreeMap<String, Integer> byLength;
    }

    static final class EarlySorted {
        final TreeMap<String, Integer> byLength = new TreeMap<>(Comparator.comparing(String::length).thenComparing(s -> s));
    }

    static final class ByLength implements Comparator<String> {
        @Override
        public int compare(String a, String b) {
            int c = Integer.compare(a.length(), b.length());
            return c != 0 ? c : a.compareTo(b);
        }
    }

    @Test
    void aLambdaSortedMapWithoutItsPlaceIsRefusedAndBothAlternativesWork() {
        LateSorted late = new LateSorted();
        late.byLength = new TreeMap<>(Comparator.comparing(String::length).thenComparing(s -> s));
        late.byLength.put("ccc", 3);
        late.byLength.put("a", 1);
        reg.register("late", late);
        ImageReader image = checkpoint();
        UnsupportedDataException e = assertThrows(UnsupportedDataException.class,
                () -> image.restoreObject("late", LateSorted.class, adapters));
        contains(e, "cannot restore at late.byLength", "can only be restored into the TreeMap the program holds at this place",
                "a field initialised with new TreeMap<>(comparator)", "or use a comparator class of your own",
                "nothing was restored");
        reg.remove("late");

        EarlySorted early = new EarlySorted();
        early.byLength.put("ccc", 3);
        early.byLength.put("a", 1);
        reg.register("early", early);
        LateSorted own = new LateSorted();
        own.byLength = new TreeMap<>(new ByLength());
        own.byLength.put("ccc", 3);
        own.byLength.put("a", 1);
        reg.register("own", own);
        ImageReader second = checkpoint();
        assertEquals("{a=1, ccc=3}", second.restoreObject("early", EarlySorted.class, adapters).byLength.toString());
        LateSorted made = second.restoreObject("own", LateSorted.class, adapters);
        assertEquals("{a=1, ccc=3}", made.byLength.toString());
        assertTrue(made.byLength.comparator() instanceof ByLength);
    }

    record Link(String name, List<Object> back) {
    }

    static final class HoldsLink {
        final List<Object> targets = new ArrayList<>();
        Link link;
    }

    @Test
    void aRecordInACycleIsRefusedAndAFieldOfOwnClassWorks() {
        List<Object> back = new ArrayList<>();
        Link link = new Link("l", back);
        back.add(link);
        AtomicReference<Link> r = new AtomicReference<>(link);
        contains(refused("c", r), "cannot save c.get().back[0]", "refers back to itself",
                "hold it in a field of your own class and point there");
        HoldsLink h = new HoldsLink();
        h.link = new Link("l", h.targets);
        h.targets.add(h); // the cycle goes through the program's object, not the record
        HoldsLink restored = roundTrip("c", h, x -> {
            x.link = new Link("m", new ArrayList<>());
            x.targets.clear();
        }, x -> x.link.name() + " " + (x.link.back() == x.targets) + " " + (!x.targets.isEmpty() && x.targets.get(0) == x));
        assertSame(h, restored.targets.get(0));
    }

    /** A chain of the program's own nodes. */
    static final class Chain {
        Chain next;
        int value;
    }

    /** The advice's form: nodes in a list, linked by index. */
    static final class IndexedNode {
        int next = -1;
        int value;
    }

    static final class ChainList {
        final List<IndexedNode> nodes = new ArrayList<>();
    }

    @Test
    void aChainTooDeepForTheStackIsRefusedAndAListOrALargerStackWorks() throws Exception {
        Chain head = new Chain();
        Chain c = head;
        for (int i = 0; i < 10_000; i++) {
            c.next = new Chain();
            c = c.next;
            c.value = i;
        }
        Chain chain = head;
        Throwable[] outcome = new Throwable[1];
        Thread small = new Thread(null, () -> {
            try {
                reg.register("chain", chain);
            } catch (Throwable t) {
                outcome[0] = t;
            }
        }, "small-stack", 128 * 1024);
        small.start();
        small.join(60_000);
        assertTrue(outcome[0] instanceof UnsupportedDataException, String.valueOf(outcome[0]));
        contains((Exception) outcome[0], "tag 'chain' on rank 5", "too deep", "keep the nodes in an ArrayList or an array "
                + "and link them by index, or run with a larger -Xss");

        ChainList list = new ChainList();
        for (int i = 0; i < 10_000; i++) {
            IndexedNode n = new IndexedNode();
            n.value = i;
            if (i > 0) {
                list.nodes.get(i - 1).next = i;
            }
            list.nodes.add(n);
        }
        Thread listThread = new Thread(null, () -> {
            try {
                roundTrip("list", list, x -> x.nodes.get(5).value = -1, x -> Integer.toString(x.nodes.get(5).value));
            } catch (Throwable t) {
                outcome[0] = t;
            }
        }, "list-small-stack", 128 * 1024);
        outcome[0] = null;
        listThread.start();
        listThread.join(60_000);
        assertNull(outcome[0]);

        Thread large = new Thread(null, () -> { // what -Xss does for the main thread
            try {
                roundTrip("chain", chain, x -> x.next.next.value = -1, x -> Integer.toString(x.next.next.value));
            } catch (Throwable t) {
                outcome[0] = t;
            }
        }, "large-stack", 32L << 20);
        large.start();
        large.join(60_000);
        assertNull(outcome[0]);
    }

    /** An inner (not static) class: its this$0 is the object that made it. */
    final class Inner {
        double value = 1;
    }

    static final class StaticNested {
        double value = 1;
    }

    @Test
    void anInnerClassNamesItsEnclosingObjectAndAStaticClassWorks() {
        Inner inner = new Inner();
        contains(refused("i", inner), "cannot save i.this$0", "the reference of an inner class",
                "declare the class static if it does not need that object");
        roundTrip("i", new StaticNested(), x -> x.value = 2, x -> Double.toString(x.value));
    }

    // ------------------------------------------------------------------ what does not fit changes nothing

    static final class Before {
        final double[] first = {1, 2, 3};
        final List<Object> items = new ArrayList<>();
        long after = 1;
    }

    @Test
    void anUnknownClassDeepInTheGraphLeavesEveryObjectUnchanged() {
        Before b = new Before();
        b.items.add(new StaticNested());
        reg.register("b", b);
        ImageReader image = checkpoint();
        b.first[0] = 9;
        b.after = 9;
        b.items.clear();
        b.items.add("x");
        // the saved payload with the nested class's name changed to one no loader finds
        long at = image.entry("b").payloadOffset();
        long length = image.entry("b").byteLength();
        byte[] payload = new byte[(int) length];
        store.read(at, payload, 0, payload.length);
        String text = new String(payload, java.nio.charset.StandardCharsets.ISO_8859_1);
        int name = text.indexOf("StaticNested");
        assertTrue(name > 0);
        store.writeByte(at + name, (byte) 'Q');
        DataMismatchException e = assertThrows(DataMismatchException.class, () -> image.restore("b", b, adapters));
        contains(e, "rollback of tag 'b' on rank 5", "$QtaticNested", "at b.items[0]", "no class loader finds",
                "nothing was restored");
        assertEquals(9, b.first[0], "the array before it in the graph is unchanged");
        assertEquals(9, b.after);
        assertEquals(List.of("x"), b.items);
    }

    static final class Fragile {
        final java.util.TreeSet<String> names;
        boolean broken;

        Fragile() {
            names = new java.util.TreeSet<>((x, y) -> {
                if (broken) {
                    throw new IllegalStateException("the program's comparator failed");
                }
                return x.compareTo(y);
            });
        }
    }

    @Test
    void theProgramsOwnCodeFailingDuringTheRestoreIsAPartialRestore() {
        Fragile f = new Fragile();
        f.names.add("a");
        f.names.add("b");
        reg.register("f", f);
        ImageReader image = checkpoint();
        f.broken = true;
        CkptException e = assertThrows(UnsupportedDataException.class, () -> image.restore("f", f, adapters));
        contains(e, "only partly restored", "the program's comparator failed", "must not be used");
    }

    @Test
    void setsOfValuesAndValueKeysNeedNoAdvice() {
        Set<String> names = new HashSet<>(Set.of("a", "b"));
        roundTrip("n", names, x -> x.add("c"), x -> new java.util.TreeSet<>(x).toString());
    }
}
