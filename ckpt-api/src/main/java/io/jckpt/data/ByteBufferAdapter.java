package io.jckpt.data;

import io.jckpt.DataMismatchException;
import io.jckpt.UnsupportedDataException;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.Jvm;

import java.nio.ByteBuffer;

/**
 * Adapter for {@link ByteBuffer}, heap or direct. The buffer is treated as a fixed memory region, like
 * an array: the payload is bytes {@code 0..capacity}, whatever the position and limit (a checkpoint by
 * reference must not depend on where a cursor happens to be). Position, limit, mark and byte order are
 * neither saved nor changed by rollback. Rollback requires a target of the saved capacity and writable;
 * a null target gets a new heap buffer. To checkpoint part of a buffer, register a
 * {@link ByteBuffer#slice(int, int) slice} (it shares the memory).
 */
public final class ByteBufferAdapter implements DataAdapter<ByteBuffer> {
    /** The instance. */
    public static final ByteBufferAdapter INSTANCE = new ByteBufferAdapter();

    private ByteBufferAdapter() {
    }

    @Override
    public TypeCode typeCode() {
        return TypeCode.BYTE_BUFFER;
    }

    @Override
    public Class<ByteBuffer> dataClass() {
        return ByteBuffer.class;
    }

    @Override
    public long elementCount(ByteBuffer data) {
        return data.capacity();
    }

    @Override
    public String describe(ByteBuffer data) {
        return (data.isDirect() ? "direct " : "heap ") + (data.isReadOnly() ? "read-only " : "")
                + "ByteBuffer of capacity " + data.capacity();
    }

    @Override
    public DataCapture capture(String tag, int rank, ByteBuffer data) {
        return new Capture(data);
    }

    @Override
    public ByteBuffer restore(SavedEntry saved, BytesStore<?, ?> store, ByteBuffer target) {
        ByteBuffer dst = target;
        if (dst == null) {
            if (saved.elementCount() > Integer.MAX_VALUE) {
                throw new DataMismatchException(saved.tag(), saved.rank(), saved.describe(), "a new ByteBuffer (too large)");
            }
            dst = ByteBuffer.allocate((int) saved.elementCount());
        } else if (dst.capacity() != saved.elementCount()) {
            throw new DataMismatchException(saved.tag(), saved.rank(), saved.describe(),
                    describe(dst) + " (buffers must have the saved capacity)");
        }
        if (dst.isReadOnly()) {
            throw new UnsupportedDataException(saved.tag(), saved.rank(), "cannot roll back into a read-only ByteBuffer");
        }
        long length = saved.elementCount();
        if (dst.isDirect()) {
            MemoryCopy.fromStore(store, saved.payloadOffset(), null, Jvm.address(dst), length);
        } else {
            MemoryCopy.fromStore(store, saved.payloadOffset(), dst.array(),
                    MemoryCopy.BYTE_ARRAY_BASE + dst.arrayOffset(), length);
        }
        return dst;
    }

    /** Capture of one buffer's region 0..capacity. */
    private static final class Capture implements DataCapture {
        private final ByteBuffer data;

        Capture(ByteBuffer data) {
            this.data = data;
        }

        @Override
        public Object data() {
            return data;
        }

        @Override
        public long prepare() {
            return data.capacity();
        }

        @Override
        public long elementCount() {
            return data.capacity();
        }

        @Override
        public void writeTo(BytesStore<?, ?> store, long offset) {
            int length = data.capacity();
            if (data.isDirect()) {
                MemoryCopy.toStore(null, Jvm.address(data), store, offset, length);
            } else if (data.hasArray()) {
                MemoryCopy.toStore(data.array(), MemoryCopy.BYTE_ARRAY_BASE + data.arrayOffset(), store, offset, length);
            } else {
                // read-only heap buffer: its array is not accessible; a bulk absolute write through Chronicle
                MemoryCopy.checkRange(store, offset, length);
                store.write(offset, data, 0, length);
            }
        }
    }
}
