package io.jckpt.imem;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.spi.Collective;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.wire.CopyStatus;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

class ReplicaStoreTest {
    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jckpt-store-test");
    }

    @AfterEach
    void tearDown() throws IOException {
        ReplicaStore.wipe(root);
    }

    static byte[] data(long seed, int len) {
        byte[] b = new byte[len];
        new Random(seed).nextBytes(b);
        return b;
    }

    static void write(ReplicaStore s, int owner, long round, byte[] bytes) {
        ReplicaWrite w = s.beginWrite(owner, round, bytes.length);
        w.image().put(bytes);
        w.commit();
    }

    static byte[] read(ReplicaSlot slot) {
        ByteBuffer img = slot.image();
        byte[] b = new byte[img.remaining()];
        img.get(b);
        return b;
    }

    @Test
    void keepsPreviousVersionAndReopensVerified() throws IOException {
        Path dir = root.resolve("job/rank-1");
        ReplicaStoreConfig cfg = new ReplicaStoreConfig(dir, 1, 4, 2, 2, 8192, 1 << 20);
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            assertTrue(s.holds(1) && s.holds(0) && s.holds(3) && !s.holds(2));
            for (long r = 1; r <= 3; r++) {
                write(s, 1, r, data(r, 5000));
                write(s, 0, r, data(100 + r, 10));
            }
            assertNull(s.find(1, 1)); // overwritten: only 2 versions
            assertEquals(2, s.find(1, 2).round());
            assertEquals(3, s.newestComplete(1).round());
            // a write in progress never replaces the newest complete version
            ReplicaWrite w = s.beginWrite(1, 4, 100);
            assertEquals(3, s.newestComplete(1).round());
            assertNull(s.find(1, 2));
            w.abort();
            assertThrows(IllegalStateException.class, () -> s.beginWrite(1, 3, 10));
            assertThrows(IllegalArgumentException.class, () -> s.beginWrite(2, 9, 10));
            assertThrows(StoreCapacityException.class, () -> s.beginWrite(1, 9, 8193));
        }
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(dir)));
        try (var files = Files.list(dir)) {
            for (Path p : files.toList()) {
                assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(p)), p.toString());
            }
        }
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            assertEquals(0, s.tornFoundAtOpen());
            assertEquals(0, s.corruptFoundAtOpen());
            List<CopyStatus> copies = s.verifiedCopies();
            assertEquals(3, copies.size()); // owner 1's round 2 slot was given to the aborted round 4
            assertTrue(copies.stream().allMatch(CopyStatus::intact));
            assertArrayEquals(data(3, 5000), read(s.find(1, 3)));
            assertArrayEquals(data(102, 10), read(s.find(0, 2)));
            assertEquals(2, s.discardNewerThan(2)); // rounds 3 of owners 0 and 1
            assertNull(s.find(1, 3));
            write(s, 1, 3, data(33, 10)); // re-executed round
        }
    }

    private static void assertArrayEquals(byte[] a, byte[] b) {
        org.junit.jupiter.api.Assertions.assertArrayEquals(a, b);
    }

    private static void flip(Path slotFile) throws IOException {
        try (RandomAccessFile f = new RandomAccessFile(slotFile.toFile(), "rw")) {
            long at = ReplicaSlotDescriptor.HEADER_LENGTH + 1234;
            f.seek(at);
            int b = f.read();
            f.seek(at);
            f.write(b ^ 0x01);
        }
    }

    @Test
    void aRecoveryOpenReadsTheNewestCopyPerOwnerAndAnOlderOneOnlyWhenAskedFor() throws IOException {
        ReplicaStoreConfig cfg = new ReplicaStoreConfig(root.resolve("lazy"), 0, 2, 1, 2, 4096, 1 << 20);
        Path own1;
        Path own2;
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            write(s, 0, 1, data(1, 3000));
            write(s, 0, 2, data(2, 3000));
            write(s, 1, 1, data(3, 2000));
            own1 = s.find(0, 1).path();
            own2 = s.find(0, 2).path();
        }
        flip(own1); // the older own version
        try (ReplicaStore s = ReplicaStore.open(cfg, ReplicaStore.Verification.NEWEST_PER_OWNER)) {
            assertEquals(0, s.corruptFoundAtOpen(), "the older version was not read");
            List<CopyStatus> sure = s.copiesVerifiedSoFar();
            assertEquals(List.of(0, 1), sure.stream().map(CopyStatus::owner).toList());
            assertEquals(List.of(2L, 1L), sure.stream().map(CopyStatus::round).toList());
            assertTrue(sure.stream().allMatch(CopyStatus::intact));
            assertEquals(2, s.newestComplete(0).round());
            assertNull(s.find(0, 1), "read when asked for, and found corrupt");
            assertTrue(s.copiesVerifiedSoFar().contains(new CopyStatus(0, 1, 3000, s.copiesAsVerified().get(0).crc32c(),
                    false)));
        }
        // the newest own version damaged too: the open falls back to the next one, which is damaged
        // (every version read, both reported corrupt); the replica stays good
        flip(own2);
        try (ReplicaStore s = ReplicaStore.open(cfg, ReplicaStore.Verification.NEWEST_PER_OWNER)) {
            assertEquals(2, s.corruptFoundAtOpen());
            assertNull(s.newestComplete(0));
            assertEquals(List.of(false, false, true), s.copiesVerifiedSoFar().stream().map(CopyStatus::intact).toList());
        }
    }

    @Test
    void aRecoveryPlansWithTheNewestCopiesFirstAndReadsTheOlderOnesOnlyWhenThoseCannotRestore() throws Exception {
        int n = 2;
        ReplicaStoreConfig[] cfg = new ReplicaStoreConfig[n];
        for (int r = 0; r < n; r++) {
            cfg[r] = new ReplicaStoreConfig(root.resolve("plan-" + r), r, n, 1, 2, 8192, 1 << 20);
        }
        // rank 1 died before its round 2: round 2 exists for rank 0 only (its own copy and nowhere else)
        try (ReplicaStore s0 = ReplicaStore.open(cfg[0]); ReplicaStore s1 = ReplicaStore.open(cfg[1])) {
            write(s0, 0, 1, data(1, 5000));
            write(s1, 1, 1, data(2, 5000));
            write(s1, 0, 1, data(1, 5000));
            write(s0, 1, 1, data(2, 5000));
            write(s0, 0, 2, data(3, 5000));
        }
        assertEquals(1, planBoth(cfg, 2), "round 1 needs rank 0's older version: a second exchange");
        // both ranks at round 2 everywhere: the first exchange restores it
        try (ReplicaStore s0 = ReplicaStore.open(cfg[0]); ReplicaStore s1 = ReplicaStore.open(cfg[1])) {
            write(s1, 1, 2, data(4, 5000));
            write(s1, 0, 2, data(3, 5000));
            write(s0, 1, 2, data(4, 5000));
        }
        assertEquals(2, planBoth(cfg, 1), "the newest copies restore: one exchange");
    }

    /** Every rank opens its store as a recovery does and plans; checks the exchanges made; returns the round. */
    private static long planBoth(ReplicaStoreConfig[] cfg, int exchangesExpected) throws Exception {
        int n = cfg.length;
        List<LocalRankCollective> exchange = LocalRankCollective.group(n);
        java.util.concurrent.ExecutorService pool = TestRing.pool("jckpt-test-plan", n);
        try {
            List<java.util.concurrent.Future<RollbackPlan>> plans = new java.util.ArrayList<>();
            for (int r = 0; r < n; r++) {
                int rank = r;
                plans.add(pool.submit(() -> {
                    try (ReplicaStore s = ReplicaStore.open(cfg[rank], ReplicaStore.Verification.NEWEST_PER_OWNER)) {
                        RollbackPlan p = ImemRecovery.plan(exchange.get(rank), Collective.of(Collective.Kind.TEST), s,
                                false, java.time.Duration.ofSeconds(10), new RecoverySteps(true));
                        assertNotNull(s.find(rank, p.round()), "rank " + rank + " holds its copy of the plan's round");
                        // both survived with their stores: each restores its own copy, no transfer
                        assertEquals(RestoreAction.Kind.LOCAL, p.action(rank).kind(), p.toString());
                        return p;
                    }
                }));
            }
            long round = TestRing.get(plans.get(0)).round();
            for (var f : plans) {
                RollbackPlan p = TestRing.get(f);
                assertTrue(p.recoverable(), p.toString());
                assertEquals(round, p.round());
            }
            assertEquals(exchangesExpected * n, exchange.stream().mapToLong(LocalRankCollective::exchanges).sum());
            return round;
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void flippedByteIsDetected() throws IOException {
        ReplicaStoreConfig cfg = new ReplicaStoreConfig(root.resolve("r0"), 0, 2, 1, 2, 4096, 1 << 20);
        Path slotFile;
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            write(s, 0, 1, data(1, 3000));
            write(s, 0, 2, data(2, 3000));
            slotFile = s.find(0, 2).path();
        }
        flip(slotFile);
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            assertEquals(1, s.corruptFoundAtOpen());
            assertNull(s.find(0, 2));
            assertEquals(1, s.newestComplete(0).round());
            List<CopyStatus> copies = s.verifiedCopies();
            assertEquals(List.of(new CopyStatus(0, 1, 3000, s.find(0, 1).crc32c(), true),
                    new CopyStatus(0, 2, 3000, copies.get(1).crc32c(), false)), copies);
            // the corrupt slot is the one reused first
            write(s, 0, 3, data(3, 10));
            assertNotNull(s.find(0, 1));
        }
        // a flipped header field is detected too
        try (RandomAccessFile f = new RandomAccessFile(slotFile.toFile(), "rw")) {
            f.seek(ReplicaSlotDescriptor.ROUND_OFFSET);
            f.write(7);
        }
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            assertEquals(1, s.corruptFoundAtOpen());
        }
    }

    @Test
    void refusesWhatDoesNotFit() throws IOException {
        StoreCapacityException e = assertThrows(StoreCapacityException.class, () -> ReplicaStore.open(
                new ReplicaStoreConfig(root.resolve("big"), 0, 4, 3, 2, 1 << 20, 4 << 20)));
        assertTrue(e.getMessage().contains("4 x 2 x"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new ReplicaStoreConfig(root, 0, 4, 4, 2, 1, 1));
        assertThrows(IllegalArgumentException.class, () -> new ReplicaStoreConfig(root, 0, 4, 1, 1, 1, 1));
        // no cap, but more than the file system holds (images above 2 GiB are fine when they fit)
        StoreCapacityException full = assertThrows(StoreCapacityException.class, () -> ReplicaStore.open(
                new ReplicaStoreConfig(root.resolve("huge"), 0, 2, 1, 2, 1L << 40, Long.MAX_VALUE)));
        assertTrue(full.getMessage().contains("free"), full.getMessage());
    }

    @Test
    void secondOpenOfTheSameRankIsRefused() throws IOException {
        ReplicaStoreConfig cfg = new ReplicaStoreConfig(root.resolve("r0"), 0, 2, 1, 2, 4096, 1 << 20);
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            assertEquals(0, s.rank());
            IOException e = assertThrows(IOException.class, () -> ReplicaStore.open(cfg));
            assertTrue(e.getMessage().contains("in use"), e.getMessage());
        }
        ReplicaStore.open(cfg).close();
    }

    private static Process startWriter(Path dir, String mode) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), TornWriteMain.class.getName(),
                dir.toString(), mode).redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    /** Reads stdout lines on a named daemon thread so the waits below are bounded. */
    static BlockingQueue<String> lines(Process p) {
        BlockingQueue<String> q = new ArrayBlockingQueue<>(1 << 16);
        Thread t = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                for (String l; (l = r.readLine()) != null; ) {
                    q.offer(l);
                }
            } catch (IOException e) {
                // the process was killed
            }
        }, "jckpt-test-writer-stdout");
        t.setDaemon(true);
        t.start();
        return q;
    }

    static void awaitLine(BlockingQueue<String> q, String want) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < deadline) {
            String l = q.poll(1, TimeUnit.SECONDS);
            if (want.equals(l)) {
                return;
            }
        }
        throw new AssertionError("writer did not print " + want + " within 30 s");
    }

    static void kill(Process p) throws InterruptedException {
        p.destroyForcibly();
        assertTrue(p.waitFor(20, TimeUnit.SECONDS), "writer did not die");
    }

    private static void assertPattern(ReplicaSlot slot) {
        ByteBuffer img = slot.image();
        assertEquals(TornWriteMain.IMAGE, img.remaining());
        for (int i = 0; i < TornWriteMain.IMAGE; i++) {
            if (img.get(i) != TornWriteMain.pattern(slot.round(), i)) {
                throw new AssertionError("round " + slot.round() + " differs at byte " + i);
            }
        }
    }

    @Test
    void killMinusNineInTheMiddleOfAWriteKeepsThePreviousVersion() throws Exception {
        Path dir = root.resolve("pause");
        Process p = startWriter(dir, "pause");
        try {
            awaitLine(lines(p), "MIDWRITE");
        } finally {
            kill(p);
        }
        try (ReplicaStore s = ReplicaStore.open(TornWriteMain.config(dir))) {
            assertEquals(1, s.tornFoundAtOpen());
            assertEquals(0, s.corruptFoundAtOpen());
            assertNull(s.find(0, 2));
            assertPattern(s.find(0, 1));
            assertEquals(List.of(1L), s.verifiedCopies().stream().map(CopyStatus::round).toList());
        }
    }

    @Test
    void killMinusNineAtARandomMomentLeavesTheNewestCommittedRoundIntact() throws Exception {
        Random rnd = new Random();
        for (int trial = 0; trial < 3; trial++) {
            Path dir = root.resolve("loop" + trial);
            Process p = startWriter(dir, "loop");
            try {
                awaitLine(lines(p), "ROUND 2");
                Thread.sleep(rnd.nextInt(40));
            } finally {
                kill(p);
            }
            try (ReplicaStore s = ReplicaStore.open(TornWriteMain.config(dir))) {
                assertEquals(0, s.corruptFoundAtOpen());
                assertTrue(s.tornFoundAtOpen() <= 1);
                ReplicaSlot newest = s.newestComplete(0);
                assertTrue(newest.round() >= 2);
                assertPattern(newest);
                ReplicaSlot previous = s.find(0, newest.round() - 1);
                if (previous != null) {
                    assertPattern(previous);
                } else {
                    assertEquals(1, s.tornFoundAtOpen());
                }
            }
        }
    }

    private static boolean preparerRunning(int rank) {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals("jckpt-store-prepare-r" + rank) && t.isAlive());
    }

    /** Allocated bytes of a file (stat's block count): a sparse hole has none. */
    static long allocatedBytes(Path f) throws Exception {
        Process p = new ProcessBuilder("stat", "-c", "%b %B", f.toString()).redirectErrorStream(true).start();
        String out;
        try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
            out = r.readLine();
        }
        assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "stat " + f + ": " + out);
        String[] parts = out.trim().split(" ");
        return Long.parseLong(parts[0]) * Long.parseLong(parts[1]);
    }

    @Test
    void newSlotFilesBeyondTheFirstOwnVersionArePreparedInTheBackgroundOrByTheirFirstWrite() throws Exception {
        int capacity = 24 << 20; // big enough that the background thread is still at work after open
        ReplicaStoreConfig cfg = new ReplicaStoreConfig(root.resolve("prep"), 3, 4, 2, 2, capacity, 1L << 30);
        byte[] own = data(1, capacity - 10);
        byte[] replica = data(2, capacity - 20);
        try (ReplicaStore s = ReplicaStore.open(cfg)) {
            // the first own version was prepared at open (where a new rank's restored image goes)
            Path first = cfg.directory().resolve("o3-v0.slot");
            assertTrue(allocatedBytes(first) >= ReplicaSlotDescriptor.fileSize(capacity), "o3-v0 allocated at open");
            // a replica and the second own version written at once, racing the background thread for
            // their slots, are stored bit-identically
            write(s, 2, 1, replica);
            write(s, 3, 1, own);
            byte[] own2 = data(5, capacity - 30);
            write(s, 3, 2, own2);
            assertEquals(3, s.verifiedCopies().size());
            assertTrue(java.util.Arrays.equals(replica, read(s.find(2, 1))));
            assertTrue(java.util.Arrays.equals(own, read(s.find(3, 1))));
            assertTrue(java.util.Arrays.equals(own2, read(s.find(3, 2))));
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (preparerRunning(3)) {
                assertTrue(System.nanoTime() < deadline, "the preparation thread did not finish");
                Thread.sleep(10);
            }
            // every slot file has its full size, allocated (not a hole: its blocks are counted)
            for (Path f : Files.list(cfg.directory()).filter(f -> f.toString().endsWith(".slot")).toList()) {
                assertEquals(ReplicaSlotDescriptor.fileSize(capacity), Files.size(f), f.toString());
                long allocated = allocatedBytes(f);
                assertTrue(allocated >= ReplicaSlotDescriptor.fileSize(capacity), f + " has only " + allocated + " bytes allocated");
            }
        }
        // a store closed while its preparation runs stops it (bounded) before unmapping
        ReplicaStore.wipe(cfg.directory());
        ReplicaStore s = ReplicaStore.open(cfg);
        s.close();
        assertFalse(preparerRunning(3));
        // reopened: every file exists with its size, the copies of before are gone with the wipe
        try (ReplicaStore again = ReplicaStore.open(cfg)) {
            assertEquals(0, again.verifiedCopies().size());
            assertFalse(preparerRunning(3));
        }
    }

    @Test
    void usableSpaceIsTheFileSystemsAndNamesAMissingDirectory() throws IOException {
        // what the capacity check compares with: the file system's own figure (a 1 MiB file written in
        // between moves both; a 64 MiB tolerance covers other writers of this shared file system)
        long viaFileStore = Files.getFileStore(root).getUsableSpace();
        long fast = ReplicaStore.usableSpace(root);
        assertTrue(fast > 0, "usable space of " + root);
        assertTrue(Math.abs(viaFileStore - fast) < (64L << 20), viaFileStore + " vs " + fast);
        Files.write(root.resolve("filler"), new byte[1 << 20]);
        assertTrue(ReplicaStore.usableSpace(root) < fast, "1 MiB written, the usable space shrinks");
        Path missing = root.resolve("no-such-dir");
        java.nio.file.NotDirectoryException e = assertThrows(java.nio.file.NotDirectoryException.class,
                () -> ReplicaStore.usableSpace(missing));
        assertTrue(e.getMessage().contains("no-such-dir"), e.getMessage());
    }
}
