package io.jckpt.imem;

import static io.jckpt.imem.ReplicaSlotDescriptor.*;

import io.jckpt.image.ImageMac;
import java.io.IOException;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.util.function.Supplier;
import java.util.zip.CRC32C;

/**
 * One memory-mapped slot file of a {@link ReplicaStore}: one version of one owner's image. The
 * mapping is created once, pre-touched, and reused for every round. Layout and write protocol:
 * {@link ReplicaSlotDescriptor}. With the job's image key (its store's {@link ReplicaStoreConfig#imageKey()})
 * the image is a checkpoint image: its owner's commit seals it (the MAC trailer, then the CRC32C), and
 * a verification checks the MAC and that the image is the owner's round the header names, so a copy
 * this job did not write is never trusted. Not thread-safe by itself: the store hands a slot to one
 * writer at a time and never overwrites a slot that may still be read.
 */
public final class ReplicaSlot {
    private final Path path;
    private final int index;
    private final FileChannel channel;
    private final SlotMapping mapping;
    /** The first mapping window: the header and, for files up to 2 GiB, the whole image. */
    private final MappedByteBuffer map;
    private final long capacity;
    private volatile boolean corrupt;
    private volatile boolean inUse;
    /**
     * The image was verified (CRC32C and, with a key, its MAC; or sealed and its CRC computed over the
     * bytes written by this process) and not begun again since.
     */
    private volatile boolean verified;
    /** Why the last verification failed, or null. */
    private volatile String problem;
    /** This thread's MAC engine of the job's image key, or null: opaque images. */
    private final Supplier<ImageMac> macs;
    @SuppressWarnings("unused")
    private long touched;
    private boolean prepared; // guarded by this
    /** The file was created (sparse) by this open: its pages still need their memory. */
    private final boolean created;

    ReplicaSlot(Path path, int index, FileChannel channel, SlotMapping mapping, long capacity, boolean created,
                Supplier<ImageMac> macs) {
        this.created = created;
        this.macs = macs;
        this.path = path;
        this.index = index;
        this.channel = channel;
        this.mapping = mapping;
        this.map = mapping.first();
        this.capacity = capacity;
    }

    /** @return the slot file */
    public Path path() {
        return path;
    }

    /** @return the version index of this slot for its owner */
    public int index() {
        return index;
    }

    /** @return the image capacity */
    public long capacity() {
        return capacity;
    }

    /** @return the state (see {@link ReplicaSlotDescriptor}) */
    public int state() {
        return map.getInt(STATE_OFFSET);
    }

    /** @return the owner recorded in the header */
    public int owner() {
        return map.getInt(OWNER_OFFSET);
    }

    /** @return the round recorded in the header */
    public long round() {
        return map.getLong(ROUND_OFFSET);
    }

    /** @return the image length recorded in the header */
    public long length() {
        return map.getLong(LENGTH_OFFSET);
    }

    /** @return the image CRC32C recorded in the header */
    public int crc32c() {
        return map.getInt(CRC_OFFSET);
    }

    /** @return true if the slot is COMPLETE and its last verification did not fail */
    public boolean completeAndIntact() {
        return state() == STATE_COMPLETE && !corrupt;
    }

    /**
     * @return whether the image was verified in this process (CRC32C and, with a key, its MAC; or written
     *         and sealed here, or received with its CRC32C checked on the way when there is no key) and not
     *         begun again since
     */
    public boolean verified() {
        return verified;
    }

    /** @return whether this slot's images are checkpoint images authenticated with the job's key */
    public boolean authenticates() {
        return macs != null;
    }

    /** @return why the last verification of this slot failed, or null */
    public String problem() {
        return problem;
    }

    /**
     * Marks the slot as not to be trusted (a header that names another owner than its file).
     *
     * @param why what is wrong
     */
    void markCorrupt(String why) {
        corrupt = true;
        verified = false;
        problem = why;
    }

    /** @return true if the last verification of this COMPLETE slot failed */
    public boolean corrupt() {
        return corrupt;
    }

    void initialiseHeader() {
        map.putInt(MAGIC_OFFSET, MAGIC);
        map.putInt(VERSION_OFFSET, LAYOUT_VERSION);
        map.putLong(CAPACITY_OFFSET, capacity);
    }

    boolean headerValid() {
        return map.getInt(MAGIC_OFFSET) == MAGIC && map.getInt(VERSION_OFFSET) == LAYOUT_VERSION
                && map.getLong(CAPACITY_OFFSET) == capacity;
    }

