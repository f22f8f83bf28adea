package io.jckpt.data;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.serializers.DefaultSerializers;
import com.esotericsoftware.kryo.util.DefaultClassResolver;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import com.esotericsoftware.kryo.util.MapReferenceResolver;
import io.jckpt.DataMismatchException;
import io.jckpt.KryoConfigurer;
import io.jckpt.UnsupportedDataException;
import net.openhft.chronicle.bytes.BytesStore;
import org.objenesis.strategy.StdInstantiatorStrategy;

import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Adapter for an object whose class the program registered with Kryo ({@link KryoConfigurer}): the
 * payload is {@code writeClassAndObject} of the object graph (references on, so shared objects and
 * cycles survive). Each registration serializes into its own reusable staging buffer, then one bulk
 * copy goes to the store. Every other object goes to the {@link StateGraphAdapter}, which needs no
 * registration and restores in place all the way down; Kryo stays for programs that chose it.
 *
 * <p><b>Rollback is in place.</b> Kryo reads a new object graph; its root's state is then copied into
 * the caller's object ({@link InPlaceRestore}: a collection's elements, an array's slots, an object's
 * fields), so after {@code rollback(tag, x)} {@code x} holds the restored state and stays the registered
 * object; references in the saved graph back to the root resolve to {@code x}. Objects reachable from
 * the root are new. Classes that cannot be restored in place (boxed primitives, String, enums,
 * records, unmodifiable collections, other JDK classes) are refused at {@code register}, with what to
 * register instead. The saved class must equal the target's class. A null target
 * ({@code rollbackObject}) gets the new object.
 *
 * <p><b>Class loading.</b> Classes saved by name (registration not required) are resolved through the
 * registering thread's context class loader at construction (a rank's program runs in its world's
 * class loader, set as the context loader), and through the loader of any registered or target
 * object's class that the current loader cannot see: the program's classes resolve even when the
 * library lives in a parent loader. Each world opens a new checkpointer, so a recovered world
 * resolves the saved names to its own classes.
 *
 * <p>One instance per checkpointer (Kryo is not thread-safe); used on the program's thread.
 */
public final class KryoAdapter implements DataAdapter<Object> {
    private static final int INITIAL_STAGING = 4096;
    private final Kryo kryo;
    private final RootReferenceResolver references = new RootReferenceResolver();
    private final Map<Class<?>, InPlaceRestore.Strategy> strategies = new HashMap<>();
    private final java.util.Set<Class<?>> kryoDefaults = new java.util.HashSet<>();

    /**
     * @param registrationRequired whether Kryo refuses unregistered classes
     * @param configurer           registers the application's classes
     */
    public KryoAdapter(boolean registrationRequired, KryoConfigurer configurer) {
        this.kryo = new Kryo(new DefaultClassResolver(), references);
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        if (context != null) {
            kryo.setClassLoader(context);
        }
        // the atomics' fields are private to java.base: Kryo's own serializers, as defaults (no registration id taken)
        kryo.addDefaultSerializer(AtomicInteger.class, new DefaultSerializers.AtomicIntegerSerializer());
        kryo.addDefaultSerializer(AtomicLong.class, new DefaultSerializers.AtomicLongSerializer());
        kryo.addDefaultSerializer(AtomicBoolean.class, new DefaultSerializers.AtomicBooleanSerializer());
        kryo.addDefaultSerializer(AtomicReference.class, new DefaultSerializers.AtomicReferenceSerializer());
        kryo.setRegistrationRequired(registrationRequired);
        kryo.setReferences(true);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        for (int id = 0; id < kryo.getNextRegistrationId(); id++) {
            Registration r = kryo.getRegistration(id);
            if (r != null) {
                kryoDefaults.add(r.getType());
            }
        }
        configurer.configure(kryo);
    }

    /**
     * @param type a class
     * @return whether the program's {@link KryoConfigurer} registered it (Kryo's own defaults excluded):
     *         such objects are checkpointed through Kryo
     */
    public boolean registeredByProgram(Class<?> type) {
        return !kryoDefaults.contains(type) && kryo.getClassResolver().getRegistration(type) != null;
    }

    /** @return the Kryo instance (for inspection; configure it through the options) */
    public Kryo kryo() {
        return kryo;
    }

    @Override
    public TypeCode typeCode() {
        return TypeCode.KRYO_OBJECT;
    }

    @Override
    public Class<Object> dataClass() {
        return Object.class;
    }

    @Override
    public long elementCount(Object data) {
        return 1;
    }

    @Override
    public String describe(Object data) {
        return "object of class " + data.getClass().getName();
    }

    /**
     * Checks at registration that the object can be restored in place (its class is registered: the
     * program's configurer registered it, which is why this adapter was chosen). Classes reached from it
     * are checked at the first checkpoint.
     *
     * @param tag  the tag
     * @param rank the rank
     * @param data the object
     */
    void checkRegistered(String tag, int rank, Object data) {
        strategy(tag, rank, data.getClass());
        useClassLoaderOf(data.getClass());
    }

