package io.jckpt.disk;

import java.nio.file.Path;
import java.util.List;

/**
 * The coordinator refused to commit a round because not every rank's file for it is present and
 * well formed. Nothing was written; the previous committed generation stays the newest.
 */
public final class CommitRefusedException extends StableDiskException {
    private static final long serialVersionUID = 1L;
    private final transient List<String> problems;

    /**
     * @param directory the job directory
     * @param round     the round that was to be committed
     * @param problems  one line per missing or damaged rank file
     */
    public CommitRefusedException(final Path directory, final long round, final List<String> problems) {
        super(directory, "round " + round + " not committed, " + problems.size() + " rank file(s) not durable: "
            + String.join("; ", problems) + "; in directory", null);
        this.problems = List.copyOf(problems);
    }

    /**
     * @return one line per missing or damaged rank file
     */
    public List<String> problems() {
        return problems;
    }
}
