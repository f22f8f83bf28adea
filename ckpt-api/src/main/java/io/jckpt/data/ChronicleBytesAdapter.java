package io.jckpt.data;

import io.jckpt.DataMismatchException;
import net.openhft.chronicle.bytes.Bytes;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.MappedBytes;

/**
 * Adapter for Chronicle {@link Bytes}: the payload is the readable bytes, {@code readPosition..readLimit}
 * at the time of the checkpoint (a Bytes is a message whose length varies, so the element count is not
 * checked on rollback). Rollback clears the target and writes the saved bytes into it, so afterwards
 * {@code readPosition == 0} and {@code readRemaining()} is the saved length; an elastic target grows,
 * a fixed one must have the capacity. A null target gets a new elastic direct Bytes.
 */
public final class ChronicleBytesAdapter implements DataAdapter<Bytes<?>> {
    /** The instance. */
    public static final ChronicleBytesAdapter INSTANCE = new ChronicleBytesAdapter();

    private ChronicleBytesAdapter() {
    }

    @Override
    public TypeCode typeCode() {
        return TypeCode.CHRONICLE_BYTES;
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    @Override
    public Class<Bytes<?>> dataClass() {
        return (Class) Bytes.class;
    }

    @Override
    public long elementCount(Bytes<?> data) {
        return data.readRemaining();
    }

    @Override
    public String describe(Bytes<?> data) {
        return (data.isElastic() ? "elastic " : "") + "Bytes with " + data.readRemaining() + " readable bytes (capacity "
                + data.capacity() + ")";
    }

    @Override
    public DataCapture capture(String tag, int rank, Bytes<?> data) {
        return new Capture(data);
    }

    @Override
    public Bytes<?> restore(SavedEntry saved, BytesStore<?, ?> store, Bytes<?> target) {
        long length = saved.byteLength();
        Bytes<?> dst = target == null ? Bytes.allocateElasticDirect(Math.max(64, length)) : target;
        if (!dst.isElastic() && dst.capacity() < length) {
            throw new DataMismatchException(saved.tag(), saved.rank(), saved.describe(),
                    describe(dst) + " (a fixed-capacity Bytes must hold the saved bytes)");
        }
        dst.clear();
        dst.ensureCapacity(length);
        if (length == 0) {
            return dst;
        }
        if (dst.isDirectMemory() && !(dst instanceof MappedBytes)) {
            long address = dst.addressForWrite(dst.writePosition());
            MemoryCopy.fromStore(store, saved.payloadOffset(), null, address, length);
            dst.writeSkip(length);
        } else {
            MemoryCopy.checkRange(store, saved.payloadOffset(), length);
            dst.write(store, saved.payloadOffset(), length);
        }
        return dst;
    }

    /** Capture of one Bytes' readable range. */
    private static final class Capture implements DataCapture {
        private final Bytes<?> data;
        private long position;
        private long length;

        Capture(Bytes<?> data) {
            this.data = data;
        }

        @Override
        public Object data() {
            return data;
        }

        @Override
        public long prepare() {
            position = data.readPosition();
            length = data.readRemaining();
            return length;
        }

        @Override
        public long elementCount() {
            return length;
        }

        @Override
        public void writeTo(BytesStore<?, ?> store, long offset) {
            if (length == 0) {
                return;
            }
            if (data.isDirectMemory() && !(data instanceof MappedBytes)) {
                MemoryCopy.toStore(null, data.addressForRead(position), store, offset, length);
            } else {
                // heap, or chunked mapped Bytes whose range may span mappings: Chronicle's bulk write
                MemoryCopy.checkRange(store, offset, length);
                store.write(offset, data, position, length);
            }
        }
    }
}
