package io.jckpt;

import io.jckpt.data.DataAdapters;
import io.jckpt.data.RestoredTags;
import io.jckpt.data.SavedEntry;
import io.jckpt.data.TagRegistry;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageSeals;
import io.jckpt.image.ImageWriter;
import io.jckpt.spi.RankContext;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A single-rank test implementation over the API's own parts: each here() writes one image into a
 * native store, sealed at once, and keeps a copy of it for the job and rank in this JVM; an open whose
 * context says recovery restores from that copy. It follows the {@link Checkpointer} contract of
 * recoveries: register restores a tag of the restored checkpoint in place, and the first here(),
 * ctrl() or close() fails when a tag was neither restored nor removed (a world of one: nothing to
 * exchange). Enough to exercise the facade end to end; the real implementation is in two-level-policy.
 */
final class InMemoryCheckpointer implements Checkpointer {
    /** The newest image of each job and rank in this JVM: what a recovery restores. */
    private static final Map<String, byte[]> SAVED = new ConcurrentHashMap<>();

    private final RankContext context;
    private CkptOptions options;
    private final DataAdapters adapters;
    private final TagRegistry registry;
    private final ImageWriter writer = ImageSeals.writer();
    private BytesStore<?, ?> store;
    /** The image a recovery restored, until its first here(), ctrl() or close(); else null. */
    private BytesStore<?, ?> restoredImage;
    private ImageReader restored;
    private RestoredTags pending;
    private boolean settled;
    private long round;
    private boolean closed;

    InMemoryCheckpointer(CkptOptions options, RankContext context) {
        this.options = options;
        this.context = context;
        this.adapters = DataAdapters.create(options, context.rank());
        this.registry = new TagRegistry(adapters);
        byte[] saved = context.isRecovery() ? SAVED.get(key(context)) : null;
        if (saved != null) {
            restoredImage = BytesStore.nativeStoreWithFixedCapacity(saved.length);
            restoredImage.write(0, saved);
            restored = ImageSeals.open(restoredImage, 0);
            round = restored.round();
            pending = new RestoredTags(round, restored.entries().stream().map(SavedEntry::tag).toList());
        }
    }

    private static String key(RankContext context) {
        return context.jobId() + "/" + context.rank();
    }

    private void checkOpen(String op) {
        if (closed) {
            throw new CkptStateException(op + " on rank " + context.rank() + " after close");
        }
    }

    @Override
    public RankContext context() {
        return context;
    }

    @Override
    public CkptOptions options() {
        return options;
    }

    @Override
    public void register(String tag, Object data) {
        checkOpen("register");
        if (pending != null && pending.isPending(tag)) {
            rollback(tag, data);
            return;
        }
        registry.register(tag, data);
    }

    private long calls;
    private long lastHereCall;

    /** Only the interval policy that needs no decision: calls:N. */
    @Override
    public boolean needCheckpoint() {
        long n = options.interval().calls();
        return n > 0 && ++calls - lastHereCall >= n;
    }

    @Override
    public void here() {
        take(NO_STEP);
    }

    /** A world of one: the step is saved with the round; no other rank to compare it with. */
    @Override
    public void here(long step) {
        if (step < 0) {
            throw new IllegalArgumentException("rank " + context.rank() + ": here(step) takes the program's step,"
                    + " >= 0; got " + step);
        }
        take(step);
    }

    private void take(long step) {
        lastHereCall = calls;
        checkOpen("here");
        settle();
        long length = writer.prepare(registry.entries());
        if (store == null || store.realCapacity() < length) {
            if (store != null) {
                store.releaseLast();
            }
            store = BytesStore.nativeStoreWithFixedCapacity(Math.max(4096, length));
        }
        writer.write(store, 0, new ImageHeader(context.rank(), context.size(), ++round, context.epoch(), step));
        ImageSeals.seal(store, 0);
        byte[] copy = new byte[(int) length];
        store.read(0, copy, 0, copy.length);
        SAVED.put(key(context), copy);
    }

    /** The first here(), ctrl() or close() after a recovery: every tag restored or removed, else the error. */
    private void settle() {
        if (pending == null) {
            return;
        }
        List<String> missing = pending.pending();
        long restoredRound = pending.round();
        pending = null;
        settled = true;
        restored = null;
        restoredImage.releaseLast();
        restoredImage = null;
        if (!missing.isEmpty()) {
            throw new UnrestoredTagsException(context.rank(), restoredRound, Map.of(context.rank(), missing));
        }
    }

    @Override
    public <T> T rollback(String tag, T data) {
        checkOpen("rollback");
        T value = reader(tag).restore(tag, data, adapters);
        registry.rebind(tag, value);
        pending.accountFor(tag);
        return value;
    }

    @Override
    public <T> T rollbackObject(String tag, Class<T> type) {
        checkOpen("rollback");
        T value = reader(tag).restoreObject(tag, type, adapters);
        registry.rebind(tag, value);
        pending.accountFor(tag);
        return value;
    }

    private ImageReader reader(String tag) {
        if (settled) {
            throw new CkptStateException("rank " + context.rank() + ": rollback of '" + tag + "' after the first here(),"
                    + " ctrl() or close() of the recovery");
        }
        if (restored == null) {
            throw new NotRecoverableException("rank " + context.rank() + ": rollback of '" + tag
                    + "' but this start has no checkpoint to roll back to (isRecovery() is false)");
        }
        return restored;
    }

    @Override
    public void remove(String tag) {
        checkOpen("remove");
        if (pending != null && pending.isPending(tag)) {
            pending.accountFor(tag);
            return;
        }
        registry.remove(tag);
    }

    @Override
    public void ctrl(CtrlOptions ctrl) {
        checkOpen("ctrl");
        CkptOptions next = options.withCtrl(ctrl);
        next.validateFor(context.size());
        settle();
        options = next;
    }

    @Override
    public boolean isRecovery() {
        return context.isRecovery();
    }

    @Override
    public boolean isNewRank() {
        return context.isNewRank();
    }

    @Override
    public long round() {
        return round;
    }

    @Override
    public CkptStats stats() {
        return new CkptStats(round, round, 0, writer.preparedLength(), 0, 0, 0, 0, 0, 0, 0);
    }

    @Override
    public void close() {
        if (!closed) {
            closed = true;
            if (store != null) {
                store.releaseLast();
                store = null;
            }
            settle();
        }
    }
}
