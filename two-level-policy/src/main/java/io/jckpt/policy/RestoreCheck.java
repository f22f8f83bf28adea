package io.jckpt.policy;

import io.jckpt.UnrestoredTagsException;
import io.jckpt.data.RestoredTags;
import io.jckpt.spi.Collective;
import io.jckpt.spi.RankCollective;
import io.jckpt.wire.UnrestoredTags;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * After a recovery, the program restores its data by registering it ({@code register(tag, x)} of a tag
 * the restored checkpoint holds restores {@code x} in place) or by {@code rollback}; this class keeps the
 * tags not yet restored or removed ({@link RestoredTags}) and checks them at the first here(), ctrl()
 * or close(): one exchange ({@link Collective.Kind#RESTORE_CHECK}, each rank's missing tags, empty when
 * none), so that a tag missed on any rank fails every rank together with one {@link UnrestoredTagsException}
 * naming the ranks and tags, never a silent initial value. Then the restored image is settled (freed).
 * Only a recovery makes the exchange; whether a start is one is the same decision on every rank.
 */
final class RestoreCheck {
    private final int rank;
    private final RankCollective exchange;
    private final RestoredImage restored;
    /** The tags still to account for; null on a clean start and once checked. */
    private RestoredTags tags;

    RestoreCheck(int rank, RankCollective exchange, RestoredImage restored) {
        this.rank = rank;
        this.exchange = exchange;
        this.restored = restored;
    }

    /** End of open: a recovery to {@code round} starts the bookkeeping of the restored image's tags. */
    void opened(long round) {
        if (restored.isRecovery()) {
            tags = new RestoredTags(round, restored.tags());
        }
    }

    /** @return whether {@code tag} is in the restored checkpoint and not yet restored or removed */
    boolean pending(String tag) {
        return tags != null && tags.isPending(tag);
    }

    /** @param tag restored in place, or removed */
    void accountFor(String tag) {
        if (tags != null) {
            tags.accountFor(tag);
        }
    }

    /** @return whether the check is still to be made (a recovery, before its first here(), ctrl() or close()) */
    boolean due() {
        return tags != null;
    }

    /**
     * The check, at the start of the first here(), ctrl() or close() after a recovery (before any other
     * exchange of that call); nothing when not {@link #due()}. The image is settled either way.
     *
     * @param timeout the exchange's bound
     * @throws UnrestoredTagsException on every rank when any rank missed a tag
     */
    void run(Duration timeout) {
        if (tags == null) {
            return;
        }
        RestoredTags checked = tags;
        tags = null; // once, whatever the outcome: every rank made this exchange at the same call
        List<UnrestoredTags> all;
        try {
            all = UnrestoredTags.EXCHANGE.allgather(exchange, new UnrestoredTags(checked.pending()), checked.round(),
                    timeout);
        } finally {
            restored.settle();
        }
        Map<Integer, List<String>> missing = new TreeMap<>();
        for (int r = 0; r < all.size(); r++) {
            List<String> theirs = all.get(r).tags();
            if (!theirs.isEmpty()) {
                missing.put(r, theirs);
            }
        }
        if (!missing.isEmpty()) {
            throw new UnrestoredTagsException(rank, checked.round(), missing);
        }
    }
}
