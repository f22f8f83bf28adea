package io.jckpt.policy;

import io.jckpt.CkptStateException;
import io.jckpt.CorruptImageException;
import io.jckpt.NotRecoverableException;
import io.jckpt.data.SavedEntry;
import io.jckpt.data.TagRegistry;
import io.jckpt.image.ImageKey;
import io.jckpt.image.ImageReader;
import io.jckpt.imem.ReplicaSlot;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.imem.RetainedSlot;
import io.jckpt.spi.RankEvent;
import java.util.List;
import java.util.function.Function;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.PointerBytesStore;

/**
 * The image this start restored, which every rollback(tag) reads, any tags in any order: a view of a
 * memory slot (an in-memory restore) or an off-heap copy read from the disk level. Empty ("nothing")
 * on a clean start. It is read only once its MAC verified with the job's key (by the level it came
 * from, over exactly these bytes in this process, or here) and it is this rank's image of the round
 * restored: nothing this job did not write reaches an adapter. A view retains its slot in the store
 * ({@link ReplicaStore#retain}), which then writes nothing into it (so the bytes verified stay the bytes
 * read). Once every rank has accounted for its tags (the first here(), ctrl() or close() after the
 * recovery, before anything is written) the image is {@link #settle settled}: freed, its slot given
 * back, and a later rollback is an error.
 */
final class RestoredImage {
    private final int rank;
    private final ImageKey key;
    private BytesStore<?, ?> image;
    private ImageReader reader;
    /** The store whose slot {@link #image} maps (memory restores), or null. */
    private ReplicaStore store;
    /** The retain of that slot while {@link #image} maps it, or null. */
    private RetainedSlot retained;
    private boolean recovery;
    /** Set by {@link #settle}: the image is gone, the recovery's rollbacks are over. */
    private boolean settled;
    private String from = "nothing";
    /** The restore's event without its step (read from the image when it is sent), or null. */
    private RankEvent.Restored restore;

    /**
     * @param rank this rank: whose image is restored
     * @param key  the job's image key
     */
    RestoredImage(int rank, ImageKey key) {
        this.rank = rank;
        this.key = key;
    }

    /**
     * @param restored      the image, owned from now on (released here if it is refused)
     * @param source        where it came from: {@link RankEvent.Restored#MEMORY} or {@link RankEvent.Restored#DISK}
     * @param how           a memory restore's kind ({@code LOCAL}, ...); empty from disk
     * @param round         the round restored: the image must be this rank's of that round
     * @param authenticated whether its MAC was verified with the job's key over exactly these bytes, in this
     *                      process, since they last changed (else it is verified here)
     * @throws CorruptImageException when the image is refused; no byte of it was handed to an adapter
     */
    void restore(BytesStore<?, ?> restored, String source, String how, long round, boolean authenticated) {
        RankEvent.Restored event = new RankEvent.Restored(round, source, how, io.jckpt.Checkpointer.NO_STEP);
        String from = event.from();
        ImageReader opened;
        try {
            opened = authenticated ? ImageReader.openTrusted(restored, 0) : ImageReader.open(restored, 0, key);
            if (opened.rank() != rank || opened.round() != round) {
                throw new CorruptImageException("rank " + rank + ": the image restored from " + source + " is rank "
                        + opened.rank() + "'s of round " + opened.round() + ", not this rank's of round " + round);
            }
        } catch (CorruptImageException e) {
            restored.releaseLast();
            throw new CorruptImageException("rank " + rank + ": the checkpoint of round " + round + " from " + source
                    + " is refused: " + e.getMessage());
        }
        image = restored;
        reader = opened;
        recovery = true;
        this.from = from;
        this.restore = event;
    }

    /**
     * @param slot   the restored slot: its image is read in place
     * @param holder the store holding it
     * @param how    the recovery plan's kind of restore ({@code LOCAL}, ...)
     */
    void restore(ReplicaSlot slot, ReplicaStore holder, String how) {
        // a view through the slot's contiguous mapping: any size, images above 2 GiB too
        PointerBytesStore view = BytesStore.nativePointer();
        view.set(slot.imageAddress(), slot.length());
        // a slot verified in this process (at its store's open, or as it was received) was MAC-checked then;
        // only this process writes its store
        restore(view, RankEvent.Restored.MEMORY, how, slot.round(), slot.verified() && slot.authenticates());
        store = holder;
        retained = holder.retain(slot); // nothing is written into it while this view reads it
    }

    /** @return whether there is a checkpoint to roll back to */
    boolean isRecovery() {
        return recovery;
    }

    /** @return the tags the restored image holds, in its order; empty when nothing was restored */
    List<String> tags() {
        return reader == null ? List.of() : reader.entries().stream().map(SavedEntry::tag).toList();
    }

    /** @return the program's step at the restored round ({@link io.jckpt.Checkpointer#NO_STEP} when it gave none) */
    long step() {
        return reader == null ? io.jckpt.Checkpointer.NO_STEP : reader.step();
    }

    /** @return where it came from ("memory (LOCAL)", "disk generation of round 2000", "nothing") */
    String from() {
        return from;
    }

    /** @return the recovery's event for the launcher: the round, where it came from, the program's step */
    RankEvent.Restored event() {
        if (restore == null) {
            throw new IllegalStateException("rank " + rank + ": nothing was restored");
        }
        return new RankEvent.Restored(restore.round(), restore.source(), restore.how(), step());
    }

    /**
     * A rollback: reads {@code tag} from the image and binds the tag to what was read (registered if new).
     *
     * @param rank     this rank, for the error
     * @param tag      the tag to roll back
     * @param read     how to read it (into the program's object, or as a new one)
     * @param registry the registered data
     * @return what was read
     * @throws NotRecoverableException if this start restored nothing
     * @throws CkptStateException      if the image is settled (the recovery's first here(), ctrl() or close() is past)
     */
    <T> T rollback(int rank, String tag, Function<ImageReader, T> read, TagRegistry registry) {
        if (settled) {
            throw new CkptStateException("rank " + rank + ": rollback of '" + tag + "' after the first here(), ctrl()"
                    + " or close() of the recovery, where the restored checkpoint (" + from + ") was released; restore"
                    + " every tag (register(tag, x) or rollback(tag, x)) before that call");
        }
        if (reader == null) {
            throw new NotRecoverableException("rank " + rank + ": rollback of '" + tag
                    + "' but this start has no checkpoint to roll back to (isRecovery() is false)");
        }
        T value = read.apply(reader);
        if (registry.get(tag) == null) {
            registry.register(tag, value);
        } else {
            registry.rebind(tag, value);
        }
        return value;
    }

    /** Every rank accounted for its tags: frees the image and its slot; a later rollback is an error. */
    void settle() {
        if (recovery) {
            settled = true;
            reader = null;
            release();
        }
    }

    /** Frees the image and gives back its slot (the checkpointer's release). */
    void release() {
        if (image != null) {
            image.releaseLast();
            image = null;
        }
        if (retained != null) {
            store.release(retained);
            retained = null;
        }
        store = null;
    }
}
