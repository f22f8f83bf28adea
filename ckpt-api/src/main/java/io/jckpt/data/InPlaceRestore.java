package io.jckpt.data;

import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * How a Kryo-checkpointed root object (a class the program registered with Kryo) is restored into the
 * caller's own object, so that after {@code rollback(tag, x)} {@code x} itself holds the restored state;
 * or why it cannot be, decided from the class alone at {@code register} (a refusal names what to register
 * instead). Its refusals of values (boxed, String, enums, records, unmodifiable collections, immutable JDK
 * classes) also serve {@link StateGraphAdapter}'s registered objects.
 *
 * <ul>
 * <li>a modifiable {@link Collection} / {@link Map}: cleared, then the restored elements added
 * ({@code addAll} / {@code putAll}), in the saved iteration order; its comparator, capacity and class stay;</li>
 * <li>an array of references ({@code Object[]}, {@code String[]}, {@code Foo[]}): every slot set to the
 * restored element; the target must have the saved length;</li>
 * <li>{@link AtomicReference}: {@code set(restored value)};</li>
 * <li>an object of the program's own classes: every field Kryo's FieldSerializer saves (not static,
 * not transient, not synthetic), of the class and its superclasses, set from the restored object,
 * final fields included (by reflection, as Kryo itself reads them); transient fields keep their value;</li>
 * <li>refused: boxed primitives, String, enums, records, lambdas (immutable or not restorable in place),
 * unmodifiable collections, and other JDK classes whose state is private to the JDK.</li>
 * </ul>
 * References inside the saved graph that pointed back to the root are restored pointing to the
 * caller's object (see {@link KryoAdapter}); every other object reachable from the root is new.
 */
final class InPlaceRestore {
    /** Copies the restored root's state into the target. */
    interface Strategy {
        /**
         * @param restored the object Kryo read, of the target's class
         * @param target   the caller's object
         * @return null, or why it could not be restored (e.g. another length)
         */
        String copy(Object restored, Object target);
    }

    private static final Strategy COLLECTION = (restored, target) -> {
        @SuppressWarnings("unchecked")
        Collection<Object> t = (Collection<Object>) target;
        t.clear();
        t.addAll((Collection<?>) restored);
        return null;
    };
    private static final Strategy MAP = (restored, target) -> {
        @SuppressWarnings("unchecked")
        Map<Object, Object> t = (Map<Object, Object>) target;
        t.clear();
        t.putAll((Map<?, ?>) restored);
        return null;
    };
    private static final Strategy ARRAY = (restored, target) -> {
        Object[] from = (Object[]) restored;
        Object[] into = (Object[]) target;
        if (from.length != into.length) {
            return "an array of length " + into.length + " (arrays are restored in place: the saved length "
                    + from.length + " is needed)";
        }
        System.arraycopy(from, 0, into, 0, from.length);
        return null;
    };
    @SuppressWarnings("unchecked")
    private static final Strategy ATOMIC_REFERENCE = (restored, target) -> {
        ((AtomicReference<Object>) target).set(((AtomicReference<Object>) restored).get());
        return null;
    };

    private InPlaceRestore() {
    }

    /** Thrown by {@link #strategyFor} with the reason and what to register instead. */
    static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;

