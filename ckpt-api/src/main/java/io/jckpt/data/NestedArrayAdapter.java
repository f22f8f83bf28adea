package io.jckpt.data;

import io.jckpt.CorruptImageException;
import io.jckpt.DataMismatchException;
import io.jckpt.UnsupportedDataException;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.UnsafeMemory;

import java.lang.reflect.Array;
import java.util.Arrays;

/**
 * Adapter for arrays of primitive arrays of any depth ({@code double[][]}, {@code int[][][]}), jagged
 * or not, with no Kryo. The payload is a 16-byte header (leaf type code, number of dimensions, number
 * of shape entries), the shape (every array's length in pre-order, {@value #NULL_ROW} for a null row),
 * padded to 8 bytes, then every leaf array's memory in the same order, each copied in bulk.
 *
 * <p><b>Rollback is in place</b>: the target must have the saved shape (its type, every row's length,
 * null rows at the same places), checked completely before anything is written, so a target of another
 * shape is left untouched and gets a {@link DataMismatchException} naming the first row that differs. The
 * rows themselves are restored, not replaced: references the program holds to rows stay valid. A null
 * target (a new rank's {@code rollbackObject}) gets new arrays of the saved shape.
 */
public final class NestedArrayAdapter implements DataAdapter<Object> {
    /** The instance. */
    public static final NestedArrayAdapter INSTANCE = new NestedArrayAdapter();
    /** The shape entry of a null row. */
    static final int NULL_ROW = -1;
    static final int HEADER = 16;
    private static final long INT_BASE = UnsafeMemory.MEMORY.arrayBaseOffset(int[].class);

    private NestedArrayAdapter() {
    }

    @Override
    public TypeCode typeCode() {
        return TypeCode.NESTED_ARRAY;
    }

    @Override
    public Class<Object> dataClass() {
        return Object.class;
    }

    @Override
    public boolean accepts(Object data) {
        return leafOf(data.getClass()) != null;
    }

    /** @return the leaf adapter of an array of primitive arrays (2 or more dimensions), else null */
    static PrimitiveArrayAdapter<?> leafOf(Class<?> type) {
        Class<?> c = type.getComponentType();
        if (c == null || !c.isArray()) {
            return null;
        }
        while (c.getComponentType().isArray()) {
            c = c.getComponentType();
        }
        return PrimitiveArrayAdapter.of(c);
    }

    private static int dimensions(Class<?> type) {
        int d = 0;
        for (Class<?> c = type; c.isArray(); c = c.getComponentType()) {
            d++;
        }
        return d;
    }

    @Override
    public long elementCount(Object data) {
        Shape s = new Shape();
        s.walk(data, dimensions(data.getClass()), leafOf(data.getClass()));
        return s.elements;
    }

    @Override
    public String describe(Object data) {
        Shape s = new Shape();
        s.walk(data, dimensions(data.getClass()), leafOf(data.getClass()));
        return describe(leafOf(data.getClass()), dimensions(data.getClass()), s.entries, s.count);
    }

    /** e.g. {@code double[3][4]}, or {@code double[3][] (jagged)}, {@code int[2][] (with null rows)}. */
    private static String describe(PrimitiveArrayAdapter<?> leaf, int dims, int[] shape, int count) {
        int[] perLevel = new int[dims];
        Arrays.fill(perLevel, Integer.MIN_VALUE);
        boolean[] nulls = new boolean[1];
        boolean[] varies = new boolean[dims];
        int[] cursor = {0};
        levels(shape, count, cursor, 0, dims, perLevel, varies, nulls);
        String name = leaf.typeCode().typeName();
        StringBuilder b = new StringBuilder(name.substring(0, name.length() - 2));
        boolean jagged = false;
        for (int level = 0; level < dims; level++) {
            if (varies[level] || perLevel[level] == Integer.MIN_VALUE || jagged) {
                b.append("[]");
                jagged |= varies[level];
            } else {
                b.append('[').append(perLevel[level]).append(']');
            }
        }
        if (jagged) {
            b.append(" (jagged)");
        }
        if (nulls[0]) {
            b.append(" (with null rows)");
        }
        return b.toString();
    }

    private static void levels(int[] shape, int count, int[] cursor, int level, int dims, int[] perLevel,
                               boolean[] varies, boolean[] nulls) {
        int length = shape[cursor[0]++];
        if (length == NULL_ROW) {
            nulls[0] = true;
            return;
        }
        if (perLevel[level] == Integer.MIN_VALUE) {
            perLevel[level] = length;
        } else if (perLevel[level] != length) {
            varies[level] = true;
        }
        if (level + 1 < dims) {
            for (int i = 0; i < length && cursor[0] < count; i++) {
                levels(shape, count, cursor, level + 1, dims, perLevel, varies, nulls);
            }
        }
    }

