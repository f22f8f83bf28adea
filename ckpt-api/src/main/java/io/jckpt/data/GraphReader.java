package io.jckpt.data;

import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.core.Jvm;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.util.ArrayList;
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
 * Restores a state graph payload into the program's graph, in one walk of the saved graph beside the
 * program's: each saved object is given the object the program holds at the same place (the field's
 * value, the array slot, the list index, the map's value for an equal key, an AtomicReference's value,
 * a comparator); when that one has the saved class (and length, capacity, comparator) and was not given
 * to another saved object already, it is filled in place, otherwise a new object is made. A reference
 * back to an object already read (sharing, cycles) is that object. Set elements and map keys have no
 * place: they are read as new objects, values, or references to objects reached before.
 *
 * <p>Two passes over the bytes: the first changes nothing (it resolves and checks every class, layout,
 * length and comparator, and decides every in-place match exactly as the second will), the second
 * applies. So a payload that does not fit the program leaves every object unchanged. What can still
 * fail in the second pass is the program's own code (a constructor, a comparator, hashCode), reported
 * as a partial restore ({@link PartialRestore}).
 *
 * <p><b>Size</b> (past 600 lines): every kind of body the codec reads lives here beside the matching
 * rules it shares; splitting the JDK bodies out would expose the pass state to a second class.
 */
final class GraphReader {
    /** What the first pass holds in place of an object the second pass will make. */
    static final Object NEW = new Object() {
        @Override
        public String toString() {
            return "(an object the second pass makes)";
        }
    };
    private static final Object IN_CONSTRUCTION = new Object();
    private static final sun.misc.Unsafe U = net.openhft.chronicle.core.UnsafeMemory.UNSAFE;
    private static final Object KEPT_MARKER = new Object();
    /** Purity of the value last read: a value (equal means the same), an object the program held, anything else. */
    private static final byte VALUE = 0;
    private static final byte HELD = 1;
    private static final byte OTHER = 2;

