package io.jckpt.data;

import java.lang.reflect.Field;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The few private fields of java.util the state graph codec reads and sets, so that a {@link Random} and a
 * {@link SplittableRandom} are restored in place (their seeds), a HashMap or HashSet gets its saved
 * table size back (its iteration order is the saved one), and an empty EnumSet, EnumMap or an
 * access-ordered LinkedHashMap can be remade. Needs java.util opened to jckpt
 * ({@link GraphType#JAVA_UTIL_OPEN}); only loaded when a graph holds one of these, which
 * {@link GraphType} refuses with the flag's name when java.util is not open.
 */
final class JdkInternals {
    private static final Field RANDOM_SEED = field(Random.class, "seed");
    private static final Field RANDOM_NEXT_GAUSSIAN = field(Random.class, "nextNextGaussian");
    private static final Field RANDOM_HAVE_GAUSSIAN = field(Random.class, "haveNextNextGaussian");
    private static final Field SPLITTABLE_SEED = field(SplittableRandom.class, "seed");
    private static final Field SPLITTABLE_GAMMA = field(SplittableRandom.class, "gamma");
    private static final Field HASH_MAP_TABLE = field(HashMap.class, "table");
    private static final Field HASH_MAP_THRESHOLD = field(HashMap.class, "threshold");
    private static final Field HASH_MAP_LOAD_FACTOR = field(HashMap.class, "loadFactor");
    private static final Field HASH_SET_MAP = field(HashSet.class, "map");
    private static final Field LINKED_ACCESS_ORDER = field(LinkedHashMap.class, "accessOrder");
    private static final Field ENUM_SET_TYPE = field(EnumSet.class, "elementType");
    private static final Field ENUM_MAP_TYPE = field(EnumMap.class, "keyType");

    private JdkInternals() {
    }

    private static Field field(Class<?> c, String name) {
        try {
            Field f = c.getDeclaredField(name);
            f.setAccessible(true);
            return f;
        } catch (ReflectiveOperationException | RuntimeException e) {
            throw new IllegalStateException("this JDK's " + c.getName() + " has no accessible field " + name
                    + " (jckpt needs " + GraphType.JAVA_UTIL_FLAG + "): " + e, e);
        }
    }

    static long randomSeed(Random r) throws IllegalAccessException {
        return ((AtomicLong) RANDOM_SEED.get(r)).get();
    }

    static double randomNextGaussian(Random r) throws IllegalAccessException {
        return RANDOM_NEXT_GAUSSIAN.getDouble(r);
    }

    static boolean randomHaveGaussian(Random r) throws IllegalAccessException {
        return RANDOM_HAVE_GAUSSIAN.getBoolean(r);
    }

    static void setRandom(Random r, long seed, double nextGaussian, boolean haveGaussian) throws IllegalAccessException {
        ((AtomicLong) RANDOM_SEED.get(r)).set(seed);
        RANDOM_NEXT_GAUSSIAN.setDouble(r, nextGaussian);
        RANDOM_HAVE_GAUSSIAN.setBoolean(r, haveGaussian);
    }

    static long splittableSeed(SplittableRandom r) throws IllegalAccessException {
        return SPLITTABLE_SEED.getLong(r);
    }

    static long splittableGamma(SplittableRandom r) throws IllegalAccessException {
        return SPLITTABLE_GAMMA.getLong(r);
    }

    static void setSplittable(SplittableRandom r, long seed, long gamma) throws IllegalAccessException {
        SPLITTABLE_SEED.setLong(r, seed);
        SPLITTABLE_GAMMA.setLong(r, gamma);
    }

    /** @return the map's table length (0 before its first entry) */
    static int capacity(HashMap<?, ?> m) throws IllegalAccessException {
        Object[] table = (Object[]) HASH_MAP_TABLE.get(m);
        return table == null ? 0 : table.length;
    }

    static float loadFactor(HashMap<?, ?> m) throws IllegalAccessException {
        return HASH_MAP_LOAD_FACTOR.getFloat(m);
    }

    /**
     * Gives an empty map the saved table length: the next put allocates a table of that length, as
     * it does in a map made with that initial capacity.
     */
    static void resetCapacity(HashMap<?, ?> emptied, int capacity) throws IllegalAccessException {
        if (capacity(emptied) != capacity) {
            HASH_MAP_TABLE.set(emptied, null);
            HASH_MAP_THRESHOLD.setInt(emptied, capacity);
        }
    }

    static HashMap<?, ?> backingMap(HashSet<?> s) throws IllegalAccessException {
        return (HashMap<?, ?>) HASH_SET_MAP.get(s);
    }

    static boolean accessOrder(LinkedHashMap<?, ?> m) throws IllegalAccessException {
        return LINKED_ACCESS_ORDER.getBoolean(m);
    }

    static Class<?> elementType(EnumSet<?> s) throws IllegalAccessException {
        return (Class<?>) ENUM_SET_TYPE.get(s);
    }

    static Class<?> keyType(EnumMap<?, ?> m) throws IllegalAccessException {
        return (Class<?>) ENUM_MAP_TYPE.get(m);
    }
}
