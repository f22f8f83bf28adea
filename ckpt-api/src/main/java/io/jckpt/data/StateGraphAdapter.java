package io.jckpt.data;

import io.jckpt.DataMismatchException;
import io.jckpt.UnsupportedDataException;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * Adapter for every object no other adapter takes (unless its class is registered with Kryo): the
 * program's own classes, collections, maps, Random, records, ... saved as a state graph
 * ({@link StateGraphDescriptor}, {@link GraphWriter}) and restored into the objects the program holds,
 * all the way down ({@link GraphReader}). No registration and no configuration; the classes it saves
 * and what rollback does with each are listed in docs/api.md.
 *
 * <p>{@code register} checks the root's class and writes the graph once, so that what cannot be saved
 * is refused there, naming its path (an object reached only later is refused at that {@code here()}).
 * Each registration serializes into its own reusable staging buffer at {@code here()}, then one bulk
 * copy goes to the store. One instance per checkpointer, used on the program's thread.
 */
public final class StateGraphAdapter implements DataAdapter<Object> {
    private static final int INITIAL_STAGING = 4096;
    private final ProgramClasses classes = new ProgramClasses();
    private final GraphWriter writer = new GraphWriter();
    private final GraphReader reader = new GraphReader(classes);

    @Override
    public TypeCode typeCode() {
        return TypeCode.STATE_GRAPH;
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
     * @param type a class
     * @return why an object of it cannot be registered (restored in place), with what to register
     *         instead, or null when it can
     */
    static String rootRefusal(Class<?> type) {
        GraphType t = GraphType.of(type);
        return switch (t.category) {
            case OWN, OBJECT_ARRAY, JDK -> null;
            case REFUSED -> t.rootRefusal;
            default -> {
                try {
                    InPlaceRestore.strategyFor(type); // the value classes' messages, shared with the Kryo path
                    yield "a " + type.getName() + " is a value: rollback could not restore it in place";
                } catch (InPlaceRestore.Refused e) {
                    yield e.getMessage();
                }
            }
        };
    }

    /**
     * Makes saved class names resolve through a loader that sees {@code type} (a program class in a
     * world class loader below the library).
     *
     * @param type a class of the program
     */
    public void useClassLoaderOf(Class<?> type) {
        classes.useClassLoaderOf(type);
    }

    @Override
    public DataCapture capture(String tag, int rank, Object data) {
        String refusal = rootRefusal(data.getClass());
        if (refusal != null) {
            throw new UnsupportedDataException(tag, rank, refusal);
        }
        useClassLoaderOf(data.getClass());
        Capture capture = new Capture(tag, rank, data);
        capture.prepare(); // refuses at register what cannot be saved
        return capture;
    }

    @Override
    public Object restore(SavedEntry saved, BytesStore<?, ?> store, Object target) {
        long length = saved.byteLength();
        if (length > GraphOutput.MAX_LENGTH || length < 3) {
            throw new UnsupportedDataException(saved.tag(), saved.rank(), "object graph of " + length + " bytes is too large");
        }
        if (target != null) {
            String refusal = rootRefusal(target.getClass());
            if (refusal != null) {
                throw new UnsupportedDataException(saved.tag(), saved.rank(), refusal);
            }
            useClassLoaderOf(target.getClass());
        }
        // read where the payload lies: no copy of it, no allocation of its size
        Object base = store.isDirectMemory() ? null : MemoryCopy.heapArrayOf(store);
        long address = store.isDirectMemory() ? MemoryCopy.addressOf(store, saved.payloadOffset(), length, false)
                : MemoryCopy.heapOffsetOf(store, saved.payloadOffset(), length);
        try {
            return reader.restore(base, address, (int) length, target);
        } catch (GraphRefusal e) {
            String at = e.path().isEmpty() ? "" : " at " + saved.tag() + e.path();
            if (e.isMismatch()) {
                throw new DataMismatchException(saved.tag(), saved.rank(), e.saved() + at, e.reason()
                        + " (nothing was restored: the registered object is unchanged)");
            }
            throw new UnsupportedDataException(saved.tag(), saved.rank(), "cannot restore" + at + ": " + e.reason()
                    + " (nothing was restored: the registered object is unchanged)");
        } catch (GraphReader.PartialRestore e) {
            Throwable cause = e.getCause();
            String at = cause instanceof GraphRefusal r && !r.path().isEmpty() ? " at " + saved.tag() + r.path() : "";
            throw new UnsupportedDataException(saved.tag(), saved.rank(), "the saved state was only partly restored into "
                    + "the program's objects: the program's own code failed" + at + ": " + cause
                    + " (the registered object must not be used)", cause);
        } catch (StackOverflowError e) {
            throw new UnsupportedDataException(saved.tag(), saved.rank(), tooDeep());
        }
    }

    private static String tooDeep() {
        return "the object graph is too deep for this thread's stack (a long chain of objects, each pointing to the "
                + "next, is saved one level deeper per object): keep the nodes in an ArrayList or an array and link them "
                + "by index, or run with a larger -Xss";
    }

    /** Capture of one object's graph: serialized into a staging buffer kept for the registration's life. */
    private final class Capture implements DataCapture {
        private final String tag;
        private final int rank;
        private final Object data;
        private final GraphOutput output = new GraphOutput(INITIAL_STAGING);

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
                writer.write(data, output);
            } catch (GraphRefusal e) {
                throw new UnsupportedDataException(tag, rank, "cannot save " + tag + e.path() + ": " + e.reason());
            } catch (StackOverflowError e) {
                throw new UnsupportedDataException(tag, rank, tooDeep());
            }
            return output.position();
        }

        @Override
        public long elementCount() {
            return 1;
        }

        @Override
        public void writeTo(BytesStore<?, ?> store, long offset) {
            MemoryCopy.toStore(output.buffer(), MemoryCopy.BYTE_ARRAY_BASE, store, offset, output.position());
        }
    }
}
