package io.jckpt;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;

/**
 * The defaults that depend on the machine: the node-local store's directory and a rank's memory cap.
 * Each is probed once per JVM, the first time an option needs it (class initialization: lazy and
 * thread-safe), as Aeron's {@code Context.conclude()} resolves what the machine decides in one place
 * instead of at every use. The two are probed separately so that the launcher, which needs only the
 * directory, does not load the management beans.
 */
final class MachineDefaults {
    private MachineDefaults() {
    }

    /** @return {@code /dev/shm/jckpt-<user>} when /dev/shm is a writable directory, else {@code <java.io.tmpdir>/jckpt-<user>} */
    static Path memoryDirectory() {
        return StoreDirectory.PATH;
    }

    /** @return a quarter of the node's physical memory, or {@link CkptOptions#FALLBACK_MAX_MEMORY_BYTES} when it cannot be read */
    static long maxMemoryBytes() {
        return MemoryCap.BYTES;
    }

    private static final class StoreDirectory {
        static final Path PATH = probe();

        private static Path probe() {
            String user = System.getProperty("user.name", "user").replaceAll("[^A-Za-z0-9._-]", "_");
            Path shm = Paths.get("/dev/shm");
            Path base = Files.isDirectory(shm) && Files.isWritable(shm) ? shm : Paths.get(System.getProperty("java.io.tmpdir"));
            return base.resolve("jckpt-" + user);
        }
    }

    private static final class MemoryCap {
        static final long BYTES = probe();

        private static long probe() {
            try {
                if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
                    long total = os.getTotalMemorySize();
                    if (total > 0) {
                        return total / 4;
                    }
                }
            } catch (RuntimeException | LinkageError e) {
                // fall through to the documented fallback
            }
            return CkptOptions.FALLBACK_MAX_MEMORY_BYTES;
        }
    }
}
