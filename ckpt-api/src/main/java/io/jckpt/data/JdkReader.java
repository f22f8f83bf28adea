package io.jckpt.data;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.Jvm;

import java.nio.ByteBuffer;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import static io.jckpt.data.StateGraphDescriptor.*;

/**
 * Reads the bodies of the JDK classes the state graph saves ({@link JdkType}) for a {@link GraphReader},
 * in the reader's pass (first: check and decide, second: fill): sequences refilled with each element
 * restored into the one at its index, sets refilled, maps refilled with each value restored into the
 * program's value for the same key (by equality for a value key, by identity for an object the program
 * held), sorted collections only into one with a comparator of the saved kind, a HashMap given its saved
 * table size, Random and SplittableRandom seeded in place, atomics set, buffers overwritten; immutable
 * collections made again unless the program's one is equal.
 */
final class JdkReader {
    private static final Object KEPT_MARKER = new Object();
    private final GraphReader r;

    JdkReader(GraphReader reader) {
        this.r = reader;
    }

    Object readImmutable(Object held) {
        GraphReader.StreamClass c = r.classRef();
        if (c.kind != K_JDK || !c.jdk.shape.immutable()) {
            throw r.in.malformed("an immutable collection of class " + c.name);
        }
        JdkType jdk = c.jdk;
        Object heldSame = held != null && held.getClass() == c.type ? held : null;
        boolean allValues = true;
        Object result;
        switch (jdk.shape) {
            case IMMUTABLE_LIST -> {
                int n = r.in.count(1);
                List<?> heldList = (List<?>) heldSame;
                boolean same = heldList != null && heldList.size() == n;
                Object[] values = new Object[n];
                int i = 0;
                try {
                    for (; i < n; i++) {
                        Object current = heldList != null && i < heldList.size() ? heldList.get(i) : null;
                        values[i] = r.readValue(current);
                        allValues &= r.purity == GraphReader.VALUE;
                        same = same && (r.purity == GraphReader.VALUE ? Objects.equals(values[i], current) : values[i] == current);
                    }
                } catch (GraphRefusal e) {
                    throw e.at("[" + i + "]");
                }
                sizeOf(jdk, n);
                result = same ? heldSame : r.apply || allValues ? list(jdk, values) : GraphReader.NEW;
            }
            case IMMUTABLE_SET -> {
                int n = r.in.count(1);
                Object[] values = new Object[n];
                for (int i = 0; i < n; i++) {
                    values[i] = element(i);
                    nonNull(jdk, values[i]);
                    allValues &= r.purity == GraphReader.VALUE;
                }
                sizeOf(jdk, n);
                result = r.apply || allValues ? set(jdk, values) : GraphReader.NEW;
                if (heldSame != null && result != GraphReader.NEW && heldSame.equals(result)) {
                    result = heldSame;
                }
            }
            default -> {
                int n = r.in.count(2);
                Object[] keys = new Object[n];
                Object[] values = new Object[n];
                allValues = readEntries(jdk, (Map<?, ?>) (held instanceof Map ? held : null), n, keys, values);
                sizeOf(jdk, n);
                result = r.apply || allValues ? map(jdk, keys, values) : GraphReader.NEW;
                if (heldSame != null && result != GraphReader.NEW && heldSame.equals(result)) {
                    result = heldSame;
                }
            }
        }
        return r.valueObject(c.type, result, allValues);
    }

    private void sizeOf(JdkType jdk, int n) {
        boolean ok = switch (jdk) {
            case EMPTY_LIST, EMPTY_SET, EMPTY_MAP -> n == 0;
            case SINGLETON_LIST, SINGLETON_SET, SINGLETON_MAP, MAP_1 -> n == 1;
            case LIST_12, SET_12 -> n == 1 || n == 2;
            default -> true;
        };
        if (!ok) {
            throw r.in.malformed(n + " elements in a " + jdk.className);
        }
    }

    private Object list(JdkType jdk, Object[] values) {
        return switch (jdk) {
            case EMPTY_LIST -> Collections.emptyList();
            case SINGLETON_LIST -> Collections.singletonList(values[0]);
            default -> Arrays.asList(values).contains(null) ? Arrays.asList(values).stream().toList() : List.of(values);
        };
    }

