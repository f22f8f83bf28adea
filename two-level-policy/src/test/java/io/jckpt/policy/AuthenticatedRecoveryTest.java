package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.KryoSerializable;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import io.jckpt.CkptException;
import io.jckpt.CkptOptions;
import io.jckpt.NotRecoverableException;
import io.jckpt.data.SavedEntry;
import io.jckpt.image.ImageKey;
import io.jckpt.image.ImageReader;
import io.jckpt.image.JobKeyFile;
import io.jckpt.imem.ReplicaStore;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankContext;
import io.jckpt.testkit.RankThreads;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Through the real checkpointer (ranks as threads, real stores, sockets and files): a checkpoint this job
 * did not write, or altered by one byte with its CRC32Cs made to fit, is refused before it is read, at
 * each level, and the recovery falls back as for a damaged copy: a survivor's own altered copy is
 * replaced by its holder's, an altered replica of a lost rank makes every rank roll back one round, a
 * disk generation written with another job's key is passed over for the job's own older one. The
 * registered object's deserialization is witnessed ({@link Witness}): no value of a refused image is
 * ever read. And the key: a restart from disk under another launcher key reads the job's key file,
 * ranks with different keys refuse to open, a program without the launcher keeps its key in a file.
 */
class AuthenticatedRecoveryTest {
    /** Every value read back by a deserialization, in order. */
    static final List<Long> READ = new CopyOnWriteArrayList<>();
    private static final Duration WAIT = Duration.ofSeconds(30);

    /** A registered object whose every deserialization is recorded: the test's witness of what was read. */
    public static final class Witness implements KryoSerializable {
        long value;

        @Override
        public void write(Kryo kryo, Output output) {
            output.writeLong(value);
        }

        @Override
        public void read(Kryo kryo, Input input) {
            value = input.readLong();
            READ.add(value);
        }
    }

    /** The witness goes through Kryo, whose read() records it (the state graph codec would restore it in place). */
    private static final io.jckpt.KryoConfigurer WITNESS_BY_KRYO = k -> k.register(Witness.class);

    @TempDir
    Path tmp;
    private Path nodes;

    @BeforeEach
    void setUp() {
        READ.clear();
        nodes = tmp.resolve("nodes");
    }

    private IntFunction<CkptOptions> options(int m, Path disk) {
        return r -> RankGroup.options(nodes, r, m, disk, disk == null ? 0 : 1).toBuilder()
                .kryoRegistrationRequired(false).kryoConfigurer(WITNESS_BY_KRYO).build();
    }

    private static long value(int rank, long round, long job) {
        return job * 100_000 + round * 100 + rank;
    }

    /** Every rank registers its witness and checkpoints rounds 1..rounds, each holding value(rank, round). */
    private static void run(List<TwoLevelCheckpointer> world, int rounds, long job) throws Exception {
        RankGroup.parallel(world.size(), rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            Witness w = new Witness();
            c.register("witness", w);
            for (int k = 1; k <= rounds; k++) {
                w.value = value(rank, k, job);
                c.here();
            }
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        RankGroup.closeAll(world);
    }

    /** Every rank of a recovered world reads its witness back; returns them by rank. */
    private static long[] rollBack(List<TwoLevelCheckpointer> world) throws Exception {
        List<Long> got = RankGroup.parallel(world.size(), rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            assertTrue(c.isRecovery(), "rank " + rank);
            return c.rollback("witness", new Witness()).value;
        });
        RankGroup.closeAll(world);
        return got.stream().mapToLong(Long::longValue).toArray();
    }

    private Path store(int rank, String job) {
        return RankThreads.node(nodes, rank).resolve(job).resolve("rank-" + rank);
    }

    /** Alters the last byte of the witness's payload (its value) in a slot, the slot's CRC32Cs made to fit. */
    private static void alterWitness(Path slot) throws Exception {
        Tampering.alterSlotImage(slot, image -> {
            SavedEntry e = ImageReader.openTrusted(BytesStore.wrap(image), 0).entry("witness");
            for (int i = 0; i < 6; i++) { // six of the value's eight bytes, whatever Kryo wrote before them
                image[(int) (e.payloadOffset() + e.byteLength() - 8 + i)] = 0x5A;
            }
        });
    }

