package io.jckpt.image;

import io.jckpt.data.MemoryCopy;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.UnsafeMemory;

import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.reflect.Constructor;
import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * Feeds a range of a {@link BytesStore} to a {@link CRC32C} without copying: native memory is viewed
 * through a temporary direct ByteBuffer over its address (needs {@code --add-opens
 * java.base/java.nio=ALL-UNNAMED}, part of the project's JVM flags); without that access it falls back
 * to copying through a small scratch buffer. Heap stores go through their byte[].
 */
final class StoreCrc32c {
    private static final int CHUNK = 1 << 28;
    private static final int SCRATCH = 1 << 16;
    private static final MethodHandle DIRECT_VIEW = directViewConstructor();
    private static final ThreadLocal<ByteBuffer> SCRATCH_BUFFER = ThreadLocal.withInitial(() -> ByteBuffer.allocateDirect(SCRATCH));

    private StoreCrc32c() {
    }

    private static MethodHandle directViewConstructor() {
        try {
            Class<?> c = Class.forName("java.nio.DirectByteBuffer");
            for (Class<?> lengthType : new Class<?>[]{int.class, long.class}) {
                try {
                    Constructor<?> k = c.getDeclaredConstructor(long.class, lengthType);
                    k.setAccessible(true);
                    MethodHandle h = MethodHandles.lookup().unreflectConstructor(k);
                    return h.asType(h.type().changeParameterType(1, lengthType).changeReturnType(ByteBuffer.class));
                } catch (NoSuchMethodException e) {
                    // try the other signature
                }
            }
        } catch (ReflectiveOperationException | RuntimeException e) {
            // no access: use the scratch copy
        }
        return null;
    }

    /** @return whether native memory is read in place (no scratch copy) */
    static boolean zeroCopy() {
        return DIRECT_VIEW != null;
    }

    static void update(CRC32C crc, BytesStore<?, ?> store, long offset, long length) {
        if (length <= 0) {
            return;
        }
        if (store.isDirectMemory()) {
            long address = MemoryCopy.addressOf(store, offset, length, false);
            updateNative(crc, address, length);
        } else {
            MemoryCopy.checkRange(store, offset, length);
            Object u = store.underlyingObject();
            byte[] array;
            long base;
            if (u instanceof byte[]) {
                array = (byte[]) u;
                base = 0;
            } else if (u instanceof ByteBuffer && ((ByteBuffer) u).hasArray()) {
                array = ((ByteBuffer) u).array();
                base = ((ByteBuffer) u).arrayOffset();
            } else {
                throw new IllegalArgumentException("unsupported store " + store.getClass().getName());
            }
            crc.update(array, (int) (base + offset - store.start()), (int) length);
        }
    }

    private static void updateNative(CRC32C crc, long address, long length) {
        long done = 0;
        if (DIRECT_VIEW != null) {
            try {
                while (done < length) {
                    int n = (int) Math.min(CHUNK, length - done);
                    ByteBuffer view = DIRECT_VIEW.type().parameterType(1) == int.class
                            ? (ByteBuffer) DIRECT_VIEW.invokeExact(address + done, n)
                            : (ByteBuffer) DIRECT_VIEW.invokeExact(address + done, (long) n);
                    crc.update(view);
                    done += n;
                }
                return;
            } catch (Throwable t) {
                if (t instanceof Error) {
                    throw (Error) t;
                }
                // fall through to the scratch copy for the rest
            }
        }
        ByteBuffer scratch = SCRATCH_BUFFER.get();
        long scratchAddress = Jvm.address(scratch);
        while (done < length) {
            int n = (int) Math.min(SCRATCH, length - done);
            UnsafeMemory.copyMemory(address + done, scratchAddress, n);
            scratch.clear().limit(n);
            crc.update(scratch);
            done += n;
        }
    }
}
