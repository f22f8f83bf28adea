package io.jckpt.disk;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.ReadableByteChannel;
import java.nio.channels.WritableByteChannel;

/** A file channel that calls a hook before each write (to fail or stall it); test seam only. */
final class FaultyFileChannel extends FileChannel {
    /** Called before a write of {@code src} at {@code position}; may throw, block, or shorten src. */
    interface WriteHook {
        void beforeWrite(FileChannel delegate, ByteBuffer src, long position) throws IOException;
    }

    private final FileChannel delegate;
    private final WriteHook hook;

    FaultyFileChannel(final FileChannel delegate, final WriteHook hook) {
        this.delegate = delegate;
        this.hook = hook;
    }

    @Override
    public int write(final ByteBuffer src, final long position) throws IOException {
        hook.beforeWrite(delegate, src, position);
        return delegate.write(src, position);
    }

    @Override
    public int write(final ByteBuffer src) throws IOException {
        hook.beforeWrite(delegate, src, delegate.position());
        return delegate.write(src);
    }

    @Override
    public long write(final ByteBuffer[] srcs, final int offset, final int length) throws IOException {
        throw new UnsupportedOperationException();
    }

    @Override
    public int read(final ByteBuffer dst) throws IOException {
        return delegate.read(dst);
    }

    @Override
    public long read(final ByteBuffer[] dsts, final int offset, final int length) throws IOException {
        return delegate.read(dsts, offset, length);
    }

    @Override
    public int read(final ByteBuffer dst, final long position) throws IOException {
        return delegate.read(dst, position);
    }

    @Override
    public long position() throws IOException {
        return delegate.position();
    }

    @Override
    public FileChannel position(final long newPosition) throws IOException {
        delegate.position(newPosition);
        return this;
    }

    @Override
    public long size() throws IOException {
        return delegate.size();
    }

    @Override
    public FileChannel truncate(final long size) throws IOException {
        delegate.truncate(size);
        return this;
    }

    @Override
    public void force(final boolean metaData) throws IOException {
        delegate.force(metaData);
    }

    @Override
    public long transferTo(final long position, final long count, final WritableByteChannel target) throws IOException {
        return delegate.transferTo(position, count, target);
    }

    @Override
    public long transferFrom(final ReadableByteChannel src, final long position, final long count) throws IOException {
        throw new UnsupportedOperationException();
    }

    @Override
    public MappedByteBuffer map(final MapMode mode, final long position, final long size) throws IOException {
        return delegate.map(mode, position, size);
    }

    @Override
    public FileLock lock(final long position, final long size, final boolean shared) throws IOException {
        return delegate.lock(position, size, shared);
    }

    @Override
    public FileLock tryLock(final long position, final long size, final boolean shared) throws IOException {
        return delegate.tryLock(position, size, shared);
    }

    @Override
    protected void implCloseChannel() throws IOException {
        delegate.close();
    }
}