    /** Every value deserialized since the failure is one of {@code authentic}: nothing of a refused image was read. */
    private static void assertOnlyRead(long... authentic) {
        List<Long> allowed = java.util.Arrays.stream(authentic).boxed().toList();
        assertFalse(READ.isEmpty());
        assertTrue(allowed.containsAll(READ), "a refused image was deserialized: read " + READ + ", authentic " + allowed);
    }

    @Test
    void aSurvivorsOwnAlteredCopyIsRefusedAndItsHoldersRestored() throws Exception {
        String job = "auth-own";
        run(RankGroup.open(3, job, 0, options(1, null), r -> false), 2, 1);
        alterWitness(Tampering.slotFile(store(1, job), 1, 2));
        READ.clear();
        long[] got = rollBack(RankGroup.open(3, job, 1, options(1, null), r -> false));
        for (int r = 0; r < 3; r++) {
            assertEquals(value(r, 2, 1), got[r], "rank " + r); // rank 1's from its holder, rank 2
        }
        assertOnlyRead(value(0, 2, 1), value(1, 2, 1), value(2, 2, 1));
    }

    @Test
    void anAlteredReplicaOfALostRankMakesEveryRankRollBackARound() throws Exception {
        String job = "auth-replica";
        run(RankGroup.open(3, job, 0, options(1, null), r -> false), 2, 1);
        ReplicaStore.wipe(RankThreads.node(nodes, 1)); // rank 1's node lost: its data is at rank 2 only
        alterWitness(Tampering.slotFile(store(2, job), 1, 2));
        READ.clear();
        long[] got = rollBack(RankGroup.open(3, job, 1, options(1, null), r -> r == 1));
        for (int r = 0; r < 3; r++) {
            assertEquals(value(r, 1, 1), got[r], "rank " + r + ": round 2 of rank 1 exists nowhere intact");
        }
        assertOnlyRead(value(0, 1, 1), value(1, 1, 1), value(2, 1, 1));
    }

