package io.jckpt.data;

import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.core.UnsafeMemory;
import org.junit.jupiter.api.Test;

import java.util.Random;

import static org.junit.jupiter.api.Assertions.*;

/**
 * {@link MemoryCopy} across its chunk boundaries: several chunks plus a remainder, at offsets that are
 * not multiples of 8, between arrays of different element types and native memory, in both directions;
 * the bytes around the copied range stay as they were.
 */
class MemoryCopyTest {
    private static final int LENGTH = 3 * MemoryCopy.ARRAY_CHUNK + 13;
    private static final long LONG_BASE = UnsafeMemory.MEMORY.arrayBaseOffset(long[].class);

    @Test
    void arrayToNativeToArrayAcrossChunks() {
        byte[] src = new byte[LENGTH + 10];
        new Random(7).nextBytes(src);
        BytesStore<?, ?> nat = BytesStore.nativeStoreWithFixedCapacity(LENGTH + 64);
        try {
            for (long i = 0; i < nat.capacity(); i++) {
                nat.writeByte(i, (byte) 0x5A);
            }
            // byte[] (from index 3) -> native (at offset 5)
            MemoryCopy.toStore(src, MemoryCopy.BYTE_ARRAY_BASE + 3, nat, 5, LENGTH);
            for (int i = 0; i < LENGTH; i++) {
                assertEquals(src[3 + i], nat.readByte(5 + i), "byte " + i + " in native memory");
            }
            assertEquals((byte) 0x5A, nat.readByte(4), "byte before the range");
            assertEquals((byte) 0x5A, nat.readByte(5 + LENGTH), "byte after the range");

            // native -> long[] (at byte 3 of element 1), which is not the source's element type
            long[] dst = new long[LENGTH / 8 + 4];
            java.util.Arrays.fill(dst, -1L);
            MemoryCopy.fromStore(nat, 5, dst, LONG_BASE + 8 + 3, LENGTH);
            for (int i = 0; i < LENGTH; i++) {
                assertEquals(src[3 + i], UnsafeMemory.UNSAFE.getByte(dst, LONG_BASE + 11 + i), "byte " + i + " in long[]");
            }
            assertEquals((byte) -1, UnsafeMemory.UNSAFE.getByte(dst, LONG_BASE + 10), "byte before the range");
            assertEquals((byte) -1, UnsafeMemory.UNSAFE.getByte(dst, LONG_BASE + 11 + LENGTH), "byte after the range");

            // long[] -> byte[]: heap to heap
            byte[] back = new byte[LENGTH];
            MemoryCopy.copy(dst, LONG_BASE + 11, back, MemoryCopy.BYTE_ARRAY_BASE, LENGTH);
            assertArrayEquals(java.util.Arrays.copyOfRange(src, 3, 3 + LENGTH), back);
        } finally {
            nat.releaseLast();
        }
    }
}
