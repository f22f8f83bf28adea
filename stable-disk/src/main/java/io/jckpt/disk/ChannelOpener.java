package io.jckpt.disk;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.OpenOption;
import java.nio.file.Path;
import java.nio.file.attribute.FileAttribute;
import java.util.Set;

/**
 * How the store opens the files it writes: {@link FileChannel#open(Path, Set, FileAttribute[])}
 * by default. A seam for fault injection (a channel that fails or stalls part way), nothing more.
 */
@FunctionalInterface
public interface ChannelOpener {
    /** The default: the platform's file channel. */
    ChannelOpener DEFAULT = FileChannel::open;

    /**
     * @param path       the file
     * @param options    open options
     * @param attributes attributes for a file being created
     * @return the open channel
     * @throws IOException as {@link FileChannel#open(Path, Set, FileAttribute[])}
     */
    FileChannel open(Path path, Set<? extends OpenOption> options, FileAttribute<?>... attributes) throws IOException;
}