    @Test
    void aDiskGenerationOfAnotherJobsKeyIsPassedOverForTheJobsOwn() throws Exception {
        String job = "auth-disk";
        Path disk = tmp.resolve("disk");
        run(RankGroup.open(2, job, 0, options(1, disk), r -> false), 2, 1);
        long own = newestCommitted(disk.resolve(job)); // 1 or 2: a flush may still have been running at close
        // another job of the same name (another key: its own key file) wrote round 3 elsewhere
        Path other = tmp.resolve("other-disk");
        Files.createDirectories(other.resolve(job));
        JobKeyFile.readOrCreate(other.resolve(job).resolve(JobKeyFile.NAME), ImageKey.newJobKey());
        Path otherNodes = tmp.resolve("other-nodes");
        IntFunction<CkptOptions> otherOptions = r -> RankThreads.options(otherNodes, r, 1, other, 1, 1L << 30).toBuilder()
                .kryoRegistrationRequired(false).kryoConfigurer(WITNESS_BY_KRYO).build();
        run(RankGroup.open(2, job, 0, otherOptions, r -> false), 3, 2);
        // its files copied into this job's directory: a newer generation under this job's name
        try (Stream<Path> files = Files.list(other.resolve(job))) {
            for (Path f : files.filter(p -> p.getFileName().toString().startsWith("round-0000000000000000003")).toList()) {
                Files.copy(f, disk.resolve(job).resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
        ReplicaStore.wipe(nodes); // every node lost: the disk level
        READ.clear();
        long[] got = rollBack(RankGroup.open(2, job, 1, options(1, disk), r -> true));
        for (int r = 0; r < 2; r++) {
            assertEquals(value(r, own, 1), got[r], "rank " + r);
        }
        assertOnlyRead(value(0, own, 1), value(1, own, 1)); // never job 2's (another key)
    }

    /** @return the newest round with a commit marker in a job's disk directory */
    private static long newestCommitted(Path jobDir) throws Exception {
        try (Stream<Path> files = Files.list(jobDir)) {
            return files.map(p -> p.getFileName().toString()).filter(n -> n.matches("round-\\d+\\.commit"))
                    .mapToLong(n -> Long.parseLong(n.substring("round-".length(), n.indexOf('.')))).max()
                    .orElseThrow(() -> new AssertionError("no generation committed in " + jobDir));
        }
    }

    @Test
    void aRestartFromDiskUnderAnotherLauncherKeyReadsTheJobsKeyFile() throws Exception {
        String job = "auth-restart";
        Path disk = tmp.resolve("disk");
        byte[] first = ImageKey.newJobKey();
        run(RankGroup.openWithKey(2, job, 0, options(1, disk), r -> false, first), 2, 1);
        assertTrue(Files.exists(disk.resolve(job).resolve(JobKeyFile.NAME)));
        ReplicaStore.wipe(nodes);
        // a restart elsewhere: the launcher has another key; the ranks take the job's key file
        long own = newestCommitted(disk.resolve(job));
        long[] got = rollBack(RankGroup.openWithKey(2, job, 1, options(1, disk), r -> true, ImageKey.newJobKey()));
        assertEquals(value(0, own, 1), got[0]);
        assertEquals(value(1, own, 1), got[1]);
    }

    @Test
    void aReplacedKeyFileMakesTheJobsFilesUnreadableAndTheErrorNamesEach() throws Exception {
        String job = "auth-rotated";
        Path disk = tmp.resolve("disk");
        run(RankGroup.open(2, job, 0, options(1, disk), r -> false), 2, 1);
        long own = newestCommitted(disk.resolve(job));
        ReplicaStore.wipe(nodes);
        Path file = disk.resolve(job).resolve(JobKeyFile.NAME);
        Files.delete(file);
        JobKeyFile.readOrCreate(file, ImageKey.newJobKey()); // rotated while its checkpoints are kept
        READ.clear();
        NotRecoverableException e = assertThrows(NotRecoverableException.class,
                () -> RankGroup.open(2, job, 1, options(1, disk), r -> true));
        String expected = "round " + own + ": rank 0 DAMAGED (file " + disk.resolve(job).resolve(
                String.format("round-%019d.rank-%06d.jckpt", own, 0)) + ": NOT_AUTHENTIC: rank 0's image of round " + own
                + " refused before it is read: it was written with another key";
        assertTrue(e.getMessage().contains(expected), e.getMessage());
        assertTrue(READ.isEmpty(), READ.toString());
    }

    @Test
    void memoryCopiesUnderAnotherKeyAreRefusedAndRanksWithDifferentKeysDoNotOpen() throws Exception {
        String job = "auth-memory-key";
        run(RankGroup.openWithKey(2, job, 0, options(1, null), r -> false, ImageKey.newJobKey()), 2, 1);
        // a relaunch whose launcher lost the job's key: every copy is another key's; a round was promised
        READ.clear();
        NotRecoverableException e = assertThrows(NotRecoverableException.class,
                () -> RankGroup.openWithKey(2, job, 1, options(1, null), r -> false, ImageKey.newJobKey()));
        assertTrue(e.getMessage().contains("cannot be restored"), e.getMessage());
        assertTrue(READ.isEmpty(), READ.toString());
        // two ranks with different keys refuse to open, naming them
        List<LocalRankCollective> ex = LocalRankCollective.group(2);
        byte[][] keys = {ImageKey.newJobKey(), ImageKey.newJobKey()};
        CkptException mismatch = assertThrows(CkptException.class, () -> RankGroup.parallel(2, r ->
                TwoLevelCheckpointer.open(options(1, null).apply(r), RankContext.builder().rank(r).size(2)
                        .jobId("auth-two-keys").build(), ex.get(r), new byte[32], keys[r], "127.0.0.1", null)));
        assertTrue(mismatch.getMessage().contains("every rank must use the same job key"), mismatch.getMessage());
    }

    @Test
    void withoutALauncherTheKeyIsKeptInAFileBesideTheStore() throws Exception {
        String job = "auth-alone";
        run(RankGroup.openWithKey(1, job, 0, options(0, null), r -> false, null), 2, 1);
        Path file = RankThreads.node(nodes, 0).resolve(job).resolve(JobKeyFile.NAME);
        assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
        long[] got = rollBack(RankGroup.openWithKey(1, job, 1, options(0, null), r -> false, null));
        assertEquals(value(0, 2, 1), got[0]);
        // the key file deleted (a rotation): the old checkpoint is refused, never read
        Files.delete(file);
        READ.clear();
        assertThrows(NotRecoverableException.class, () -> RankGroup.openWithKey(1, job, 2, options(0, null), r -> false, null));
        assertTrue(READ.isEmpty(), READ.toString());
    }
}
