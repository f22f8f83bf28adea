package io.jckpt.image;

import io.jckpt.CorruptImageException;
import io.jckpt.data.DataAdapters;
import io.jckpt.data.SavedEntry;
import io.jckpt.data.TagRegistry;
import io.jckpt.data.TypeCode;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

class ImageRoundTripTest {
    /** A Kryo-checkpointed graph with a cycle. */
    static final class Node {
        String name;
        Node next;
        double[] values;
    }

    private final List<BytesStore<?, ?>> stores = new ArrayList<>();
    private final List<Bytes<?>> bytes = new ArrayList<>();

    private BytesStore<?, ?> nativeStore(long capacity) {
        BytesStore<?, ?> s = BytesStore.nativeStoreWithFixedCapacity(capacity);
        stores.add(s);
        return s;
    }

    @AfterEach
    void release() {
        stores.forEach(BytesStore::releaseLast);
        bytes.forEach(Bytes::releaseLast);
    }

    static DataAdapters adapters() {
        return DataAdapters.builder().rank(3).kryoConfigurer(k -> {
            k.register(Node.class);
            k.register(double[].class);
        }).build();
    }

    @Test
    void everyTypeRoundTripsBitIdentical() {
        Random rnd = new Random(42);
        byte[] b = new byte[1001];
        rnd.nextBytes(b);
        short[] s = {1, -2, Short.MAX_VALUE, Short.MIN_VALUE};
        char[] c = "héllo, wörld €".toCharArray();
        int[] i = rnd.ints(777).toArray();
        long[] l = rnd.longs(333).toArray();
        float[] f = {1.5f, Float.NaN, Float.intBitsToFloat(0x7fc12345), Float.intBitsToFloat(0xffa00001), -0.0f,
                Float.POSITIVE_INFINITY, Float.MIN_VALUE};
        double[] d = {Math.PI, Double.NaN, Double.longBitsToDouble(0x7ff8000000abcdefL),
                Double.longBitsToDouble(0xfff0000000000001L), -0.0, Double.MIN_VALUE};
        boolean[] z = {true, false, true, true, false};
        int[] empty = new int[0];
        ByteBuffer heap = ByteBuffer.allocate(100);
        rnd.nextBytes(heap.array());
        heap.position(17).limit(50);
        ByteBuffer direct = ByteBuffer.allocateDirect(64);
        for (int k = 0; k < 64; k++) {
            direct.put(k, (byte) (k * 3));
        }
        Bytes<?> cb = Bytes.allocateElasticDirect(256);
        bytes.add(cb);
        cb.writeLong(99).append("chronicle").writeInt(-7);
        cb.readSkip(8); // only readPosition..readLimit counts
        Bytes<?> heapCb = Bytes.allocateElasticOnHeap(32);
        heapCb.append("on heap bytes");
        Node a = new Node();
        Node n2 = new Node();
        a.name = "a";
        a.values = new double[]{Double.NaN, 2};
        a.next = n2;
        n2.name = "b";
        n2.next = a; // cycle

        DataAdapters adapters = adapters();
        TagRegistry reg = new TagRegistry(adapters);
        reg.register("b", b);
        reg.register("s", s);
        reg.register("c", c);
        reg.register("i", i);
        reg.register("l", l);
        reg.register("f", f);
        reg.register("d", d);
        reg.register("z", z);
        reg.register("empty", empty);
        reg.register("heapBuffer", heap);
        reg.register("directBuffer", direct);
        reg.register("bytes", cb);
        reg.register("heapBytes", heapCb);
        reg.register("graph", a);
        reg.register("ünïcode tag ✓", new long[]{1, 2});

        ImageWriter writer = ImageSeals.writer();
        long length = writer.prepare(reg.entries());
        assertEquals(0, length % 8);
        BytesStore<?, ?> store = nativeStore(length + 16);
        assertEquals(length, writer.write(store, 8, new ImageHeader(3, 4, 17, 2, 1_000_000_007L)));
        ImageSeals.seal(store, 8);

        ImageReader r = ImageSeals.open(store, 8);
        assertEquals(3, r.rank());
        assertEquals(4, r.worldSize());
        assertEquals(17, r.round());
        assertEquals(2, r.epoch());
        assertEquals(1_000_000_007L, r.step(), "the program's step travels with the round");
        assertEquals(length, r.totalLength());
        assertEquals(15, r.entries().size());
        SavedEntry de = r.entry("d");
        assertEquals(TypeCode.DOUBLE_ARRAY.code(), de.typeCode());
        assertEquals(6, de.elementCount());
        assertEquals(48, de.byteLength());
        assertEquals(0, de.payloadOffset() % 8);
        assertEquals("double[6] (48 bytes)", de.describe());
        assertEquals(100, r.entry("heapBuffer").elementCount());
        assertEquals(cb.readRemaining(), r.entry("bytes").byteLength());

        assertArrayEquals(b, r.restore("b", new byte[b.length], adapters));
        assertArrayEquals(s, r.restore("s", new short[s.length], adapters));
        assertArrayEquals(c, r.restore("c", new char[c.length], adapters));
        assertArrayEquals(i, r.restore("i", new int[i.length], adapters));
        assertArrayEquals(l, r.restore("l", new long[l.length], adapters));
        float[] f2 = r.restore("f", new float[f.length], adapters);
        for (int k = 0; k < f.length; k++) {
            assertEquals(Float.floatToRawIntBits(f[k]), Float.floatToRawIntBits(f2[k]), "float " + k);
        }
        double[] d2 = r.restore("d", new double[d.length], adapters);
        for (int k = 0; k < d.length; k++) {
            assertEquals(Double.doubleToRawLongBits(d[k]), Double.doubleToRawLongBits(d2[k]), "double " + k);
        }
        assertArrayEquals(z, r.restore("z", new boolean[z.length], adapters));
        assertArrayEquals(empty, r.restore("empty", new int[0], adapters));
        assertArrayEquals(new long[]{1, 2}, r.restore("ünïcode tag ✓", new long[2], adapters));

        ByteBuffer heap2 = ByteBuffer.allocate(100);
        assertSame(heap2, r.restore("heapBuffer", heap2, adapters));
        assertArrayEquals(heap.array(), heap2.array(), "0..capacity, not position..limit");
        assertEquals(0, heap2.position(), "position untouched");
        ByteBuffer direct2 = ByteBuffer.allocateDirect(64);
        r.restore("directBuffer", direct2, adapters);
        assertEquals(direct.clear(), direct2.clear());
        ByteBuffer heapIntoDirect = ByteBuffer.allocateDirect(100);
        r.restore("heapBuffer", heapIntoDirect, adapters);
        assertEquals(ByteBuffer.wrap(heap.array()), heapIntoDirect);

        Bytes<?> cb2 = Bytes.allocateElasticDirect(8);
        bytes.add(cb2);
        cb2.append("garbage to be cleared");
        assertSame(cb2, r.restore("bytes", cb2, adapters));
        assertEquals(0, cb2.readPosition());
        assertEquals(cb.readRemaining(), cb2.readRemaining());
        assertEquals(cb, cb2, "readable contents equal");
        byte[] nine = new byte[9];
        assertEquals(9, cb2.read(nine));
        assertEquals("chronicle", new String(nine, java.nio.charset.StandardCharsets.US_ASCII));
        assertEquals(-7, cb2.readInt());
        Bytes<?> heapCb2 = Bytes.allocateElasticOnHeap(4);
        assertEquals("on heap bytes", r.restore("heapBytes", heapCb2, adapters).toString());

        Node restored = r.restore("graph", new Node(), adapters);
        assertNotSame(a, restored);
        assertEquals("a", restored.name);
        assertEquals("b", restored.next.name);
        assertSame(restored, restored.next.next, "cycle preserved");
        assertEquals(Double.doubleToRawLongBits(Double.NaN), Double.doubleToRawLongBits(restored.values[0]));

        // restoring without a target (a new rank)
        assertArrayEquals(i, r.restoreObject("i", int[].class, adapters));
        assertEquals(ByteBuffer.wrap(heap.array()), r.restoreObject("heapBuffer", ByteBuffer.class, adapters));
        assertEquals("a", r.restoreObject("graph", Node.class, adapters).name);
        Bytes<?> fresh = r.restoreObject("heapBytes", Bytes.class, adapters);
        bytes.add(fresh);
        assertEquals("on heap bytes", fresh.toString());
    }

