package io.jckpt;

import java.util.Objects;
import java.util.OptionalInt;

/**
 * The options that may change while the program runs, through {@link Checkpointer#ctrl(CtrlOptions)}
 * (the paper's MPI_Ckpt_ctrl): the replication degree and the disk ratio. Only the options set in the
 * builder change; the others keep their value. Like every global option, a change must be made with
 * the same values on every rank: ctrl is a collective call, checked on every rank. The disk ratio
 * applies from the next here(); a new m is applied collectively at the next here() (every rank
 * switches at the same round, with no window without a complete recoverable round; see
 * {@link Checkpointer#ctrl(CtrlOptions)}).
 */
public final class CtrlOptions {
    private final Integer replicas;
    private final Integer diskRatio;
    private final IntervalPolicy interval;

    private CtrlOptions(Builder b) {
        this.replicas = b.replicas;
        this.diskRatio = b.diskRatio;
        this.interval = b.interval;
    }

    /** @return a builder that changes nothing until told */
    public static Builder builder() {
        return new Builder();
    }

    /** @return the new replication degree m, if it changes */
    public OptionalInt replicas() {
        return replicas == null ? OptionalInt.empty() : OptionalInt.of(replicas);
    }

    /** @return the new disk ratio k, if it changes */
    public OptionalInt diskRatio() {
        return diskRatio == null ? OptionalInt.empty() : OptionalInt.of(diskRatio);
    }

    /** @return the new interval policy, if it changes (from the ctrl on, on every rank at the same call) */
    public java.util.Optional<IntervalPolicy> interval() {
        return java.util.Optional.ofNullable(interval);
    }

    @Override
    public String toString() {
        java.util.StringJoiner j = new java.util.StringJoiner(", ", "CtrlOptions{", "}");
        if (replicas != null) {
            j.add("replicas=" + replicas);
        }
        if (diskRatio != null) {
            j.add("diskRatio=" + diskRatio);
        }
        if (interval != null) {
            j.add("interval=" + interval);
        }
        return j.toString();
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof CtrlOptions && Objects.equals(replicas, ((CtrlOptions) o).replicas)
                && Objects.equals(diskRatio, ((CtrlOptions) o).diskRatio)
                && Objects.equals(interval, ((CtrlOptions) o).interval);
    }

    @Override
    public int hashCode() {
        return Objects.hash(replicas, diskRatio, interval);
    }

    /** Builder of {@link CtrlOptions}; values are validated at {@link #build()}. */
    public static final class Builder {
        private Integer replicas;
        private Integer diskRatio;
        private IntervalPolicy interval;

        private Builder() {
        }

        /**
         * @param policy the new interval policy (not null); the schedule restarts from its deterministic
         *               start at the ctrl, on every rank
         * @return this builder
         */
        public Builder interval(IntervalPolicy policy) {
            this.interval = Objects.requireNonNull(policy, "policy");
            return this;
        }

        /**
         * @param m new replication degree, {@code >= 0} and {@code <= n-1}
         * @return this builder
         */
        public Builder replicas(int m) {
            this.replicas = m;
            return this;
        }

        /**
         * @param k every k-th checkpoint also goes to disk; 0 turns the disk level off
         * @return this builder
         */
        public Builder diskRatio(int k) {
            this.diskRatio = k;
            return this;
        }

        /**
         * @return the change
         * @throws InvalidOptionException when a value is out of range or nothing was set
         */
        public CtrlOptions build() {
            if (replicas == null && diskRatio == null && interval == null) {
                throw new InvalidOptionException("ctrl", "{}", "set replicas, diskRatio and/or interval; nothing would change");
            }
            if (replicas != null) {
                CkptOptions.checkReplicas(replicas);
            }
            if (diskRatio != null) {
                CkptOptions.checkDiskRatio(diskRatio);
            }
            return new CtrlOptions(this);
        }
    }
}
