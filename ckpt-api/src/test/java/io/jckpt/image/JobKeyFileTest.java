package io.jckpt.image;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.junit.jupiter.api.Assertions.*;

/** The job key file: created once, owner-only, the same key for every rank creating it at once; bad files named. */
class JobKeyFileTest {
    @TempDir
    Path dir;

    @Test
    void createdOnceOwnerOnlyAndKeptByLaterStarts() throws Exception {
        Path file = dir.resolve("disk/job-7").resolve(JobKeyFile.NAME);
        byte[] first = ImageKey.newJobKey();
        assertArrayEquals(first, JobKeyFile.readOrCreate(file, first));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file.getParent())));
        // a later start (a relaunch, a restart from disk) with another fresh key keeps the job's
        assertArrayEquals(first, JobKeyFile.readOrCreate(file, ImageKey.newJobKey()));
        try (var files = Files.list(file.getParent())) {
            assertEquals(List.of(file), files.toList(), "no temporary file left");
        }
    }

    @Test
    void ranksCreatingItAtOnceAllGetTheWinnersKey() throws Exception {
        Path file = dir.resolve(JobKeyFile.NAME);
        int n = 8;
        CyclicBarrier start = new CyclicBarrier(n);
        ExecutorService pool = Executors.newFixedThreadPool(n);
        try {
            List<Future<byte[]>> keys = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                keys.add(pool.submit(() -> {
                    start.await(10, TimeUnit.SECONDS);
                    return JobKeyFile.readOrCreate(file, ImageKey.newJobKey());
                }));
            }
            List<byte[]> got = new ArrayList<>();
            for (Future<byte[]> k : keys) {
                got.add(k.get(10, TimeUnit.SECONDS));
            }
            byte[] winner = JobKeyFile.read(file);
            for (byte[] k : got) {
                assertArrayEquals(winner, k);
            }
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aFileThatHoldsNoKeyIsNamed() throws IOException {
        Path file = dir.resolve(JobKeyFile.NAME);
        Files.writeString(file, "not hex\n");
        IOException e = assertThrows(IOException.class, () -> JobKeyFile.readOrCreate(file, ImageKey.newJobKey()));
        assertTrue(e.getMessage().startsWith("the job key file " + file + " does not hold a key in hex"), e.getMessage());
        Files.writeString(file, "00ff\n");
        e = assertThrows(IOException.class, () -> JobKeyFile.read(file));
        assertTrue(e.getMessage().contains("holds a key of 2 bytes; at least 16 are needed"), e.getMessage());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> JobKeyFile.parse("xyz", "environment variable JCKPT_JOB_KEY"));
        assertTrue(bad.getMessage().startsWith("environment variable JCKPT_JOB_KEY is not a job key in hex"), bad.getMessage());
    }
}