    private Object set(JdkType jdk, Object[] values) {
        try {
            return switch (jdk) {
                case EMPTY_SET -> Collections.emptySet();
                case SINGLETON_SET -> Collections.singleton(values[0]);
                default -> Set.of(values);
            };
        } catch (IllegalArgumentException e) {
            throw r.in.malformed("a set with equal elements");
        }
    }

    private Object map(JdkType jdk, Object[] keys, Object[] values) {
        try {
            switch (jdk) {
                case EMPTY_MAP:
                    return Collections.emptyMap();
                case SINGLETON_MAP:
                    return Collections.singletonMap(keys[0], values[0]);
                default:
                    @SuppressWarnings("unchecked")
                    Map.Entry<Object, Object>[] entries = new Map.Entry[keys.length];
                    for (int i = 0; i < keys.length; i++) {
                        entries[i] = Map.entry(Objects.requireNonNull(keys[i]), Objects.requireNonNull(values[i]));
                    }
                    return Map.ofEntries(entries);
            }
        } catch (IllegalArgumentException | NullPointerException e) {
            throw r.in.malformed("a map with equal or null keys or null values");
        }
    }

    // ---------------------------------------------------------------- collections

    private void nonNull(JdkType jdk, Object v) {
        if (v == null && !jdk.allowsNull) {
            throw r.in.malformed("a null in a " + jdk.className + ", which holds none");
        }
    }

    /** A set element or a map key: no place in the program's graph. */
    private Object element(int i) {
        try {
            return r.readValue(null);
        } catch (GraphRefusal e) {
            throw e.at("[element #" + i + "]");
        }
    }

    /**
     * Reads n entries; each value is given the held map's value for the same key: by equality when the
     * key is a value, by identity when it is an object the program held.
     *
     * @return whether every key and value is a value
     */
    private boolean readEntries(JdkType jdk, Map<?, ?> held, int n, Object[] keys, Object[] values) {
        IdentityHashMap<Object, Object> byIdentity = null;
        boolean allValues = true;
        for (int i = 0; i < n; i++) {
            Object k;
            try {
                k = r.readValue(null);
            } catch (GraphRefusal e) {
                throw e.at("[key #" + i + "]");
            }
            byte keyPurity = r.purity;
            nonNull(jdk, k);
            if (k == null && jdk.shape == JdkType.Shape.SORTED_MAP) {
                throw r.in.malformed("a null key in a sorted map");
            }
            Object current = null;
            if (held != null && keyPurity == GraphReader.VALUE) {
                try {
                    current = held.get(k);
                } catch (RuntimeException e) {
                    current = null; // a key the map cannot compare: no place
                }
            } else if (held != null && keyPurity == GraphReader.HELD) {
                if (byIdentity == null) {
                    byIdentity = new IdentityHashMap<>();
                    for (Map.Entry<?, ?> e : held.entrySet()) {
                        byIdentity.put(e.getKey(), e.getValue());
                    }
                }
                current = byIdentity.get(k);
            }
            Object v;
            try {
                v = r.readValue(current);
            } catch (GraphRefusal e) {
                throw e.at(GraphReader.keySegment(k, i));
            }
            nonNull(jdk, v);
            allValues &= keyPurity == GraphReader.VALUE && r.purity == GraphReader.VALUE;
            keys[i] = k;
            values[i] = v;
        }
        return allValues;
    }

    private Object[] readSequence(JdkType jdk, int n, Collection<?> held) {
        Object[] current = held == null ? null : held.toArray();
        Object[] values = r.apply ? new Object[n] : null;
        int i = 0;
        try {
            for (; i < n; i++) {
                Object v = r.readValue(current != null && i < current.length ? current[i] : null);
                nonNull(jdk, v);
                if (r.apply) {
                    values[i] = v;
                }
            }
        } catch (GraphRefusal e) {
            throw e.at("[" + i + "]");
        }
        return values;
    }

    private Object[] readElements(JdkType jdk, int n) {
        Object[] values = new Object[n];
        for (int i = 0; i < n; i++) {
            values[i] = element(i);
            nonNull(jdk, values[i]);
        }
        return values;
    }