    /**
     * Makes Kryo resolve saved class names through a loader that sees {@code type}: the current one
     * when it does, else {@code type}'s own (a program class in a world class loader below the library).
     *
     * @param type a class of the program
     */
    public void useClassLoaderOf(Class<?> type) {
        ClassLoader own = type.getClassLoader();
        ClassLoader current = kryo.getClassLoader();
        if (own == null || own == current || sees(current, type)) {
            return;
        }
        kryo.setClassLoader(own);
    }

    private static boolean sees(ClassLoader loader, Class<?> type) {
        try {
            return Class.forName(type.getName(), false, loader) == type;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private InPlaceRestore.Strategy strategy(String tag, int rank, Class<?> type) {
        InPlaceRestore.Strategy s = strategies.get(type);
        if (s == null) {
            try {
                s = InPlaceRestore.strategyFor(type);
            } catch (InPlaceRestore.Refused e) {
                throw new UnsupportedDataException(tag, rank, e.getMessage());
            }
            strategies.put(type, s);
        }
        return s;
    }

    @Override
    public DataCapture capture(String tag, int rank, Object data) {
        checkRegistered(tag, rank, data);
        return new Capture(tag, rank, data);
    }

    @Override
    public Object restore(SavedEntry saved, BytesStore<?, ?> store, Object target) {
        long length = saved.byteLength();
        if (length > Integer.MAX_VALUE - 16) {
            throw new UnsupportedDataException(saved.tag(), saved.rank(), "Kryo payload of " + length + " bytes is too large");
        }
        byte[] staging = new byte[(int) length];
        MemoryCopy.fromStore(store, saved.payloadOffset(), staging, MemoryCopy.BYTE_ARRAY_BASE, length);
        InPlaceRestore.Strategy inPlace = null;
        if (target != null) {
            inPlace = strategy(saved.tag(), saved.rank(), target.getClass());
            useClassLoaderOf(target.getClass());
        }
        Object restored;
        try {
            Input input = new Input(staging);
            if (target != null) {
                Registration saved0 = kryo.readClass(input); // the root's class, before any object is made
                Class<?> savedType = saved0 == null ? null : saved0.getType();
                if (savedType != target.getClass()) {
                    throw new DataMismatchException(saved.tag(), saved.rank(),
                            "an object of class " + (savedType == null ? "null" : savedType.getName()),
                            "an object of class " + target.getClass().getName());
                }
                input.setPosition(0);
                references.substituteRoot(target);
            }
            try {
                restored = kryo.readClassAndObject(input);
            } finally {
                references.substituteRoot(null);
            }
        } catch (KryoException e) {
            throw new UnsupportedDataException(saved.tag(), saved.rank(),
                    "the saved object could not be read back with Kryo: " + e.getMessage(), e);
        }
        if (target == null) {
            return restored;
        }
        String problem;
        try {
            problem = inPlace.copy(restored, target);
        } catch (RuntimeException e) {
            throw new UnsupportedDataException(saved.tag(), saved.rank(), "the restored " + target.getClass().getName()
                    + " could not be copied into the registered object: " + e, e);
        }
        if (problem != null) {
            throw new DataMismatchException(saved.tag(), saved.rank(), "an object of class " + target.getClass().getName()
                    + " (restored in place)", problem);
        }
        return target;
    }

    /**
     * Kryo's reference map, with one addition for in-place rollback: while the root of a saved graph is
     * read, a reference back to the root (a cycle through it) resolves to the caller's object, which is
     * about to receive the root's state, instead of to the new root Kryo builds.
     */
    private static final class RootReferenceResolver extends MapReferenceResolver {
        private Object substitute;
        private int rootId = -1;

        void substituteRoot(Object target) {
            substitute = target;
            rootId = -1;
        }

        @Override
        public int nextReadId(Class type) {
            int id = super.nextReadId(type);
            if (substitute != null && rootId < 0) {
                rootId = id;
            }
            return id;
        }

        @Override
        public Object getReadObject(Class type, int id) {
            return substitute != null && id == rootId ? substitute : super.getReadObject(type, id);
        }
    }

    /** Capture of one object: serialized into a staging buffer kept for the registration's life. */
    private final class Capture implements DataCapture {
        private final String tag;
        private final int rank;
        private final Object data;
        private final Output output = new Output(INITIAL_STAGING, -1);

        Capture(String tag, int rank, Object data) {
            this.tag = tag;
            this.rank = rank;
            this.data = data;
        }

        @Override
        public Object data() {
            return data;
        }

        @Override
        public long prepare() {
            output.reset();
            try {
                kryo.writeClassAndObject(output, data);
            } catch (KryoException | IllegalArgumentException e) {
                throw new UnsupportedDataException(tag, rank, "Kryo cannot serialize the object of class "
                        + data.getClass().getName() + ": " + e.getMessage()
                        + " (register the classes it reaches in CkptOptions.kryoConfigurer)", e);
            }
            return output.position();
        }

        @Override
        public long elementCount() {
            return 1;
        }

        @Override
        public void writeTo(BytesStore<?, ?> store, long offset) {
            MemoryCopy.toStore(output.getBuffer(), MemoryCopy.BYTE_ARRAY_BASE, store, offset, output.position());
        }
    }
}
