package io.jckpt.imem;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A write in progress into one {@link ReplicaSlot}: fill its {@link #length()} bytes (through
 * {@link #image()} up to 2 GiB, {@link #region} at any size, or {@link #address()}), then
 * {@link #commit()} (an own image: sealed with the job's key when the store has one) or
 * {@link #commit(int)} (a received copy); {@link #abort()} leaves the slot EMPTY. Until the commit the
 * slot is WRITING, so a crash leaves it visibly incomplete; {@link #awaitCommitted} lets a reader of
 * the finished image (a disk flush) wait for it.
 */
public final class ReplicaWrite {
    private final ReplicaSlot slot;
    private final int owner;
    private final long round;
    private final long length;
    private boolean done;
    private volatile boolean committed;
    private final CountDownLatch finished = new CountDownLatch(1);

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
     * Completes an own image: seals it with the job's key (its MAC trailer) when the store has one, then
     * marks the slot COMPLETE with the CRC32C of what was written.
     *
     * @return the CRC32C
     */
    public int commit() {
        finishOnce();
        try {
            return finished(slot.commitOwn());
        } finally {
            finished.countDown();
        }
    }

    /**
     * Completes an own image sealed while it was sent, with the CRC32C computed over it as it went.
     *
     * @param crc the CRC32C of the sealed image
     * @return the CRC32C
     */
    int commitSealed(int crc) {
        finishOnce();
        try {
            return finished(slot.commitSealed(crc));
        } finally {
            finished.countDown();
        }
    }

    /**
     * Waits (bounded) until this write is committed: its image complete (and sealed) in the slot.
     *
     * @param timeout the bound
     * @return true once committed; false when aborted, or still not committed after {@code timeout}
     * @throws InterruptedException if interrupted while waiting
     */
    public boolean awaitCommitted(Duration timeout) throws InterruptedException {
        finished.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
        return committed;
    }

    /** @return whether this write was committed */
    public boolean committed() {
        return committed;
    }

    private void finishOnce() {
        if (done) {
            throw new IllegalStateException("write of rank " + owner + " round " + round + " already finished");
        }
        done = true;
    }

    private int finished(int crc) {
        committed = true;
        return crc;
    }

    /**
     * Marks the slot COMPLETE if the received image has the expected CRC32C; otherwise discards it.
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
        finishOnce();
        try {
            return finished(slot.commitComputed(computed, expected));
        } finally {
            finished.countDown();
        }
    }

    private int commit(Integer expected) throws IOException {
        finishOnce();
        try {
            return finished(slot.commit(expected));
        } finally {
            finished.countDown();
        }
    }

    /** Abandons the write: the slot becomes EMPTY. */
    public void abort() {
        if (!done) {
            done = true;
            slot.discard();
            finished.countDown();
        }
    }
}
