package io.jckpt.runtime.launcher;

import io.jckpt.CkptOptions;
import io.jckpt.imem.ReplicaStore;
import java.io.IOException;
import java.nio.file.Path;

/**
 * Where ranks keep their node-local checkpoint stores by default
 * ({@code CkptOptions.defaultMemoryDirectory()/<jobId>/rank-<r>}), for node-loss injection and for
 * cleaning up after a job. Programs that set another memory directory manage it themselves.
 */
final class NodeLocalStores {
    private NodeLocalStores() {
    }

    static Path jobDirectory(String jobId) {
        return CkptOptions.defaultMemoryDirectory().resolve(jobId);
    }

    /** Deletes one rank's store (a lost node). */
    static void wipe(String jobId, int rank) {
        delete(jobDirectory(jobId).resolve("rank-" + rank));
    }

    /** Deletes every rank's store of the job. */
    static void wipeJob(String jobId) {
        delete(jobDirectory(jobId));
    }

    private static void delete(Path dir) {
        try {
            ReplicaStore.wipe(dir);
        } catch (IOException e) {
            System.err.println("ckpt-run: could not delete " + dir + ": " + e.getMessage());
        }
    }
}
