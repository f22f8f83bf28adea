package io.jckpt.disk;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * What one rank holds on stable disk: the committed generations it sees, newest first, each with
 * the integrity of its own file. The ranks exchange their inventories (an allgather by the caller,
 * through {@link #encode()} and {@link #decode(byte[])}) and each feeds all of them to
 * {@link GenerationSelector#select(int, java.util.Collection)}.
 *
 * <p>Encoding (little-endian): magic "JCKI" int, version int, rank int, world size int, job id
 * length int, job id bytes, entry count int, then per entry: round long, marker world size int,
 * integrity ordinal byte, detail length short, detail UTF-8 bytes. At most {@link #MAX_ENTRIES}
 * entries and {@link #MAX_DETAIL_BYTES} of detail each, so an encoding never exceeds
 * {@link #MAX_ENCODED_LENGTH} (a fixed-size slot for an allgather).
 *
 * @param jobId       the job
 * @param rank        the reporting rank
 * @param worldSize   the world size of the run that reports (not of the files)
 * @param generations the committed generations seen, newest first
 */
public record RankInventory(String jobId, int rank, int worldSize, List<GenerationStatus> generations) {
    /** Most generations an inventory carries (the newest ones). */
    public static final int MAX_ENTRIES = 8;
    /** Most bytes of detail per generation. */
    public static final int MAX_DETAIL_BYTES = 400;
    /** Upper bound of {@link #encode()}'s length. */
    public static final int MAX_ENCODED_LENGTH =
        6 * Integer.BYTES + DiskFileDescriptor.JOB_ID_MAX_LENGTH + MAX_ENTRIES * (8 + 4 + 1 + 2 + MAX_DETAIL_BYTES);
    private static final int MAGIC = 0x494B434A;
    private static final int VERSION = 1;

    /**
     * @param jobId       the job
     * @param rank        the rank
     * @param worldSize   the world size
     * @param generations newest first; only the newest {@link #MAX_ENTRIES} are kept
     */
    public RankInventory {
        generations = List.copyOf(generations.size() > MAX_ENTRIES ? generations.subList(0, MAX_ENTRIES) : generations);
    }

    /**
     * @return the inventory as bytes, at most {@link #MAX_ENCODED_LENGTH}
     */
    public byte[] encode() {
        final ByteBuffer b = ByteBuffer.allocate(MAX_ENCODED_LENGTH).order(ByteOrder.LITTLE_ENDIAN);
        final byte[] job = jobId.getBytes(StandardCharsets.UTF_8);
        b.putInt(MAGIC).putInt(VERSION).putInt(rank).putInt(worldSize).putInt(job.length).put(job);
        b.putInt(generations.size());
        for (final GenerationStatus g : generations) {
            byte[] detail = g.detail().getBytes(StandardCharsets.UTF_8);
            if (detail.length > MAX_DETAIL_BYTES) {
                detail = Arrays.copyOf(detail, MAX_DETAIL_BYTES);
            }
            b.putLong(g.round()).putInt(g.markerWorldSize()).put((byte)g.integrity().ordinal())
                .putShort((short)detail.length).put(detail);
        }
        return Arrays.copyOf(b.array(), b.position());
    }

    /**
     * @param bytes an encoding made by {@link #encode()}, possibly followed by padding
     * @return the inventory
     * @throws IllegalArgumentException if the bytes are not an inventory
     */
    public static RankInventory decode(final byte[] bytes) {
        try {
            final ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            if (b.getInt() != MAGIC || b.getInt() != VERSION) {
                throw new IllegalArgumentException("not a stable-disk inventory (bad magic or version)");
            }
            final int rank = b.getInt();
            final int worldSize = b.getInt();
            final byte[] job = new byte[b.getInt()];
            b.get(job);
            final int count = b.getInt();
            if (count < 0 || count > MAX_ENTRIES) {
                throw new IllegalArgumentException("inventory with " + count + " entries");
            }
            final List<GenerationStatus> gens = new ArrayList<>(count);
            final Integrity[] values = Integrity.values();
            for (int i = 0; i < count; i++) {
                final long round = b.getLong();
                final int markerWorldSize = b.getInt();
                final Integrity integrity = values[b.get()];
                final byte[] detail = new byte[b.getShort()];
                b.get(detail);
                gens.add(new GenerationStatus(round, markerWorldSize, integrity, new String(detail, StandardCharsets.UTF_8)));
            }
            return new RankInventory(new String(job, StandardCharsets.UTF_8), rank, worldSize, gens);
        } catch (final BufferUnderflowException | IndexOutOfBoundsException | NegativeArraySizeException e) {
            throw new IllegalArgumentException("truncated or malformed stable-disk inventory", e);
        }
    }
}