    @Override
    public DataCapture capture(String tag, int rank, Object data) {
        return new Capture(tag, rank, data);
    }

    @Override
    public Object restore(SavedEntry saved, BytesStore<?, ?> store, Object target) {
        long p = saved.payloadOffset();
        long length = saved.byteLength();
        if (length < HEADER) {
            throw corrupt(saved, "payload of " + length + " bytes is shorter than its header");
        }
        PrimitiveArrayAdapter<?> leaf = PrimitiveArrayAdapter.of(store.readInt(p));
        int dims = store.readInt(p + 4);
        long count = store.readLong(p + 8);
        if (leaf == null || dims < 2 || dims > 255 || count < 1 || count > Integer.MAX_VALUE - 8
                || HEADER + align8(count * 4) > length) {
            throw corrupt(saved, "invalid header (leaf code " + store.readInt(p) + ", " + dims + " dimensions, " + count
                    + " shape entries)");
        }
        int[] shape = new int[(int) count];
        MemoryCopy.fromStore(store, p + HEADER, shape, INT_BASE, count * 4);
        long dataStart = p + HEADER + align8(count * 4);
        String savedShape = describe(leaf, dims, shape, shape.length);
        Object dst = target;
        if (dst == null) {
            int[] cursor = {0};
            dst = allocate(saved, leaf, dims, shape, cursor);
            checkConsumed(saved, shape, cursor[0]);
        } else {
            if (leafOf(dst.getClass()) != leaf || dimensions(dst.getClass()) != dims) {
                throw new DataMismatchException(saved.tag(), saved.rank(), savedShape, describe(dst));
            }
            // the whole shape first: a target of another shape is left untouched
            int[] cursor = {0};
            String difference = compare(saved.tag(), dst, dims, shape, cursor);
            if (difference != null) {
                throw new DataMismatchException(saved.tag(), saved.rank(), savedShape, describe(dst) + ": " + difference
                        + " (arrays of arrays are restored in place: the target needs the saved shape)");
            }
            checkConsumed(saved, shape, cursor[0]);
        }
        long[] position = {dataStart};
        int[] cursor = {0};
        copyInto(saved, store, dst, dims, leaf, shape, cursor, position, p + length);
        if (position[0] != p + length) {
            throw corrupt(saved, "the shape accounts for " + (position[0] - dataStart) + " data bytes of "
                    + (p + length - dataStart));
        }
        return dst;
    }

    private static long align8(long n) {
        return (n + 7) & ~7L;
    }

    private static CorruptImageException corrupt(SavedEntry saved, String what) {
        return new CorruptImageException("tag '" + saved.tag() + "' on rank " + saved.rank() + ": array of arrays: " + what);
    }

    private static void checkConsumed(SavedEntry saved, int[] shape, int used) {
        if (used != shape.length) {
            throw corrupt(saved, "the shape has " + shape.length + " entries but the arrays use " + used);
        }
    }

    private static int next(SavedEntry saved, int[] shape, int[] cursor) {
        if (cursor[0] >= shape.length) {
            throw corrupt(saved, "the shape ends early");
        }
        return shape[cursor[0]++];
    }

    private static Object allocate(SavedEntry saved, PrimitiveArrayAdapter<?> leaf, int dims, int[] shape, int[] cursor) {
        int length = next(saved, shape, cursor);
        if (length == NULL_ROW) {
            return null;
        }
        if (length < 0) {
            throw corrupt(saved, "negative length " + length);
        }
        if (dims == 1) {
            return Array.newInstance(leaf.dataClass().getComponentType(), length);
        }
        Class<?> rowClass = leaf.dataClass();
        for (int d = 2; d < dims; d++) {
            rowClass = rowClass.arrayType();
        }
        Object[] rows = (Object[]) Array.newInstance(rowClass, length);
        for (int i = 0; i < length; i++) {
            rows[i] = allocate(saved, leaf, dims - 1, shape, cursor);
        }
        return rows;
    }

    /** @return null when {@code a} has the saved shape, else the first difference, e.g. {@code u[2] has length 9, saved 10} */
    private static String compare(String path, Object a, int dims, int[] shape, int[] cursor) {
        if (cursor[0] >= shape.length) {
            return path + " is not in the saved shape";
        }
        int saved = shape[cursor[0]++];
        if (a == null || saved == NULL_ROW) {
            if (a == null && saved == NULL_ROW) {
                return null;
            }
            return a == null ? path + " is null, saved an array of length " + saved
                    : path + " has length " + Array.getLength(a) + ", saved null";
        }
        int length = Array.getLength(a);
        if (length != saved) {
            return path + " has length " + length + ", saved " + saved;
        }
        if (dims > 1) {
            Object[] rows = (Object[]) a;
            for (int i = 0; i < length; i++) {
                String d = compare(path + "[" + i + "]", rows[i], dims - 1, shape, cursor);
                if (d != null) {
                    return d;
                }
            }
        }
        return null;
    }

