package io.jckpt.data;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.MappedBytes;
import net.openhft.chronicle.core.Jvm;

import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.BitSet;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.RandomAccess;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.SplittableRandom;
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
 * Writes an object graph as a state graph payload ({@link StateGraphDescriptor}): every object once
 * (a second reference is a REF to its id, so sharing and cycles are kept), its class defined at first
 * use, primitive fields raw without boxing, primitive arrays in bulk. Refuses what rollback could not
 * restore, with the path to it ({@link GraphRefusal}). One per checkpointer, used on the program's
 * thread; its tables are reused from graph to graph.
 */
final class GraphWriter {
    private static final int IN_PROGRESS = -2;
    private static final sun.misc.Unsafe U = net.openhft.chronicle.core.UnsafeMemory.UNSAFE;
    private final IdentityIntMap ids = new IdentityIntMap();
    private int nextId;
    private int[] classIndex = new int[64];
    private int[] classStamp = new int[64];
    private int stamp;
    private int classCount;
    private GraphOutput out;
    private Class<?> lastClass;
    private GraphType lastType;

    /**
     * Writes {@code root}'s graph after {@code out}'s position.
     *
     * @param root an object of a category restored in place
     * @param out  the output
     * @throws GraphRefusal what cannot be saved, with its path
     */
    void write(Object root, GraphOutput out) {
        this.out = out;
        ids.clear();
        nextId = 0;
        classCount = 0;
        if (++stamp == Integer.MAX_VALUE) {
            stamp = 1;
            java.util.Arrays.fill(classStamp, 0);
        }
        try {
            out.u8(MAGIC);
            out.u8(VERSION);
            writeValue(root);
        } finally {
            ids.clear(); // the graph is not kept alive between checkpoints
            this.out = null;
        }
    }

    private GraphType type(Class<?> c) {
        if (c != lastClass) {
            lastType = GraphType.of(c);
            lastClass = c;
        }
        return lastType;
    }

    private void classRef(GraphType t) {
        int s = t.serial;
        if (s >= classStamp.length) {
            int n = Math.max(s + 1, classStamp.length * 2);
            classStamp = java.util.Arrays.copyOf(classStamp, n);
            classIndex = java.util.Arrays.copyOf(classIndex, n);
        }
        if (classStamp[s] == stamp) {
            out.varint(classIndex[s]);
            return;
        }
        classStamp[s] = stamp;
        classIndex[s] = classCount;
        out.varint(classCount++);
        out.u8(t.definitionKind);
        out.string(t.definitionName);
        if (t.definitionKind == K_OWN || t.definitionKind == K_RECORD) {
            ClassLayout l = t.layout;
            out.varint(l.names.length);
            for (int i = 0; i < l.names.length; i++) {
                out.string(l.names[i]);
                out.u8(l.kinds[i]);
            }
        } else if (t.definitionKind == K_ENUM) {
            out.varint(t.enumType.getEnumConstants().length);
        }
    }

    void writeValue(Object v) {
        if (v == null) {
            out.u8(NULL);
            return;
        }
        GraphType t = type(v.getClass());
        switch (t.category) {
            case STRING -> {
                out.u8(STRING);
                out.string((String) v);
            }
            case BOOLEAN -> out.u8((Boolean) v ? TRUE : FALSE);
            case BYTE -> {
                out.u8(BYTE);
                out.u8((Byte) v);
            }
            case SHORT -> {
                out.u8(SHORT);
                out.i16((Short) v);
            }
            case CHAR -> {
                out.u8(CHAR);
                out.c16((Character) v);
            }
            case INT -> {
                out.u8(INT);
                out.i32((Integer) v);
            }
            case LONG -> {
                out.u8(LONG);
                out.i64((Long) v);
            }
            case FLOAT -> {
                out.u8(FLOAT);
                out.f32((Float) v);
            }
            case DOUBLE -> {
                out.u8(DOUBLE);
                out.f64((Double) v);
            }
            case ENUM -> {
                out.u8(ENUM);
                classRef(t);
                out.varint(((Enum<?>) v).ordinal());
            }
            case BIG_INTEGER -> {
                out.u8(BIG_INTEGER);
                out.bytes(((BigInteger) v).toByteArray());
            }
            case BIG_DECIMAL -> {
                out.u8(BIG_DECIMAL);
                out.bytes(((BigDecimal) v).unscaledValue().toByteArray());
                out.i32(((BigDecimal) v).scale());
            }
            case SINGLETON -> {
                int index = singletonIndex(v);
                if (index < 0) {
                    throw new GraphRefusal("a " + v.getClass().getName() + " other than the JDK's own instance cannot be saved");
                }
                out.u8(SINGLETON);
                out.varint(index);
            }
            case RECORD, IMMUTABLE -> writeValueObject(v, t);
            case REFUSED -> throw new GraphRefusal(t.refusal);
            default -> writeObject(v, t);
        }
    }

