package io.jckpt.disk;

/**
 * What the {@link DiskFlusher} does with a disk round submitted while a flush is still running.
 * Neither policy ever blocks the submitter; the running flush is never interrupted.
 */
public enum OverlapPolicy {
    /**
     * The default. The new round waits in a single pending slot and is flushed as soon as the
     * running flush ends; if the slot already held a round that had not started, that older round
     * is dropped (released, counted in {@link FlushCounters#coalesced()}). The disk stays as fresh
     * as the disk allows; at most two images are held (the one being flushed and the pending one).
     */
    COALESCE,
    /**
     * The new round is dropped at once (released, counted in {@link FlushCounters#skipped()}); the
     * next disk round tries again. At most one image is held at any time.
     */
    SKIP
}
