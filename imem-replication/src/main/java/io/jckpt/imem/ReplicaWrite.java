package io.jckpt.imem;

import java.io.IOException;
import java.nio.ByteBuffer;

/**
 * A write in progress into one {@link ReplicaSlot}: fill its {@link #length()} bytes (through
 * {@link #image()} up to 2 GiB, {@link #region} at any size, or {@link #address()}), then
 * {@link #commit()} or {@link #commit(int)}; {@link #abort()} leaves the slot EMPTY.
 * Until the commit the slot is WRITING, so a crash leaves it visibly incomplete.
 */
public final class ReplicaWrite {
    private final ReplicaSlot slot;
    private final int owner;
    private final long round;
    private final long length;
    private boolean done;

    ReplicaWrite(ReplicaSlot slot, int owner, long round, long length) {
        this.slot = slot;
        this.owner = owner;
        this.round = round;
        this.length = length;
    }

    /**
     * @return the writable image bytes, direct into the mapping (position 0, limit = length)
     * @throws IllegalStateException for a slot above 2 GiB: use {@link #region} or {@link #address()}
     */
    public ByteBuffer image() {
        return slot.image(length);
    }

    /**
     * @param offset an offset in the image
     * @param max    the most bytes wanted, within the length
     * @return a writable view of {@code max} image bytes from {@code offset}, or fewer where a mapping
     *         window ends (images above 2 GiB); loop until the image is filled
     */
    public ByteBuffer region(long offset, long max) {
        if (offset + max > length) {
            throw new IndexOutOfBoundsException("region " + offset + "+" + max + " of an image of " + length + " bytes");
        }
        return slot.region(offset, max);
    }

    /** @return the address of the image's first byte (one contiguous mapping, any size) */
    public long address() {
        return slot.imageAddress();
    }

    /** @return the image length being written */
    public long length() {
        return length;
    }

    /** @return the slot written */
    public ReplicaSlot slot() {
        return slot;
    }

    /** @return the owner rank */
    public int owner() {
        return owner;
    }

    /** @return the round */
    public long round() {
        return round;
    }

    /**
     * Marks the slot COMPLETE with the CRC32C of what was written.
     *
     * @return the CRC32C
     */
    public int commit() {
        try {
            return commit(null);
        } catch (IOException e) {
            throw new IllegalStateException(e); // cannot happen without an expected value
        }
    }

    /**
     * Marks the slot COMPLETE if the image has the expected CRC32C; otherwise discards it.
     *
     * @param expected the CRC32C the sender recorded
     * @return the CRC32C
     * @throws IOException if the image does not match
     */
    public int commit(int expected) throws IOException {
        return commit(Integer.valueOf(expected));
    }

    /**
     * Marks the slot COMPLETE given the CRC32C the writer computed over exactly the bytes written
     * (chunk by chunk while they were in cache), if it equals the expected one; otherwise discards.
     *
     * @param computed the CRC32C computed over the image as written
     * @param expected the CRC32C the sender recorded
     * @return the CRC32C
     * @throws IOException if they differ
     */
    public int commitComputed(int computed, int expected) throws IOException {
        if (done) {
            throw new IllegalStateException("write of rank " + owner + " round " + round + " already finished");
        }
        done = true;
        return slot.commitComputed(computed, expected);
    }

    private int commit(Integer expected) throws IOException {
        if (done) {
            throw new IllegalStateException("write of rank " + owner + " round " + round + " already finished");
        }
        done = true;
        return slot.commit(expected);
    }

    /** Abandons the write: the slot becomes EMPTY. */
    public void abort() {
        if (!done) {
            done = true;
            slot.discard();
        }
    }
}
