package io.jckpt.imem;

import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import net.openhft.chronicle.core.Jvm;
import net.openhft.posix.PosixAPI;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes a slot file's pages resident with one system call each instead of work per page:
 * {@code fallocate(2)} allocates the file's blocks (instead of writing zeros over them) and
 * {@code madvise(MADV_POPULATE_READ)} (Linux 5.14 and later) maps every page of a mapping (instead
 * of a read fault per page, each a trap; figures in the module README). Neither changes a byte, so
 * both are safe while the slot is in use. Where a call is not there (an older kernel, a file system
 * without fallocate, no native access) the method says so and the caller does it page by page.
 */
final class SlotPages {
    private static final Logger LOG = LoggerFactory.getLogger(SlotPages.class);
    /** {@code MADV_POPULATE_READ} in Linux's uapi/asm-generic/mman-common.h. */
    static final int MADV_POPULATE_READ = 22;
    private static final int O_RDWR = 2;
    private static final int ENOSPC = 28;
    private static final int EOPNOTSUPP = 95;
    private static final boolean LINUX = System.getProperty("os.name", "").startsWith("Linux");
    private static volatile boolean noPopulate = !LINUX;
    private static volatile boolean noAllocate = !LINUX;

    private SlotPages() {
    }

    /**
     * Allocates bytes {@code from} to {@code to} of a file.
     *
     * @param file the file
     * @param from the first byte
     * @param to   the end
     * @return whether they are allocated; false if the caller must write them itself
     * @throws IOException if the file system is full
     */
    static boolean allocate(Path file, long from, long to) throws IOException {
        if (noAllocate || to <= from) {
            return to <= from;
        }
        try {
            PosixAPI posix = Native.POSIX;
            int fd = posix.open(file.toString(), O_RDWR, 0);
            if (fd < 0) {
                return off(false, "open " + file + ": " + posix.strerror(posix.lastError()));
            }
            try {
                if (posix.fallocate(fd, 0, from, to - from) == 0) {
                    return true;
                }
                int errno = posix.lastError();
                if (errno == ENOSPC) {
                    throw new IOException(file + ": no space left for " + (to - from) + " bytes (fallocate)");
                }
                String why = "fallocate " + file + ": " + posix.strerror(errno);
                if (errno == EOPNOTSUPP) {
                    return off(false, why);
                }
                LOG.debug("{}: written instead", why);
                return false;
            } finally {
                posix.close(fd);
            }
        } catch (RuntimeException | LinkageError e) {
            return off(false, "no native fallocate: " + e);
        }
    }

    /**
     * @param mapped a mapped buffer
     * @return whether every page of it is now mapped; false if the caller must touch them itself
     */
    static boolean populate(MappedByteBuffer mapped) {
        long address;
        try {
            address = Jvm.address(mapped);
        } catch (RuntimeException | LinkageError e) {
            return false;
        }
        return populate(address, mapped.capacity());
    }

    /**
     * @param address the first byte (page-aligned, as every mapping's start is)
     * @param length  bytes to populate
     * @return whether every page is now mapped; false if the caller must touch them itself
     */
    static boolean populate(long address, long length) {
        if (noPopulate || length <= 0) {
            return length <= 0;
        }
        try {
            if (Native.POSIX.madvise(address, length, MADV_POPULATE_READ) == 0) {
                return true;
            }
            return off(true, "madvise(MADV_POPULATE_READ) failed (kernel before 5.14?)");
        } catch (RuntimeException | LinkageError e) {
            return off(true, "no native madvise: " + e);
        }
    }

    /** The native calls, loaded once; bound before their first real call. */
    private static final class Native {
        static final PosixAPI POSIX = load();

        private static PosixAPI load() {
            PosixAPI posix = PosixAPI.posix();
            // a first call of each function binds it; the errno of a first call is not kept: bind them here
            posix.fallocate(-1, 0, 0, 1);
            posix.close(-1);
            posix.strerror(posix.lastError());
            return posix;
        }
    }

    private static boolean off(boolean populate, String why) {
        if (populate) {
            noPopulate = true;
        } else {
            noAllocate = true;
        }
        LOG.debug("slot pages are made resident page by page: {}", why);
        return false;
    }
}
