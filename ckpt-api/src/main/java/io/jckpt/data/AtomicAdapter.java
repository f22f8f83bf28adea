package io.jckpt.data;

import io.jckpt.DataMismatchException;
import net.openhft.chronicle.bytes.BytesStore;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Adapters for the mutable boxes of {@code java.util.concurrent.atomic}: {@link AtomicInteger},
 * {@link AtomicLong}, {@link AtomicBoolean}, {@link AtomicIntegerArray}, {@link AtomicLongArray}, with no
 * Kryo (and no registration). Rollback restores the caller's object in place ({@code set}); the arrays
 * must have the saved length. Values are read and written with the atomics' own (volatile) accessors;
 * the arrays go element by element through a staging primitive array, copied to the store in bulk.
 *
 * @param <T> the atomic type
 */
public abstract class AtomicAdapter<T> implements DataAdapter<T> {
    /** {@link AtomicInteger}: 4 bytes. */
    public static final AtomicAdapter<AtomicInteger> INTEGER = new AtomicAdapter<>(AtomicInteger.class, TypeCode.ATOMIC_INTEGER) {
        @Override
        void write(AtomicInteger data, BytesStore<?, ?> store, long offset, Object staging) {
            store.writeInt(offset, data.get());
        }

        @Override
        AtomicInteger read(SavedEntry saved, BytesStore<?, ?> store, AtomicInteger target) {
            AtomicInteger dst = target == null ? new AtomicInteger() : target;
            dst.set(store.readInt(saved.payloadOffset()));
            return dst;
        }
    };
    /** {@link AtomicLong}: 8 bytes. */
    public static final AtomicAdapter<AtomicLong> LONG = new AtomicAdapter<>(AtomicLong.class, TypeCode.ATOMIC_LONG) {
        @Override
        void write(AtomicLong data, BytesStore<?, ?> store, long offset, Object staging) {
            store.writeLong(offset, data.get());
        }

        @Override
        AtomicLong read(SavedEntry saved, BytesStore<?, ?> store, AtomicLong target) {
            AtomicLong dst = target == null ? new AtomicLong() : target;
            dst.set(store.readLong(saved.payloadOffset()));
            return dst;
        }
    };
    /** {@link AtomicBoolean}: 1 byte, 0 or 1. */
    public static final AtomicAdapter<AtomicBoolean> BOOLEAN = new AtomicAdapter<>(AtomicBoolean.class, TypeCode.ATOMIC_BOOLEAN) {
        @Override
        void write(AtomicBoolean data, BytesStore<?, ?> store, long offset, Object staging) {
            store.writeByte(offset, (byte) (data.get() ? 1 : 0));
        }

        @Override
        AtomicBoolean read(SavedEntry saved, BytesStore<?, ?> store, AtomicBoolean target) {
            AtomicBoolean dst = target == null ? new AtomicBoolean() : target;
            dst.set(store.readByte(saved.payloadOffset()) != 0);
            return dst;
        }
    };
    /** {@link AtomicIntegerArray}: 4 bytes per element. */
    public static final AtomicAdapter<AtomicIntegerArray> INTEGER_ARRAY =
            new AtomicAdapter<>(AtomicIntegerArray.class, TypeCode.ATOMIC_INTEGER_ARRAY) {
                @Override
                long count(AtomicIntegerArray data) {
                    return data.length();
                }

                @Override
                Object staging(AtomicIntegerArray data) {
                    return new int[data.length()];
                }

                @Override
                void write(AtomicIntegerArray data, BytesStore<?, ?> store, long offset, Object staging) {
                    int[] values = (int[]) staging;
                    for (int i = 0; i < values.length; i++) {
                        values[i] = data.get(i);
                    }
                    MemoryCopy.toStore(values, PrimitiveArrayAdapter.INTS.baseOffset(), store, offset, values.length * 4L);
                }

                @Override
                AtomicIntegerArray read(SavedEntry saved, BytesStore<?, ?> store, AtomicIntegerArray target) {
                    int[] values = new int[checkedLength(saved, target == null ? -1 : target.length())];
                    MemoryCopy.fromStore(store, saved.payloadOffset(), values, PrimitiveArrayAdapter.INTS.baseOffset(),
                            values.length * 4L);
                    if (target == null) {
                        return new AtomicIntegerArray(values);
                    }
                    for (int i = 0; i < values.length; i++) {
                        target.set(i, values[i]);
                    }
                    return target;
                }
            };
    /** {@link AtomicLongArray}: 8 bytes per element. */
    public static final AtomicAdapter<AtomicLongArray> LONG_ARRAY =
            new AtomicAdapter<>(AtomicLongArray.class, TypeCode.ATOMIC_LONG_ARRAY) {
                @Override
                long count(AtomicLongArray data) {
                    return data.length();
                }

                @Override
                Object staging(AtomicLongArray data) {
                    return new long[data.length()];
                }

                @Override
                void write(AtomicLongArray data, BytesStore<?, ?> store, long offset, Object staging) {
                    long[] values = (long[]) staging;
                    for (int i = 0; i < values.length; i++) {
                        values[i] = data.get(i);
                    }
                    MemoryCopy.toStore(values, PrimitiveArrayAdapter.LONGS.baseOffset(), store, offset, values.length * 8L);
                }

                @Override
                AtomicLongArray read(SavedEntry saved, BytesStore<?, ?> store, AtomicLongArray target) {
                    long[] values = new long[checkedLength(saved, target == null ? -1 : target.length())];
                    MemoryCopy.fromStore(store, saved.payloadOffset(), values, PrimitiveArrayAdapter.LONGS.baseOffset(),
                            values.length * 8L);
                    if (target == null) {
                        return new AtomicLongArray(values);
                    }
                    for (int i = 0; i < values.length; i++) {
                        target.set(i, values[i]);
                    }
                    return target;
                }
            };

