package io.jckpt.data;

import io.jckpt.CkptOptions;
import io.jckpt.KryoConfigurer;
import io.jckpt.UnsupportedDataException;

import java.nio.Buffer;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Chooses the {@link DataAdapter} for an object: the application's adapters first (in the order added),
 * then the primitive arrays, arrays of primitive arrays (any depth), the atomics ({@code AtomicInteger},
 * {@code AtomicLong}, {@code AtomicBoolean}, {@code AtomicIntegerArray}, {@code AtomicLongArray}),
 * ByteBuffer, Chronicle Bytes; Kryo for an object whose class the program registered with Kryo
 * ({@link KryoConfigurer}); and the state graph ({@link StateGraphAdapter}) for any other object: the
 * program's classes, collections, maps, Random, ..., no configuration needed. Refuses null, non-byte NIO
 * buffers (use the backing array or a ByteBuffer) and objects rollback could not restore in place
 * (boxed primitives, String, enums, records, unmodifiable collections, ...), each with what to register
 * instead. One instance per checkpointer: it owns the Kryo instance and the codec's tables, so use it
 * from one thread.
 */
public final class DataAdapters {
    private final int rank;
    private final List<DataAdapter<?>> custom;
    private final List<DataAdapter<?>> builtIns;
    private final KryoAdapter kryo;
    private final StateGraphAdapter stateGraph = new StateGraphAdapter();
    private final Map<Byte, DataAdapter<?>> byCode = new HashMap<>();
    private final Map<Class<?>, DataAdapter<?>> byClass = new ConcurrentHashMap<>();

    private DataAdapters(Builder b) {
        this.rank = b.rank;
        this.custom = List.copyOf(b.custom);
        this.kryo = new KryoAdapter(b.kryoRegistrationRequired, b.kryoConfigurer);
        this.builtIns = List.of(PrimitiveArrayAdapter.BYTES, PrimitiveArrayAdapter.SHORTS, PrimitiveArrayAdapter.CHARS,
                PrimitiveArrayAdapter.INTS, PrimitiveArrayAdapter.LONGS, PrimitiveArrayAdapter.FLOATS,
                PrimitiveArrayAdapter.DOUBLES, PrimitiveArrayAdapter.BOOLEANS, NestedArrayAdapter.INSTANCE,
                AtomicAdapter.INTEGER, AtomicAdapter.LONG, AtomicAdapter.BOOLEAN, AtomicAdapter.INTEGER_ARRAY,
                AtomicAdapter.LONG_ARRAY, ByteBufferAdapter.INSTANCE, ChronicleBytesAdapter.INSTANCE);
        for (DataAdapter<?> a : builtIns) {
            byCode.put(a.typeCode().code(), a);
        }
        byCode.put(kryo.typeCode().code(), kryo);
        byCode.put(stateGraph.typeCode().code(), stateGraph);
        for (DataAdapter<?> a : custom) {
            DataAdapter<?> previous = byCode.put(a.typeCode().code(), a);
            if (previous != null) {
                throw new IllegalArgumentException("adapters " + previous.getClass().getName() + " and "
                        + a.getClass().getName() + " use the same type code " + a.typeCode());
            }
        }
    }

    /**
     * @param options the options (Kryo settings)
     * @param rank    the rank, for messages
     * @return the registry with the built-in adapters
     */
    public static DataAdapters create(CkptOptions options, int rank) {
        return builder().rank(rank).kryoRegistrationRequired(options.kryoRegistrationRequired())
                .kryoConfigurer(options.kryoConfigurer()).build();
    }

    /** @return a builder (rank unknown, Kryo registration required, no application adapters) */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the rank named in messages */
    public int rank() {
        return rank;
    }

    /** @return the Kryo adapter */
    public KryoAdapter kryo() {
        return kryo;
    }

    /** @return the state graph adapter */
    public StateGraphAdapter stateGraph() {
        return stateGraph;
    }

    /**
     * Makes saved class names resolve through a loader that sees {@code type}, for a rank with nothing
     * to restore into ({@code rollbackObject(tag, type)}).
     *
     * @param type the expected class
     */
    public void useClassLoaderOf(Class<?> type) {
        kryo.useClassLoaderOf(type);
        stateGraph.useClassLoaderOf(type);
    }

