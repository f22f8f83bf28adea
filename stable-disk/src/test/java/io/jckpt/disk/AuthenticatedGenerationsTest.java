package io.jckpt.disk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.data.DataAdapters;
import io.jckpt.data.TagRegistry;
import io.jckpt.image.CheckpointImageDescriptor;
import io.jckpt.image.ImageHeader;
import io.jckpt.image.ImageKey;
import io.jckpt.image.ImageWriter;
import io.jckpt.wire.RankInventory;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import net.openhft.chronicle.bytes.BytesStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A rank's file is trusted only when its image is authenticated with the job's key and is that rank's
 * image of that round. Files written with another job's key in the job's directory, a byte of the
 * image header, payload or MAC altered (with every CRC32C and the commit marker made to fit, as any
 * process of the same user could), or another rank's authentic image put in place are refused, naming
 * the file, the rank and the round, before a byte of them is used; the selection then restores the
 * newest generation intact on every rank, or says that none is.
 */
class AuthenticatedGenerationsTest {
    private static final ImageKey KEY = ImageKey.derive("this test job's key, 32 bytes..".getBytes(StandardCharsets.US_ASCII));
    private static final ImageKey OTHER = ImageKey.derive("another job's key, not this one!".getBytes(StandardCharsets.US_ASCII));
    private static final String JOB = "auth-job";
    private static final int WORLD = 2;
    private static final int PAYLOAD = 200_000;

    @TempDir
    Path root;

    /** Rank {@code rank}'s image of {@code round}, sealed with {@code key}. */
    private static byte[] image(final int rank, final long round, final ImageKey key) {
        final byte[] data = new byte[PAYLOAD];
        new SplittableRandom(round * 31 + rank).nextBytes(data);
        final TagRegistry reg = new TagRegistry(DataAdapters.builder().rank(rank).build());
        reg.register("data", data);
        final ImageWriter w = new ImageWriter(key);
        final byte[] image = new byte[Math.toIntExact(w.prepare(reg.entries()))];
        final BytesStore<?, byte[]> store = BytesStore.wrap(image);
        w.write(store, 0, new ImageHeader(rank, WORLD, round, 0));
        key.newMac().seal(store, 0, image.length);
        return image;
    }

    private List<GenerationStore> stores(final ImageKey key) {
        final List<GenerationStore> stores = new ArrayList<>();
        for (int rank = 0; rank < WORLD; rank++) {
            stores.add(GenerationStore.open(DiskStoreConfig.of(root, JOB, rank, WORLD).withImageKey(key)));
        }
        return stores;
    }

    /** Every rank writes its image, rank 0 commits: a generation as the job writes it. */
    private static void checkpoint(final List<GenerationStore> stores, final long round, final byte[]... images)
        throws StableDiskException {
        for (int rank = 0; rank < WORLD; rank++) {
            stores.get(rank).write(round, CheckpointImage.of(ByteBuffer.wrap(images[rank])));
        }
        stores.get(0).commit(round, WORLD);
    }

    private static DiskSelection select(final List<GenerationStore> stores) {
        final List<RankInventory> inventories = new ArrayList<>();
        for (final GenerationStore s : stores) {
            inventories.add(s.inventory());
        }
        return GenerationSelector.select(WORLD, inventories);
    }

    /** Reads rank 1's image of {@code round}: refused, and the sink never saw more than the header's chunk. */
    private static String refusedAtRead(final GenerationStore rank1, final long round) {
        final StableDiskException e = assertThrows(StableDiskException.class,
            () -> rank1.readInto(round, (offset, bytes) -> { }));
        final DiskFileCorruptException c = assertInstanceOf(DiskFileCorruptException.class, e);
        assertEquals(DiskFileDamage.NOT_AUTHENTIC, c.damage());
        assertTrue(c.getMessage().contains(rank1.layout().rankFile(round, 1).toString()), c.getMessage());
        assertTrue(c.detail().startsWith("rank 1's image of round " + round + " refused before it is read: "), c.detail());
        return c.detail();
    }

