package io.jckpt.data;

import net.openhft.chronicle.bytes.Bytes;

import java.lang.reflect.Array;
import java.lang.reflect.Field;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.Objects;

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
 * <p>The JDK classes' bodies are read by {@link JdkReader}, through this reader's pass state.
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
    /** Purity of the value last read: a value (equal means the same), an object the program held, anything else. */
    static final byte VALUE = 0;
    static final byte HELD = 1;
    static final byte OTHER = 2;

    /** A failure of the second pass: part of the graph is restored. */
    static final class PartialRestore extends RuntimeException {
        private static final long serialVersionUID = 1L;

        PartialRestore(Throwable cause) {
            super(cause.getMessage(), cause);
        }
    }

    /** One class of the stream's class table. */
    static final class StreamClass {
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
    private final JdkReader jdk = new JdkReader(this);
    private final IdentityIntMap claimed = new IdentityIntMap();
    GraphInput in;
    boolean apply;
    private Object rootTarget;
    private StreamClass[] table = new StreamClass[16];
    private int classCount;
    private Object[] objects = new Object[64];
    private byte[] purities = new byte[64];
    /** Per id, what the first pass decided: restored into the program's object (true) or a new one. */
    private boolean[] inPlace = new boolean[64];
    private Class<?>[] types = new Class<?>[64];
    private int count;
    byte purity;
    Class<?> lastType;

    GraphReader(ProgramClasses classes) {
        this.classes = classes;
    }

    /**
     * @param base   the payload's array, or null for native memory
     * @param offset its offset or address
     * @param length its length
     * @param target the registered object to restore into, or null for a new graph
     * @return the target, or the new root
     * @throws GraphRefusal   when the payload does not fit (nothing was changed)
     * @throws PartialRestore when the second pass failed
     */
    Object restore(Object base, long offset, int length, Object target) {
        pass(base, offset, length, target, false);
        try {
            return pass(base, offset, length, target, true);
        } catch (RuntimeException e) {
            throw new PartialRestore(e);
        }
    }

    private Object pass(Object base, long offset, int length, Object target, boolean apply) {
        this.in = new GraphInput(base, offset, length);
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
            if (target != null && in.peek() != OBJECT) {
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

    StreamClass classRef() {
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

    Object readValue(Object held) {
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
                return jdk.readImmutable(held);
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
    Object bind(int id, Object held, Object made) {
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
            case K_JDK -> {
                jdk.readJdk(c, id, candidate);
                yield finish(id);
            }
            default -> throw in.malformed("an object of class kind " + c.kind);
        };
    }

    void rootFits(int id, boolean fits, String saved, String actual) {
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
        if (apply) {
            in.copy(target, MemoryCopy.arrayBase(c.type), bytes);
        } else {
            in.skip(bytes);
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
    Object valueObject(Class<?> type, Object result, boolean allValues) {
        int id = reserve(type);
        objects[id] = result;
        purities[id] = allValues ? VALUE : OTHER;
        return finish(id);
    }
}
