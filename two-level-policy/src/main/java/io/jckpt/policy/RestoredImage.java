package io.jckpt.policy;

import io.jckpt.NotRecoverableException;
import io.jckpt.data.TagRegistry;
import io.jckpt.image.ImageReader;
import io.jckpt.imem.ReplicaSlot;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.imem.RetainedSlot;
import java.util.function.Function;
import net.openhft.chronicle.bytes.BytesStore;
import net.openhft.chronicle.bytes.PointerBytesStore;

/**
 * The image this start restored, which every rollback(tag) reads, any tags in any order: a view of a
 * memory slot (an in-memory restore) or an off-heap copy read from the disk level. Empty ("nothing")
 * on a clean start. A view retains its slot in the store ({@link ReplicaStore#retain}), which then
 * writes nothing into it; before the slot is written again ({@link #beforeWrite}) or its store is
 * released ({@link #detachFrom}) the image is copied off and the retain given back.
 */
final class RestoredImage {
    private BytesStore<?, ?> image;
    private ImageReader reader;
    /** The store whose slot {@link #image} maps (memory restores), or null. */
    private ReplicaStore store;
    /** The retain of that slot while {@link #image} maps it, or null. */
    private RetainedSlot retained;
    private boolean recovery;
    private String from = "nothing";

    /**
     * @param restored the image, owned from now on
     * @param source   where it came from, as {@link TwoLevelCheckpointer#restoredFrom()} says it
     */
    void restore(BytesStore<?, ?> restored, String source) {
        image = restored;
        reader = ImageReader.openTrusted(restored, 0);
        recovery = true;
        from = source;
    }

    /**
     * @param slot   the restored slot: its image is read in place
     * @param holder the store holding it
     * @param source where it came from
     */
    void restore(ReplicaSlot slot, ReplicaStore holder, String source) {
        // a view through the slot's contiguous mapping: any size, images above 2 GiB too
        PointerBytesStore view = BytesStore.nativePointer();
        view.set(slot.imageAddress(), slot.length());
        restore(view, source);
        store = holder;
        retained = holder.retain(slot); // nothing is written into it while this view reads it
    }

    /** @return whether there is a checkpoint to roll back to */
    boolean isRecovery() {
        return recovery;
    }

    /** @return where it came from ("memory (LOCAL)", "disk generation of round 2000", "nothing") */
    String from() {
        return from;
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
     */
    <T> T rollback(int rank, String tag, Function<ImageReader, T> read, TagRegistry registry) {
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

    /** Copies the image off {@code released} if it is a view of one of its slots: a rollback(tag) may still come. */
    void detachFrom(ReplicaStore released) {
        if (released != null && store == released) {
            copyOff();
        }
    }

    /**
     * Copies the image off {@code slot} of {@code writer} if it is a view of that slot, which is about
     * to be written again: a rollback(tag) may still come.
     */
    void beforeWrite(ReplicaStore writer, ReplicaSlot slot) {
        if (retained != null && store == writer && retained.slot() == slot) {
            copyOff();
        }
    }

    /** The view becomes an off-heap copy of the same image (nothing else changes); the slot's retain is given back. */
    private void copyOff() {
        BytesStore<?, ?> copy = BytesStore.nativeStoreWithFixedCapacity(image.readRemaining());
        image.copyTo(copy);
        image.releaseLast();
        image = copy;
        reader = ImageReader.openTrusted(copy, 0);
        releaseSlot();
    }

    private void releaseSlot() {
        if (retained != null) {
            store.release(retained);
            retained = null;
        }
        store = null;
    }

    /** Frees the image and gives back its slot (the checkpointer's release). */
    void release() {
        if (image != null) {
            image.releaseLast();
            image = null;
        }
        releaseSlot();
    }
}
