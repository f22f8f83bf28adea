package io.jckpt.data;

import net.openhft.chronicle.core.UnsafeMemory;
import org.objenesis.ObjenesisStd;
import org.objenesis.instantiator.ObjectInstantiator;

import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.List;

/**
 * The saved fields of a program class or a record, made accessible once per class: not static, not
 * transient (a transient field keeps the program's value), superclass fields first, each in declaration
 * order; synthetic ones included (an inner class's {@code this$0}). Its name and kind list is the
 * layout a payload stores, checked against the class at rollback so that a changed class is an error,
 * never a silent shift. Also makes new instances: a program class through its no-argument
 * constructor when it has one (so its transient fields get their initial values), else without
 * running a constructor (Objenesis, as Kryo does); a record through its canonical constructor.
 */
final class ClassLayout {
    /** Without Objenesis's cache, which is keyed by class name: two worlds' classes of one name differ. */
    private static final ObjenesisStd OBJENESIS = new ObjenesisStd(false);

    final Class<?> type;
    final Field[] fields;
    final String[] names;
    /** Per field: a JVM descriptor letter (Z B C S I J F D) or L. */
    final byte[] kinds;
    /**
     * Per field of a program class: its offset, for {@code Unsafe} reads and writes without reflection's
     * per-call checks (the fields were made accessible, and a reference is type-checked before it is
     * stored); null for a record, whose fields Unsafe does not give offsets of.
     */
    final long[] offsets;
    private final Constructor<?> constructor;
    private final ObjectInstantiator<?> instantiator;

    private ClassLayout(Class<?> type, List<Field> fields, Constructor<?> constructor, ObjectInstantiator<?> instantiator) {
        this.type = type;
        this.fields = fields.toArray(new Field[0]);
        this.names = new String[this.fields.length];
        this.kinds = new byte[this.fields.length];
        for (int i = 0; i < this.fields.length; i++) {
            names[i] = this.fields[i].getName();
            kinds[i] = (byte) kind(this.fields[i].getType());
        }
        if (type.isRecord()) {
            this.offsets = null;
        } else {
            this.offsets = new long[this.fields.length];
            for (int i = 0; i < this.fields.length; i++) {
                offsets[i] = UnsafeMemory.UNSAFE.objectFieldOffset(this.fields[i]);
            }
        }
        this.constructor = constructor;
        this.instantiator = instantiator;
    }

    static char kind(Class<?> t) {
        if (!t.isPrimitive()) {
            return 'L';
        }
        return t == boolean.class ? 'Z' : t == byte.class ? 'B' : t == char.class ? 'C' : t == short.class ? 'S'
                : t == int.class ? 'I' : t == long.class ? 'J' : t == float.class ? 'F' : 'D';
    }

    /**
     * @param type a program class (not a JDK class, not a record)
     * @return its layout
     * @throws GraphRefusal when a superclass keeps state private to the JDK or a field cannot be accessed
     */
    static ClassLayout ofProgramClass(Class<?> type) {
        List<Class<?>> chain = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            chain.add(0, c);
        }
        List<Field> fields = new ArrayList<>();
        for (Class<?> c : chain) {
            boolean jdk = GraphType.isJdk(c);
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m) || Modifier.isTransient(m)) {
                    continue;
                }
                if (jdk) {
                    throw new GraphRefusal("a " + type.getName() + " cannot be saved: it extends " + c.getName()
                            + ", whose state is private to the JDK; hold a " + c.getSimpleName()
                            + " in a field instead of extending it");
                }
                if (!f.trySetAccessible()) {
                    throw new GraphRefusal("field " + f.getName() + " of " + c.getName() + " cannot be read and set by "
                            + "jckpt: its module does not open package " + c.getPackageName() + " to " + GraphType.ourModule()
                            + " (add 'opens " + c.getPackageName() + ";' to its module-info, or run with --add-opens="
                            + c.getModule().getName() + "/" + c.getPackageName() + "=" + GraphType.ourModule() + ")");
                }
                fields.add(f);
            }
        }
        Constructor<?> noArgs = null;
        try {
            Constructor<?> c = type.getDeclaredConstructor();
            if (c.trySetAccessible()) {
                noArgs = c;
            }
        } catch (NoSuchMethodException e) {
            // made without a constructor
        }
        return new ClassLayout(type, fields, noArgs, noArgs == null ? OBJENESIS.getInstantiatorOf(type) : null);
    }

    /**
     * @param type a record class of the program
     * @return its components as fields, and its canonical constructor
     * @throws GraphRefusal when the record cannot be accessed
     */
    static ClassLayout ofRecord(Class<?> type) {
        RecordComponent[] components = type.getRecordComponents();
        List<Field> fields = new ArrayList<>();
        Class<?>[] types = new Class<?>[components.length];
        try {
            for (int i = 0; i < components.length; i++) {
                Field f = type.getDeclaredField(components[i].getName());
                types[i] = components[i].getType();
                if (!f.trySetAccessible()) {
                    throw new GraphRefusal("record " + type.getName() + " cannot be read by jckpt: its module does not "
                            + "open package " + type.getPackageName() + " to " + GraphType.ourModule());
                }
                fields.add(f);
            }
            Constructor<?> canonical = type.getDeclaredConstructor(types);
            if (!canonical.trySetAccessible()) {
                throw new GraphRefusal("record " + type.getName() + " cannot be made by jckpt: its module does not open "
                        + "package " + type.getPackageName() + " to " + GraphType.ourModule());
            }
            return new ClassLayout(type, fields, canonical, null);
        } catch (NoSuchFieldException | NoSuchMethodException e) {
            throw new GraphRefusal("record " + type.getName() + " has no canonical constructor or field: " + e);
        }
    }

    /**
     * @return a new instance of a program class (not a record)
     * @throws GraphRefusal when its constructor throws
     */
    Object newInstance() {
        if (instantiator != null) {
            return instantiator.newInstance();
        }
        try {
            return constructor.newInstance();
        } catch (InvocationTargetException e) {
            throw new GraphRefusal("the constructor " + type.getName() + "() threw " + e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new GraphRefusal("cannot make a " + type.getName() + ": " + e);
        }
    }

    /**
     * @param components the record's components (boxed)
     * @return the record, through its canonical constructor
     */
    Object newRecord(Object[] components) {
        try {
            return constructor.newInstance(components);
        } catch (InvocationTargetException e) {
            throw new GraphRefusal("the constructor of record " + type.getName() + " refused the saved components: "
                    + e.getCause());
        } catch (ReflectiveOperationException | IllegalArgumentException e) {
            throw new GraphRefusal("cannot make record " + type.getName() + ": " + e);
        }
    }

    /** @return the layout as text, e.g. {@code [x:D, items:L]} */
    String describe() {
        return describe(names, kinds);
    }

    static String describe(String[] names, byte[] kinds) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < names.length; i++) {
            b.append(i == 0 ? "" : ", ").append(names[i]).append(':').append((char) kinds[i]);
        }
        return b.append(']').toString();
    }

    /**
     * @param savedNames the saved field names
     * @param savedKinds the saved kinds
     * @return whether the class has that layout
     */
    boolean matches(String[] savedNames, byte[] savedKinds) {
        if (savedNames.length != names.length) {
            return false;
        }
        for (int i = 0; i < names.length; i++) {
            if (savedKinds[i] != kinds[i] || !savedNames[i].equals(names[i])) {
                return false;
            }
        }
        return true;
    }
}
