package io.jckpt.disk;

import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The directory layout of the stable-disk level, described in one place.
 *
 * <pre>
 * &lt;root&gt;/&lt;jobId&gt;/                                      one directory per job, rwx------
 *     round-0000000000000001000.rank-000003.jckpt        rank 3's file of round 1000, rw-------
 *     round-0000000000000001000.rank-000003.jckpt.tmp    the same while being written
 *     round-0000000000000001000.commit                   commit marker of round 1000
 *     round-0000000000000001000.commit.tmp               the same while being written
 * </pre>
 * Every round has new names, so each atomic rename lands on a name that does not exist yet
 * (about 100x cheaper than renaming over an existing file). Rounds are zero padded so that a
 * plain listing sorts by round.
 */
public final class GenerationLayout {
    /** Suffix of a rank file. */
    public static final String RANK_FILE_SUFFIX = ".jckpt";
    /** Suffix of a commit marker. */
    public static final String MARKER_SUFFIX = ".commit";
    /** Suffix added to a name while the file is being written. */
    public static final String TEMP_SUFFIX = ".tmp";
    /** Allowed job ids: safe as one path element. */
    public static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._-]{0,63}");

    private static final Pattern RANK_FILE = Pattern.compile("round-(\\d{19})\\.rank-(\\d{6})\\.jckpt");
    private static final Pattern RANK_TEMP = Pattern.compile("round-(\\d{19})\\.rank-(\\d{6})\\.jckpt\\.tmp");
    private static final Pattern MARKER = Pattern.compile("round-(\\d{19})\\.commit");
    private static final Pattern MARKER_TEMP = Pattern.compile("round-(\\d{19})\\.commit\\.tmp");

    private final Path jobDirectory;

    /**
     * @param root  the stable-storage root directory
     * @param jobId the job id, one safe path element
     */
    public GenerationLayout(final Path root, final String jobId) {
        if (!JOB_ID.matcher(jobId).matches()) {
            throw new IllegalArgumentException("job id must match " + JOB_ID.pattern() + ": '" + jobId + "'");
        }
        this.jobDirectory = root.resolve(jobId);
    }

    /**
     * @return the job's directory
     */
    public Path jobDirectory() {
        return jobDirectory;
    }

    /**
     * @param round a round
     * @param rank  a rank
     * @return the rank's file for that round
     */
    public Path rankFile(final long round, final int rank) {
        return jobDirectory.resolve(rankFileName(round, rank));
    }

    /**
     * @param round a round
     * @param rank  a rank
     * @return the name the rank's file has while being written
     */
    public Path rankTempFile(final long round, final int rank) {
        return jobDirectory.resolve(rankFileName(round, rank) + TEMP_SUFFIX);
    }

    /**
     * @param round a round
     * @return the commit marker of that round
     */
    public Path markerFile(final long round) {
        return jobDirectory.resolve(markerFileName(round));
    }

    /**
     * @param round a round
     * @return the name the commit marker has while being written
     */
    public Path markerTempFile(final long round) {
        return jobDirectory.resolve(markerFileName(round) + TEMP_SUFFIX);
    }

    /**
     * @param round a round
     * @param rank  a rank
     * @return the file name of a rank file
     */
    public static String rankFileName(final long round, final int rank) {
        return String.format("round-%019d.rank-%06d%s", round, rank, RANK_FILE_SUFFIX);
    }

    /**
     * @param round a round
     * @return the file name of a commit marker
     */
    public static String markerFileName(final long round) {
        return String.format("round-%019d%s", round, MARKER_SUFFIX);
    }

    /**
     * @param fileName a file name
     * @param rank     the rank whose files are wanted
     * @return the round if the name is a (finished) rank file of that rank
     */
    public static OptionalLong roundOfRankFile(final String fileName, final int rank) {
        return roundIfRank(RANK_FILE.matcher(fileName), rank);
    }

    /**
     * @param fileName a file name
     * @param rank     the rank whose files are wanted
     * @return the round if the name is a temporary rank file of that rank
     */
    public static OptionalLong roundOfRankTempFile(final String fileName, final int rank) {
        return roundIfRank(RANK_TEMP.matcher(fileName), rank);
    }

    /**
     * @param fileName a file name
     * @return the round if the name is a (finished) commit marker
     */
    public static OptionalLong roundOfMarker(final String fileName) {
        final Matcher m = MARKER.matcher(fileName);
        return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    /**
     * @param fileName a file name
     * @return the round if the name is a temporary commit marker
     */
    public static OptionalLong roundOfMarkerTempFile(final String fileName) {
        final Matcher m = MARKER_TEMP.matcher(fileName);
        return m.matches() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    }

    private static OptionalLong roundIfRank(final Matcher m, final int rank) {
        if (m.matches() && Integer.parseInt(m.group(2)) == rank) {
            return OptionalLong.of(Long.parseLong(m.group(1)));
        }
        return OptionalLong.empty();
    }
}