    /**
     * @param tag  the tag, for messages
     * @param data the object
     * @return its adapter
     * @throws UnsupportedDataException for null and unsupported objects
     */
    @SuppressWarnings("unchecked")
    public DataAdapter<Object> adapterFor(String tag, Object data) {
        if (data == null) {
            throw new UnsupportedDataException(tag, rank, "data must not be null (register the object itself, "
                    + "e.g. a double[] or a ByteBuffer)");
        }
        DataAdapter<?> a = byClass.get(data.getClass());
        if (a == null) {
            a = find(tag, data);
            byClass.put(data.getClass(), a);
        }
        return (DataAdapter<Object>) a;
    }

    private DataAdapter<?> find(String tag, Object data) {
        for (DataAdapter<?> a : custom) {
            if (a.accepts(data)) {
                return a;
            }
        }
        for (DataAdapter<?> a : builtIns) {
            if (a.accepts(data)) {
                return a;
            }
        }
        if (data instanceof Buffer && !(data instanceof ByteBuffer)) {
            throw new UnsupportedDataException(tag, rank, data.getClass().getName() + " is not supported: register its "
                    + "backing array, or a ByteBuffer (a view such as asDoubleBuffer() shares the ByteBuffer's memory)");
        }
        if (data instanceof Thread || data instanceof Class || data instanceof ClassLoader) {
            throw new UnsupportedDataException(tag, rank, data.getClass().getName() + " cannot be checkpointed");
        }
        return kryo.registeredByProgram(data.getClass()) ? kryo : stateGraph;
    }

    /**
     * @param code a stored type code
     * @return the adapter for it, or null when none is known
     */
    public DataAdapter<?> adapterFor(byte code) {
        return byCode.get(code);
    }

    /**
     * Binds a tag to an object: chooses the adapter and starts its capture.
     *
     * @param tag  the tag
     * @param data the object
     * @return the registration
     * @throws io.jckpt.InvalidTagException for a bad tag
     * @throws UnsupportedDataException    for null and unsupported objects
     */
    public RegisteredData bind(String tag, Object data) {
        byte[] utf8 = Tags.encode(tag, rank);
        DataAdapter<Object> adapter = adapterFor(tag, data);
        return new RegisteredData(tag, utf8, adapter, adapter.capture(tag, rank, data));
    }

    /** Builder of {@link DataAdapters}. */
    public static final class Builder {
        private int rank = io.jckpt.CkptException.UNKNOWN_RANK;
        private boolean kryoRegistrationRequired = true;
        private KryoConfigurer kryoConfigurer = KryoConfigurer.NONE;
        private final List<DataAdapter<?>> custom = new ArrayList<>();

        private Builder() {
        }

        /**
         * @param rank the rank named in messages
         * @return this builder
         */
        public Builder rank(int rank) {
            this.rank = rank;
            return this;
        }

        /**
         * @param required whether Kryo refuses unregistered classes
         * @return this builder
         */
        public Builder kryoRegistrationRequired(boolean required) {
            this.kryoRegistrationRequired = required;
            return this;
        }

        /**
         * @param configurer registers classes with Kryo
         * @return this builder
         */
        public Builder kryoConfigurer(KryoConfigurer configurer) {
            this.kryoConfigurer = Objects.requireNonNull(configurer, "kryoConfigurer");
            return this;
        }

        /**
         * @param adapter an application adapter with a custom type code; consulted before the built-ins
         * @return this builder
         */
        public Builder add(DataAdapter<?> adapter) {
            Objects.requireNonNull(adapter, "adapter");
            int code = adapter.typeCode().code();
            if (code < TypeCode.FIRST_CUSTOM_CODE) {
                throw new IllegalArgumentException("adapter " + adapter.getClass().getName() + " uses the built-in type code "
                        + adapter.typeCode() + "; application adapters need TypeCode.custom(64..127, ...)");
            }
            custom.add(adapter);
            return this;
        }

        /** @return the registry */
        public DataAdapters build() {
            return new DataAdapters(this);
        }
    }
}
