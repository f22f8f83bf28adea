package io.jckpt.spi;

import io.jckpt.CkptException;

import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Who this process is in the job. Set by the launcher through environment variables
 * ({@link #fromEnvironment()}; the names are the {@code ENV_*} constants, which the runtime's
 * {@code RankEnvironment} shares), or built directly in tests ({@link #builder()}). The constructor
 * validates, naming the field and its environment variable.
 *
 * @param rank     this process's rank, 0..size-1
 * @param size     the number of ranks n, {@code >= 1}
 * @param jobId    the job id: 1-128 letters, digits, '.', '_' or '-' (used in file names)
 * @param epoch    how many recoveries the job has been through, {@code >= 0}
 * @param newRank  whether this process was re-spawned and has no memory of earlier rounds (only in a recovery)
 * @param recovery whether this start is a recovery
 * @param ring     the order of the ranks on the replication ring, of {@code size} ranks ({@code null} in the
 *                 constructor means the {@linkplain RingOrder#identity(int) identity}); the same for the job's life
 */
public record RankContext(int rank, int size, String jobId, int epoch, boolean newRank, boolean recovery,
                          RingOrder ring) {
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
    /** The replication ring's order, {@link RingOrder#text()} form (optional, default the identity). */
    public static final String ENV_RING_ORDER = RingOrder.ENV_RING_ORDER;
    /**
     * The job's key in hex (optional; never logged): checkpoints are authenticated with a key derived from
     * it. The launcher sets it; a program run without the launcher may; else the job's key file is used
     * ({@code docs/design.md}, "Authenticated checkpoints").
     */
    public static final String ENV_JOB_KEY = "JCKPT_JOB_KEY";

    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9._-]{1,128}");

    /**
     * Validates the fields.
     *
     * @throws CkptException naming the field (and its environment variable) that is invalid
     */
    public RankContext {
        if (size < 1) {
            throw new CkptException("size (" + ENV_SIZE + ")=" + size + " must be >= 1");
        }
        if (rank < 0 || rank >= size) {
            throw new CkptException("rank (" + ENV_RANK + ")=" + rank + " must be in 0.." + (size - 1));
        }
        if (jobId == null || !JOB_ID.matcher(jobId).matches()) {
            throw new CkptException("jobId (" + ENV_JOB_ID + ")=" + jobId + " must be 1-128 letters, digits, '.', '_' or '-'");
        }
        if (epoch < 0) {
            throw new CkptException("epoch (" + ENV_EPOCH + ")=" + epoch + " must be >= 0");
        }
        if (newRank && !recovery) {
            throw new CkptException("newRank (" + ENV_NEW_RANK + ")=true requires recovery (" + ENV_RECOVERY
                    + ")=true: a re-spawned rank only exists in a recovery");
        }
        if (ring == null) {
            ring = RingOrder.identity(size);
        } else if (ring.size() != size) {
            throw new CkptException("ring (" + ENV_RING_ORDER + ")=" + ring.text() + " orders " + ring.size()
                    + " ranks, but size (" + ENV_SIZE + ")=" + size);
        }
    }

    /**
     * A context on the identity ring (rank order).
     *
     * @throws CkptException naming the field (and its environment variable) that is invalid
     */
    public RankContext(int rank, int size, String jobId, int epoch, boolean newRank, boolean recovery) {
        this(rank, size, jobId, epoch, newRank, recovery, null);
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
     * Reads the context from the given variables (for tests and for launchers that pass a map): rank, size
     * and job id are required, epoch (0), new rank and recovery (false) and the ring order (the identity)
     * optional; booleans are true or false.
     *
     * @param env the variables
     * @return the context
     * @throws CkptException naming the variable that is missing or malformed
     */
    public static RankContext fromEnvironment(Map<String, String> env) {
        Objects.requireNonNull(env, "env");
        int rank = intVar(env, ENV_RANK, null);
        int size = intVar(env, ENV_SIZE, null);
        String jobId = required(env, ENV_JOB_ID);
        int epoch = intVar(env, ENV_EPOCH, 0);
        boolean newRank = boolVar(env, ENV_NEW_RANK);
        boolean recovery = boolVar(env, ENV_RECOVERY);
        RingOrder ring = null;
        String ringText = env.get(ENV_RING_ORDER);
        if (ringText != null && !ringText.isBlank()) {
            try {
                ring = RingOrder.parse(ringText.trim());
            } catch (IllegalArgumentException e) {
                throw new CkptException("environment variable " + ENV_RING_ORDER + "='" + ringText + "' is not a ring order: "
                        + e.getMessage());
            }
        }
        try {
            return new RankContext(rank, size, jobId, epoch, newRank, recovery, ring);
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
        if (v.equalsIgnoreCase("true") || v.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(v);
        }
        throw new CkptException("environment variable " + name + "='" + v + "' must be true or false");
    }

    /** @return whether this process was re-spawned and has no memory of earlier rounds */
    public boolean isNewRank() {
        return newRank;
    }

    /** @return whether this start is a recovery */
    public boolean isRecovery() {
        return recovery;
    }

    /** @return the next rank on the replication ring: where this rank's copies go ((i+1) mod n on the identity) */
    public int next() {
        return ring.next(rank);
    }

    /** @return the previous rank on the ring: whose copies this rank receives ((i-1+n) mod n on the identity) */
    public int previous() {
        return ring.previous(rank);
    }

    /** Builder of {@link RankContext}; each method sets the field of the same name, validated at {@link #build()}. */
    public static final class Builder {
        private int rank = -1;
        private int size = -1;
        private String jobId;
        private int epoch;
        private boolean newRank;
        private boolean recovery;
        private RingOrder ring;

        private Builder() {
        }

        /** Sets {@link RankContext#rank()}. */
        public Builder rank(int rank) {
            this.rank = rank;
            return this;
        }

        /** Sets {@link RankContext#size()}. */
        public Builder size(int size) {
            this.size = size;
            return this;
        }

        /** Sets {@link RankContext#jobId()}. */
        public Builder jobId(String jobId) {
            this.jobId = jobId;
            return this;
        }

        /** Sets {@link RankContext#epoch()} (default 0). */
        public Builder epoch(int epoch) {
            this.epoch = epoch;
            return this;
        }

        /** Sets {@link RankContext#newRank()} (default false). */
        public Builder newRank(boolean newRank) {
            this.newRank = newRank;
            return this;
        }

        /** Sets {@link RankContext#recovery()} (default false). */
        public Builder recovery(boolean recovery) {
            this.recovery = recovery;
            return this;
        }

        /** Sets {@link RankContext#ring()} (default, or {@code null}: the identity). */
        public Builder ring(RingOrder ring) {
            this.ring = ring;
            return this;
        }

        /**
         * @return the context
         * @throws CkptException naming the field (and its environment variable) that is invalid
         */
        public RankContext build() {
            return new RankContext(rank, size, jobId, epoch, newRank, recovery, ring);
        }
    }
}