    @Test
    void writerIsReusableAndCapturesCurrentContents() {
        DataAdapters adapters = adapters();
        TagRegistry reg = new TagRegistry(adapters);
        double[] u = {1, 2, 3};
        Node graph = new Node();
        graph.name = "v1";
        reg.register("u", u);
        reg.register("g", graph);
        ImageWriter w = ImageSeals.writer();
        BytesStore<?, ?> store = nativeStore(4096);
        long len1 = w.writeImage(reg.entries(), store, 0, new ImageHeader(0, 2, 1, 0));
        ImageSeals.seal(store, 0);
        u[0] = 42;
        graph.name = "version two";
        long len2 = w.writeImage(reg.entries(), store, 2048, new ImageHeader(0, 2, 2, 0));
        ImageSeals.seal(store, 2048);
        assertEquals(1, ImageSeals.open(store, 0).restore("u", new double[3], adapters)[0]);
        assertEquals(42, ImageSeals.open(store, 2048).restore("u", new double[3], adapters)[0]);
        assertEquals("v1", ImageSeals.open(store, 0).restoreObject("g", Node.class, adapters).name);
        assertEquals("version two", ImageSeals.open(store, 2048).restoreObject("g", Node.class, adapters).name);
        assertTrue(len2 > len1);
        // many tags grow the writer's arrays
        for (int k = 0; k < 40; k++) {
            reg.register("t" + k, new int[]{k});
        }
        long len3 = w.writeImage(reg.entries(), store, 0, new ImageHeader(0, 2, 3, 0));
        ImageSeals.seal(store, 0);
        ImageReader r = ImageSeals.open(store, 0);
        assertEquals(42, r.entries().size());
        assertEquals(len3, r.totalLength());
        assertArrayEquals(new int[]{39}, r.restore("t39", new int[1], adapters));
    }