    @Test
    void aByteAlteredAnywhereWithItsChecksumsFixedIsRefusedAndTheOlderGenerationRestored() throws Exception {
        final List<GenerationStore> job = stores(KEY);
        final byte[] r1 = image(1, 1, KEY);
        checkpoint(job, 1, image(0, 1, KEY), r1);
        final byte[] good = image(1, 2, KEY);
        checkpoint(job, 2, image(0, 2, KEY), good);
        assertEquals(new DiskSelection.Restore(2, List.of()), select(job));
        final int payload = good.length / 2;
        for (final int at : new int[] {CheckpointImageDescriptor.TIMESTAMP_OFFSET, payload, good.length - 1}) {
            final byte[] altered = good.clone();
            altered[at] ^= 0x10;
            // rewritten and committed again: the file's CRC32Cs and the marker vouch for the altered bytes
            job.get(1).write(2, CheckpointImage.of(ByteBuffer.wrap(altered)));
            job.get(0).commit(2, WORLD);
            final DiskSelection selection = select(job);
            assertEquals(1, ((DiskSelection.Restore) selection).round(), "byte " + at + ": " + selection);
            final String rejected = String.join("; ", selection.rejected());
            assertTrue(rejected.startsWith("round 2: rank 1 DAMAGED (file " + job.get(1).layout().rankFile(2, 1)
                + ": NOT_AUTHENTIC: rank 1's image of round 2 refused before it is read: its MAC does not match its"
                + " bytes: it was altered after it was written (key id " + KEY.idHex() + ")"), "byte " + at + ": " + rejected);
            assertTrue(refusedAtRead(job.get(1), 2).contains("its MAC does not match"));
        }
        // the older generation reads back whole
        assertArrayEquals(r1, TestImages.toArray(job.get(1).readImage(1)));
    }

    @Test
    void filesOfAnotherJobsKeyAreRefusedByNameAndTheJobsOwnGenerationRestored() throws Exception {
        final List<GenerationStore> job = stores(KEY);
        checkpoint(job, 1, image(0, 1, KEY), image(1, 1, KEY));
        // another job (another key) wrote a newer generation into this job's directory, under its name
        final List<GenerationStore> intruder = stores(OTHER);
        checkpoint(intruder, 2, image(0, 2, OTHER), image(1, 2, OTHER));
        final DiskSelection selection = select(job);
        assertEquals(1, ((DiskSelection.Restore) selection).round(), selection.toString());
        final String rejected = String.join("; ", selection.rejected());
        assertTrue(rejected.contains("rank 0 DAMAGED") && rejected.contains("rank 1 DAMAGED")
            && rejected.contains("it was written with another key (key id " + OTHER.idHex() + "; this job's key is "
            + KEY.idHex() + "): not this job's checkpoint"), rejected);
        assertTrue(refusedAtRead(job.get(1), 2).contains("written with another key"));
        // only the other key's generations left: nothing restorable, each refusal named
        job.get(0).commit(2, WORLD); // (vouches for the intruder's files: their CRCs fit)
        final List<GenerationStore> intruderOnly = stores(OTHER);
        checkpoint(intruderOnly, 3, image(0, 3, OTHER), image(1, 3, OTHER));
        final DiskSelection none = select(job);
        assertInstanceOf(DiskSelection.NothingRestorable.class, none, none.toString());
        assertTrue(none.rejected().stream().allMatch(r -> r.contains("written with another key")), none.toString());
    }

    @Test
    void anotherRanksAuthenticImageInPlaceIsRefused() throws Exception {
        final List<GenerationStore> job = stores(KEY);
        checkpoint(job, 1, image(0, 1, KEY), image(1, 1, KEY));
        // rank 0's authentic image of round 2 written as rank 1's file of round 2
        checkpoint(job, 2, image(0, 2, KEY), image(0, 2, KEY));
        final DiskSelection selection = select(job);
        assertEquals(1, ((DiskSelection.Restore) selection).round(), selection.toString());
        assertTrue(refusedAtRead(job.get(1), 2).contains("it is rank 0's image of round 2"));
    }
}
