package io.jckpt.policy;

import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.CkptStats;
import io.jckpt.StorageException;
import io.jckpt.data.TagRegistry;
import io.jckpt.disk.CheckpointImage;
import io.jckpt.disk.DiskCommitCoordinator;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageKey;
import io.jckpt.image.ImageWriter;
import io.jckpt.imem.ReplicaSlot;
import io.jckpt.imem.ReplicaSlotDescriptor;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.imem.ReplicaWrite;
import io.jckpt.imem.ReplicationAgent;
import io.jckpt.imem.RetainedSlot;
import io.jckpt.spi.RankContext;
import java.io.IOException;
import java.time.Duration;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.PointerBytesStore;

/**
 * here()'s write of one round, once the layout step let it be taken: the registered data as one image
 * straight into this rank's next version slot (waiting, bounded, while a disk flush still reads that
 * slot), handed to the ring agent (MAC, CRC32C and sending in the background) or, without one, to the
 * store's sealing agent (MAC and CRC32C); here() itself only copies. Every disk round the same slot is
 * also flushed in the background, once sealed, retained in its store ({@link ReplicaStore#retain}) until
 * the flusher releases it. Records once per run that a round was complete everywhere ({@link StoreLayouts}).
 */
final class RoundWriter {
    private final RankContext context;
    private final TagRegistry registry;
    private final ImageWriter writer;
    /** One reusable pointer over the slot's mapping: no allocation, no reference counting per here(). */
    private final PointerBytesStore slotView = BytesStore.nativePointer();
    private final StoreLayouts layouts;
    private final LayoutSwitcher switcher;
    private final IntervalSteps interval;
    private final Supplier<DiskCommitCoordinator> disk;
    private final CkptStatsRecorder stats;
    /** This node recorded that a round of the current run was complete on every rank. */
    private boolean completeEverywhereRecorded;

    RoundWriter(RankContext context, TagRegistry registry, StoreLayouts layouts, LayoutSwitcher switcher,
                IntervalSteps interval, Supplier<DiskCommitCoordinator> disk, CkptStatsRecorder stats, ImageKey key) {
        this.writer = new ImageWriter(key);
        this.context = context;
        this.registry = registry;
        this.layouts = layouts;
        this.switcher = switcher;
        this.interval = interval;
        this.disk = disk;
        this.stats = stats;
    }

    /** @param recorded what the open found recorded (forgotten on a clean start) */
    void completeEverywhereRecorded(boolean recorded) {
        completeEverywhereRecorded = recorded;
    }

    /** @return the length of the image of the registered data */
    long prepare() {
        return writer.prepare(registry.entries());
    }

    /** @return whether round {@code r} is a disk round under {@code options} with the disk level on */
    boolean diskRound(long r, CkptOptions options) {
        return disk.get() != null && options.diskRatio() > 0 && r % options.diskRatio() == 0;
    }

    /**
     * Writes round {@code next} (the image {@link #prepare()} measured) and hands it over.
     *
     * @param step  the program's step at this round (in the image's header and the ring's watermarks)
     * @param taken told {@code next} once the round is handed over (the checkpointer counts it then)
     * @return where the time went, the whole here() left at 0 for the caller
     */
    CkptStats.HereTimings write(long next, long length, long step, CkptOptions options, LongConsumer taken)
            throws IOException, InterruptedException {
        int rank = context.rank();
        long t0 = System.nanoTime();
        awaitReleased(options);
        ReplicationAgent agent = switcher.agent();
        ReplicaWrite write = agent != null
                ? agent.beginRound(next, length, options.hereWaitTimeout())
                : switcher.store().beginWrite(rank, next, length);
        long t1 = System.nanoTime();
        slotView.set(write.address(), write.length());
        writer.write(slotView, 0, new ImageHeader(rank, context.size(), next, context.epoch(), step));
        long t2 = System.nanoTime();
        ReplicaStore store = switcher.store();
        if (agent != null) {
            interval.offerDecision(agent, next);
            agent.offerStep(next, step);
            agent.commitRoundInBackground(write);
        } else {
            store.commitInBackground(write); // sealed (MAC, CRC32C, COMPLETE) by the store's agent
        }
        long t3 = System.nanoTime();
        taken.accept(next);
        if (!completeEverywhereRecorded && (agent != null ? agent.globalCompletedRound() >= 1
                : context.size() == 1 && store.newestComplete(rank) != null)) {
            // once per run: from now on a recovery that cannot restore declares the checkpoint lost
            layouts.recordRoundCompleteEverywhere();
            completeEverywhereRecorded = true;
        }
        if (diskRound(next, options)) {
            ReplicaSlot slot = write.slot();
            // above 2 GiB the flusher maps the slot file itself, in windows
            CheckpointImage view = slot.singleMapping() ? CheckpointImage.of(write.image())
                    : CheckpointImage.ofFileRegion(slot.fileChannel(), ReplicaSlotDescriptor.HEADER_LENGTH, write.length());
            RetainedSlot retained = store.retain(slot);
            // the flusher reads none of it before its MAC is written (a round whose MAC is not is no round)
            Duration bound = options.replicationTimeout();
            disk.get().submit(next, view.completeWhen(() -> write.awaitCommitted(bound))
                    .withRelease(() -> store.release(retained)));
            stats.recordDiskRound();
        }
        return new CkptStats.HereTimings(t1 - t0, t2 - t1, t3 - t2, 0);
    }

    /**
     * Without a ring agent the store seals this rank's rounds in the background: waits (bounded by the
     * here() wait) until the previous one is complete, before the next here() goes on.
     *
     * @param round   the current round (the one being sealed), for the error
     * @param options the options in effect
     * @throws StorageException when it is not complete in time
     */
    void awaitOwnCommitted(long round, CkptOptions options) {
        ReplicaStore store = switcher.store();
        if (switcher.agent() != null || store == null) {
            return;
        }
        try {
            if (!store.awaitCommitted(options.hereWaitTimeout())) {
                throw new StorageException(store.config().directory(), "rank " + context.rank() + ": the copy of round "
                        + round + " is still being sealed after " + options.hereWaitTimeout().toMillis() + " ms", null);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CkptException("rank " + context.rank() + ": interrupted in here() of round " + (round + 1), e);
        }
    }

    /**
     * The slot this round goes into is read by nobody: a round still being flushed from it waited for
     * (bounded). (The restored image of a recovery, which retains its slot, is settled before the first write.)
     */
    private void awaitReleased(CkptOptions options) throws InterruptedException {
        ReplicaStore store = switcher.store();
        if (store == null || !store.retainsAny()) {
            return; // nothing of this store is read from outside: no slot can be retained
        }
        ReplicaSlot next = store.nextWritable(context.rank());
        if (!store.awaitReleased(next, options.hereWaitTimeout())) {
            throw new StorageException(options.diskDirectory(), "rank " + context.rank()
                    + ": the disk flush of an earlier round is still running after "
                    + options.hereWaitTimeout().toMillis() + " ms; its memory slot cannot be reused", null);
        }
    }

    /** Frees the slot view (the checkpointer's release). */
    void release() {
        slotView.releaseLast();
    }
}
