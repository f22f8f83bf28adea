package io.jckpt.data;

import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The tags of the checkpoint a recovery restored that the program has not yet restored ({@code register}
 * or {@code rollback}) nor dropped ({@code remove}), in the image's order. Every checkpointer keeps one
 * from open to its first here(), ctrl() or close(), where every tag must be accounted for; the
 * list of {@link #pending} is what a rank sends for that check
 * ({@link io.jckpt.wire.UnrestoredTags}). Not thread-safe.
 */
public final class RestoredTags {
    private final long round;
    private final Set<String> pending;

    /**
     * @param round the round restored
     * @param tags  the tags its image holds
     */
    public RestoredTags(long round, Collection<String> tags) {
        this.round = round;
        this.pending = new LinkedHashSet<>(tags);
    }

    /** @return the round restored */
    public long round() {
        return round;
    }

    /**
     * @param tag a tag
     * @return whether the restored checkpoint holds it and it is not yet restored or removed
     */
    public boolean isPending(String tag) {
        return tag != null && pending.contains(tag);
    }

    /** @param tag restored in place, or removed: accounted for */
    public void accountFor(String tag) {
        pending.remove(tag);
    }

    /** @return the tags not accounted for, in the image's order */
    public List<String> pending() {
        return List.copyOf(pending);
    }
}
