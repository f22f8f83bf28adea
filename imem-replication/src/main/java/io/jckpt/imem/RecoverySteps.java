package io.jckpt.imem;

/**
 * Where one rank's in-memory recovery spent its time, filled in by {@link ImemRecovery} and
 * {@link RollbackTransfer} as the steps run, on the recovering thread (the receive thread of a rank
 * that both sends and receives hands its figures over when it is joined). Times in nanoseconds.
 *
 * <p>{@link #trustVerification} chooses how the copies are checked: when the store was opened in
 * the same recovery (its copies CRC-verified then, every one or the newest per owner as
 * {@link ReplicaStore#open(ReplicaStoreConfig, ReplicaStore.Verification)} says), a copy verified at
 * open or on receipt and not written since is not read again, and the plan is first made with the
 * copies verified so far (the others are read only when that plan cannot restore). Only this
 * process writes the store (its file lock keeps others out), so the verification still holds.
 */
public final class RecoverySteps {
    final boolean trustVerification;
    long statusExchangeNanos;
    long planNanos;
    long transferNanos;
    long bytesSent;
    long bytesReceived;
    long verifyNanos;

    /**
     * @param trustVerification reuse the verification done when the store was opened in this recovery
     */
    public RecoverySteps(boolean trustVerification) {
        this.trustVerification = trustVerification;
    }

    /** @return time in the status exchange of the stores */
    public long statusExchangeNanos() {
        return statusExchangeNanos;
    }

    /** @return time computing the plan (and this rank's status for it) */
    public long planNanos() {
        return planNanos;
    }

    /** @return time of the rollback transfers (sends, and the receive verified chunk by chunk) */
    public long transferNanos() {
        return transferNanos;
    }

    /** @return image bytes sent to new ranks */
    public long bytesSent() {
        return bytesSent;
    }

    /** @return image bytes received */
    public long bytesReceived() {
        return bytesReceived;
    }

    /** @return time verifying the copies used (0 when they were verified at open or on receipt) */
    public long verifyNanos() {
        return verifyNanos;
    }
}