    /** A failure of the second pass: part of the graph is restored. */
    static final class PartialRestore extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PartialRestore(Throwable cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** One class of the stream's class table. */
    private static final class StreamClass {
        final int kind;
        final String name;
        Class<?> type;
        ClassLayout layout;
        JdkType jdk;
        Object[] constants;
        int elementSize;

        StreamClass(int kind, String name) {
            this.kind = kind;
            this.name = name;
        }
    }

    private final ProgramClasses classes;
    private final IdentityIntMap claimed = new IdentityIntMap();
    private GraphInput in;
    private boolean apply;
    private Object rootTarget;
    private StreamClass[] table = new StreamClass[16];
    private int classCount;
    private Object[] objects = new Object[64];
    private byte[] purities = new byte[64];
    /** Per id, what the first pass decided: restored into the program's object (true) or a new one. */
    private boolean[] inPlace = new boolean[64];
    private Class<?>[] types = new Class<?>[64];
    private int count;
    private byte purity;
    private Class<?> lastType;

    GraphReader(ProgramClasses classes) {
        this.classes = classes;
    }

    /**
     * @param buffer the payload
     * @param length its length
     * @param target the registered object to restore into, or null for a new graph
     * @return the target, or the new root
     * @throws GraphRefusal   when the payload does not fit (nothing was changed)
     * @throws PartialRestore when the second pass failed
     */
    Object restore(byte[] buffer, int length, Object target) {
        pass(buffer, length, target, false);
        try {
            return pass(buffer, length, target, true);
        } catch (RuntimeException e) {
            throw new PartialRestore(e);
        }
    }

    private Object pass(byte[] buffer, int length, Object target, boolean apply) {
        this.in = new GraphInput(buffer, length);
        this.apply = apply;
        this.rootTarget = target;
        claimed.clear();
        Arrays.fill(table, 0, classCount, null);
        classCount = 0;
        Arrays.fill(objects, 0, count, null);
        count = 0;
        try {
            if (in.u8() != MAGIC || in.u8() != VERSION) {
                throw in.malformed("not a state graph of format version " + VERSION);
            }
            if (target != null && buffer.length > 2 && buffer[2] != OBJECT) {
                throw in.malformed("the root is not an object");
            }
            Object root = readValue(target);
            if (in.remaining() != 0) {
                throw in.malformed(in.remaining() + " bytes after the root");
            }
            return root;
        } finally {
            claimed.clear();
            Arrays.fill(objects, 0, count, null); // the graph is the program's now
        }
    }

    static String keySegment(Object key, int index) {
        if (key instanceof String s) {
            return "[\"" + (s.length() > 40 ? s.substring(0, 40) + "..." : s) + "\"]";
        }
        if (key instanceof Number || key instanceof Enum || key instanceof Character || key instanceof Boolean) {
            return "[" + key + "]";
        }
        return "[value #" + index + "]";
    }

    // ---------------------------------------------------------------- classes

    private StreamClass classRef() {
        long index = in.varint();
        if (index < classCount) {
            return table[(int) index];
        }
        if (index != classCount) {
            throw in.malformed("class #" + index + " before class #" + classCount);
        }
        StreamClass c = new StreamClass(in.u8(), in.string());
        switch (c.kind) {
            case K_OWN, K_RECORD -> {
                int n = in.count(2);
                String[] names = new String[n];
                byte[] kinds = new byte[n];
                for (int i = 0; i < n; i++) {
                    names[i] = in.string();
                    kinds[i] = (byte) in.u8();
                }
                if (GraphType.isJdkName(c.name)) {
                    throw in.malformed("JDK class " + c.name + " saved as a program class");
                }
                GraphType t = GraphType.of(classes.resolve(c.name));
                GraphType.Category expected = c.kind == K_OWN ? GraphType.Category.OWN : GraphType.Category.RECORD;
                if (t.category == GraphType.Category.REFUSED) {
                    throw new GraphRefusal(t.refusal);
                }
                if (t.category != expected) {
                    throw GraphRefusal.mismatch("a " + (c.kind == K_OWN ? "class " : "record ") + c.name,
                            "a " + c.name + " that is now a " + t.category.name().toLowerCase() + " (the class changed)");
                }
                if (!t.layout.matches(names, kinds)) {
                    throw GraphRefusal.mismatch("a " + c.name + " with fields " + ClassLayout.describe(names, kinds),
                            "a " + c.name + " with fields " + t.layout.describe() + " (the class changed since the checkpoint)");
                }
                c.type = t.type;
                c.layout = t.layout;
            }
            case K_ENUM -> {
                int constants = in.count(0);
                Class<?> e = GraphType.isJdkName(c.name) ? classes.jdk(c.name) : classes.resolve(c.name);
                if (!e.isEnum()) {
                    throw in.malformed(c.name + " is not an enum");
                }
                c.type = e;
                c.constants = e.getEnumConstants();
                if (c.constants.length != constants) {
                    throw GraphRefusal.mismatch("enum " + c.name + " with " + constants + " constants",
                            "enum " + c.name + " with " + c.constants.length + " (the enum changed since the checkpoint)");
                }
            }
            case K_PRIMITIVE_ARRAY -> {
                c.type = primitiveArray(c.name);
                c.elementSize = GraphType.of(c.type).elementSize;
            }
            case K_OBJECT_ARRAY -> c.type = objectArray(c.name);
            case K_JDK -> {
                c.jdk = JdkType.byName(c.name);
                if (c.jdk == null) {
                    throw in.malformed("a class the codec does not save: " + c.name);
                }
                if (c.jdk.type == null) {
                    throw GraphRefusal.mismatch("a " + c.name, "a JDK without that class");
                }
                if (c.jdk.shape.needsJavaUtil() && !GraphType.JAVA_UTIL_OPEN) {
                    throw new GraphRefusal(GraphType.of(c.jdk.type).refusal);
                }
                c.type = c.jdk.type;
            }
            default -> throw in.malformed("class kind " + c.kind);
        }
        if (classCount == table.length) {
            table = Arrays.copyOf(table, classCount * 2);
        }
        table[classCount++] = c;
        return c;
    }

    private Class<?> primitiveArray(String name) {
        return switch (name) {
            case "[Z" -> boolean[].class;
            case "[B" -> byte[].class;
            case "[C" -> char[].class;
            case "[S" -> short[].class;
            case "[I" -> int[].class;
            case "[J" -> long[].class;
            case "[F" -> float[].class;
            case "[D" -> double[].class;
            default -> throw in.malformed("not a primitive array: " + name);
        };
    }

    private Class<?> objectArray(String name) {
        int dims = 0;
        while (dims < name.length() && name.charAt(dims) == '[') {
            dims++;
        }
        String element = name.substring(dims);
        Class<?> c;
        if (dims == 0) {
            throw in.malformed("not an array: " + name);
        } else if (element.length() == 1) {
            c = primitiveArray("[" + element).getComponentType();
        } else if (element.startsWith("L") && element.endsWith(";")) {
            String n = element.substring(1, element.length() - 1);
            c = GraphType.isJdkName(n) ? classes.jdk(n) : classes.resolve(n); // no instance of it is made
        } else {
            throw in.malformed("not an array: " + name);
        }
        for (int i = 0; i < dims; i++) {
            c = c.arrayType();
        }
        return c;
    }

    // ---------------------------------------------------------------- values

    private Object readValue(Object held) {
        int tag = in.u8();
        switch (tag) {
            case NULL:
                return value(null, null);
            case REF: {
                long id = in.varint();
                if (id >= count) {
                    throw in.malformed("a reference to object #" + id + " of " + count);
                }
                Object o = objects[(int) id];
                if (o == IN_CONSTRUCTION) {
                    throw new GraphRefusal("a reference to an object still being read (a comparator that refers to its "
                            + "own collection?)");
                }
                purity = purities[(int) id];
                lastType = types[(int) id];
                return o;
            }
            case STRING:
                return value(in.string(), String.class);
            case TRUE:
                return value(Boolean.TRUE, Boolean.class);
            case FALSE:
                return value(Boolean.FALSE, Boolean.class);
            case BYTE:
                return value((byte) in.u8(), Byte.class);
            case SHORT:
                return value(in.i16(), Short.class);
            case CHAR:
                return value(in.c16(), Character.class);
            case INT:
                return value(in.i32(), Integer.class);
            case LONG:
                return value(in.i64(), Long.class);
            case FLOAT:
                return value(in.f32(), Float.class);
            case DOUBLE:
                return value(in.f64(), Double.class);
            case ENUM: {
                StreamClass c = classRef();
                if (c.kind != K_ENUM) {
                    throw in.malformed("an enum of class " + c.name);
                }
                long ordinal = in.varint();
                if (ordinal >= c.constants.length) {
                    throw in.malformed("constant #" + ordinal + " of " + c.name);
                }
                return value(c.constants[(int) ordinal], c.type);
            }
            case BIG_INTEGER:
                return value(new BigInteger(nonEmptyBytes()), BigInteger.class);
            case BIG_DECIMAL: {
                BigInteger unscaled = new BigInteger(nonEmptyBytes());
                return value(new BigDecimal(unscaled, in.i32()), BigDecimal.class);
            }
            case SINGLETON: {
                long index = in.varint();
                if (index >= SINGLETONS.length) {
                    throw in.malformed("singleton #" + index);
                }
                Object s = SINGLETONS[(int) index];
                return value(s, s.getClass());
            }
            case RECORD:
                return readRecord(held);
            case IMMUTABLE:
                return readImmutable(held);
            case OBJECT:
                return readObject(held);
            default:
                throw in.malformed("tag " + tag);
        }
    }

    private Object value(Object v, Class<?> type) {
        purity = VALUE;
        lastType = type;
        return v;
    }

    private byte[] nonEmptyBytes() {
        byte[] b = in.bytes();
        if (b.length == 0) {
            throw in.malformed("an empty number");
        }
        return b;
    }

    private static void checkAssignable(Class<?> declared, Object v, Class<?> actual) {
        if (v != null && !declared.isAssignableFrom(actual)) {
            throw GraphRefusal.mismatch("a " + actual.getName(), "a place of type " + declared.getName()
                    + " (the class changed since the checkpoint)");
        }
    }

    private int reserve(Class<?> type) {
        if (count == objects.length) {
            objects = Arrays.copyOf(objects, count * 2);
            purities = Arrays.copyOf(purities, count * 2);
            inPlace = Arrays.copyOf(inPlace, count * 2);
            types = Arrays.copyOf(types, count * 2);
        }
        objects[count] = IN_CONSTRUCTION;
        types[count] = type;
        return count++;
    }

    /** Binds an object's id to the program's object (claimed) or to a new one. */
    private Object bind(int id, Object held, Object made) {
        if (!apply) {
            inPlace[id] = held != null;
        }
        if (held != null) {
            if (!apply) {
                claimed.put(held, id);
            }
            objects[id] = held;
            purities[id] = HELD;
            return held;
        }
        objects[id] = made != null ? made : NEW;
        purities[id] = OTHER;
        return objects[id];
    }

    private Object finish(int id) {
        purity = purities[id];
        lastType = types[id];
        return objects[id];
    }

    private Object readObject(Object held) {
        StreamClass c = classRef();
        int id = reserve(c.type);
        // the second pass takes the first one's decision: the same object is at this place, so no claim is looked up
        boolean fits = held != null && (held.getClass() == c.type || c.jdk == JdkType.BYTES && held instanceof Bytes);
        Object candidate;
        if (apply) {
            if (inPlace[id] && !fits) { // the program's constructors made other objects this time
                throw new IllegalStateException("the object at this place changed between the check and the restore: "
                        + held + " where the check found a " + c.type.getName());
            }
            candidate = inPlace[id] ? held : null;
        } else {
            candidate = fits && claimed.get(held) < 0 ? held : null;
        }
        if (id == 0 && rootTarget != null && candidate == null) {
            throw GraphRefusal.mismatch("an object of class " + c.type.getName(), "an object of class "
                    + rootTarget.getClass().getName());
        }
        return switch (c.kind) {
            case K_OWN -> readFields(c, id, candidate);
            case K_PRIMITIVE_ARRAY -> readPrimitiveArray(c, id, candidate);
            case K_OBJECT_ARRAY -> readObjectArray(c, id, candidate);
            case K_JDK -> readJdk(c, id, candidate);
            default -> throw in.malformed("an object of class kind " + c.kind);
        };
    }

    private void rootFits(int id, boolean fits, String saved, String actual) {
        if (id == 0 && rootTarget != null && !fits) {
            throw GraphRefusal.mismatch(saved, actual);
        }
    }

    private Object readFields(StreamClass c, int id, Object candidate) {
        ClassLayout l = c.layout;
        // a new object is made in both passes, so that both give its constructor's field values as places
        Object target = bind(id, candidate, candidate == null ? l.newInstance() : null);
        Field[] fields = l.fields;
        long[] offsets = l.offsets;
        int i = 0;
        try {
            for (; i < fields.length; i++) {
                Field f = fields[i];
                byte kind = l.kinds[i];
                if (!apply && kind != 'L') {
                    in.skip(width(kind)); // the first pass only needs to know where the next field starts
                    continue;
                }
                if (offsets != null) { // a program class: Unsafe writes at the fields' offsets
                    long at = offsets[i];
                    switch (kind) {
                        case 'Z' -> U.putBoolean(target, at, in.u8() != 0);
                        case 'B' -> U.putByte(target, at, (byte) in.u8());
                        case 'C' -> U.putChar(target, at, in.c16());
                        case 'S' -> U.putShort(target, at, in.i16());
                        case 'I' -> U.putInt(target, at, in.i32());
                        case 'J' -> U.putLong(target, at, in.i64());
                        case 'F' -> U.putFloat(target, at, in.f32());
                        case 'D' -> U.putDouble(target, at, in.f64());
                        default -> {
                            Object current = U.getObject(target, at);
                            Object v = readValue(current);
                            checkAssignable(f.getType(), v, lastType); // before the store: Unsafe does not check
                            if (apply && v != current) {
                                U.putObject(target, at, v);
                            }
                        }
                    }
                    continue;
                }
                switch (kind) {
                    case 'Z' -> {
                        boolean v = in.u8() != 0;
                        if (apply) {
                            f.setBoolean(target, v);
                        }
                    }
                    case 'B' -> {
                        byte v = (byte) in.u8();
                        if (apply) {
                            f.setByte(target, v);
                        }
                    }
                    case 'C' -> {
                        char v = in.c16();
                        if (apply) {
                            f.setChar(target, v);
                        }
                    }
                    case 'S' -> {
                        short v = in.i16();
                        if (apply) {
                            f.setShort(target, v);
                        }
                    }
                    case 'I' -> {
                        int v = in.i32();
                        if (apply) {
                            f.setInt(target, v);
                        }
                    }
                    case 'J' -> {
                        long v = in.i64();
                        if (apply) {
                            f.setLong(target, v);
                        }
                    }
                    case 'F' -> {
                        float v = in.f32();
                        if (apply) {
                            f.setFloat(target, v);
                        }
                    }
                    case 'D' -> {
                        double v = in.f64();
                        if (apply) {
                            f.setDouble(target, v);
                        }
                    }
                    default -> {
                        Object current = f.get(target);
                        Object v = readValue(current);
                        checkAssignable(f.getType(), v, lastType);
                        if (apply && v != current) {
                            f.set(target, v);
                        }
                    }
                }
            }
        } catch (GraphRefusal e) {
            throw e.at("." + l.names[i]);
        } catch (IllegalAccessException e) {
            throw new GraphRefusal("field " + l.names[i] + " of " + l.type.getName() + " cannot be set: " + e.getMessage());
        }
        return finish(id);
    }

    private static int width(byte kind) {
        return switch (kind) {
            case 'Z', 'B' -> 1;
            case 'C', 'S' -> 2;
            case 'I', 'F' -> 4;
            default -> 8;
        };
    }

    private Object readPrimitiveArray(StreamClass c, int id, Object candidate) {
        int n = in.count(c.elementSize);
        boolean fits = candidate != null && Array.getLength(candidate) == n;
        rootFits(id, fits, "an array of length " + n + " (" + c.type.getSimpleName() + ")", "an array of length "
                + (candidate == null ? "?" : Array.getLength(candidate)) + " (arrays are restored in place: the saved length "
                + n + " is needed)");
        Object target = bind(id, fits ? candidate : null, apply && !fits ? Array.newInstance(c.type.getComponentType(), n) : null);
        long bytes = (long) n * c.elementSize;
        int at = in.skip(bytes);
        if (apply) {
            MemoryCopy.copy(in.buffer(), MemoryCopy.BYTE_ARRAY_BASE + at, target, MemoryCopy.arrayBase(c.type), bytes);
        }
        return finish(id);
    }

    private Object readObjectArray(StreamClass c, int id, Object candidate) {
        int n = in.count(1);
        boolean fits = candidate != null && ((Object[]) candidate).length == n;
        rootFits(id, fits, "an array of length " + n + " (" + c.type.getSimpleName() + ")", "an array of length "
                + (candidate == null ? "?" : ((Object[]) candidate).length) + " (arrays are restored in place: the saved "
                + "length " + n + " is needed)");
        Class<?> component = c.type.getComponentType();
        Object target = bind(id, fits ? candidate : null, apply && !fits ? Array.newInstance(component, n) : null);
        Object[] held = fits ? (Object[]) candidate : null;
        int i = 0;
        try {
            for (; i < n; i++) {
                Object current = held != null ? held[i] : null;
                Object v = readValue(current);
                checkAssignable(component, v, lastType);
                if (apply) {
                    ((Object[]) target)[i] = v;
                }
            }
        } catch (GraphRefusal e) {
            throw e.at("[" + i + "]");
        }
        return finish(id);
    }

    private Object readRecord(Object held) {
        StreamClass c = classRef();
        if (c.kind != K_RECORD) {
            throw in.malformed("a record of class " + c.name);
        }
        ClassLayout l = c.layout;
        Object heldRecord = held != null && held.getClass() == c.type ? held : null;
        Object[] components = new Object[l.fields.length];
        boolean allValues = true;
        boolean same = heldRecord != null;
        int i = 0;
        try {
            for (; i < components.length; i++) {
                Field f = l.fields[i];
                if (l.kinds[i] != 'L') {
                    components[i] = primitive(l.kinds[i]);
                    same = same && Objects.equals(components[i], f.get(heldRecord)); // boxed equals compares bits
                    continue;
                }
                Object current = heldRecord == null ? null : f.get(heldRecord);
                Object v = readValue(current);
                checkAssignable(f.getType(), v, lastType);
                components[i] = v;
                allValues &= purity == VALUE;
                same = same && (purity == VALUE ? Objects.equals(v, current) : purity == HELD && v == current);
            }
        } catch (GraphRefusal e) {
            throw e.at("." + l.names[i]);
        } catch (IllegalAccessException e) {
            throw new GraphRefusal("record " + c.name + " cannot be read: " + e.getMessage());
        }
        Object result = same ? heldRecord : apply || allValues ? l.newRecord(components) : NEW;
        return valueObject(c.type, result, allValues);
    }

    private Object primitive(byte kind) {
        return switch (kind) {
            case 'Z' -> in.u8() != 0;
            case 'B' -> (byte) in.u8();
            case 'C' -> in.c16();
            case 'S' -> in.i16();
            case 'I' -> in.i32();
            case 'J' -> in.i64();
            case 'F' -> in.f32();
            case 'D' -> in.f64();
            default -> throw in.malformed("field kind " + (char) kind);
        };
    }

    /** A record or immutable collection: its id is taken after its contents, as the writer does. */
    private Object valueObject(Class<?> type, Object result, boolean allValues) {
        int id = reserve(type);
        objects[id] = result;
        purities[id] = allValues ? VALUE : OTHER;
        return finish(id);
    }

    private Object readImmutable(Object held) {
        StreamClass c = classRef();
        if (c.kind != K_JDK || !c.jdk.shape.immutable()) {
            throw in.malformed("an immutable collection of class " + c.name);
        }
        JdkType jdk = c.jdk;
        Object heldSame = held != null && held.getClass() == c.type ? held : null;
        boolean allValues = true;
        Object result;
        switch (jdk.shape) {
            case IMMUTABLE_LIST -> {
                int n = in.count(1);
                List<?> heldList = (List<?>) heldSame;
                boolean same = heldList != null && heldList.size() == n;
                Object[] values = new Object[n];
                int i = 0;
                try {
                    for (; i < n; i++) {
                        Object current = heldList != null && i < heldList.size() ? heldList.get(i) : null;
                        values[i] = readValue(current);
                        allValues &= purity == VALUE;
                        same = same && (purity == VALUE ? Objects.equals(values[i], current) : values[i] == current);
                    }
                } catch (GraphRefusal e) {
                    throw e.at("[" + i + "]");
                }
                sizeOf(jdk, n);
                result = same ? heldSame : apply || allValues ? list(jdk, values) : NEW;
            }
            case IMMUTABLE_SET -> {
                int n = in.count(1);
                Object[] values = new Object[n];
                for (int i = 0; i < n; i++) {
                    values[i] = element(i);
                    nonNull(jdk, values[i]);
                    allValues &= purity == VALUE;
                }
                sizeOf(jdk, n);
                result = apply || allValues ? set(jdk, values) : NEW;
                if (heldSame != null && result != NEW && heldSame.equals(result)) {
                    result = heldSame;
                }
            }
            default -> {
                int n = in.count(2);
                Object[] keys = new Object[n];
                Object[] values = new Object[n];
                allValues = readEntries(jdk, (Map<?, ?>) (held instanceof Map ? held : null), n, keys, values);
                sizeOf(jdk, n);
                result = apply || allValues ? map(jdk, keys, values) : NEW;
                if (heldSame != null && result != NEW && heldSame.equals(result)) {
                    result = heldSame;
                }
            }
        }
        return valueObject(c.type, result, allValues);
    }

    private void sizeOf(JdkType jdk, int n) {
        boolean ok = switch (jdk) {
            case EMPTY_LIST, EMPTY_SET, EMPTY_MAP -> n == 0;
            case SINGLETON_LIST, SINGLETON_SET, SINGLETON_MAP, MAP_1 -> n == 1;
            case LIST_12, SET_12 -> n == 1 || n == 2;
            default -> true;
        };
        if (!ok) {
            throw in.malformed(n + " elements in a " + jdk.className);
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
            throw in.malformed("a set with equal elements");
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
            throw in.malformed("a map with equal or null keys or null values");
        }
    }

    // ---------------------------------------------------------------- collections

    private void nonNull(JdkType jdk, Object v) {
        if (v == null && !jdk.allowsNull) {
            throw in.malformed("a null in a " + jdk.className + ", which holds none");
        }
    }

    /** A set element or a map key: no place in the program's graph. */
    private Object element(int i) {
        try {
            return readValue(null);
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
                k = readValue(null);
            } catch (GraphRefusal e) {
                throw e.at("[key #" + i + "]");
            }
            byte keyPurity = purity;
            nonNull(jdk, k);
            if (k == null && jdk.shape == JdkType.Shape.SORTED_MAP) {
                throw in.malformed("a null key in a sorted map");
            }
            Object current = null;
            if (held != null && keyPurity == VALUE) {
                try {
                    current = held.get(k);
                } catch (RuntimeException e) {
                    current = null; // a key the map cannot compare: no place
                }
            } else if (held != null && keyPurity == HELD) {
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
                v = readValue(current);
            } catch (GraphRefusal e) {
                throw e.at(keySegment(k, i));
            }
            nonNull(jdk, v);
            allValues &= keyPurity == VALUE && purity == VALUE;
            keys[i] = k;
            values[i] = v;
        }
        return allValues;
    }

