package io.jckpt.data;

import io.jckpt.DataMismatchException;
import io.jckpt.DuplicateTagException;
import io.jckpt.InvalidTagException;
import io.jckpt.UnknownTagException;
import io.jckpt.UnsupportedDataException;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageSeals;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.nio.IntBuffer;
import java.util.ArrayList;

import static org.junit.jupiter.api.Assertions.*;

class DataAdaptersTest {
    static final class Registered {
        int x = 5;
    }

    static final class NotRegistered {
        int y;
    }

    private DataAdapters adapters;
    private TagRegistry reg;
    private BytesStore<?, ?> store;

    @BeforeEach
    void setUp() {
        adapters = DataAdapters.builder().rank(2).kryoConfigurer(k -> k.register(Registered.class)).build();
        reg = new TagRegistry(adapters);
        store = BytesStore.nativeStoreWithFixedCapacity(1 << 16);
    }

    @AfterEach
    void release() {
        store.releaseLast();
    }

    private static void contains(Exception e, String... fragments) {
        for (String f : fragments) {
            assertTrue(e.getMessage().contains(f), () -> "'" + f + "' not in: " + e.getMessage());
        }
    }

    private ImageReader image() {
        ImageSeals.writer().writeImage(reg.entries(), store, 0, new ImageHeader(2, 4, 1, 0));
        ImageSeals.seal(store, 0);
        return ImageSeals.open(store, 0);
    }

