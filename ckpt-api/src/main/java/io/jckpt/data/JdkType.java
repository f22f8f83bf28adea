package io.jckpt.data;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.HashMap;
import java.util.Hashtable;
import java.util.LinkedHashSet;
import java.util.LinkedList;
import java.util.Map;
import java.util.Stack;
import java.util.Vector;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * The JDK classes (and Chronicle {@code Bytes}) the state graph codec saves, each with the shape of
 * its body ({@link StateGraphDescriptor}) and how a new one is made. Exact classes only: a subclass of
 * one of these is a program class, or refused when it extends it with state the JDK keeps private.
 * The reader resolves a saved JDK name only through {@link #byName}: no other JDK class is ever made.
 */
enum JdkType {
    OBJECT("java.lang.Object", Shape.EMPTY, Object::new),
    ARRAY_LIST("java.util.ArrayList", Shape.SEQUENCE, ArrayList::new),
    LINKED_LIST("java.util.LinkedList", Shape.SEQUENCE, LinkedList::new),
    VECTOR("java.util.Vector", Shape.SEQUENCE, Vector::new),
    STACK("java.util.Stack", Shape.SEQUENCE, Stack::new),
    ARRAY_DEQUE("java.util.ArrayDeque", Shape.SEQUENCE, ArrayDeque::new, false),
    COPY_ON_WRITE_ARRAY_LIST("java.util.concurrent.CopyOnWriteArrayList", Shape.SEQUENCE, CopyOnWriteArrayList::new),
    CONCURRENT_LINKED_QUEUE("java.util.concurrent.ConcurrentLinkedQueue", Shape.SEQUENCE, ConcurrentLinkedQueue::new, false),
    CONCURRENT_LINKED_DEQUE("java.util.concurrent.ConcurrentLinkedDeque", Shape.SEQUENCE, ConcurrentLinkedDeque::new, false),
    HASH_SET("java.util.HashSet", Shape.HASH_SET, null),
    LINKED_HASH_SET("java.util.LinkedHashSet", Shape.SET, LinkedHashSet::new),
    TREE_SET("java.util.TreeSet", Shape.SORTED_SET, null, false),
    CONCURRENT_SKIP_LIST_SET("java.util.concurrent.ConcurrentSkipListSet", Shape.SORTED_SET, null, false),
    PRIORITY_QUEUE("java.util.PriorityQueue", Shape.PRIORITY_QUEUE, null, false),
    REGULAR_ENUM_SET("java.util.RegularEnumSet", Shape.ENUM_SET, null, false),
    JUMBO_ENUM_SET("java.util.JumboEnumSet", Shape.ENUM_SET, null, false),
    HASH_MAP("java.util.HashMap", Shape.HASH_MAP, null),
    LINKED_HASH_MAP("java.util.LinkedHashMap", Shape.LINKED_HASH_MAP, null),
    HASHTABLE("java.util.Hashtable", Shape.MAP, Hashtable::new, false),
    CONCURRENT_HASH_MAP("java.util.concurrent.ConcurrentHashMap", Shape.MAP, ConcurrentHashMap::new, false),
    TREE_MAP("java.util.TreeMap", Shape.SORTED_MAP, null),
    CONCURRENT_SKIP_LIST_MAP("java.util.concurrent.ConcurrentSkipListMap", Shape.SORTED_MAP, null, false),
    ENUM_MAP("java.util.EnumMap", Shape.ENUM_MAP, null),
    BIT_SET("java.util.BitSet", Shape.BIT_SET, BitSet::new),
    RANDOM("java.util.Random", Shape.RANDOM, null),
    SPLITTABLE_RANDOM("java.util.SplittableRandom", Shape.SPLITTABLE_RANDOM, null),
    ATOMIC_BOOLEAN("java.util.concurrent.atomic.AtomicBoolean", Shape.ATOMIC_BOOLEAN, AtomicBoolean::new),
    ATOMIC_INTEGER("java.util.concurrent.atomic.AtomicInteger", Shape.ATOMIC_INTEGER, AtomicInteger::new),
    ATOMIC_LONG("java.util.concurrent.atomic.AtomicLong", Shape.ATOMIC_LONG, AtomicLong::new),
    ATOMIC_REFERENCE("java.util.concurrent.atomic.AtomicReference", Shape.ATOMIC_REFERENCE, AtomicReference::new),
    ATOMIC_INTEGER_ARRAY("java.util.concurrent.atomic.AtomicIntegerArray", Shape.ATOMIC_INTEGER_ARRAY, null),
    ATOMIC_LONG_ARRAY("java.util.concurrent.atomic.AtomicLongArray", Shape.ATOMIC_LONG_ARRAY, null),
    ATOMIC_REFERENCE_ARRAY("java.util.concurrent.atomic.AtomicReferenceArray", Shape.ATOMIC_REFERENCE_ARRAY, null),
    LONG_ADDER("java.util.concurrent.atomic.LongAdder", Shape.LONG_ADDER, LongAdder::new),
    HEAP_BYTE_BUFFER("java.nio.HeapByteBuffer", Shape.BYTE_BUFFER, null),
    DIRECT_BYTE_BUFFER("java.nio.DirectByteBuffer", Shape.BYTE_BUFFER, null),
    BYTES("net.openhft.chronicle.bytes.Bytes", Shape.BYTES, null),
    LIST_N("java.util.ImmutableCollections$ListN", Shape.IMMUTABLE_LIST, null),
    LIST_12("java.util.ImmutableCollections$List12", Shape.IMMUTABLE_LIST, null),
    SET_N("java.util.ImmutableCollections$SetN", Shape.IMMUTABLE_SET, null, false),
    SET_12("java.util.ImmutableCollections$Set12", Shape.IMMUTABLE_SET, null, false),
    MAP_N("java.util.ImmutableCollections$MapN", Shape.IMMUTABLE_MAP, null, false),
    MAP_1("java.util.ImmutableCollections$Map1", Shape.IMMUTABLE_MAP, null, false),
    EMPTY_LIST("java.util.Collections$EmptyList", Shape.IMMUTABLE_LIST, null),
    EMPTY_SET("java.util.Collections$EmptySet", Shape.IMMUTABLE_SET, null),
    EMPTY_MAP("java.util.Collections$EmptyMap", Shape.IMMUTABLE_MAP, null),
    SINGLETON_LIST("java.util.Collections$SingletonList", Shape.IMMUTABLE_LIST, null),
    SINGLETON_SET("java.util.Collections$SingletonSet", Shape.IMMUTABLE_SET, null),
    SINGLETON_MAP("java.util.Collections$SingletonMap", Shape.IMMUTABLE_MAP, null);

    /** How the body is laid out and restored. */
    enum Shape {
        EMPTY, SEQUENCE, SET, HASH_SET, SORTED_SET, PRIORITY_QUEUE, ENUM_SET, MAP, HASH_MAP, LINKED_HASH_MAP, SORTED_MAP,
        ENUM_MAP, BIT_SET, RANDOM, SPLITTABLE_RANDOM, ATOMIC_BOOLEAN, ATOMIC_INTEGER, ATOMIC_LONG, ATOMIC_REFERENCE,
        ATOMIC_INTEGER_ARRAY, ATOMIC_LONG_ARRAY, ATOMIC_REFERENCE_ARRAY, LONG_ADDER, BYTE_BUFFER, BYTES,
        IMMUTABLE_LIST, IMMUTABLE_SET, IMMUTABLE_MAP;

        /** @return whether the shape is an immutable value (never restored in place) */
        boolean immutable() {
            return this == IMMUTABLE_LIST || this == IMMUTABLE_SET || this == IMMUTABLE_MAP;
        }

        /** @return whether it needs state java.base keeps in java.util's private fields */
        boolean needsJavaUtil() {
            return this == HASH_SET || this == HASH_MAP || this == LINKED_HASH_MAP || this == ENUM_SET
                    || this == ENUM_MAP || this == RANDOM || this == SPLITTABLE_RANDOM;
        }
    }

    private static final Map<String, JdkType> BY_NAME = new HashMap<>();

    static {
        for (JdkType t : values()) {
            BY_NAME.put(t.className, t);
        }
    }

    final String className;
    final Shape shape;
    final Supplier<Object> factory;
    /** Whether elements, keys and values may be null. */
    final boolean allowsNull;
    /** The class, or null when this JDK does not have it. */
    final Class<?> type;

    JdkType(String className, Shape shape, Supplier<Object> factory) {
        this(className, shape, factory, true);
    }

    JdkType(String className, Shape shape, Supplier<Object> factory, boolean allowsNull) {
        this.className = className;
        this.shape = shape;
        this.factory = factory;
        this.allowsNull = allowsNull;
        Class<?> c;
        try {
            c = Class.forName(className, false, JdkType.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            c = null;
        }
        this.type = c;
    }

    /**
     * @param name a saved class name
     * @return its type, or null when the codec does not save that class
     */
    static JdkType byName(String name) {
        return BY_NAME.get(name);
    }

    /**
     * @param c an exact class
     * @return its type, or null
     */
    static JdkType of(Class<?> c) {
        JdkType t = BY_NAME.get(c.getName());
        if (t != null && t.type == c) {
            return t;
        }
        if (BYTES.type != null && BYTES.type.isAssignableFrom(c)) {
            return BYTES;
        }
        return null;
    }
}
