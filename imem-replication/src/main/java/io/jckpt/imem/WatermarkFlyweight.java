package io.jckpt.imem;

import static io.jckpt.imem.ReplicationFrameDescriptor.WATERMARK_DECISIONS_LENGTH;
import static io.jckpt.imem.ReplicationFrameDescriptor.WATERMARK_ENTRY_LENGTH;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * Reads and writes the payload of a WATERMARK frame ({@link ReplicationFrameDescriptor}) in place: n
 * entries of {@code WATERMARK_ENTRY_LENGTH} bytes (completed, skipped, need, and the program's steps of
 * its two newest rounds per owner rank), then the
 * decision trailer (two rounds and values). Absolute accesses at named offsets; wrapping and the
 * accessors allocate nothing and leave the buffer's position and limit alone.
 */
public final class WatermarkFlyweight {
    /** Offset of COMPLETED in an entry. */
    public static final int COMPLETED_OFFSET = 0;
    /** Offset of SKIPPED in an entry. */
    public static final int SKIPPED_OFFSET = 8;
    /** Offset of NEED in an entry. */
    public static final int NEED_OFFSET = 16;
    /** Offset of STEP_ROUND in an entry. */
    public static final int STEP_ROUND_OFFSET = 24;
    /** Offset of STEP in an entry. */
    public static final int STEP_OFFSET = 32;
    /** Offset of PREVIOUS (the step at STEP_ROUND - 1) in an entry. */
    public static final int PREVIOUS_STEP_OFFSET = 40;

    private ByteBuffer buffer;
    private int offset;
    private int ranks;

    /**
     * @param ranks n
     * @return the payload length of a WATERMARK frame for n ranks
     */
    public static int length(int ranks) {
        return ranks * WATERMARK_ENTRY_LENGTH + WATERMARK_DECISIONS_LENGTH;
    }

    /**
     * Points this flyweight at a payload.
     *
     * @param buffer a little-endian buffer
     * @param offset where the payload starts; {@link #length(int)} bytes from there must lie within the limit
     * @param ranks  n, the number of entries
     * @return this
     * @throws IllegalArgumentException if the buffer is big-endian or the payload does not fit
     */
    public WatermarkFlyweight wrap(ByteBuffer buffer, int offset, int ranks) {
        if (buffer.order() != ByteOrder.LITTLE_ENDIAN) {
            throw new IllegalArgumentException("watermarks are little-endian, the buffer is " + buffer.order());
        }
        if (ranks < 1 || offset < 0 || offset > buffer.limit() - length(ranks)) {
            throw new IllegalArgumentException("a watermark of " + ranks + " ranks at offset " + offset
                    + " does not fit a buffer limited to " + buffer.limit() + " bytes");
        }
        this.buffer = buffer;
        this.offset = offset;
        this.ranks = ranks;
        return this;
    }

    /** @return n */
    public int ranks() {
        return ranks;
    }

    private int entry(int rank) {
        if (rank < 0 || rank >= ranks) {
            throw new IndexOutOfBoundsException("rank " + rank + " of " + ranks);
        }
        return offset + rank * WATERMARK_ENTRY_LENGTH;
    }

    private int decision(int index) {
        if (index < 0 || index > 1) {
            throw new IndexOutOfBoundsException("decision " + index + " of 2");
        }
        return offset + ranks * WATERMARK_ENTRY_LENGTH + index * 16;
    }

    /**
     * @param rank the owner
     * @return its newest round known fully replicated
     */
    public long completed(int rank) {
        return buffer.getLong(entry(rank) + COMPLETED_OFFSET);
    }

    /**
     * @param rank the owner
     * @return the first round it skipped, {@code Long.MAX_VALUE} if none
     */
    public long skipped(int rank) {
        return buffer.getLong(entry(rank) + SKIPPED_OFFSET);
    }

    /**
     * @param rank the owner
     * @return the slot capacity its skipped image needs, 0 if none
     */
    public long need(int rank) {
        return buffer.getLong(entry(rank) + NEED_OFFSET);
    }

    /**
     * @param rank the owner
     * @return the newest own round it attached the program's step to, -1 if none
     */
    public long stepRound(int rank) {
        return buffer.getLong(entry(rank) + STEP_ROUND_OFFSET);
    }

    /**
     * @param rank the owner
     * @return its step at {@link #stepRound}, {@code Long.MIN_VALUE} if none
     */
    public long step(int rank) {
        return buffer.getLong(entry(rank) + STEP_OFFSET);
    }

    /**
     * @param rank the owner
     * @return its step at {@link #stepRound} - 1, {@code Long.MIN_VALUE} if not known
     */
    public long previousStep(int rank) {
        return buffer.getLong(entry(rank) + PREVIOUS_STEP_OFFSET);
    }

    /**
     * Writes one owner's entry.
     *
     * @param rank         the owner
     * @param completed    its newest round known fully replicated
     * @param skipped      the first round it skipped, {@code Long.MAX_VALUE} if none
     * @param need         the slot capacity that skipped image needs, 0 if none
     * @param stepRound    the newest own round it attached the program's step to, -1 if none
     * @param step         that step, {@code Long.MIN_VALUE} if none
     * @param previousStep its step at {@code stepRound - 1}, {@code Long.MIN_VALUE} if not known
     * @return this
     */
    public WatermarkFlyweight entry(int rank, long completed, long skipped, long need, long stepRound, long step,
                                    long previousStep) {
        int at = entry(rank);
        buffer.putLong(at + COMPLETED_OFFSET, completed).putLong(at + SKIPPED_OFFSET, skipped).putLong(at + NEED_OFFSET, need)
                .putLong(at + STEP_ROUND_OFFSET, stepRound).putLong(at + STEP_OFFSET, step)
                .putLong(at + PREVIOUS_STEP_OFFSET, previousStep);
        return this;
    }

    /**
     * @param index 0 for the newest decision, 1 for the one before
     * @return the round it was taken at, -1 if none
     */
    public long decisionRound(int index) {
        return buffer.getLong(decision(index));
    }

    /**
     * @param index 0 for the newest decision, 1 for the one before
     * @return its value
     */
    public long decisionValue(int index) {
        return buffer.getLong(decision(index) + 8);
    }

    /**
     * Writes one decision of the trailer.
     *
     * @param index 0 for the newest decision, 1 for the one before
     * @param round the round it was taken at, -1 if none
     * @param value its value
     * @return this
     */
    public WatermarkFlyweight decision(int index, long round, long value) {
        int at = decision(index);
        buffer.putLong(at, round).putLong(at + 8, value);
        return this;
    }
}
