package io.jckpt.data;

import java.lang.reflect.Method;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.Collection;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What the state graph codec does with the objects of one class, decided once per class (a
 * {@link ClassValue}, shared by every checkpointer of the JVM): a value written inline (String, boxed,
 * enum, BigInteger, BigDecimal, record, List.of ...), an object restored in place (a program class, an
 * array, a {@link JdkType}), or refused with what to do instead.
 */
final class GraphType {
    enum Category {
        STRING, BOOLEAN, BYTE, SHORT, CHAR, INT, LONG, FLOAT, DOUBLE, ENUM, BIG_INTEGER, BIG_DECIMAL, SINGLETON,
        RECORD, IMMUTABLE, OWN, PRIMITIVE_ARRAY, OBJECT_ARRAY, JDK, REFUSED;

        /** @return whether objects of this category have identity the codec keeps (restored in place) */
        boolean isObject() {
            return this == OWN || this == PRIMITIVE_ARRAY || this == OBJECT_ARRAY || this == JDK;
        }
    }

    /** The flag that opens java.util to jckpt, for messages. */
    static final String JAVA_UTIL_FLAG = "--add-opens=java.base/java.util=" + ourModule();
    /** Whether java.base opens java.util to jckpt (the rank JVMs' flags do). */
    static final boolean JAVA_UTIL_OPEN = Object.class.getModule().isOpen("java.util", GraphType.class.getModule());
    private static final String[] LIBRARIES = {"net.openhft.", "org.agrona.", "mpi.", "mpjdev.", "mpjbuf.", "xdev.",
            "com.esotericsoftware.", "org.objenesis.", "io.netty.", "org.slf4j.", "ch.qos.logback."};
    private static final AtomicInteger SERIALS = new AtomicInteger();
    private static final ClassValue<GraphType> TYPES = new ClassValue<>() {
        @Override
        protected GraphType computeValue(Class<?> type) {
            return classify(type);
        }
    };

    final Class<?> type;
    final Category category;
    /** Unique per class in this JVM: a writer's index into its class table. */
    final int serial;
    /** The class definition's kind and name as saved ({@link StateGraphDescriptor}). */
    final int definitionKind;
    final String definitionName;
    final ClassLayout layout;
    final JdkType jdk;
    /** ENUM: the enum class (a constant with a body has a subclass). */
    final Class<?> enumType;
    /** PRIMITIVE_ARRAY: bytes per element. */
    final int elementSize;
    /** REFUSED: why, and what to do instead, for an object inside a graph. */
    final String refusal;
    /** REFUSED: the same for a registered object. */
    final String rootRefusal;
    /** Whether equal objects are only the same object (equals not overridden). */
    final boolean identityEquals;

    private GraphType(Class<?> type, Category category, int definitionKind, String definitionName, ClassLayout layout,
                      JdkType jdk, Class<?> enumType, int elementSize, String refusal, String rootRefusal) {
        this.type = type;
        this.category = category;
        this.serial = SERIALS.getAndIncrement();
        this.definitionKind = definitionKind;
        this.definitionName = definitionName;
        this.layout = layout;
        this.jdk = jdk;
        this.enumType = enumType;
        this.elementSize = elementSize;
        this.refusal = refusal;
        this.rootRefusal = rootRefusal;
        this.identityEquals = category.isObject() && equalsOf(type) == Object.class;
    }

    /**
     * @param type a class
     * @return what the codec does with its objects
     */
    static GraphType of(Class<?> type) {
        return TYPES.get(type);
    }

    private static GraphType value(Class<?> type, Category category) {
        return new GraphType(type, category, 0, type.getName(), null, null, null, 0, null, null);
    }

    /** What a refusal inside a graph may also suggest: a transient field is left as it is by rollback. */
    static final String TRANSIENT = "mark the field that holds it transient (rollback leaves a transient field as it is)";

    private static GraphType refused(Class<?> type, String reason) {
        String root = reason.replace(", or " + TRANSIENT, "").replace(": " + TRANSIENT, ": it cannot be registered "
                + "(register the data it works on)");
        return new GraphType(type, Category.REFUSED, 0, type.getName(), null, null, null, 0, reason, root);
    }

    private static Class<?> equalsOf(Class<?> type) {
        try {
            Method m = type.getMethod("equals", Object.class);
            return m.getDeclaringClass();
        } catch (NoSuchMethodException e) {
            return Object.class;
        }
    }

    /** @return the module name to open packages to: ours, or ALL-UNNAMED on the class path */
    static String ourModule() {
        Module m = GraphType.class.getModule();
        return m.isNamed() ? m.getName() : "ALL-UNNAMED";
    }

    static boolean isJdk(Class<?> c) {
        return isJdkName(c.getName());
    }

    static boolean isJdkName(String n) {
        return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.")
                || n.startsWith("com.sun.");
    }