    private Object[] readSequence(JdkType jdk, int n, Collection<?> held) {
        Object[] current = held == null ? null : held.toArray();
        Object[] values = apply ? new Object[n] : null;
        int i = 0;
        try {
            for (; i < n; i++) {
                Object v = readValue(current != null && i < current.length ? current[i] : null);
                nonNull(jdk, v);
                if (apply) {
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
        long c = in.varint();
        if (c > (1 << 30) || c != 0 && Long.bitCount(c) != 1) {
            throw in.malformed("a hash table of " + c + " buckets");
        }
        return (int) c;
    }

    private float loadFactor() {
        float f = in.f32();
        if (!(f > 0) || Float.isInfinite(f)) {
            throw in.malformed("a load factor of " + f);
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
    private Object comparator(StreamClass c, Object[] candidate) {
        Object held = candidate[0] == null ? null : comparatorOf(candidate[0]);
        Object saved;
        Class<?> savedType = null;
        try {
            if (in.remaining() > 0 && in.buffer()[in.position()] == KEPT) {
                in.u8();
                saved = KEPT_MARKER;
            } else {
                saved = readValue(held);
                savedType = lastType;
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
    private Object newSorted(StreamClass c, Object comparator) {
        if (comparator == KEPT_MARKER) {
            throw new GraphRefusal("a " + c.name + " sorted by a lambda (or a JDK comparator jckpt does not save) can only "
                    + "be restored into the " + c.type.getSimpleName() + " the program holds at this place, made with its "
                    + "comparator: keep one there (e.g. a field initialised with new " + c.type.getSimpleName()
                    + "<>(comparator)), or use a comparator class of your own");
        }
        if (!apply) {
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
        StreamClass e = classRef();
        if (e.kind != K_ENUM) {
            throw in.malformed("an EnumSet or EnumMap of " + e.name);
        }
        return e.type;
    }

    private void enumElements(Class<?> enumType, Object[] values) {
        for (Object v : values) {
            if (v == null || ((Enum<?>) v).getDeclaringClass() != enumType) {
                throw in.malformed("a " + v + " among the constants of " + enumType.getName());
            }
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private Object readJdk(StreamClass c, int id, Object candidate) {
        JdkType jdk = c.jdk;
        String saved = "a " + c.type.getName();
        try {
            switch (jdk.shape) {
                case EMPTY -> bind(id, candidate, apply && candidate == null ? new Object() : null);
                case SEQUENCE -> {
                    int n = in.count(1);
                    Object target = bind(id, candidate, apply && candidate == null ? jdk.factory.get() : null);
                    Object[] values = readSequence(jdk, n, (Collection<?>) candidate);
                    if (apply) {
                        refill(target, values);
                    }
                }
                case SET -> {
                    int n = in.count(1);
                    Object target = bind(id, candidate, apply && candidate == null ? jdk.factory.get() : null);
                    Object[] values = readElements(jdk, n);
                    if (apply) {
                        refill(target, values);
                    }
                }
                case HASH_SET -> {
                    int capacity = capacity();
                    float loadFactor = loadFactor();
                    int n = in.count(1);
                    Object target = bind(id, candidate, apply && candidate == null
                            ? new HashSet<>(capacity == 0 ? 16 : capacity, loadFactor) : null);
                    Object[] values = readElements(jdk, n);
                    if (apply) {
                        ((HashSet<?>) target).clear();
                        JdkInternals.resetCapacity(JdkInternals.backingMap((HashSet<?>) target), capacity);
                        refill(target, values);
                    }
                }
                case SORTED_SET, PRIORITY_QUEUE -> {
                    Object[] fits = {candidate};
                    Object comparator = comparator(c, fits);
                    rootFits(id, fits[0] != null, saved + " with another comparator", "a " + c.type.getName()
                            + " whose comparator is " + (candidate == null ? "?" : comparatorOf(candidate)));
                    Object target = bind(id, fits[0], fits[0] == null ? newSorted(c, comparator) : null);
                    int n = in.count(1);
                    Object[] values = jdk.shape == JdkType.Shape.PRIORITY_QUEUE
                            ? readSequence(jdk, n, (Collection<?>) fits[0]) : readElements(jdk, n);
                    if (apply) {
                        refill(target, values);
                    }
                }
                case ENUM_SET -> {
                    Class enumType = enumClass();
                    boolean fits = candidate != null && JdkInternals.elementType((EnumSet<?>) candidate) == enumType;
                    rootFits(id, fits, "an EnumSet of " + enumType.getName(), "an EnumSet of another enum");
                    Object target = bind(id, fits ? candidate : null, apply && !fits ? EnumSet.noneOf(enumType) : null);
                    Object[] values = readElements(jdk, in.count(1));
                    enumElements(enumType, values);
                    if (apply) {
                        refill(target, values);
                    }
                }
                case MAP, HASH_MAP, LINKED_HASH_MAP, SORTED_MAP, ENUM_MAP -> readMap(c, id, candidate);
                case BIT_SET -> {
                    long[] words = new long[in.count(8)];
                    for (int i = 0; i < words.length; i++) {
                        words[i] = in.i64();
                    }
                    Object target = bind(id, candidate, apply && candidate == null ? new BitSet() : null);
                    if (apply) {
                        ((BitSet) target).clear();
                        ((BitSet) target).or(BitSet.valueOf(words));
                    }
                }
                case RANDOM -> {
                    long seed = in.i64();
                    double nextGaussian = in.f64();
                    boolean haveGaussian = in.u8() != 0;
                    Object target = bind(id, candidate, apply && candidate == null ? new Random(0) : null);
                    if (apply) {
                        synchronized (target) {
                            JdkInternals.setRandom((Random) target, seed, nextGaussian, haveGaussian);
                        }
                    }
                }
                case SPLITTABLE_RANDOM -> {
                    long seed = in.i64();
                    long gamma = in.i64();
                    if ((gamma & 1) == 0) {
                        throw in.malformed("an even SplittableRandom gamma");
                    }
                    Object target = bind(id, candidate, apply && candidate == null ? new SplittableRandom(0) : null);
                    if (apply) {
                        JdkInternals.setSplittable((SplittableRandom) target, seed, gamma);
                    }
                }
                case ATOMIC_BOOLEAN -> {
                    boolean v = in.u8() != 0;
                    Object target = bind(id, candidate, apply && candidate == null ? new AtomicBoolean() : null);
                    if (apply) {
                        ((AtomicBoolean) target).set(v);
                    }
                }
                case ATOMIC_INTEGER -> {
                    int v = in.i32();
                    Object target = bind(id, candidate, apply && candidate == null ? new AtomicInteger() : null);
                    if (apply) {
                        ((AtomicInteger) target).set(v);
                    }
                }
                case ATOMIC_LONG -> {
                    long v = in.i64();
                    Object target = bind(id, candidate, apply && candidate == null ? new AtomicLong() : null);
                    if (apply) {
                        ((AtomicLong) target).set(v);
                    }
                }
                case LONG_ADDER -> {
                    long v = in.i64();
                    Object target = bind(id, candidate, apply && candidate == null ? new LongAdder() : null);
                    if (apply) {
                        ((LongAdder) target).reset();
                        ((LongAdder) target).add(v);
                    }
                }
                case ATOMIC_REFERENCE -> {
                    Object target = bind(id, candidate, apply && candidate == null ? new AtomicReference<>() : null);
                    Object current = candidate == null ? null : ((AtomicReference<?>) candidate).get();
                    Object v;
                    try {
                        v = readValue(current);
                    } catch (GraphRefusal e) {
                        throw e.at(".get()");
                    }
                    if (apply) {
                        ((AtomicReference<Object>) target).set(v);
                    }
                }
                case ATOMIC_INTEGER_ARRAY -> {
                    int n = in.count(4);
                    boolean fits = candidate != null && ((AtomicIntegerArray) candidate).length() == n;
                    rootFits(id, fits, "an AtomicIntegerArray of length " + n, "an AtomicIntegerArray of another length");
                    Object target = bind(id, fits ? candidate : null, apply && !fits ? new AtomicIntegerArray(n) : null);
                    for (int i = 0; i < n; i++) {
                        int v = in.i32();
                        if (apply) {
                            ((AtomicIntegerArray) target).set(i, v);
                        }
                    }
                }
                case ATOMIC_LONG_ARRAY -> {
                    int n = in.count(8);
                    boolean fits = candidate != null && ((AtomicLongArray) candidate).length() == n;
                    rootFits(id, fits, "an AtomicLongArray of length " + n, "an AtomicLongArray of another length");
                    Object target = bind(id, fits ? candidate : null, apply && !fits ? new AtomicLongArray(n) : null);
                    for (int i = 0; i < n; i++) {
                        long v = in.i64();
                        if (apply) {
                            ((AtomicLongArray) target).set(i, v);
                        }
                    }
                }
                case ATOMIC_REFERENCE_ARRAY -> {
                    int n = in.count(1);
                    AtomicReferenceArray<Object> held = (AtomicReferenceArray<Object>) candidate;
                    boolean fits = held != null && held.length() == n;
                    rootFits(id, fits, "an AtomicReferenceArray of length " + n, "an AtomicReferenceArray of another length");
                    Object target = bind(id, fits ? held : null, apply && !fits ? new AtomicReferenceArray<>(n) : null);
                    int i = 0;
                    try {
                        for (; i < n; i++) {
                            Object v = readValue(fits ? held.get(i) : null);
                            if (apply) {
                                ((AtomicReferenceArray<Object>) target).set(i, v);
                            }
                        }
                    } catch (GraphRefusal e) {
                        throw e.at("[" + i + "]");
                    }
                }
                case BYTE_BUFFER -> {
                    int n = in.count(1);
                    boolean fits = candidate != null && ((ByteBuffer) candidate).capacity() == n;
                    rootFits(id, fits, "a ByteBuffer of capacity " + n, "a ByteBuffer of another capacity");
                    Object made = !apply || fits ? null : jdk == JdkType.DIRECT_BYTE_BUFFER ? ByteBuffer.allocateDirect(n)
                            : ByteBuffer.allocate(n);
                    ByteBuffer target = (ByteBuffer) bind(id, fits ? candidate : null, made);
                    int at = in.skip(n);
                    if (apply && n > 0) {
                        if (target.isDirect()) {
                            MemoryCopy.copy(in.buffer(), MemoryCopy.BYTE_ARRAY_BASE + at, null, Jvm.address(target), n);
                        } else {
                            MemoryCopy.copy(in.buffer(), MemoryCopy.BYTE_ARRAY_BASE + at, target.array(),
                                    MemoryCopy.BYTE_ARRAY_BASE + target.arrayOffset(), n);
                        }
                    }
                }
                case BYTES -> {
                    int n = in.count(1);
                    Bytes<?> held = (Bytes<?>) candidate;
                    boolean fits = held != null && (held.isElastic() || held.capacity() >= n);
                    rootFits(id, fits, "a Bytes of " + n + " bytes", "a fixed-capacity Bytes that cannot hold them");
                    Bytes<?> target = (Bytes<?>) bind(id, fits ? held : null,
                            apply && !fits ? Bytes.allocateElasticOnHeap(Math.max(64, n)) : null);
                    int at = in.skip(n);
                    if (apply) {
                        target.clear();
                        target.write(in.buffer(), at, n);
                    }
                }
                default -> throw in.malformed("a " + c.name + " as an object");
            }
        } catch (IllegalAccessException e) {
            throw new GraphRefusal("the state of a " + c.name + " cannot be set (" + e.getMessage() + "): run with "
                    + GraphType.JAVA_UTIL_FLAG);
        }
        return finish(id);
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private void readMap(StreamClass c, int id, Object candidate) throws IllegalAccessException {
        JdkType jdk = c.jdk;
        Object target;
        int capacity = 0;
        Class<?> enumType = null;
        switch (jdk.shape) {
            case HASH_MAP, LINKED_HASH_MAP -> {
                capacity = capacity();
                float loadFactor = loadFactor();
                boolean accessOrder = jdk.shape == JdkType.Shape.LINKED_HASH_MAP && in.u8() != 0;
                boolean fits = candidate != null && (jdk.shape == JdkType.Shape.HASH_MAP
                        || JdkInternals.accessOrder((LinkedHashMap<?, ?>) candidate) == accessOrder);
                rootFits(id, fits, "a LinkedHashMap with accessOrder " + accessOrder, "one with accessOrder " + !accessOrder);
                int initial = capacity == 0 ? 16 : capacity;
                target = bind(id, fits ? candidate : null, !apply || fits ? null : jdk == JdkType.HASH_MAP
                        ? new HashMap<>(initial, loadFactor) : new LinkedHashMap<>(initial, loadFactor, accessOrder));
                candidate = fits ? candidate : null;
            }
            case SORTED_MAP -> {
                Object[] fits = {candidate};
                Object comparator = comparator(c, fits);
                rootFits(id, fits[0] != null, "a " + c.type.getName() + " with another comparator", "a "
                        + c.type.getName() + " whose comparator is " + (candidate == null ? "?" : comparatorOf(candidate)));
                candidate = fits[0];
                target = bind(id, candidate, candidate == null ? newSorted(c, comparator) : null);
            }
            case ENUM_MAP -> {
                enumType = enumClass();
                boolean fits = candidate != null && JdkInternals.keyType((EnumMap<?, ?>) candidate) == enumType;
                rootFits(id, fits, "an EnumMap of " + enumType.getName(), "an EnumMap of another enum");
                candidate = fits ? candidate : null;
                target = bind(id, candidate, apply && !fits ? new EnumMap<>((Class) enumType) : null);
            }
            default -> target = bind(id, candidate, apply && candidate == null ? jdk.factory.get() : null);
        }
        int n = in.count(2);
        Object[] keys = new Object[n];
        Object[] values = new Object[n];
        readEntries(jdk, (Map<?, ?>) candidate, n, keys, values);
        if (enumType != null) {
            enumElements(enumType, keys);
        }
        if (apply) {
            ((Map<?, ?>) target).clear();
            if (jdk.shape == JdkType.Shape.HASH_MAP || jdk.shape == JdkType.Shape.LINKED_HASH_MAP) {
                JdkInternals.resetCapacity((HashMap<?, ?>) target, capacity);
            }
            refill(target, keys, values);
        }
    }
}