    /** A record or an immutable collection: an id after its contents; a cycle through it cannot be restored. */
    private void writeValueObject(Object v, GraphType t) {
        int id = ids.get(v);
        if (id >= 0) {
            out.u8(REF);
            out.varint(id);
            return;
        }
        if (id == IN_PROGRESS) {
            throw new GraphRefusal("a " + v.getClass().getName() + " that refers back to itself cannot be restored (it "
                    + "is immutable and made after its contents): hold it in a field of your own class and point there");
        }
        ids.put(v, IN_PROGRESS);
        if (t.category == GraphType.Category.RECORD) {
            out.u8(RECORD);
            classRef(t);
            writeFields(v, t.layout);
        } else {
            out.u8(IMMUTABLE);
            classRef(t);
            writeImmutable(v, t.jdk);
        }
        ids.put(v, nextId++);
    }

    private void writeObject(Object v, GraphType t) {
        int id = ids.get(v);
        if (id >= 0) {
            out.u8(REF);
            out.varint(id);
            return;
        }
        ids.put(v, nextId++);
        out.u8(OBJECT);
        classRef(t);
        switch (t.category) {
            case OWN -> writeFields(v, t.layout);
            case PRIMITIVE_ARRAY -> {
                int n = java.lang.reflect.Array.getLength(v);
                out.varint(n);
                out.memory(v, MemoryCopy.arrayBase(v.getClass()), (long) n * t.elementSize);
            }
            case OBJECT_ARRAY -> {
                Object[] a = (Object[]) v;
                out.varint(a.length);
                int i = 0;
                try {
                    for (; i < a.length; i++) {
                        writeValue(a[i]);
                    }
                } catch (GraphRefusal e) {
                    throw e.at("[" + i + "]");
                }
            }
            default -> writeJdk(v, t.jdk);
        }
    }

    private void writeFields(Object v, ClassLayout l) {
        Field[] fields = l.fields;
        byte[] kinds = l.kinds;
        long[] offsets = l.offsets;
        int i = 0;
        try {
            if (offsets != null) { // a program class: Unsafe reads at the fields' offsets
                for (; i < offsets.length; i++) {
                    long at = offsets[i];
                    switch (kinds[i]) {
                        case 'Z' -> out.u8(U.getBoolean(v, at) ? 1 : 0);
                        case 'B' -> out.u8(U.getByte(v, at));
                        case 'C' -> out.c16(U.getChar(v, at));
                        case 'S' -> out.i16(U.getShort(v, at));
                        case 'I' -> out.i32(U.getInt(v, at));
                        case 'J' -> out.i64(U.getLong(v, at));
                        case 'F' -> out.f32(U.getFloat(v, at));
                        case 'D' -> out.f64(U.getDouble(v, at));
                        default -> writeValue(U.getObject(v, at));
                    }
                }
                return;
            }
            for (; i < fields.length; i++) {
                Field f = fields[i];
                switch (kinds[i]) {
                    case 'Z' -> out.u8(f.getBoolean(v) ? 1 : 0);
                    case 'B' -> out.u8(f.getByte(v));
                    case 'C' -> out.c16(f.getChar(v));
                    case 'S' -> out.i16(f.getShort(v));
                    case 'I' -> out.i32(f.getInt(v));
                    case 'J' -> out.i64(f.getLong(v));
                    case 'F' -> out.f32(f.getFloat(v));
                    case 'D' -> out.f64(f.getDouble(v));
                    default -> writeValue(f.get(v));
                }
            }
        } catch (GraphRefusal e) {
            if (l.names[i].startsWith("this$")) {
                e.hint("(" + l.names[i] + " is the reference of an inner class " + l.type.getName() + " to the object "
                        + "it was made in, saved with it: declare the class static if it does not need that object)");
            }
            throw e.at("." + l.names[i]);
        } catch (IllegalAccessException e) {
            throw new GraphRefusal("field " + l.names[i] + " of " + l.type.getName() + " cannot be read: " + e.getMessage());
        }
    }