    /**
     * Starts writing a new image into this slot: marks it WRITING before anything else changes.
     *
     * @return a writable view of exactly {@code length} image bytes
     */
    void begin(int owner, long round, long length) {
        if (length < 0 || length > capacity) {
            throw new StoreCapacityException("image of " + length + " bytes does not fit slot " + path
                    + " of capacity " + capacity);
        }
        corrupt = false;
        verified = false;
        problem = null;
        inUse = true;
        map.putInt(STATE_OFFSET, STATE_WRITING);
        VarHandle.fullFence();
        map.putInt(OWNER_OFFSET, owner);
        map.putLong(ROUND_OFFSET, round);
        map.putLong(LENGTH_OFFSET, length);
    }

    /**
     * Completes the write of an image this process wrote (its owner's): seals it with the job's key
     * (computes the MAC and writes the trailer) when there is one, computes the CRC32C and marks the
     * slot COMPLETE. The only way an own copy becomes COMPLETE: a round whose MAC is not written is no
     * complete round.
     *
     * @return the CRC32C
     */
    int commitOwn() {
        if (macs != null) {
            macs.get().seal(this::region, length());
        }
        return complete(computeCrc(), true);
    }

    /**
     * Completes the write of an own image that was sealed and whose CRC32C was computed while it was
     * sent (chunk by chunk, the MAC trailer written before its chunk's CRC).
     */
    int commitSealed(int crc) {
        return complete(crc, true);
    }

    /**
     * Completes the write of a received copy: computes the CRC32C, optionally checks it against
     * {@code expected}, and marks the slot COMPLETE. On a mismatch the slot is left EMPTY.
     *
     * @param expected the CRC32C the image must have, or null to accept what was written
     * @return the CRC32C
     * @throws IOException if the image does not match {@code expected}
     */
    int commit(Integer expected) throws IOException {
        return commitComputed(computeCrc(), expected);
    }

    /**
     * Completes the write of a received copy with a CRC32C the writer computed while writing (e.g.
     * chunk by chunk while the bytes were still in cache). With a key the copy is not yet verified:
     * its MAC is checked before it is trusted ({@link #verify()}).
     */
    int commitComputed(int crc, Integer expected) throws IOException {
        if (expected != null && expected != crc) {
            discard();
            throw new IOException("replica of rank " + owner() + " round " + round() + " failed its CRC32C: expected "
                    + Integer.toHexString(expected) + ", got " + Integer.toHexString(crc) + " (" + path + ")");
        }
        return complete(crc, macs == null);
    }

    private int complete(int crc, boolean verifiedNow) {
        map.putInt(CRC_OFFSET, crc);
        map.putInt(HEADER_CRC_OFFSET, headerCrc(map));
        VarHandle.fullFence();
        map.putInt(STATE_OFFSET, STATE_COMPLETE);
        VarHandle.fullFence();
        verified = verifiedNow;
        inUse = false;
        return crc;
    }

    void discard() {
        map.putInt(STATE_OFFSET, STATE_EMPTY);
        VarHandle.fullFence();
        corrupt = false;
        verified = false;
        problem = null;
        inUse = false;
    }

    /** @return true while a write begun in this process is neither committed nor aborted */
    boolean inUse() {
        return inUse;
    }

    /**
     * Re-verifies a COMPLETE slot: header checksum and image CRC32C, and with the job's key the image's
     * MAC and that it is the owner's round the header names ({@link ImageMac#problem(int, long)}).
     *
     * @return true if intact; false (and marked corrupt, {@link #problem()} saying why) otherwise, or if
     *         not COMPLETE
     */
    public boolean verify() {
        if (state() != STATE_COMPLETE) {
            return false;
        }
        String why = null;
        if (!headerValid() || map.getInt(HEADER_CRC_OFFSET) != headerCrc(map) || length() < 0 || length() > capacity) {
            why = "its slot header is damaged (header CRC32C or length)";
        } else if (computeCrc() != crc32c()) {
            why = "its image fails its CRC32C (damaged)";
        } else if (macs != null) {
            String refused = macs.get().verify(this::region, length(), owner(), round());
            why = refused == null ? null : "refused before it is read: " + refused;
        }
        problem = why;
        corrupt = why != null;
        verified = why == null;
        return why == null;
    }