    @SuppressWarnings("unchecked")
    private static void refill(Object target, Object[] values) {
        Collection<Object> c = (Collection<Object>) target;
        c.clear();
        c.addAll(Arrays.asList(values));
    }

    @SuppressWarnings("unchecked")
    private static void refill(Object target, Object[] keys, Object[] values) {
        Map<Object, Object> m = (Map<Object, Object>) target;
        m.clear();
        for (int i = 0; i < keys.length; i++) {
            m.put(keys[i], values[i]);
        }
    }

    private int capacity() {
        long c = r.in.varint();
        if (c > (1 << 30) || c != 0 && Long.bitCount(c) != 1) {
            throw r.in.malformed("a hash table of " + c + " buckets");
        }
        return (int) c;
    }

    private float loadFactor() {
        float f = r.in.f32();
        if (!(f > 0) || Float.isInfinite(f)) {
            throw r.in.malformed("a load factor of " + f);
        }
        return f;
    }

    private Object comparatorOf(Object sorted) {
        if (sorted instanceof SortedSet<?> s) {
            return s.comparator();
        }
        if (sorted instanceof SortedMap<?, ?> m) {
            return m.comparator();
        }
        return ((PriorityQueue<?>) sorted).comparator();
    }

    /**
     * Reads a sorted collection's comparator and decides whether the held collection can be filled: only
     * when its comparator is of the saved kind (none, a lambda or JDK comparator that the codec keeps,
     * or one of the saved class).
     *
     * @return the comparator to make a new collection with (null, an object, or KEPT_MARKER)
     */
    private Object comparator(GraphReader.StreamClass c, Object[] candidate) {
        Object held = candidate[0] == null ? null : comparatorOf(candidate[0]);
        Object saved;
        Class<?> savedType = null;
        try {
            if (r.in.peek() == KEPT) {
                r.in.u8();
                saved = KEPT_MARKER;
            } else {
                saved = r.readValue(held);
                savedType = r.lastType;
            }
        } catch (GraphRefusal e) {
            throw e.at(".comparator()");
        }
        boolean fits = saved == null ? held == null : saved == KEPT_MARKER
                ? held != null && !savable(held.getClass()) : held != null && held.getClass() == savedType;
        if (!fits) {
            candidate[0] = null;
        }
        return saved;
    }

