package io.jckpt.data;

import io.jckpt.CkptException;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.UnsafeMemory;

import java.nio.ByteBuffer;

/**
 * Bulk copies between Java arrays, native addresses and Chronicle {@link BytesStore}s, with long offsets
 * and lengths. No per-element loops and no intermediate buffers: a copy is one
 * {@code Unsafe.copyMemory} per chunk.
 *
 * <p>Native to native goes through Chronicle Core's {@link UnsafeMemory} (which splits it into 1 MiB
 * copies). A copy with a Java array on either side goes
 * straight to {@code Unsafe.copyMemory} (the JVM's bulk copy), in chunks of at most
 * {@value #ARRAY_CHUNK} bytes: the JVM cannot reach a safepoint inside one copy that touches the heap,
 * so a chunk bounds that pause (~0.1 ms). Not Chronicle's array/native variants: on Java 9+ they copy
 * 16 bytes per loop iteration in Java, about 1.5x slower than the bulk copy for large images
 * (measured: 4 MiB byte[] into native memory 300 vs 205 us).
 *
 * <p>A location is a pair (base, offset) as in {@code Unsafe}: base null and offset an absolute address
 * for native memory, or base an array and offset {@code arrayBaseOffset + index * scale}.
 */
public final class MemoryCopy {
    /** Largest single copy with a Java array on either side: 1 MiB. */
    public static final int ARRAY_CHUNK = 1 << 20;
    private static final UnsafeMemory MEMORY = UnsafeMemory.MEMORY;
    /** Offset of element 0 in a byte[]. */
    public static final long BYTE_ARRAY_BASE = MEMORY.arrayBaseOffset(byte[].class);

    private MemoryCopy() {
    }

    /**
     * @param arrayClass a primitive array class
     * @return the offset of its element 0
     */
    public static long arrayBase(Class<?> arrayClass) {
        return MEMORY.arrayBaseOffset(arrayClass);
    }

    /**
     * Copies {@code length} bytes between two locations (see the class comment).
     *
     * @param srcBase   source array, or null for native memory
     * @param srcOffset source offset or address
     * @param dstBase   destination array, or null for native memory
     * @param dstOffset destination offset or address
     * @param length    bytes to copy
     */
    public static void copy(Object srcBase, long srcOffset, Object dstBase, long dstOffset, long length) {
        if (srcBase == null && dstBase == null) {
            MEMORY.copyMemory(srcOffset, dstOffset, length);
            return;
        }
        long done = 0;
        while (done < length) {
            long n = Math.min(ARRAY_CHUNK, length - done);
            UnsafeMemory.UNSAFE.copyMemory(srcBase, srcOffset + done, dstBase, dstOffset + done, n);
            done += n;
        }
    }

    /**
     * Copies from a location into a store.
     *
     * @param srcBase   source array, or null for native memory
     * @param srcOffset source offset or address
     * @param store     destination store
     * @param offset    offset in the store
     * @param length    bytes to copy
     */
    public static void toStore(Object srcBase, long srcOffset, BytesStore<?, ?> store, long offset, long length) {
        if (length == 0) {
            checkRange(store, offset, 0);
            return;
        }
        if (store.isDirectMemory()) {
            copy(srcBase, srcOffset, null, addressOf(store, offset, length, true), length);
        } else {
            copy(srcBase, srcOffset, heapArrayOf(store), heapOffsetOf(store, offset, length), length);
        }
    }

    /**
     * Copies from a store into a location.
     *
     * @param store     source store
     * @param offset    offset in the store
     * @param dstBase   destination array, or null for native memory
     * @param dstOffset destination offset or address
     * @param length    bytes to copy
     */
    public static void fromStore(BytesStore<?, ?> store, long offset, Object dstBase, long dstOffset, long length) {
        if (length == 0) {
            checkRange(store, offset, 0);
            return;
        }
        if (store.isDirectMemory()) {
            copy(null, addressOf(store, offset, length, false), dstBase, dstOffset, length);
        } else {
            copy(heapArrayOf(store), heapOffsetOf(store, offset, length), dstBase, dstOffset, length);
        }
    }

    /**
     * The native address of {@code [offset, offset+length)} in a direct store, checked to be inside the
     * store and contiguous.
     *
     * @param store    a store with {@link BytesStore#isDirectMemory()}
     * @param offset   start
     * @param length   bytes, > 0
     * @param forWrite whether the range will be written
     * @return the address of {@code offset}
     */
    public static long addressOf(BytesStore<?, ?> store, long offset, long length, boolean forWrite) {
        checkRange(store, offset, length);
        long first = forWrite ? store.addressForWrite(offset) : store.addressForRead(offset);
        long last = forWrite ? store.addressForWrite(offset + length - 1) : store.addressForRead(offset + length - 1);
        if (last - first != length - 1) {
            throw new CkptException("store range [" + offset + ", " + (offset + length) + ") is not contiguous memory");
        }
        return first;
    }

    /**
     * @param store  the store
     * @param offset start
     * @param length bytes
     * @throws CkptException when the range is not inside the store's capacity
     */
    public static void checkRange(BytesStore<?, ?> store, long offset, long length) {
        long end = offset + length;
        if (offset < 0 || length < 0 || end < offset || end > store.capacity()) {
            throw new CkptException("range [" + offset + ", " + end + ") is outside the store (capacity "
                    + store.capacity() + " bytes)");
        }
    }

    /** @return the array behind a heap store */
    static Object heapArrayOf(BytesStore<?, ?> store) {
        Object u = store.underlyingObject();
        if (u instanceof byte[]) {
            return u;
        }
        if (u instanceof ByteBuffer && ((ByteBuffer) u).hasArray()) {
            return ((ByteBuffer) u).array();
        }
        throw new CkptException("unsupported store " + store.getClass().getName()
                + ": neither native memory nor backed by an accessible byte[]");
    }

    /** @return the offset of a heap store's {@code offset} in its array, the range checked */
    static long heapOffsetOf(BytesStore<?, ?> store, long offset, long length) {
        checkRange(store, offset, length);
        Object u = store.underlyingObject();
        long arrayOffset = u instanceof ByteBuffer ? ((ByteBuffer) u).arrayOffset() : 0;
        return BYTE_ARRAY_BASE + arrayOffset + offset - store.start();
    }
}