    @Test
    void nullData() {
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("u", null)),
                "tag 'u' on rank 2", "must not be null");
    }

    @Test
    void unsupportedData() {
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("ib", IntBuffer.allocate(4))),
                "tag 'ib' on rank 2", "HeapIntBuffer is not supported", "backing array");
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("t", Thread.currentThread())),
                "cannot be checkpointed");
        assertEquals(0, reg.size());
        // a class the program did not register with Kryo is no error: the state graph saves it (issue 28)
        assertEquals(TypeCode.STATE_GRAPH, reg.register("o", new NotRegistered()).typeCode());
        assertEquals(TypeCode.KRYO_OBJECT, reg.register("k", new Registered()).typeCode());
    }

    @Test
    void kryoFailureAtCheckpointNamesTheTagAndRegisteringTheReachedClassWorks() {
        ArrayList<Object> list = new ArrayList<>();
        DataAdapters lenient = DataAdapters.builder().rank(2).kryoConfigurer(k -> k.register(ArrayList.class)).build();
        TagRegistry r = new TagRegistry(lenient);
        list.add(new NotRegistered());
        r.register("list", list);
        contains(assertThrows(UnsupportedDataException.class, () -> ImageSeals.writer().prepare(r.entries())),
                "tag 'list' on rank 2", "Kryo cannot serialize", "ArrayList",
                "register the classes it reaches in CkptOptions.kryoConfigurer");
        // what the message says: the reached class registered too
        DataAdapters both = DataAdapters.builder().rank(2).kryoConfigurer(k -> {
            k.register(ArrayList.class);
            k.register(NotRegistered.class);
        }).build();
        reg = new TagRegistry(both);
        ((NotRegistered) list.get(0)).y = 4;
        reg.register("list", list);
        assertEquals(TypeCode.KRYO_OBJECT, reg.get("list").typeCode());
        ImageReader image = image();
        list.clear();
        assertSame(list, image.restore("list", list, both));
        assertEquals(4, ((NotRegistered) list.get(0)).y);
    }

    /** A class registered with Kryo that extends a JDK class with private state, and the advice's form. */
    static final class Dice extends java.util.Random {
        private static final long serialVersionUID = 1L;
    }

    static final class DiceHolder {
        java.util.Random random = new java.util.Random(5);
    }

    @Test
    void aKryoRegisteredClassExtendingAJdkClassIsRefusedAndAFieldWorks() {
        DataAdapters kryo = DataAdapters.builder().rank(2).kryoConfigurer(k -> {
            k.register(Dice.class);
            k.register(DiceHolder.class);
            k.register(java.util.Random.class);
            k.register(java.util.concurrent.atomic.AtomicLong.class);
        }).build();
        reg = new TagRegistry(kryo);
        contains(assertThrows(UnsupportedDataException.class, () -> reg.register("d", new Dice())),
                "superclass java.util.Random keeps state private to the JDK", "keep that state in a field instead of extending it");
        DiceHolder h = new DiceHolder();
        reg.register("d", h);
        assertEquals(TypeCode.KRYO_OBJECT, reg.get("d").typeCode());
        ImageReader image = image();
        long next = new java.util.Random(5).nextLong();
        h.random.nextLong();
        assertSame(h, image.restore("d", h, kryo));
        assertEquals(next, h.random.nextLong());
    }

    @Test
    void badTags() {
        contains(assertThrows(InvalidTagException.class, () -> reg.register(null, new int[1])), "null", "rank 2");
        contains(assertThrows(InvalidTagException.class, () -> reg.register("", new int[1])), "must not be empty");
        contains(assertThrows(InvalidTagException.class, () -> reg.register("x".repeat(1025), new int[1])),
                "at most 1024 UTF-8 bytes", "1025");
        reg.register("x".repeat(1024), new int[1]);
        assertEquals("7", Tags.of(7));
    }

    @Test
    void tagTwice() {
        reg.register("u", new double[3]);
        contains(assertThrows(DuplicateTagException.class, () -> reg.register("u", new int[3])),
                "tag 'u' on rank 2", "already registered (double[3])");
        reg.remove("u");
        reg.register("u", new int[3]);
        reg.rebind("u", new long[3]);
        assertEquals(TypeCode.LONG_ARRAY, reg.get("u").typeCode());
    }

    @Test
    void unknownTag() {
        reg.register("a", new int[1]);
        contains(assertThrows(UnknownTagException.class, () -> reg.remove("b")),
                "remove of unknown tag 'b' on rank 2", "known tags are [a]");
        ImageReader r = image();
        UnknownTagException e = assertThrows(UnknownTagException.class, () -> r.restore("zz", new int[1], adapters));
        contains(e, "rollback (round 1) of unknown tag 'zz' on rank 2", "[a]");
        assertEquals("zz", e.tag());
        assertEquals(2, e.rank());
    }

    @Test
    void typeMismatch() {
        reg.register("u", new double[10]);
        reg.register("bb", ByteBuffer.allocate(8));
        reg.register("k", new Registered());
        ImageReader r = image();
        DataMismatchException e = assertThrows(DataMismatchException.class, () -> r.restore("u", new long[10], adapters));
        contains(e, "rollback of tag 'u' on rank 2", "saved double[10] (80 bytes) but the target is long[10]");
        contains(assertThrows(DataMismatchException.class, () -> r.restore("bb", new byte[8], adapters)),
                "saved ByteBuffer of capacity 8 but the target is byte[8]");
        contains(assertThrows(DataMismatchException.class, () -> r.restore("k", new Registered[0], adapters)),
                "saved object (Kryo)", "the target is object of class [Lio.jckpt.data.DataAdaptersTest$Registered");
        contains(assertThrows(DataMismatchException.class, () -> r.restoreObject("u", int[].class, adapters)),
                "restored as [D", "a [I");
        contains(assertThrows(DataMismatchException.class, () -> r.restoreObject("k", String.class, adapters)),
                "java.lang.String");
    }

    @Test
    void sizeMismatch() {
        reg.register("u", new double[10]);
        reg.register("bb", ByteBuffer.allocateDirect(8));
        Bytes<?> fixedTooSmall = Bytes.wrapForWrite(new byte[4]);
        Bytes<?> big = Bytes.allocateElasticOnHeap(64);
        big.append("sixteen bytes!!!");
        reg.register("cb", big);
        ImageReader r = image();
        DataMismatchException e = assertThrows(DataMismatchException.class, () -> r.restore("u", new double[9], adapters));
        contains(e, "tag 'u' on rank 2", "saved double[10] (80 bytes) but the target is double[9]", "saved length");
        assertEquals("double[10] (80 bytes)", e.expected());
        contains(assertThrows(DataMismatchException.class, () -> r.restore("bb", ByteBuffer.allocate(9), adapters)),
                "saved ByteBuffer of capacity 8 but the target is heap ByteBuffer of capacity 9");
        contains(assertThrows(DataMismatchException.class, () -> r.restore("cb", fixedTooSmall, adapters)),
                "Bytes (16 bytes)", "fixed-capacity");
        contains(assertThrows(UnsupportedDataException.class,
                () -> r.restore("bb", ByteBuffer.allocate(8).asReadOnlyBuffer(), adapters)), "read-only");
    }

    @Test
    void applicationAdapterComesFirst() {
        TypeCode code = TypeCode.custom(70, "Registered (custom)", 4, true);
        DataAdapter<Registered> custom = new DataAdapter<>() {
            @Override
            public TypeCode typeCode() {
                return code;
            }

            @Override
            public Class<Registered> dataClass() {
                return Registered.class;
            }

            @Override
            public long elementCount(Registered data) {
                return 1;
            }

            @Override
            public String describe(Registered data) {
                return "Registered";
            }

            @Override
            public DataCapture capture(String tag, int rank, Registered data) {
                return new DataCapture() {
                    @Override
                    public Object data() {
                        return data;
                    }

                    @Override
                    public long prepare() {
                        return 4;
                    }

                    @Override
                    public long elementCount() {
                        return 1;
                    }

                    @Override
                    public void writeTo(BytesStore<?, ?> s, long offset) {
                        s.writeInt(offset, data.x);
                    }
                };
            }

            @Override
            public Registered restore(SavedEntry saved, BytesStore<?, ?> s, Registered target) {
                Registered t = target == null ? new Registered() : target;
                t.x = s.readInt(saved.payloadOffset());
                return t;
            }
        };
        DataAdapters withCustom = DataAdapters.builder().rank(0).add(custom).build();
        assertSame(custom, withCustom.adapterFor("r", new Registered()));
        TagRegistry r = new TagRegistry(withCustom);
        Registered obj = new Registered();
        obj.x = 77;
        r.register("r", obj);
        ImageSeals.writer().writeImage(r.entries(), store, 0, new ImageHeader(0, 1, 1, 0));
        ImageSeals.seal(store, 0);
        Registered back = new Registered();
        assertSame(back, ImageSeals.open(store, 0).restore("r", back, withCustom));
        assertEquals(77, back.x);
        assertThrows(IllegalArgumentException.class, () -> TypeCode.custom(5, "x", 1, true));
        assertThrows(IllegalArgumentException.class,
                () -> DataAdapters.builder().add(PrimitiveArrayAdapter.INTS));
    }
}