        Refused(String reason) {
            super(reason, null, false, false);
        }
    }

    /**
     * @param type the root object's class
     * @return how to restore it in place
     * @throws Refused when it cannot be, with what to register instead
     */
    static Strategy strategyFor(Class<?> type) throws Refused {
        String boxed = boxedAdvice(type);
        if (boxed != null) {
            throw new Refused("a " + type.getName() + " is immutable: the registered object can never change "
                    + "(a primitive variable is copied into a new box at each call), so rollback could not restore it. "
                    + "Register " + boxed + " instead and update it in place");
        }
        if (type == String.class) {
            throw new Refused("a String is immutable: rollback could not restore it. Register a char[] or byte[], "
                    + "or keep the String in a field of an object of your own class (restored in place) or in an "
                    + "AtomicReference<String>");
        }
        if (type.isEnum() || type.getSuperclass() != null && type.getSuperclass().isEnum()) {
            throw new Refused("an enum constant (" + type.getName() + ") cannot be changed by rollback: keep it in a "
                    + "field of an object of your own class or in an AtomicReference, or register its ordinal in an int[1]");
        }
        if (type.isRecord()) {
            throw new Refused("a record (" + type.getName() + ") is immutable: rollback could not restore it in place. "
                    + "Keep it in a field of an object of your own class or in an AtomicReference, and replace it there");
        }
        if (type.isHidden() || type.isSynthetic()) {
            throw new Refused("a lambda or hidden class (" + type.getName() + ") cannot be checkpointed");
        }
        if (Collection.class.isAssignableFrom(type) || Map.class.isAssignableFrom(type)) {
            if (isUnmodifiable(type)) {
                throw new Refused("an unmodifiable or fixed-size collection (" + type.getName() + ": List.of, "
                        + "Collections.unmodifiable*, Arrays.asList, ...) cannot be restored in place: register a "
                        + "modifiable one (new ArrayList<>(...), new HashMap<>(...))");
            }
            return Collection.class.isAssignableFrom(type) ? COLLECTION : MAP;
        }
        if (type.isArray()) {
            if (type.getComponentType().isPrimitive()) {
                throw new Refused(type.getName() + " is a primitive array"); // never reached: its own adapter
            }
            return ARRAY;
        }
        if (type == AtomicReference.class) {
            return ATOMIC_REFERENCE;
        }
        if (isJdk(type)) {
            throw new Refused("a " + type.getName() + " cannot be restored in place (its state is private to the "
                    + "JDK" + (isKnownImmutable(type) ? " and it is immutable" : "") + "): keep it in a field of an "
                    + "object of your own class (restored in place) or in an AtomicReference");
        }
        return fields(type);
    }

    private static String boxedAdvice(Class<?> type) {
        if (type == Integer.class) {
            return "an int[1] (e.g. int[] counter = {0}; counter[0]++) or an AtomicInteger";
        }
        if (type == Long.class) {
            return "a long[1] (e.g. long[] counter = {0}; counter[0]++) or an AtomicLong";
        }
        if (type == Double.class) {
            return "a double[1] (e.g. double[] residual = {0}; residual[0] = r)";
        }
        if (type == Float.class) {
            return "a float[1]";
        }
        if (type == Boolean.class) {
            return "a boolean[1] or an AtomicBoolean";
        }
        if (type == Short.class) {
            return "a short[1]";
        }
        if (type == Byte.class) {
            return "a byte[1]";
        }
        if (type == Character.class) {
            return "a char[1]";
        }
        return null;
    }

    private static boolean isJdk(Class<?> type) {
        String n = type.getName();
        return n.startsWith("java.") || n.startsWith("javax.") || n.startsWith("jdk.") || n.startsWith("sun.")
                || n.startsWith("com.sun.");
    }

    private static boolean isKnownImmutable(Class<?> type) {
        String n = type.getName();
        return n.startsWith("java.time.") || n.equals("java.math.BigInteger") || n.equals("java.math.BigDecimal")
                || n.equals("java.util.UUID") || n.startsWith("java.util.Optional");
    }

    private static boolean isUnmodifiable(Class<?> type) {
        String n = type.getName();
        return n.startsWith("java.util.ImmutableCollections$") || n.startsWith("java.util.Collections$Unmodifiable")
                || n.startsWith("java.util.Collections$Empty") || n.startsWith("java.util.Collections$Singleton")
                || n.equals("java.util.Arrays$ArrayList") || n.startsWith("java.util.KeyValueHolder");
    }

    /** The fields of a class of the program, each made accessible now (so a refusal comes at register). */
    private static Strategy fields(Class<?> type) throws Refused {
        List<Field> fields = new ArrayList<>();
        for (Class<?> c = type; c != null && c != Object.class; c = c.getSuperclass()) {
            if (isJdk(c)) {
                for (Field f : c.getDeclaredFields()) {
                    if (!Modifier.isStatic(f.getModifiers())) {
                        throw new Refused("a " + type.getName() + " cannot be restored in place: its superclass "
                                + c.getName() + " keeps state private to the JDK; keep that state in a field instead of "
                                + "extending it");
                    }
                }
                continue;
            }
            for (Field f : c.getDeclaredFields()) {
                int m = f.getModifiers();
                if (Modifier.isStatic(m) || Modifier.isTransient(m) || f.isSynthetic()) {
                    continue;
                }
                if (!f.trySetAccessible()) {
                    throw new Refused("field " + f.getName() + " of " + c.getName() + " cannot be set by rollback (its "
                            + "module does not open " + c.getPackageName() + " to jckpt): open the package, or keep the "
                            + "data in a class of an open package");
                }
                fields.add(f);
            }
        }
        Field[] all = fields.toArray(new Field[0]);
        return (restored, target) -> {
            for (Field f : all) {
                try {
                    f.set(target, f.get(restored));
                } catch (IllegalAccessException e) {
                    return "an object whose field " + f.getName() + " cannot be set (" + e.getMessage() + ")";
                }
            }
            return null;
        };
    }
}
