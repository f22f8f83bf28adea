package io.jckpt;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * After a recovery, tags of the restored checkpoint were neither restored ({@code register(tag, x)} or
 * {@code rollback(tag, x)}) nor dropped ({@code remove(tag)}) before the first here(), ctrl() or close():
 * the program would go on with those objects at their initial values, a silent wrong result. Thrown on
 * every rank together, with one message naming each rank that missed tags and the tags.
 */
public final class UnrestoredTagsException extends CkptException {
    private static final long serialVersionUID = 1L;
    private final Map<Integer, List<String>> missing;

    /**
     * @param rank    the rank that throws
     * @param round   the round the recovery restored
     * @param missing per rank that missed tags, the tags it missed (ranks without are left out)
     */
    public UnrestoredTagsException(int rank, long round, Map<Integer, List<String>> missing) {
        super(message(rank, round, missing));
        TreeMap<Integer, List<String>> copy = new TreeMap<>();
        missing.forEach((r, tags) -> copy.put(r, List.copyOf(tags)));
        this.missing = java.util.Collections.unmodifiableMap(copy);
    }

    private static String message(int rank, long round, Map<Integer, List<String>> missing) {
        List<String> parts = new ArrayList<>();
        new TreeMap<>(missing).forEach((r, tags) -> parts.add("rank " + r + ": " + quoted(tags)));
        return "rank " + rank + ": the checkpoint restored at round " + round + " holds tags that were neither"
                + " restored nor removed before the first here(), ctrl() or close() after the recovery ("
                + String.join("; ", parts) + "); restore each in place with register(tag, x) or rollback(tag, x),"
                + " or drop it with remove(tag)";
    }

    /** @return {@code 'u', 'step'} */
    static String quoted(List<String> tags) {
        StringBuilder sb = new StringBuilder();
        for (String t : tags) {
            sb.append(sb.length() == 0 ? "" : ", ").append('\'').append(t).append('\'');
        }
        return sb.toString();
    }

    /** @return per rank that missed tags, the tags it missed, by rank */
    public Map<Integer, List<String>> missing() {
        return missing;
    }
}
