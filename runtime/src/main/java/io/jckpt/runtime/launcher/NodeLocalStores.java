package io.jckpt.runtime.launcher;

import io.jckpt.CkptOptions;
import io.jckpt.imem.ReplicaStore;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where ranks keep their node-local checkpoint stores ({@code <memory directory>/<jobId>/rank-<r>}, the
 * memory directory being the job's {@code --memory-dir} / {@code JCKPT_MEMORY_DIR} or
 * {@code CkptOptions.defaultMemoryDirectory()}), for node-loss injection and for cleaning up after a
 * job. Programs that set another memory directory in their code manage it themselves.
 */
final class NodeLocalStores {
    private NodeLocalStores() {
    }

    static Path jobDirectory(String jobId) {
        return CkptOptions.defaultMemoryDirectory().resolve(jobId);
    }

    /** Deletes one rank's store (a lost node) under {@code memoryDirectory}. */
    static void wipe(Path memoryDirectory, String jobId, int rank) {
        delete(memoryDirectory.resolve(jobId).resolve("rank-" + rank));
    }

    /** Deletes every rank's store of the job under {@code memoryDirectory}. */
    static void wipeJob(Path memoryDirectory, String jobId) {
        delete(memoryDirectory.resolve(jobId));
    }

    private static void delete(Path dir) {
        try {
            ReplicaStore.wipe(dir);
        } catch (IOException e) {
            System.err.println("ckpt-run: could not delete " + dir + ": " + e.getMessage());
        }
    }
}