    private void writeSequence(Collection<?> c) {
        out.varint(c.size());
        int i = 0;
        try {
            if (c instanceof List<?> list && c instanceof RandomAccess) {
                for (int n = list.size(); i < n; i++) {
                    writeValue(list.get(i));
                }
            } else {
                for (Object e : c) {
                    writeValue(e);
                    i++;
                }
            }
        } catch (GraphRefusal e) {
            throw e.at("[" + i + "]");
        }
    }

    /** Set elements and map keys: not positions; an object first reached here must have value equality. */
    private void writeKey(Object k, String segment) {
        try {
            if (k != null) {
                GraphType t = type(k.getClass());
                if (t.category.isObject() && t.identityEquals && ids.get(k) < 0) {
                    throw new GraphRefusal("a " + k.getClass().getName() + " compared by identity (it does not override "
                            + "equals) is first reached here as a set element or map key, and rollback can restore it "
                            + "only as a new object, which lookups with the object you hold would miss: reach it first "
                            + "through a field, list or array declared before this collection, or key by a value (an id)");
                }
            }
            writeValue(k);
        } catch (GraphRefusal e) {
            throw e.at(segment);
        }
    }

    private void writeElements(Collection<?> c) {
        out.varint(c.size());
        int i = 0;
        for (Object e : c) {
            writeKey(e, "[element #" + i + "]");
            i++;
        }
    }

    private void writeEntries(Map<?, ?> m) {
        out.varint(m.size());
        int i = 0;
        for (Map.Entry<?, ?> e : m.entrySet()) {
            writeKey(e.getKey(), "[key #" + i + "]");
            try {
                writeValue(e.getValue());
            } catch (GraphRefusal r) {
                throw r.at(GraphReader.keySegment(e.getKey(), i));
            }
            i++;
        }
    }

    private void writeComparator(Comparator<?> c) {
        try {
            if (c == null) {
                out.u8(NULL);
                return;
            }
            GraphType.Category k = type(c.getClass()).category;
            if (k == GraphType.Category.REFUSED || k == GraphType.Category.JDK || k == GraphType.Category.IMMUTABLE) {
                out.u8(KEPT); // a lambda or a JDK comparator: the program's collection keeps its own
            } else {
                writeValue(c);
            }
        } catch (GraphRefusal e) {
            throw e.at(".comparator()");
        }
    }

    private void writeImmutable(Object v, JdkType jdk) {
        switch (jdk.shape) {
            case IMMUTABLE_LIST -> writeSequence((Collection<?>) v);
            case IMMUTABLE_SET -> writeElements((Collection<?>) v);
            default -> writeEntries((Map<?, ?>) v);
        }
    }