    private static GraphType classify(Class<?> c) {
        if (c == String.class) {
            return value(c, Category.STRING);
        }
        Category boxed = c == Boolean.class ? Category.BOOLEAN : c == Byte.class ? Category.BYTE
                : c == Short.class ? Category.SHORT : c == Character.class ? Category.CHAR : c == Integer.class ? Category.INT
                : c == Long.class ? Category.LONG : c == Float.class ? Category.FLOAT : c == Double.class ? Category.DOUBLE : null;
        if (boxed != null) {
            return value(c, boxed);
        }
        if (c == BigInteger.class) {
            return value(c, Category.BIG_INTEGER);
        }
        if (c == BigDecimal.class) {
            return value(c, Category.BIG_DECIMAL);
        }
        if (Enum.class.isAssignableFrom(c) && c != Enum.class) {
            Class<?> e = c.isEnum() ? c : c.getSuperclass();
            return new GraphType(c, Category.ENUM, StateGraphDescriptor.K_ENUM, e.getName(), null, null, e, 0, null, null);
        }
        if (c.isHidden() || c.isSynthetic() || c.getName().contains("$$Lambda")) {
            return refused(c, "a lambda or hidden class (" + c.getName() + ") cannot be saved: " + TRANSIENT);
        }
        if (c.isArray()) {
            Class<?> component = c.getComponentType();
            if (component.isPrimitive()) {
                int size = component == boolean.class || component == byte.class ? 1
                        : component == char.class || component == short.class ? 2
                        : component == int.class || component == float.class ? 4 : 8;
                return new GraphType(c, Category.PRIMITIVE_ARRAY, StateGraphDescriptor.K_PRIMITIVE_ARRAY, c.getName(),
                        null, null, null, size, null, null);
            }
            return new GraphType(c, Category.OBJECT_ARRAY, StateGraphDescriptor.K_OBJECT_ARRAY, c.getName(), null, null,
                    null, 0, null, null);
        }
        JdkType jdk = JdkType.of(c);
        if (jdk != null) {
            if (jdk.shape.needsJavaUtil() && !JAVA_UTIL_OPEN) {
                return refused(c, "a " + c.getName() + " is saved and restored in place through state java.base keeps in "
                        + "private fields, which needs the JVM flag " + JAVA_UTIL_FLAG + " (bin/ckpt-run gives it to the "
                        + "ranks it starts; add it to the java command that runs this program)");
            }
            return new GraphType(c, jdk.shape.immutable() ? Category.IMMUTABLE : Category.JDK, StateGraphDescriptor.K_JDK,
                    jdk.className, null, jdk, null, 0, null, null);
        }
        if (StateGraphDescriptor.singletonIndex(singletonOf(c)) >= 0) {
            return value(c, Category.SINGLETON);
        }
        if (c.isRecord()) {
            if (isJdk(c)) {
                return refused(c, jdkAdvice(c));
            }
            try {
                return new GraphType(c, Category.RECORD, StateGraphDescriptor.K_RECORD, c.getName(),
                        ClassLayout.ofRecord(c), null, null, 0, null, null);
            } catch (GraphRefusal e) {
                return refused(c, e.reason());
            }
        }
        if (isJdk(c)) {
            return refused(c, jdkAdvice(c));
        }
        for (String library : LIBRARIES) {
            if (c.getName().startsWith(library)) {
                return refused(c, "a " + c.getName() + " belongs to a library, and its state (native memory, sockets, "
                        + "threads) cannot be saved: " + TRANSIENT);
            }
        }
        if (Thread.class.isAssignableFrom(c) || ClassLoader.class.isAssignableFrom(c)) {
            return refused(c, "a " + c.getName() + " (a thread or class loader) cannot be saved: " + TRANSIENT);
        }
        try {
            return new GraphType(c, Category.OWN, StateGraphDescriptor.K_OWN, c.getName(), ClassLayout.ofProgramClass(c),
                    null, null, 0, null, null);
        } catch (GraphRefusal e) {
            return refused(c, e.reason());
        }
    }

    private static Object singletonOf(Class<?> c) {
        for (Object s : StateGraphDescriptor.SINGLETONS) {
            if (s.getClass() == c) {
                return s;
            }
        }
        return null;
    }

    private static String jdkAdvice(Class<?> c) {
        String n = c.getName();
        String transientField = TRANSIENT;
        if (Buffer.class.isAssignableFrom(c)) {
            if (ByteBuffer.class.isAssignableFrom(c) && n.endsWith("R")) {
                return "a read-only ByteBuffer (" + n + ") cannot be restored: hold the writable buffer it views "
                        + "instead (rollback restores the memory both share)";
            }
            return "a " + n + " cannot be saved: hold its backing array, or a ByteBuffer (asIntBuffer() and the like are "
                    + "views of it)";
        }
        if (n.startsWith("java.util.Collections$") || n.equals("java.util.Arrays$ArrayList")
                || n.startsWith("java.util.ImmutableCollections$")) {
            return "a " + n + " (a view, a wrapper or a fixed-size list) cannot be saved: hold a modifiable collection "
                    + "(new ArrayList<>(...), new HashMap<>(...)) or List.of / Set.of / Map.of";
        }
        if (n.equals("java.util.concurrent.ThreadLocalRandom") || n.equals("java.security.SecureRandom")) {
            return "a " + n + " cannot be restored: use a java.util.Random or a java.util.SplittableRandom (restored in place)";
        }
        if (Collection.class.isAssignableFrom(c) || Map.class.isAssignableFrom(c)) {
            return "a " + n + " is not among the collections jckpt saves (docs/api.md lists them): hold an ArrayList, "
                    + "ArrayDeque, HashMap, TreeMap, HashSet, ... instead, or " + transientField;
        }
        return "a " + n + " is not among the JDK classes jckpt saves (docs/api.md lists them): keep its state in fields of "
                + "your own class (a long, an array, ...), or " + transientField;
    }
}