    private static boolean savable(Class<?> comparatorType) {
        GraphType.Category k = GraphType.of(comparatorType).category;
        return k != GraphType.Category.REFUSED && k != GraphType.Category.JDK && k != GraphType.Category.IMMUTABLE;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Object newSorted(GraphReader.StreamClass c, Object comparator) {
        if (comparator == KEPT_MARKER) {
            throw new GraphRefusal("a " + c.name + " sorted by a lambda (or a JDK comparator jckpt does not save) can only "
                    + "be restored into the " + c.type.getSimpleName() + " the program holds at this place, made with its "
                    + "comparator: keep one there (e.g. a field initialised with new " + c.type.getSimpleName()
                    + "<>(comparator)), or use a comparator class of your own");
        }
        if (!r.apply) {
            return null;
        }
        Comparator cmp = (Comparator) comparator;
        return switch (c.jdk) {
            case TREE_SET -> new TreeSet<>(cmp);
            case CONCURRENT_SKIP_LIST_SET -> new ConcurrentSkipListSet<>(cmp);
            case PRIORITY_QUEUE -> new PriorityQueue<>(cmp);
            case TREE_MAP -> new TreeMap<>(cmp);
            default -> new ConcurrentSkipListMap<>(cmp);
        };
    }

    private Class<?> enumClass() {
        GraphReader.StreamClass e = r.classRef();
        if (e.kind != K_ENUM) {
            throw r.in.malformed("an EnumSet or EnumMap of " + e.name);
        }
        return e.type;
    }

    private void enumElements(Class<?> enumType, Object[] values) {
        for (Object v : values) {
            if (v == null || ((Enum<?>) v).getDeclaringClass() != enumType) {
                throw r.in.malformed("a " + v + " among the constants of " + enumType.getName());
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    void readJdk(GraphReader.StreamClass c, int id, Object candidate) {
        JdkType jdk = c.jdk;
        String saved = "a " + c.type.getName();
        try {
            switch (jdk.shape) {
                case EMPTY -> r.bind(id, candidate, r.apply && candidate == null ? new Object() : null);
                case SEQUENCE -> {
                    int n = r.in.count(1);
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? jdk.factory.get() : null);
                    Object[] values = readSequence(jdk, n, (Collection<?>) candidate);
                    if (r.apply) {
                        refill(target, values);
                    }
                }
                case SET -> {
                    int n = r.in.count(1);
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? jdk.factory.get() : null);
                    Object[] values = readElements(jdk, n);
                    if (r.apply) {
                        refill(target, values);
                    }
                }
                case HASH_SET -> {
                    int capacity = capacity();
                    float loadFactor = loadFactor();
                    int n = r.in.count(1);
                    Object target = r.bind(id, candidate, r.apply && candidate == null
                            ? new HashSet<>(capacity == 0 ? 16 : capacity, loadFactor) : null);
                    Object[] values = readElements(jdk, n);
                    if (r.apply) {
                        ((HashSet<?>) target).clear();
                        JdkInternals.resetCapacity(JdkInternals.backingMap((HashSet<?>) target), capacity);
                        refill(target, values);
                    }
                }
                case SORTED_SET, PRIORITY_QUEUE -> {
                    Object[] fits = {candidate};
                    Object comparator = comparator(c, fits);
                    r.rootFits(id, fits[0] != null, saved + " with another comparator", "a " + c.type.getName()
                            + " whose comparator is " + (candidate == null ? "?" : comparatorOf(candidate)));
                    Object target = r.bind(id, fits[0], fits[0] == null ? newSorted(c, comparator) : null);
                    int n = r.in.count(1);
                    Object[] values = jdk.shape == JdkType.Shape.PRIORITY_QUEUE
                            ? readSequence(jdk, n, (Collection<?>) fits[0]) : readElements(jdk, n);
                    if (r.apply) {
                        refill(target, values);
                    }
                }
                case ENUM_SET -> {
                    Class enumType = enumClass();
                    boolean fits = candidate != null && JdkInternals.elementType((EnumSet<?>) candidate) == enumType;
                    r.rootFits(id, fits, "an EnumSet of " + enumType.getName(), "an EnumSet of another enum");
                    Object target = r.bind(id, fits ? candidate : null, r.apply && !fits ? EnumSet.noneOf(enumType) : null);
                    Object[] values = readElements(jdk, r.in.count(1));
                    enumElements(enumType, values);
                    if (r.apply) {
                        refill(target, values);
                    }
                }
                case MAP, HASH_MAP, LINKED_HASH_MAP, SORTED_MAP, ENUM_MAP -> readMap(c, id, candidate);
                case BIT_SET -> {
                    long[] words = new long[r.in.count(8)];
                    for (int i = 0; i < words.length; i++) {
                        words[i] = r.in.i64();
                    }
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? new BitSet() : null);
                    if (r.apply) {
                        ((BitSet) target).clear();
                        ((BitSet) target).or(BitSet.valueOf(words));
                    }
                }
                case RANDOM -> {
                    long seed = r.in.i64();
                    double nextGaussian = r.in.f64();
                    boolean haveGaussian = r.in.u8() != 0;
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? new Random(0) : null);
                    if (r.apply) {
                        synchronized (target) {
                            JdkInternals.setRandom((Random) target, seed, nextGaussian, haveGaussian);
                        }
                    }
                }
                case SPLITTABLE_RANDOM -> {
                    long seed = r.in.i64();
                    long gamma = r.in.i64();
                    if ((gamma & 1) == 0) {
                        throw r.in.malformed("an even SplittableRandom gamma");
                    }
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? new SplittableRandom(0) : null);
                    if (r.apply) {
                        JdkInternals.setSplittable((SplittableRandom) target, seed, gamma);
                    }
                }
                case ATOMIC_BOOLEAN -> {
                    boolean v = r.in.u8() != 0;
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? new AtomicBoolean() : null);
                    if (r.apply) {
                        ((AtomicBoolean) target).set(v);
                    }
                }
                case ATOMIC_INTEGER -> {
                    int v = r.in.i32();
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? new AtomicInteger() : null);
                    if (r.apply) {
                        ((AtomicInteger) target).set(v);
                    }
                }
                case ATOMIC_LONG -> {
                    long v = r.in.i64();
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? new AtomicLong() : null);
                    if (r.apply) {
                        ((AtomicLong) target).set(v);
                    }
                }
                case LONG_ADDER -> {
                    long v = r.in.i64();
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? new LongAdder() : null);
                    if (r.apply) {
                        ((LongAdder) target).reset();
                        ((LongAdder) target).add(v);
                    }
                }
                case ATOMIC_REFERENCE -> {
                    Object target = r.bind(id, candidate, r.apply && candidate == null ? new AtomicReference<>() : null);
                    Object current = candidate == null ? null : ((AtomicReference<?>) candidate).get();
                    Object v;
                    try {
                        v = r.readValue(current);
                    } catch (GraphRefusal e) {
                        throw e.at(".get()");
                    }
                    if (r.apply) {
                        ((AtomicReference<Object>) target).set(v);
                    }
                }
                case ATOMIC_INTEGER_ARRAY -> {
                    int n = r.in.count(4);
                    boolean fits = candidate != null && ((AtomicIntegerArray) candidate).length() == n;
                    r.rootFits(id, fits, "an AtomicIntegerArray of length " + n, "an AtomicIntegerArray of another length");
                    Object target = r.bind(id, fits ? candidate : null, r.apply && !fits ? new AtomicIntegerArray(n) : null);
                    for (int i = 0; i < n; i++) {
                        int v = r.in.i32();
                        if (r.apply) {
                            ((AtomicIntegerArray) target).set(i, v);
                        }
                    }
                }
                case ATOMIC_LONG_ARRAY -> {
                    int n = r.in.count(8);
                    boolean fits = candidate != null && ((AtomicLongArray) candidate).length() == n;
                    r.rootFits(id, fits, "an AtomicLongArray of length " + n, "an AtomicLongArray of another length");
                    Object target = r.bind(id, fits ? candidate : null, r.apply && !fits ? new AtomicLongArray(n) : null);
                    for (int i = 0; i < n; i++) {
                        long v = r.in.i64();
                        if (r.apply) {
                            ((AtomicLongArray) target).set(i, v);
                        }
                    }
                }
                case ATOMIC_REFERENCE_ARRAY -> {
                    int n = r.in.count(1);
                    AtomicReferenceArray<Object> held = (AtomicReferenceArray<Object>) candidate;
                    boolean fits = held != null && held.length() == n;
                    r.rootFits(id, fits, "an AtomicReferenceArray of length " + n, "an AtomicReferenceArray of another length");
                    Object target = r.bind(id, fits ? held : null, r.apply && !fits ? new AtomicReferenceArray<>(n) : null);
                    int i = 0;
                    try {
                        for (; i < n; i++) {
                            Object v = r.readValue(fits ? held.get(i) : null);
                            if (r.apply) {
                                ((AtomicReferenceArray<Object>) target).set(i, v);
                            }
                        }
                    } catch (GraphRefusal e) {
                        throw e.at("[" + i + "]");
                    }
                }
                case BYTE_BUFFER -> {
                    int n = r.in.count(1);
                    boolean fits = candidate != null && ((ByteBuffer) candidate).capacity() == n;
                    r.rootFits(id, fits, "a ByteBuffer of capacity " + n, "a ByteBuffer of another capacity");
                    Object made = !r.apply || fits ? null : jdk == JdkType.DIRECT_BYTE_BUFFER ? ByteBuffer.allocateDirect(n)
                            : ByteBuffer.allocate(n);
                    ByteBuffer target = (ByteBuffer) r.bind(id, fits ? candidate : null, made);
                    if (!r.apply) {
                        r.in.skip(n);
                    } else if (target.isDirect()) {
                        r.in.copy(null, n == 0 ? 0 : Jvm.address(target), n);
                    } else {
                        r.in.copy(target.array(), MemoryCopy.BYTE_ARRAY_BASE + target.arrayOffset(), n);
                    }
                }
                case BYTES -> {
                    int n = r.in.count(1);
                    Bytes<?> held = (Bytes<?>) candidate;
                    boolean fits = held != null && (held.isElastic() || held.capacity() >= n);
                    r.rootFits(id, fits, "a Bytes of " + n + " bytes", "a fixed-capacity Bytes that cannot hold them");
                    Bytes<?> target = (Bytes<?>) r.bind(id, fits ? held : null,
                            r.apply && !fits ? Bytes.allocateElasticOnHeap(Math.max(64, n)) : null);
                    if (r.apply) {
                        byte[] bytes = new byte[n];
                        r.in.copy(bytes, MemoryCopy.BYTE_ARRAY_BASE, n);
                        target.clear();
                        target.write(bytes, 0, n);
                    } else {
                        r.in.skip(n);
                    }
                }
                default -> throw r.in.malformed("a " + c.name + " as an object");
            }
        } catch (IllegalAccessException e) {
            throw new GraphRefusal("the state of a " + c.name + " cannot be set (" + e.getMessage() + "): run with "
                    + GraphType.JAVA_UTIL_FLAG);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void readMap(GraphReader.StreamClass c, int id, Object candidate) throws IllegalAccessException {
        JdkType jdk = c.jdk;
        Object target;
        int capacity = 0;
        Class<?> enumType = null;
        switch (jdk.shape) {
            case HASH_MAP, LINKED_HASH_MAP -> {
                capacity = capacity();
                float loadFactor = loadFactor();
                boolean accessOrder = jdk.shape == JdkType.Shape.LINKED_HASH_MAP && r.in.u8() != 0;
                boolean fits = candidate != null && (jdk.shape == JdkType.Shape.HASH_MAP
                        || JdkInternals.accessOrder((LinkedHashMap<?, ?>) candidate) == accessOrder);
                r.rootFits(id, fits, "a LinkedHashMap with accessOrder " + accessOrder, "one with accessOrder " + !accessOrder);
                int initial = capacity == 0 ? 16 : capacity;
                target = r.bind(id, fits ? candidate : null, !r.apply || fits ? null : jdk == JdkType.HASH_MAP
                        ? new HashMap<>(initial, loadFactor) : new LinkedHashMap<>(initial, loadFactor, accessOrder));
                candidate = fits ? candidate : null;
            }
            case SORTED_MAP -> {
                Object[] fits = {candidate};
                Object comparator = comparator(c, fits);
                r.rootFits(id, fits[0] != null, "a " + c.type.getName() + " with another comparator", "a "
                        + c.type.getName() + " whose comparator is " + (candidate == null ? "?" : comparatorOf(candidate)));
                candidate = fits[0];
                target = r.bind(id, candidate, candidate == null ? newSorted(c, comparator) : null);
            }
            case ENUM_MAP -> {
                enumType = enumClass();
                boolean fits = candidate != null && JdkInternals.keyType((EnumMap<?, ?>) candidate) == enumType;
                r.rootFits(id, fits, "an EnumMap of " + enumType.getName(), "an EnumMap of another enum");
                candidate = fits ? candidate : null;
                target = r.bind(id, candidate, r.apply && !fits ? new EnumMap<>((Class) enumType) : null);
            }
            default -> target = r.bind(id, candidate, r.apply && candidate == null ? jdk.factory.get() : null);
        }
        int n = r.in.count(2);
        Object[] keys = new Object[n];
        Object[] values = new Object[n];
        readEntries(jdk, (Map<?, ?>) candidate, n, keys, values);
        if (enumType != null) {
            enumElements(enumType, keys);
        }
        if (r.apply) {
            ((Map<?, ?>) target).clear();
            if (jdk.shape == JdkType.Shape.HASH_MAP || jdk.shape == JdkType.Shape.LINKED_HASH_MAP) {
                JdkInternals.resetCapacity((HashMap<?, ?>) target, capacity);
            }
            refill(target, keys, values);
        }
    }
}