    @SuppressWarnings("unchecked")
    private void writeJdk(Object v, JdkType jdk) {
        try {
            switch (jdk.shape) {
                case EMPTY -> {
                }
                case SEQUENCE -> writeSequence((Collection<?>) v);
                case SET -> writeElements((Collection<?>) v);
                case HASH_SET -> {
                    HashMap<?, ?> backing = JdkInternals.backingMap((HashSet<?>) v);
                    out.varint(JdkInternals.capacity(backing));
                    out.f32(JdkInternals.loadFactor(backing));
                    writeElements((Collection<?>) v);
                }
                case SORTED_SET -> {
                    writeComparator(((SortedSet<?>) v).comparator());
                    writeElements((Collection<?>) v);
                }
                case PRIORITY_QUEUE -> {
                    writeComparator(((PriorityQueue<?>) v).comparator());
                    writeSequence((Collection<?>) v); // heap order: re-adding it in this order rebuilds the same heap
                }
                case ENUM_SET -> {
                    classRef(GraphType.of(JdkInternals.elementType((EnumSet<?>) v)));
                    writeElements((Collection<?>) v);
                }
                case MAP -> writeEntries((Map<?, ?>) v);
                case HASH_MAP, LINKED_HASH_MAP -> {
                    HashMap<?, ?> m = (HashMap<?, ?>) v;
                    out.varint(JdkInternals.capacity(m));
                    out.f32(JdkInternals.loadFactor(m));
                    if (jdk.shape == JdkType.Shape.LINKED_HASH_MAP) {
                        out.u8(JdkInternals.accessOrder((LinkedHashMap<?, ?>) m) ? 1 : 0);
                    }
                    writeEntries(m);
                }
                case SORTED_MAP -> {
                    writeComparator(((SortedMap<?, ?>) v).comparator());
                    writeEntries((Map<?, ?>) v);
                }
                case ENUM_MAP -> {
                    classRef(GraphType.of(JdkInternals.keyType((EnumMap<?, ?>) v)));
                    writeEntries((Map<?, ?>) v);
                }
                case BIT_SET -> {
                    long[] words = ((BitSet) v).toLongArray();
                    out.varint(words.length);
                    for (long w : words) {
                        out.i64(w);
                    }
                }
                case RANDOM -> {
                    java.util.Random r = (java.util.Random) v;
                    synchronized (r) { // nextGaussian's pair is kept under the Random's lock
                        out.i64(JdkInternals.randomSeed(r));
                        out.f64(JdkInternals.randomNextGaussian(r));
                        out.u8(JdkInternals.randomHaveGaussian(r) ? 1 : 0);
                    }
                }
                case SPLITTABLE_RANDOM -> {
                    out.i64(JdkInternals.splittableSeed((SplittableRandom) v));
                    out.i64(JdkInternals.splittableGamma((SplittableRandom) v));
                }
                case ATOMIC_BOOLEAN -> out.u8(((AtomicBoolean) v).get() ? 1 : 0);
                case ATOMIC_INTEGER -> out.i32(((AtomicInteger) v).get());
                case ATOMIC_LONG -> out.i64(((AtomicLong) v).get());
                case LONG_ADDER -> out.i64(((LongAdder) v).sum());
                case ATOMIC_REFERENCE -> {
                    try {
                        writeValue(((AtomicReference<Object>) v).get());
                    } catch (GraphRefusal e) {
                        throw e.at(".get()");
                    }
                }
                case ATOMIC_INTEGER_ARRAY -> {
                    AtomicIntegerArray a = (AtomicIntegerArray) v;
                    out.varint(a.length());
                    for (int i = 0; i < a.length(); i++) {
                        out.i32(a.get(i));
                    }
                }
                case ATOMIC_LONG_ARRAY -> {
                    AtomicLongArray a = (AtomicLongArray) v;
                    out.varint(a.length());
                    for (int i = 0; i < a.length(); i++) {
                        out.i64(a.get(i));
                    }
                }
                case ATOMIC_REFERENCE_ARRAY -> {
                    AtomicReferenceArray<Object> a = (AtomicReferenceArray<Object>) v;
                    out.varint(a.length());
                    int i = 0;
                    try {
                        for (; i < a.length(); i++) {
                            writeValue(a.get(i));
                        }
                    } catch (GraphRefusal e) {
                        throw e.at("[" + i + "]");
                    }
                }
                case BYTE_BUFFER -> {
                    ByteBuffer b = (ByteBuffer) v;
                    out.varint(b.capacity());
                    if (b.isDirect()) {
                        out.memory(null, Jvm.address(b), b.capacity());
                    } else {
                        out.memory(b.array(), MemoryCopy.BYTE_ARRAY_BASE + b.arrayOffset(), b.capacity());
                    }
                }
                case BYTES -> {
                    Bytes<?> b = (Bytes<?>) v;
                    long length = b.readRemaining();
                    if (length > GraphOutput.MAX_LENGTH) {
                        throw new GraphRefusal("a Bytes of " + length + " bytes inside an object graph: register it on its own");
                    }
                    out.varint(length);
                    if (b.isDirectMemory() && !(b instanceof MappedBytes) && length > 0) {
                        out.memory(null, b.addressForRead(b.readPosition()), length);
                    } else {
                        byte[] copy = new byte[(int) length];
                        b.read(b.readPosition(), copy, 0, (int) length);
                        out.memory(copy, MemoryCopy.BYTE_ARRAY_BASE, length);
                    }
                }
                default -> throw new GraphRefusal("a " + v.getClass().getName() + " is a value, not an object");
            }
        } catch (IllegalAccessException e) {
            throw new GraphRefusal("the state of a " + v.getClass().getName() + " cannot be read (" + e.getMessage()
                    + "): run with " + GraphType.JAVA_UTIL_FLAG);
        }
    }
}
