package io.jckpt.disk;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A really full disk: a 1 MiB tmpfs mounted by the test (root only; skipped where mount is not
 * allowed, the injected-error variant in {@link GenerationStoreTest} covers that case).
 */
class FullDiskTest {
    @TempDir
    Path temp;
    private Path mount;
    private boolean mounted;

    @BeforeEach
    void mountSmallTmpfs() throws Exception {
        mount = Files.createDirectory(temp.resolve("tiny"));
        mounted = exec("mount", "-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs", mount.toString()) == 0;
        assumeTrue(mounted, "cannot mount a tmpfs here");
    }

    @AfterEach
    void unmount() throws Exception {
        if (mounted) {
            assertEquals(0, exec("umount", mount.toString()), "umount " + mount);
        }
    }

    @Test
    void fullDiskGivesClearErrorPreviousGenerationIntactNextRoundRetries() throws Exception {
        final Ranks ranks = new Ranks(mount, "full", 2);
        ranks.checkpoint(1, 200_000);
        final DiskWriteFailedException e = assertThrows(DiskWriteFailedException.class,
            () -> ranks.rank(0).write(2, CheckpointImage.of(TestImages.direct(2, 2 << 20))));
        assertEquals(DiskWriteFailedException.Reason.NO_SPACE, e.reason());
        assertTrue(e.getMessage().contains(ranks.rank(0).layout().rankTempFile(2, 0).toString()), e.getMessage());
        assertTrue(e.getMessage().contains("previous generations untouched"), e.getMessage());
        assertFalse(Files.exists(ranks.rank(0).layout().rankTempFile(2, 0)), "partial file removed, space given back");
        assertEquals(new DiskSelection.Restore(1, List.of()), ranks.select());
        for (int rank = 0; rank < 2; rank++) {
            assertArrayEquals(TestImages.bytes(TestImages.seed(1, rank), 200_000), TestImages.toArray(ranks.rank(rank).readImage(1)));
        }
        ranks.checkpoint(3, 100_000);
        assertEquals(3, ((DiskSelection.Restore)ranks.select()).round());
    }

    private static int exec(final String... command) throws Exception {
        final Process process = new ProcessBuilder(command).redirectErrorStream(true)
            .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        if (!process.waitFor(20, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            return -1;
        }
        return process.exitValue();
    }
}
