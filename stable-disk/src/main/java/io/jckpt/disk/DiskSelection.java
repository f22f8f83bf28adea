package io.jckpt.disk;

import java.util.List;

/**
 * The outcome of {@link GenerationSelector#select}: either the round every rank restores from, or
 * the fact that nothing on disk is restorable (a result for the policy to act on: clean start or
 * error), each with the reasons why newer generations were passed over.
 */
public sealed interface DiskSelection permits DiskSelection.Restore, DiskSelection.NothingRestorable {

    /**
     * @return one line per newer generation that was passed over, and why
     */
    List<String> rejected();

    /**
     * Restore every rank from this round.
     *
     * @param round    the chosen round, committed and intact on all ranks
     * @param rejected newer generations passed over, and why
     */
    record Restore(long round, List<String> rejected) implements DiskSelection {
        /**
         * @param round    round
         * @param rejected reasons
         */
        public Restore {
            rejected = List.copyOf(rejected);
        }
    }

    /**
     * No generation is committed and intact on all ranks.
     *
     * @param reason   a one-line summary
     * @param rejected every generation seen, and why it was refused
     */
    record NothingRestorable(String reason, List<String> rejected) implements DiskSelection {
        /**
         * @param reason   summary
         * @param rejected reasons
         */
        public NothingRestorable {
            rejected = List.copyOf(rejected);
        }
    }
}
