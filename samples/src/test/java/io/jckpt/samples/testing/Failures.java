package io.jckpt.samples.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.runtime.LaunchedJob;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/** Failures injected into a job started by {@link LaunchedJob}: real signals, real files. */
public final class Failures {
    private Failures() {
    }

    /** SIGKILLs the given ranks one right after the other, and waits (bounded) until the launcher saw each die. */
    public static void kill(LaunchedJob job, int... ranks) throws InterruptedException {
        long[] pids = job.rankPids();
        for (int rank : ranks) {
            assertTrue(ProcessHandle.of(pids[rank]).map(ProcessHandle::destroyForcibly).orElse(false),
                    "rank " + rank + " (pid " + pids[rank] + ") is gone already");
        }
        for (int rank : ranks) {
            job.awaitLine("rank " + rank + " (pid " + pids[rank] + ") killed by SIGKILL", 10_000);
        }
    }

    /**
     * A node lost: the rank is frozen (SIGSTOP, so it touches nothing more), its node-local checkpoint
     * store is deleted, then it is SIGKILLed. Its re-spawned successor must get its data from a neighbour.
     */
    public static void loseNode(LaunchedJob job, int rank) throws IOException, InterruptedException {
        long pid = job.rankPids()[rank];
        Process stop = new ProcessBuilder("kill", "-STOP", Long.toString(pid)).inheritIO().start();
        assertTrue(stop.waitFor(10, TimeUnit.SECONDS), "kill -STOP did not finish");
        assertEquals(0, stop.exitValue(), "kill -STOP " + pid);
        Path store = nodeLocalStore(job.jobId()).resolve("rank-" + rank);
        assertTrue(Files.isDirectory(store), "no node-local store at " + store);
        deleteTree(store);
        kill(job, rank);
    }

    /** The job's node-local checkpoint stores (one directory per rank), where the ranks put them by default. */
    public static Path nodeLocalStore(String jobId) {
        return CkptOptions.defaultMemoryDirectory().resolve(jobId);
    }

    /** Deletes the job's node-local stores, which a finished job leaves behind (shared memory). */
    public static void deleteStores(LaunchedJob job) throws IOException {
        deleteTree(nodeLocalStore(job.jobId()));
    }

    private static void deleteTree(Path root) throws IOException {
        if (!Files.exists(root)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(root)) {
            for (Path path : (Iterable<Path>) paths.sorted(Comparator.reverseOrder())::iterator) {
                Files.deleteIfExists(path);
            }
        }
    }
}
