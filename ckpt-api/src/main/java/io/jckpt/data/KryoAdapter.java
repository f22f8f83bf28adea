package io.jckpt.data;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultInstantiatorStrategy;
import io.jckpt.DataMismatchException;
import io.jckpt.KryoConfigurer;
import io.jckpt.UnsupportedDataException;
import net.openhft.chronicle.bytes.BytesStore;
import org.objenesis.strategy.StdInstantiatorStrategy;

/**
 * Adapter for any other object, through Kryo: the payload is {@code writeClassAndObject} of the object
 * graph (references on, so shared objects and cycles survive). Each registration serializes into its
 * own reusable staging buffer, then one bulk copy goes to the store.
 *
 * <p><b>Rollback contract.</b> Kryo restores a new object graph; it cannot change the caller's
 * reference. {@code restore} therefore returns the new object, and the checkpointer registers that one
 * from then on. The caller must use the return value of {@code rollback(tag, old)} (or call
 * {@code rollbackObject(tag, Type.class)}). The saved class must equal the target's class.
 *
 * <p>One instance per checkpointer (Kryo is not thread-safe); used on the program's thread.
 */
public final class KryoAdapter implements DataAdapter<Object> {
    private static final int INITIAL_STAGING = 4096;
    private final Kryo kryo;

    /**
     * @param registrationRequired whether Kryo refuses unregistered classes
     * @param configurer           registers the application's classes
     */
    public KryoAdapter(boolean registrationRequired, KryoConfigurer configurer) {
        this.kryo = new Kryo();
        kryo.setRegistrationRequired(registrationRequired);
        kryo.setReferences(true);
        kryo.setInstantiatorStrategy(new DefaultInstantiatorStrategy(new StdInstantiatorStrategy()));
        configurer.configure(kryo);
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
     * Checks at registration that the object's class can be written (registered, when registration is
     * required). Classes reached from it are checked at the first checkpoint.
     *
     * @param tag  the tag
     * @param rank the rank
     * @param data the object
     */
    void checkRegistered(String tag, int rank, Object data) {
        if (kryo.isRegistrationRequired() && kryo.getClassResolver().getRegistration(data.getClass()) == null) {
            throw new UnsupportedDataException(tag, rank, "class " + data.getClass().getName()
                    + " is not registered with Kryo: register it in CkptOptions.kryoConfigurer (kryo.register("
                    + data.getClass().getSimpleName() + ".class)), or set kryoRegistrationRequired(false)");
        }
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
        Object restored;
        try {
            restored = kryo.readClassAndObject(new Input(staging));
        } catch (KryoException e) {
            throw new UnsupportedDataException(saved.tag(), saved.rank(),
                    "the saved object could not be read back with Kryo: " + e.getMessage(), e);
        }
        if (target != null && (restored == null || restored.getClass() != target.getClass())) {
            throw new DataMismatchException(saved.tag(), saved.rank(),
                    "an object of class " + (restored == null ? "null" : restored.getClass().getName()),
                    "an object of class " + target.getClass().getName());
        }
        return restored;
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
