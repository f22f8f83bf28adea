package io.jckpt.data;

import io.jckpt.DataMismatchException;
import io.jckpt.UnsupportedDataException;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageSeals;
import io.jckpt.image.ImageWriter;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.*;

/** After {@code rollback(tag, x)}, {@code x} itself holds the saved state, for every type register accepts. */
class InPlaceRollbackTest {
    /** A program's object: final fields, a cycle back to the root, a transient field. */
    static final class State {
        final double[] values;
        final List<Node> nodes = new ArrayList<>();
        long step;
        transient String cache = "kept";

        State(int n) {
            values = new double[n];
        }
    }

    static final class Node {
        final State owner;
        final int id;

        Node(State owner, int id) {
            this.owner = owner;
            this.id = id;
        }
    }

    record Point(int x, int y) {
    }

    enum Color { RED, GREEN }

    private final BytesStore<?, ?> store = BytesStore.nativeStoreWithFixedCapacity(1 << 20);
    private final DataAdapters adapters = DataAdapters.builder().rank(3).kryoRegistrationRequired(false).build(); // no Kryo class: the state graph
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

    private static void contains(Exception e, String... fragments) {
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "'" + f + "' not in: " + e.getMessage());
        }
    }

    private static long[] bits(double[] d) {
        return Arrays.stream(d).mapToLong(Double::doubleToRawLongBits).toArray();
    }

    @Test
    void arraysOfArraysRestoreRowByRowWithoutKryo() {
        DataAdapters strict = DataAdapters.builder().rank(3).build(); // registration required: no Kryo involved
        TagRegistry r = new TagRegistry(strict);
        double[][] u = new double[3][5];
        int[][][] jagged = {{{1, 2}, {3}}, null, {{}, {4, 5, 6}, null}};
        for (int i = 0; i < 3; i++) {
            for (int j = 0; j < 5; j++) {
                u[i][j] = Math.PI * i + j + 1e-300;
            }
        }
        u[1][2] = Double.longBitsToDouble(0x7ff8000000000123L); // a NaN payload survives bit for bit
        r.register("u", u);
        r.register("jagged", jagged);
        assertEquals(TypeCode.NESTED_ARRAY, r.get("u").typeCode());
        assertEquals("double[3][5]", r.get("u").describe());
        assertEquals("int[3][][] (jagged) (with null rows)", r.get("jagged").describe());
        long[][] saved = {bits(u[0]), bits(u[1]), bits(u[2])};
        ImageSeals.writer().writeImage(r.entries(), store, 0, new ImageHeader(3, 4, 1, 0));
        ImageSeals.seal(store, 0);
        ImageReader image = ImageSeals.open(store, 0);
        assertEquals(15, image.entry("u").elementCount());

        double[] row1 = u[1];
        for (double[] row : u) {
            Arrays.fill(row, -1);
        }
        jagged[0][1][0] = 99;
        jagged[2][1][2] = 99;
        assertSame(u, image.restore("u", u, strict));
        assertSame(row1, u[1], "rows are restored, not replaced");
        for (int i = 0; i < 3; i++) {
            assertArrayEquals(saved[i], bits(u[i]));
        }
        assertSame(jagged, image.restore("jagged", jagged, strict));
        assertEquals("[[[1, 2], [3]], null, [[], [4, 5, 6], null]]", Arrays.deepToString(jagged));

        // a new rank: new arrays of the saved shape
        int[][][] fresh = image.restoreObject("jagged", int[][][].class, strict);
        assertEquals(Arrays.deepToString(jagged), Arrays.deepToString(fresh));
        assertNotSame(jagged, fresh);
    }

    @Test
    void anotherShapeIsAClearErrorAndLeavesTheTargetUntouched() {
        double[][] u = {{1, 2, 3}, {4, 5, 6}};
        reg.register("u", u);
        ImageReader image = checkpoint();
        double[][] shorter = {{7, 7, 7}, {7, 7}};
        DataMismatchException e = assertThrows(DataMismatchException.class, () -> image.restore("u", shorter, adapters));
        contains(e, "rollback of tag 'u' on rank 3", "saved double[2][3]", "u[1] has length 2, saved 3",
                "restored in place");
        assertEquals("[[7.0, 7.0, 7.0], [7.0, 7.0]]", Arrays.deepToString(shorter), "nothing written");
        contains(assertThrows(DataMismatchException.class, () -> image.restore("u", new double[][] {{0, 0, 0}, null}, adapters)),
                "u[1] is null, saved an array of length 3");
        contains(assertThrows(DataMismatchException.class, () -> image.restore("u", new double[3][3], adapters)),
                "u has length 3, saved 2");
        contains(assertThrows(DataMismatchException.class, () -> image.restore("u", new float[2][3], adapters)),
                "saved double[2][3] but the target is float[2][3]");
        contains(assertThrows(DataMismatchException.class, () -> image.restore("u", new double[2][3][1], adapters)),
                "saved double[2][3] but the target is double[2][3][1]");
    }

    @Test
    void atomicsRestoreInPlaceWithoutKryo() {
        DataAdapters strict = DataAdapters.builder().rank(3).build();
        TagRegistry r = new TagRegistry(strict);
        AtomicInteger i = new AtomicInteger(-7);
        AtomicLong l = new AtomicLong(Long.MIN_VALUE + 3);
        AtomicBoolean b = new AtomicBoolean(true);
        AtomicIntegerArray ia = new AtomicIntegerArray(new int[] {1, -2, 3});
        AtomicLongArray la = new AtomicLongArray(new long[] {Long.MAX_VALUE, 0, -1, 5});
        r.register("i", i);
        r.register("l", l);
        r.register("b", b);
        r.register("ia", ia);
        r.register("la", la);
        ImageSeals.writer().writeImage(r.entries(), store, 0, new ImageHeader(3, 4, 1, 0));
        ImageSeals.seal(store, 0);
        ImageReader image = ImageSeals.open(store, 0);
        i.set(0);
        l.set(0);
        b.set(false);
        ia.set(1, 0);
        la.set(0, 0);
        assertSame(i, image.restore("i", i, strict));
        assertSame(l, image.restore("l", l, strict));
        assertSame(b, image.restore("b", b, strict));
        assertSame(ia, image.restore("ia", ia, strict));
        assertSame(la, image.restore("la", la, strict));
        assertEquals(-7, i.get());
        assertEquals(Long.MIN_VALUE + 3, l.get());
        assertTrue(b.get());
        assertEquals("[1, -2, 3]", ia.toString());
        assertEquals("[9223372036854775807, 0, -1, 5]", la.toString());
        contains(assertThrows(DataMismatchException.class, () -> image.restore("la", new AtomicLongArray(3), strict)),
                "AtomicLongArray of length 4", "of length 3");
        assertEquals(7, image.restoreObject("i", AtomicInteger.class, strict).get() + 14);
    }

    @Test
    void objectsRestoreIntoTheRegisteredObject() {
        State s = new State(3);
        s.values[1] = 2.5;
        s.step = 41;
        s.nodes.add(new Node(s, 1));
        s.nodes.add(new Node(s, 2));
        ArrayList<String> list = new ArrayList<>(List.of("a", "b"));
        HashMap<String, Integer> map = new HashMap<>(Map.of("x", 1, "y", 2));
        TreeMap<String, Integer> reversed = new TreeMap<>(Comparator.reverseOrder());
        reversed.put("a", 1);
        reversed.put("b", 2);
        Object[] slots = {"one", 2L, new int[] {3}};
        AtomicReference<BigInteger> total = new AtomicReference<>(BigInteger.TEN.pow(30));
        reg.register("s", s);
        reg.register("list", list);
        reg.register("map", map);
        reg.register("reversed", reversed);
        reg.register("slots", slots);
        reg.register("total", total);
        ImageReader image = checkpoint();

        s.values[1] = -1;
        s.step = 0;
        s.nodes.clear();
        s.cache = "changed after the checkpoint";
        list.add("c");
        map.remove("x");
        reversed.put("c", 3);
        slots[0] = null;
        total.set(BigInteger.ZERO);

        assertSame(s, image.restore("s", s, adapters));
        assertEquals(41, s.step);
        assertEquals(2.5, s.values[1]);
        assertEquals(2, s.nodes.size());
        assertSame(s, s.nodes.get(0).owner, "a reference back to the root is the registered object");
        assertEquals(2, s.nodes.get(1).id);
        assertEquals("changed after the checkpoint", s.cache, "transient fields are not part of the checkpoint");
        assertSame(list, image.restore("list", list, adapters));
        assertEquals(List.of("a", "b"), list);
        assertSame(map, image.restore("map", map, adapters));
        assertEquals(Map.of("x", 1, "y", 2), map);
        assertSame(reversed, image.restore("reversed", reversed, adapters));
        assertEquals("{b=2, a=1}", reversed.toString(), "the target's comparator is kept");
        assertSame(slots, image.restore("slots", slots, adapters));
        assertEquals("one", slots[0]);
        assertArrayEquals(new int[] {3}, (int[]) slots[2]);
        assertSame(total, image.restore("total", total, adapters));
        assertEquals(BigInteger.TEN.pow(30), total.get());
        contains(assertThrows(DataMismatchException.class, () -> image.restore("slots", new Object[2], adapters)),
                "array of length 2", "saved length 3");
        State other = image.restoreObject("s", State.class, adapters);
        assertNotSame(s, other);
        assertSame(other, other.nodes.get(0).owner);
    }

    @Test
    void immutableValuesAreRefusedAtRegisterSayingWhatToRegister() {
        long counter = 0;
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("counter", counter)),
                "tag 'counter' on rank 3", "java.lang.Long is immutable", "long[1]", "AtomicLong");
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("i", 5)), "int[1]", "AtomicInteger");
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("d", 0.5)), "double[1]");
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("s", "text")),
                "String is immutable", "char[]", "AtomicReference<String>");
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("e", Color.RED)), "enum", "int[1]");
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("p", new Point(1, 2))),
                "record", "is immutable");
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("l", List.of(1))),
                "unmodifiable", "new ArrayList<>");
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("a", Arrays.asList(1, 2))),
                "fixed-size");
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("b", BigInteger.ONE)),
                "java.math.BigInteger cannot be restored in place", "immutable", "AtomicReference");
        Runnable lambda = () -> { };
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("f", lambda)), "lambda");
        assertEquals(0, reg.size());
    }
}
