package io.jckpt.imem;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import net.openhft.chronicle.core.Jvm;
import net.openhft.chronicle.core.OS;
import net.openhft.chronicle.core.UnsafeMemory;

/**
 * The memory mappings of one slot file. A file of up to 2 GiB is one {@link MappedByteBuffer}: its
 * address and every view come from it. A larger file (an image above 2 GiB) is mapped twice, both
 * shared views of the same pages: once contiguously at a native address (Chronicle's
 * {@code OS.map}) for the image writer and reader, which address it with long offsets, and as
 * ByteBuffer windows for CRC32C and socket I/O, which take ByteBuffers: a window starts every
 * {@code step} bytes and reaches {@code overlap} bytes into the next, so a region of up to
 * {@code overlap} bytes never needs two windows, and {@link #region} hands out at most what one
 * window holds (callers loop). {@value #WINDOW_PROPERTY} sets both the largest single mapping and
 * the window step (default: 2 GiB and 1 GiB), for tests of the windowed path at small sizes.
 */
final class SlotMapping {
    /** System property: the largest file mapped as one buffer, and the window step above it (bytes). */
    static final String WINDOW_PROPERTY = "jckpt.store.mappingWindow";
    private static final long DEFAULT_STEP = 1L << 30;
    private static final long MAX_OVERLAP = 64L << 20;
    private static final int PAGE = 4096;

    private final MappedByteBuffer[] windows;
    private final long step;
    private final long size;
    private final long address;
    private final boolean contiguous;

    private SlotMapping(MappedByteBuffer[] windows, long step, long size, long address, boolean contiguous) {
        this.windows = windows;
        this.step = step;
        this.size = size;
        this.address = address;
        this.contiguous = contiguous;
        for (MappedByteBuffer w : windows) {
            w.order(ByteOrder.LITTLE_ENDIAN);
        }
    }

    /**
     * Maps {@code size} bytes of {@code channel} read-write.
     *
     * @param channel the slot file
     * @param size    its size
     * @return the mappings
     * @throws IOException if a mapping fails
     */
    static SlotMapping map(FileChannel channel, long size) throws IOException {
        long configured = Long.getLong(WINDOW_PROPERTY, 0);
        long maxSingle = configured > 0 ? configured : Integer.MAX_VALUE;
        if (size <= maxSingle) {
            MappedByteBuffer one = channel.map(FileChannel.MapMode.READ_WRITE, 0, size);
            return new SlotMapping(new MappedByteBuffer[] {one}, size, size, 0, false);
        }
        long step = configured > 0 ? configured : DEFAULT_STEP;
        long overlap = Math.min(MAX_OVERLAP, step);
        int count = (int) ((size - overlap + step - 1) / step);
        MappedByteBuffer[] windows = new MappedByteBuffer[Math.max(1, count)];
        for (int k = 0; k < windows.length; k++) {
            long start = k * step;
            long length = k == windows.length - 1 ? size - start : step + overlap;
            windows[k] = channel.map(FileChannel.MapMode.READ_WRITE, start, length);
        }
        long address = OS.map(channel, FileChannel.MapMode.READ_WRITE, 0, size);
        return new SlotMapping(windows, step, size, address, true);
    }

    /** @return whether the file is one mapping (up to 2 GiB) */
    boolean single() {
        return windows.length == 1 && !contiguous;
    }

    /** @return the first window, which holds the header */
    MappedByteBuffer first() {
        return windows[0];
    }

    /**
     * @return the address of the file's first byte in the contiguous mapping (taken on demand: a
     *         process that never asks, e.g. a tool reading the store, needs no Chronicle JVM flags)
     */
    long address() {
        return contiguous ? address : Jvm.address(windows[0]);
    }

    /** @return the file size */
    long size() {
        return size;
    }

    /**
     * @param from the file offset
     * @param max  the most bytes wanted
     * @return a view of {@code from} up to {@code max} bytes, fewer at the end of a window (position 0)
     */
    ByteBuffer region(long from, long max) {
        if (from < 0 || max < 0 || from + max > size) {
            throw new IndexOutOfBoundsException("region " + from + "+" + max + " of a " + size + "-byte slot file");
        }
        int k = (int) Math.min(from / step, windows.length - 1);
        MappedByteBuffer w = windows[k];
        long start = k * step;
        int at = (int) (from - start);
        int length = (int) Math.min(max, w.capacity() - at);
        return w.duplicate().position(at).limit(at + length).slice().order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * Maps every page into this process: one {@link SlotPages} call per mapping, or else by
     * reading a byte of every page (a read fault maps it writable on tmpfs).
     *
     * @return a checksum of the bytes read, to keep the reads (0 when no page was read)
     */
    long pretouch() {
        long sum = 0;
        for (MappedByteBuffer w : windows) {
            if (!SlotPages.populate(w)) {
                for (int p = 0; p < w.capacity(); p += PAGE) {
                    sum += w.get(p);
                }
            }
        }
        if (contiguous && !SlotPages.populate(address, size)) {
            for (long p = 0; p < size; p += PAGE) {
                sum += UnsafeMemory.MEMORY.readByte(address + p);
            }
        }
        return sum;
    }

    /** Unmaps everything; nothing may use the views afterwards. */
    void unmap() {
        for (MappedByteBuffer w : windows) {
            ReplicaStore.Unmapper.unmap(w);
        }
        if (contiguous) {
            try {
                OS.unmap(address, size);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        }
    }
}
