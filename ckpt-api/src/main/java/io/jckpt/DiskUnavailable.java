package io.jckpt;

/**
 * What open() does when the disk level is on ({@link CkptOptions#diskDirectory()} set, disk ratio
 * above 0) but its directory cannot be used on some rank: it cannot be created, is not a writable
 * directory, or cannot be listed.
 */
public enum DiskUnavailable {
    /**
     * open() fails with a {@link StorageException} naming the directory, the rank and why. The
     * default: a program that asked for the disk level tolerates the loss of every node only if it
     * gets it.
     */
    FAIL,
    /**
     * The job runs with the in-memory level only: the disk level is off on every rank (one warning,
     * reported to the launcher's log), {@link CkptStats#diskRatio()} is 0 and no disk round is
     * attempted.
     */
    MEMORY_ONLY
}
