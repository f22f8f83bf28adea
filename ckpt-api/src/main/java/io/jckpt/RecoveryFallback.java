package io.jckpt;

/** What a recovery does when neither level holds a restorable checkpoint for every rank. */
public enum RecoveryFallback {
    /** Fail the recovery with a {@link NotRecoverableException} saying what was lost and why (default). */
    ERROR,
    /**
     * Start the program from the beginning: {@link Checkpointer#isRecovery()} reports {@code false}, so
     * the program registers its data afresh. Choose this only when recomputing is acceptable.
     */
    CLEAN_START
}