    private static void copyInto(SavedEntry saved, BytesStore<?, ?> store, Object a, int dims, PrimitiveArrayAdapter<?> leaf,
                                 int[] shape, int[] cursor, long[] position, long end) {
        int length = shape[cursor[0]++];
        if (length == NULL_ROW) {
            return;
        }
        if (dims == 1) {
            long bytes = (long) length * leaf.elementSize();
            if (position[0] + bytes > end) {
                throw corrupt(saved, "the rows run past the payload");
            }
            MemoryCopy.fromStore(store, position[0], a, leaf.baseOffset(), bytes);
            position[0] += bytes;
            return;
        }
        Object[] rows = (Object[]) a;
        for (int i = 0; i < length; i++) {
            copyInto(saved, store, rows[i], dims - 1, leaf, shape, cursor, position, end);
        }
    }

    /** The shape of an array of arrays, in pre-order, and its leaves. Reused at every checkpoint. */
    private static final class Shape {
        int[] entries = new int[16];
        int count;
        Object[] leaves = new Object[16];
        int leafCount;
        long elements;
        long dataBytes;

        void walk(Object root, int dims, PrimitiveArrayAdapter<?> leaf) {
            int previousLeaves = leafCount;
            count = 0;
            leafCount = 0;
            elements = 0;
            dataBytes = 0;
            visit(root, dims, leaf);
            if (previousLeaves > leafCount) {
                Arrays.fill(leaves, leafCount, previousLeaves, null); // rows the program dropped are not kept alive
            }
        }

        private void visit(Object a, int dims, PrimitiveArrayAdapter<?> leaf) {
            if (a == null) {
                add(NULL_ROW);
                return;
            }
            if (dims == 1) {
                int length = Array.getLength(a);
                add(length);
                if (leafCount == leaves.length) {
                    leaves = Arrays.copyOf(leaves, leaves.length * 2);
                }
                leaves[leafCount++] = a;
                elements += length;
                dataBytes += (long) length * leaf.elementSize();
                return;
            }
            Object[] rows = (Object[]) a;
            add(rows.length);
            for (Object row : rows) {
                visit(row, dims - 1, leaf);
            }
        }

        private void add(int entry) {
            if (count == entries.length) {
                if (entries.length >= Integer.MAX_VALUE / 2 - 8) {
                    throw new IllegalStateException("more than " + count + " rows");
                }
                entries = Arrays.copyOf(entries, entries.length * 2);
            }
            entries[count++] = entry;
        }
    }

    /** Capture of one array of arrays: its shape is measured at every checkpoint (rows may be replaced). */
    private static final class Capture implements DataCapture {
        private final String tag;
        private final int rank;
        private final Object data;
        private final int dims;
        private final PrimitiveArrayAdapter<?> leaf;
        private final Shape shape = new Shape();

        Capture(String tag, int rank, Object data) {
            this.tag = tag;
            this.rank = rank;
            this.data = data;
            this.dims = dimensions(data.getClass());
            this.leaf = leafOf(data.getClass());
        }

        @Override
        public Object data() {
            return data;
        }

        @Override
        public long prepare() {
            try {
                shape.walk(data, dims, leaf);
            } catch (IllegalStateException e) {
                throw new UnsupportedDataException(tag, rank, "the array of arrays has " + e.getMessage()
                        + ": too many rows for one tag");
            }
            return HEADER + align8(shape.count * 4L) + shape.dataBytes;
        }

        @Override
        public long elementCount() {
            return shape.elements;
        }

        @Override
        public void writeTo(BytesStore<?, ?> store, long offset) {
            store.writeInt(offset, leaf.typeCode().code());
            store.writeInt(offset + 4, dims);
            store.writeLong(offset + 8, shape.count);
            long shapeBytes = shape.count * 4L;
            MemoryCopy.toStore(shape.entries, INT_BASE, store, offset + HEADER, shapeBytes);
            long p = offset + HEADER + shapeBytes;
            long padded = offset + HEADER + align8(shapeBytes);
            while (p < padded) {
                store.writeByte(p++, (byte) 0);
            }
            for (int i = 0; i < shape.leafCount; i++) {
                Object row = shape.leaves[i];
                long bytes = (long) Array.getLength(row) * leaf.elementSize();
                MemoryCopy.toStore(row, leaf.baseOffset(), store, p, bytes);
                p += bytes;
            }
        }
    }
}
