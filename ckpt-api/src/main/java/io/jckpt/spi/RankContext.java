package io.jckpt.spi;

import io.jckpt.CkptException;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Who this process is in the job: rank, world size, job id, epoch (how many recoveries the job has been
 * through), whether this process was re-spawned (new, no memory) and whether this start is a recovery.
 * Set by the launcher through environment variables ({@link #fromEnvironment()}), or built directly in
 * tests ({@link #builder()}). Immutable.
 */
public final class RankContext {
    /** Rank of this process, 0..size-1 (required). */
    public static final String ENV_RANK = "JCKPT_RANK";
    /** Number of ranks (required). */
    public static final String ENV_SIZE = "JCKPT_SIZE";
    /** Job id: letters, digits, '.', '_', '-'; used in file names (required). */
    public static final String ENV_JOB_ID = "JCKPT_JOB_ID";
    /** Recovery count, >= 0 (optional, default 0). */
    public static final String ENV_EPOCH = "JCKPT_EPOCH";
    /** true when this process was re-spawned after a failure (optional, default false). */
    public static final String ENV_NEW_RANK = "JCKPT_NEW_RANK";
    /** true when this start is a recovery (optional, default false). */
    public static final String ENV_RECOVERY = "JCKPT_RECOVERY";

    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

    private final int rank;
    private final int size;
    private final String jobId;
    private final int epoch;
    private final boolean newRank;
    private final boolean recovery;

    private RankContext(Builder b) {
        this.rank = b.rank;
        this.size = b.size;
        this.jobId = b.jobId;
        this.epoch = b.epoch;
        this.newRank = b.newRank;
        this.recovery = b.recovery;
    }

    /** @return a builder; rank, size and jobId must be set */
    public static Builder builder() {
        return new Builder();
    }

    /**
     * Reads the context the launcher put in the environment.
     *
     * @return the context
     * @throws CkptException naming the variable that is missing or malformed
     */
    public static RankContext fromEnvironment() {
        return fromEnvironment(System.getenv());
    }

    /**
     * Reads the context from the given variables (for tests and for launchers that pass a map).
     *
     * @param env the variables
     * @return the context
     * @throws CkptException naming the variable that is missing or malformed
     */
    public static RankContext fromEnvironment(Map<String, String> env) {
        Objects.requireNonNull(env, "env");
        Builder b = builder()
                .rank(intVar(env, ENV_RANK, null))
                .size(intVar(env, ENV_SIZE, null))
                .jobId(required(env, ENV_JOB_ID))
                .epoch(intVar(env, ENV_EPOCH, 0))
                .newRank(boolVar(env, ENV_NEW_RANK))
                .recovery(boolVar(env, ENV_RECOVERY));
        try {
            return b.build();
        } catch (CkptException e) {
            throw new CkptException("the environment set by the launcher is inconsistent: " + e.getMessage());
        }
    }

    private static String required(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            throw new CkptException("environment variable " + name + " is not set: start the program with the"
                    + " jckpt launcher (module runtime, ckpt-run), or open with an explicit RankContext");
        }
        return v.trim();
    }

    private static int intVar(Map<String, String> env, String name, Integer dflt) {
        String v = env.get(name);
        if ((v == null || v.isBlank()) && dflt != null) {
            return dflt;
        }
        v = required(env, name);
        try {
            return Integer.parseInt(v);
        } catch (NumberFormatException e) {
            throw new CkptException("environment variable " + name + "='" + v + "' is not an integer");
        }
    }

    private static boolean boolVar(Map<String, String> env, String name) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return false;
        }
        v = v.trim();
        if (v.equalsIgnoreCase("true")) {
            return true;
        }
        if (v.equalsIgnoreCase("false")) {
            return false;
        }
        throw new CkptException("environment variable " + name + "='" + v + "' must be true or false");
    }

    /** @return this process's rank, 0..size-1 */
    public int rank() {
        return rank;
    }

    /** @return the number of ranks n */
    public int size() {
        return size;
    }

    /** @return the job id (safe in file names) */
    public String jobId() {
        return jobId;
    }

    /** @return how many recoveries the job has been through */
    public int epoch() {
        return epoch;
    }

    /** @return whether this process was re-spawned and has no memory of earlier rounds */
    public boolean isNewRank() {
        return newRank;
    }

    /** @return whether this start is a recovery */
    public boolean isRecovery() {
        return recovery;
    }

    /** @return rank (i+1) mod n: where this rank's copies go */
    public int next() {
        return (rank + 1) % size;
    }

    /** @return rank (i-1+n) mod n: whose copies this rank receives */
    public int previous() {
        return (rank - 1 + size) % size;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof RankContext)) {
            return false;
        }
        RankContext x = (RankContext) o;
        return rank == x.rank && size == x.size && epoch == x.epoch && newRank == x.newRank
                && recovery == x.recovery && jobId.equals(x.jobId);
    }

    @Override
    public int hashCode() {
        return Objects.hash(rank, size, jobId, epoch, newRank, recovery);
    }

    @Override
    public String toString() {
        return "RankContext{rank=" + rank + "/" + size + ", job=" + jobId + ", epoch=" + epoch
                + (newRank ? ", new" : "") + (recovery ? ", recovery" : "") + '}';
    }

    /** Builder of {@link RankContext}, validated at {@link #build()}. */
    public static final class Builder {
        private int rank = -1;
        private int size = -1;
        private String jobId;
        private int epoch;
        private boolean newRank;
        private boolean recovery;

        private Builder() {
        }

        /**
         * @param rank 0..size-1
         * @return this builder
         */
        public Builder rank(int rank) {
            this.rank = rank;
            return this;
        }

        /**
         * @param size number of ranks, >= 1
         * @return this builder
         */
        public Builder size(int size) {
            this.size = size;
            return this;
        }

        /**
         * @param jobId letters, digits, '.', '_', '-'
         * @return this builder
         */
        public Builder jobId(String jobId) {
            this.jobId = jobId;
            return this;
        }

        /**
         * @param epoch recovery count, >= 0
         * @return this builder
         */
        public Builder epoch(int epoch) {
            this.epoch = epoch;
            return this;
        }

        /**
         * @param newRank whether the process was re-spawned
         * @return this builder
         */
        public Builder newRank(boolean newRank) {
            this.newRank = newRank;
            return this;
        }

        /**
         * @param recovery whether this start is a recovery
         * @return this builder
         */
        public Builder recovery(boolean recovery) {
            this.recovery = recovery;
            return this;
        }

        /**
         * @return the context
         * @throws CkptException naming the field (and its environment variable) that is invalid
         */
        public RankContext build() {
            if (size < 1) {
                throw new CkptException("size (" + ENV_SIZE + ")=" + size + " must be >= 1");
            }
            if (rank < 0 || rank >= size) {
                throw new CkptException("rank (" + ENV_RANK + ")=" + rank + " must be in 0.." + (size - 1));
            }
            if (jobId == null || !JOB_ID.matcher(jobId).matches()) {
                throw new CkptException("jobId (" + ENV_JOB_ID + ")=" + jobId
                        + " must be 1-128 letters, digits, '.', '_' or '-'");
            }
            if (epoch < 0) {
                throw new CkptException("epoch (" + ENV_EPOCH + ")=" + epoch + " must be >= 0");
            }
            if (newRank && !recovery) {
                throw new CkptException("newRank (" + ENV_NEW_RANK + ")=true requires recovery ("
                        + ENV_RECOVERY + ")=true: a re-spawned rank only exists in a recovery");
            }
            return new RankContext(this);
        }
    }
}