    /**
     * Like {@link #verify()}, but a slot verified earlier in this process (at store open, or sealed as
     * it was written here) and not written since is trusted without reading it again: only this process
     * writes the store.
     *
     * @return true if intact
     */
    public boolean verifyUnlessVerified() {
        if (verified && state() == STATE_COMPLETE && !corrupt) {
            return true;
        }
        return verify();
    }

    private int computeCrc() {
        CRC32C crc = new CRC32C();
        long length = length();
        for (long at = 0; at < length; ) {
            ByteBuffer part = region(at, length - at);
            at += part.remaining();
            crc.update(part);
        }
        return (int) crc.getValue();
    }

    /**
     * @param offset an offset in the image
     * @param max    the most bytes wanted
     * @return a writable view of image bytes from {@code offset}: {@code max} of them, or fewer where a
     *         mapping window ends (images above 2 GiB); position 0
     */
    ByteBuffer region(long offset, long max) {
        if (offset < 0 || max < 0 || offset + max > capacity) {
            throw new IndexOutOfBoundsException("image region " + offset + "+" + max + " of slot " + path
                    + " (capacity " + capacity + ")");
        }
        return mapping.region(HEADER_LENGTH + offset, max);
    }

    /** @return the address of the image's first byte: one contiguous mapping of the whole image, any size */
    public long imageAddress() {
        return mapping.address() + HEADER_LENGTH;
    }

    /** @return whether the image is one ByteBuffer ({@link #image()}): slot files up to 2 GiB */
    public boolean singleMapping() {
        return mapping.single();
    }

    /**
     * @param length a length up to the capacity
     * @return a view of the first {@code length} image bytes (position 0, limit length)
     */
    ByteBuffer image(long length) {
        if (length < 0 || length > capacity) {
            throw new StoreCapacityException("image of " + length + " bytes does not fit slot " + path
                    + " of capacity " + capacity);
        }
        if (!mapping.single()) {
            throw new IllegalStateException("the image of slot " + path + " (capacity " + capacity + " bytes) spans"
                    + " several mappings: read it through imageAddress() or in regions");
        }
        return map.duplicate().position(HEADER_LENGTH).limit(HEADER_LENGTH + (int) length).slice()
                .order(ByteOrder.LITTLE_ENDIAN);
    }

    /**
     * @return a read-only view of the complete image
     * @throws IllegalStateException for a slot above 2 GiB ({@link #singleMapping()} false)
     */
    public ByteBuffer image() {
        return image(length()).asReadOnlyBuffer();
    }

    /** @return the file channel (for zero-copy {@code transferTo} of the image) */
    FileChannel channel() {
        return channel;
    }

    /**
     * @return the slot file's channel, for a reader that maps the image itself (a disk flush of an
     *         image above 2 GiB); the image starts at {@link ReplicaSlotDescriptor#HEADER_LENGTH}.
     *         Do not close it.
     */
    public FileChannel fileChannel() {
        return channel;
    }

    /**
     * Allocates (a new file: fallocate(2), or write(2) of zeros, over everything after the header's
     * page, never written before) and maps every page of the slot into this process, once, before its first
     * write, so the write never takes a page fault. Pages are mapped with one madvise call where
     * the kernel has it, else by reads (on a shared file mapping the kernel maps up to 16 pages
     * already in the page cache per read fault and, for tmpfs, maps them writable; writes would
     * fault once per page). Neither changes a byte, so it is safe while the slot is in use.
     *
     * @throws IOException if the file system is full
     */
    synchronized void prepare() throws IOException {
        if (prepared) {
            return;
        }
        if (created && state() == STATE_EMPTY && !inUse) {
            if (!SlotPages.allocate(path, PAGE, mapping.size())) {
                ReplicaStore.allocate(channel, PAGE, mapping.size()); // never written: only zeros to replace
            }
        }
        touched = mapping.pretouch(); // keeps the reads
        prepared = true;
    }

    /** @return whether {@link #prepare()} has run */
    synchronized boolean prepared() {
        return prepared;
    }

    /** Unmaps the slot; nothing may use its views afterwards. */
    void unmap() {
        mapping.unmap();
    }

    @Override
    public String toString() {
        return "slot[" + path.getFileName() + " " + stateName(state()) + " owner " + owner() + " round " + round()
                + " length " + length() + (corrupt ? " CORRUPT" + (problem == null ? "" : ": " + problem) : "") + "]";
    }
}