    private final Class<T> type;
    private final TypeCode typeCode;

    private AtomicAdapter(Class<T> type, TypeCode typeCode) {
        this.type = type;
        this.typeCode = typeCode;
    }

    @Override
    public TypeCode typeCode() {
        return typeCode;
    }

    @Override
    public Class<T> dataClass() {
        return type;
    }

    @Override
    public boolean accepts(Object data) {
        return data.getClass() == type;
    }

    @Override
    public long elementCount(T data) {
        return count(data);
    }

    @Override
    public String describe(T data) {
        return isArray() ? typeCode.typeName() + " of length " + count(data) : typeCode.typeName();
    }

    private boolean isArray() {
        return typeCode == TypeCode.ATOMIC_INTEGER_ARRAY || typeCode == TypeCode.ATOMIC_LONG_ARRAY;
    }

    /** @return the element count: 1 for a scalar */
    long count(T data) {
        return 1;
    }

    /** @return a reusable staging array for an array type, null for a scalar */
    Object staging(T data) {
        return null;
    }

    abstract void write(T data, BytesStore<?, ?> store, long offset, Object staging);

    abstract T read(SavedEntry saved, BytesStore<?, ?> store, T target);

    /** @return the saved length, checked against the target's ({@code -1}: no target) */
    int checkedLength(SavedEntry saved, int targetLength) {
        if (saved.elementCount() > Integer.MAX_VALUE - 8) {
            throw new DataMismatchException(saved.tag(), saved.rank(), saved.describe(), "an array (too long for Java)");
        }
        if (targetLength >= 0 && targetLength != saved.elementCount()) {
            throw new DataMismatchException(saved.tag(), saved.rank(), typeCode.typeName() + " of length " + saved.elementCount(),
                    typeCode.typeName() + " of length " + targetLength + " (arrays must have the saved length)");
        }
        return (int) saved.elementCount();
    }

    @Override
    public DataCapture capture(String tag, int rank, T data) {
        Object staging = staging(data);
        long count = count(data);
        return new DataCapture() {
            @Override
            public Object data() {
                return data;
            }

            @Override
            public long prepare() {
                return count * typeCode.elementSize();
            }

            @Override
            public long elementCount() {
                return count;
            }

            @Override
            public void writeTo(BytesStore<?, ?> store, long offset) {
                MemoryCopy.checkRange(store, offset, count * typeCode.elementSize());
                write(data, store, offset, staging);
            }
        };
    }

    @Override
    public T restore(SavedEntry saved, BytesStore<?, ?> store, T target) {
        if (!isArray() && saved.elementCount() != 1) {
            throw new DataMismatchException(saved.tag(), saved.rank(), saved.describe(), typeCode.typeName());
        }
        return read(saved, store, target);
    }
}
