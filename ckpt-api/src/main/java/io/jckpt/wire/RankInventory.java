package io.jckpt.wire;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * What one rank holds on stable disk: the committed generations it sees, newest first, each with the
 * integrity of its own file. Carried by the rank's {@link OpenStatus}; every rank feeds all of them to
 * the disk level's generation selector.
 *
 * <p>Wire body: job id (string), rank (int), world size (int), generation count (int), then per
 * generation round (long), marker world size (int), integrity (byte: the {@link Integrity} ordinal),
 * detail (string). At most {@link #MAX_ENTRIES} generations (the newest) and {@link #MAX_DETAIL_BYTES}
 * bytes of detail each (cut at a character).
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
    private static final int MIN_GENERATION_BYTES = 8 + 4 + 1 + 4;

    /**
     * @param jobId       the job
     * @param rank        the rank
     * @param worldSize   the world size
     * @param generations newest first; only the newest {@link #MAX_ENTRIES} are kept, each detail cut to
     *                    {@link #MAX_DETAIL_BYTES} bytes
     */
    public RankInventory {
        Objects.requireNonNull(jobId, "jobId");
        List<GenerationStatus> kept = new ArrayList<>(Math.min(generations.size(), MAX_ENTRIES));
        for (GenerationStatus g : generations.subList(0, Math.min(generations.size(), MAX_ENTRIES))) {
            String detail = cut(g.detail());
            kept.add(detail.equals(g.detail()) ? g : new GenerationStatus(g.round(), g.markerWorldSize(), g.integrity(), detail));
        }
        generations = List.copyOf(kept);
    }

    /** @return {@code detail} cut to at most {@link #MAX_DETAIL_BYTES} UTF-8 bytes, at a character */
    private static String cut(String detail) {
        if (detail.length() * 3 <= MAX_DETAIL_BYTES || detail.getBytes(StandardCharsets.UTF_8).length <= MAX_DETAIL_BYTES) {
            return detail;
        }
        int bytes = 0;
        int end = 0;
        while (end < detail.length()) {
            int cp = detail.codePointAt(end);
            int n = cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
            if (bytes + n > MAX_DETAIL_BYTES) {
                break;
            }
            bytes += n;
            end += Character.charCount(cp);
        }
        return detail.substring(0, end);
    }

    static void write(WireWriter w, RankInventory inventory) {
        w.string(inventory.jobId).i32(inventory.rank).i32(inventory.worldSize).i32(inventory.generations.size());
        for (GenerationStatus g : inventory.generations) {
            w.i64(g.round()).i32(g.markerWorldSize()).u8(g.integrity().ordinal()).string(g.detail());
        }
    }

    static RankInventory read(WireReader r) {
        String jobId = r.string("job id");
        int rank = r.i32("rank");
        int worldSize = r.i32("world size");
        int count = r.count("generations", MIN_GENERATION_BYTES);
        if (count > MAX_ENTRIES) {
            throw new WireReader.Malformed("an inventory of " + count + " generations, at most " + MAX_ENTRIES);
        }
        Integrity[] integrities = Integrity.values();
        List<GenerationStatus> generations = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            long round = r.i64("generation round");
            int markerWorldSize = r.i32("marker world size");
            int integrity = r.u8("integrity");
            if (integrity >= integrities.length) {
                throw new WireReader.Malformed("integrity code " + integrity + " of generation " + i);
            }
            generations.add(new GenerationStatus(round, markerWorldSize, integrities[integrity], r.string("detail")));
        }
        return new RankInventory(jobId, rank, worldSize, generations);
    }
}