    @Test
    void heapStoreWorksToo() {
        DataAdapters adapters = adapters();
        TagRegistry reg = new TagRegistry(adapters);
        long[] data = new Random(1).longs(50).toArray();
        reg.register("l", data);
        ImageWriter w = ImageSeals.writer();
        long len = w.prepare(reg.entries());
        BytesStore<?, byte[]> heap = BytesStore.wrap(new byte[(int) len]);
        w.write(heap, 0, new ImageHeader(1, 2, 5, 1));
        ImageSeals.seal(heap, 0);
        // the same image copied into native memory verifies with the same MAC
        BytesStore<?, ?> copy = nativeStore(len);
        copy.write(0, heap, 0, len);
        ImageSeals.verify(copy, 0);
        assertArrayEquals(data, ImageSeals.open(heap, 0).restore("l", new long[50], adapters));
        assertArrayEquals(data, ImageSeals.open(copy, 0).restore("l", new long[50], adapters));
    }

    /**
     * Images of the formats before this one (version 1: no step, no MAC; version 2: the step or the MAC,
     * not both) are refused naming their version, even with a MAC that matches under this job's key.
     */
    @Test
    void anImageOfAnEarlierFormatIsRefusedNamingItsVersionEvenWithAGoodMac() {
        DataAdapters adapters = adapters();
        TagRegistry reg = new TagRegistry(adapters);
        reg.register("u", new double[] {1, 2, 3});
        BytesStore<?, ?> store = nativeStore(4096);
        long length = ImageSeals.writer().writeImage(reg.entries(), store, 0, new ImageHeader(0, 1, 4, 0, 99));
        ImageSeals.seal(store, 0);
        assertEquals(99, ImageSeals.open(store, 0).step());
        for (short version : new short[] {CheckpointImageDescriptor.UNAUTHENTICATED_FORMAT_VERSION,
                CheckpointImageDescriptor.PARTIAL_FORMAT_VERSION}) {
            store.writeShort(CheckpointImageDescriptor.VERSION_OFFSET, version);
            ImageSeals.KEY.newMac().seal(store, 0, length); // a MAC over these very bytes, with this job's key
            String m = assertThrows(CorruptImageException.class, () -> ImageSeals.open(store, 0)).getMessage();
            assertTrue(m.contains("format version " + version + " was written by an earlier jckpt, before checkpoints"
                    + " carried " + (version == 1 ? "a MAC;" : "both a MAC and the program's step;")), m);
            assertTrue(m.contains("this library reads version " + CheckpointImageDescriptor.FORMAT_VERSION + " only"), m);
            String trusted = assertThrows(CorruptImageException.class, () -> ImageReader.openTrusted(store, 0)).getMessage();
            assertTrue(trusted.contains("format version " + version + " was written by an earlier jckpt"), trusted);
        }
    }

    @Test
    void emptyImage() {
        BytesStore<?, ?> store = nativeStore(CheckpointImageDescriptor.MIN_IMAGE_LENGTH);
        long len = ImageSeals.writer().writeImage(List.of(), store, 0, new ImageHeader(0, 1, 1, 0));
        assertEquals(CheckpointImageDescriptor.MIN_IMAGE_LENGTH, len);
        ImageSeals.seal(store, 0);
        assertTrue(ImageSeals.open(store, 0).entries().isEmpty());
        assertEquals(io.jckpt.Checkpointer.NO_STEP, ImageSeals.open(store, 0).step(), "here() without a step");
    }

    @Test
    void sealingFromAnotherThread() throws Exception {
        DataAdapters adapters = adapters();
        TagRegistry reg = new TagRegistry(adapters);
        reg.register("x", new double[100_000]);
        BytesStore<?, ?> store = nativeStore(1 << 20);
        ImageSeals.writer().writeImage(reg.entries(), store, 0, new ImageHeader(0, 1, 1, 0));
        Thread sealer = new Thread(() -> ImageSeals.seal(store, 0), "test-sealer");
        sealer.start();
        sealer.join(10_000);
        assertFalse(sealer.isAlive());
        ImageSeals.verify(store, 0);
    }
}
