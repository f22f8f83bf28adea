package io.jckpt.data;

import java.util.Arrays;

/**
 * Object to int by identity (open addressing, linear probing), cleared and reused for every graph a
 * {@link GraphWriter} writes or a {@link GraphReader} reads: no entry objects and no boxing, unlike an
 * {@code IdentityHashMap<Object, Integer>}. Not thread-safe.
 */
final class IdentityIntMap {
    /** What {@link #get} returns for an absent key. */
    static final int MISSING = -1;
    private Object[] keys;
    private int[] values;
    private int size;

    IdentityIntMap() {
        keys = new Object[64];
        values = new int[64];
    }

    private static int slot(Object key, int mask) {
        int h = System.identityHashCode(key) * 0x9E3779B9;
        return (h ^ (h >>> 16)) & mask;
    }

    int get(Object key) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            Object k = keys[i];
            if (k == key) {
                return values[i];
            }
            if (k == null) {
                return MISSING;
            }
        }
    }

    void put(Object key, int value) {
        int mask = keys.length - 1;
        for (int i = slot(key, mask); ; i = (i + 1) & mask) {
            Object k = keys[i];
            if (k == key) {
                values[i] = value;
                return;
            }
            if (k == null) {
                keys[i] = key;
                values[i] = value;
                if (++size * 2 > keys.length) {
                    grow();
                }
                return;
            }
        }
    }

    private void grow() {
        Object[] oldKeys = keys;
        int[] oldValues = values;
        keys = new Object[oldKeys.length * 2];
        values = new int[oldKeys.length * 2];
        size = 0;
        for (int i = 0; i < oldKeys.length; i++) {
            if (oldKeys[i] != null) {
                put(oldKeys[i], oldValues[i]);
            }
        }
    }

    int size() {
        return size;
    }

    /** Forgets every key (the references are dropped, so the graph is not kept alive). */
    void clear() {
        if (size > 0) {
            Arrays.fill(keys, null);
            size = 0;
        }
    }
}
