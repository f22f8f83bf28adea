package io.jckpt;

import io.jckpt.data.DataAdapters;
import io.jckpt.data.TagRegistry;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageReader;
import io.jckpt.image.ImageSeals;
import io.jckpt.image.ImageWriter;
import io.jckpt.spi.RankContext;
import net.openhft.chronicle.bytes.BytesStore;

/**
 * A single-rank test implementation over the API's own parts: one native store, one image, sealed at
 * once. Enough to exercise the facade end to end; the real implementation is in two-level-policy.
 */
final class InMemoryCheckpointer implements Checkpointer {
    private final RankContext context;
    private CkptOptions options;
    private final DataAdapters adapters;
    private final TagRegistry registry;
    private final ImageWriter writer = ImageSeals.writer();
    private BytesStore<?, ?> store;
    private long round;
    private boolean closed;

    InMemoryCheckpointer(CkptOptions options, RankContext context) {
        this.options = options;
        this.context = context;
        this.adapters = DataAdapters.create(options, context.rank());
        this.registry = new TagRegistry(adapters);
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
        lastHereCall = calls;
        checkOpen("here");
        long length = writer.prepare(registry.entries());
        if (store == null || store.realCapacity() < length) {
            if (store != null) {
                store.releaseLast();
            }
            store = BytesStore.nativeStoreWithFixedCapacity(Math.max(4096, length));
        }
        writer.write(store, 0, new ImageHeader(context.rank(), context.size(), ++round, context.epoch()));
        ImageSeals.seal(store, 0);
    }

    @Override
    public <T> T rollback(String tag, T data) {
        checkOpen("rollback");
        T restored = reader().restore(tag, data, adapters);
        registry.rebind(tag, restored);
        return restored;
    }

    @Override
    public <T> T rollbackObject(String tag, Class<T> type) {
        checkOpen("rollback");
        T restored = reader().restoreObject(tag, type, adapters);
        registry.rebind(tag, restored);
        return restored;
    }

    private ImageReader reader() {
        if (store == null) {
            throw new NotRecoverableException("rank " + context.rank() + " has no checkpoint: here() was never called");
        }
        return ImageSeals.open(store, 0);
    }

    @Override
    public void remove(String tag) {
        checkOpen("remove");
        registry.remove(tag);
    }

    @Override
    public void ctrl(CtrlOptions ctrl) {
        checkOpen("ctrl");
        CkptOptions next = options.withCtrl(ctrl);
        next.validateFor(context.size());
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
        }
    }
}
