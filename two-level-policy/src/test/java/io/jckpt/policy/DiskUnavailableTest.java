package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.CkptOptions;
import io.jckpt.CkptStats;
import io.jckpt.DiskUnavailable;
import io.jckpt.StorageException;
import io.jckpt.spi.LocalRankCollective;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A disk directory that cannot be used (its parent is a regular file): open() fails naming it, the
 * rank and why, or with {@link DiskUnavailable#MEMORY_ONLY} the disk level is off on every rank with
 * one warning; the stats say so. Ranks as threads with real stores and sockets.
 */
class DiskUnavailableTest {
    @TempDir
    Path tmp;

    private static CkptOptions options(Path nodes, int rank, Path disk, DiskUnavailable whenUnavailable) {
        return RankGroup.options(nodes, rank, 1, disk, 2).toBuilder().diskUnavailable(whenUnavailable).build();
    }

    @Test
    void anUnusableDirectoryFailsOpenNamingItTheRankAndWhy() throws Exception {
        Path nodes = tmp.resolve("nodes");
        Path bad = Files.writeString(tmp.resolve("a-file"), "x").resolve("disk");
        Exception e = assertThrows(Exception.class, () -> RankGroup.open(3, "unusable", 0,
                r -> options(nodes, r, bad, DiskUnavailable.FAIL), r -> false));
        Throwable cause = e;
        while (!(cause instanceof StorageException) && cause.getCause() != null) {
            cause = cause.getCause();
        }
        StorageException storage = assertInstanceOf(StorageException.class, cause, e.toString());
        String message = storage.getMessage();
        assertTrue(message.startsWith(bad + ": rank "), message);
        assertTrue(message.contains("the disk directory cannot be used"), message);
        assertTrue(message.contains("Not a directory"), message);
        assertTrue(message.contains("diskUnavailable(DiskUnavailable.MEMORY_ONLY)"), message);
    }

    @Test
    void memoryOnlyTurnsTheDiskLevelOffOnEveryRankWithOneWarning() throws Exception {
        Path nodes = tmp.resolve("nodes");
        Path good = Files.createDirectories(tmp.resolve("disk"));
        Path bad = Files.writeString(tmp.resolve("a-file"), "x").resolve("disk");
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        // only rank 2 cannot use its directory: a generation needs every rank's file, so no rank writes one
        List<TwoLevelCheckpointer> world = RankGroup.open(LocalRankCollective.group(3), "memonly", 0,
                r -> options(nodes, r, r == 2 ? bad : good, DiskUnavailable.MEMORY_ONLY), r -> false,
                r -> e -> events.add(r + ": " + e.text()));
        RankGroup.parallel(3, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            long[] data = {rank};
            c.register("data", data);
            for (int k = 1; k <= 6; k++) {
                data[0] = k;
                c.here();
            }
            return null;
        });
        RankGroup.closeAll(world);
        for (TwoLevelCheckpointer c : world) {
            CkptStats s = c.stats();
            assertEquals(6, s.checkpoints());
            assertEquals(0, s.diskRatio(), "the disk level is off");
            assertEquals(0, s.diskCheckpoints());
            assertEquals(0, s.diskCommits());
            assertEquals(0, s.diskFailures());
        }
        List<String> warnings = events.stream().filter(t -> t.contains("WARNING")).toList();
        assertEquals(1, warnings.size(), events.toString());
        assertTrue(warnings.get(0).startsWith("2: WARNING: disk level off (diskUnavailable MEMORY_ONLY): the disk"
                + " directory " + bad + " cannot be used on rank 2: "), warnings.get(0));
        try (Stream<Path> written = Files.walk(good)) {
            assertFalse(written.anyMatch(p -> p.toString().endsWith(".jckpt")), "no rank file written");
        }
    }

    @Test
    void diskRatioIsZeroWithoutADiskDirectoryAndCountersCountCommits() throws Exception {
        Path nodes = tmp.resolve("nodes");
        // the default ratio (1000) but no directory: off
        List<TwoLevelCheckpointer> memoryOnly = RankGroup.open(2, "nodisk", 0,
                r -> CkptOptions.builder().replicas(1).memoryDirectory(nodes.resolve("node-" + r)).build(), r -> false);
        assertEquals(CkptOptions.DEFAULT_DISK_RATIO, CkptOptions.defaults().diskRatio());
        for (TwoLevelCheckpointer c : memoryOnly) {
            assertEquals(0, c.stats().diskRatio());
        }
        RankGroup.closeAll(memoryOnly);

        Path disk = Files.createDirectories(tmp.resolve("disk"));
        List<TwoLevelCheckpointer> world = RankGroup.open(2, "withdisk", 0,
                r -> options(nodes, r, disk, DiskUnavailable.FAIL), r -> false);
        RankGroup.parallel(2, rank -> {
            TwoLevelCheckpointer c = world.get(rank);
            long[] data = {rank};
            c.register("data", data);
            for (int k = 1; k <= 6; k++) { // rounds 2, 4, 6 go to disk
                data[0] = k;
                c.here();
            }
            return null;
        });
        RankGroup.closeAll(world);
        for (int rank = 0; rank < 2; rank++) {
            CkptStats s = world.get(rank).stats();
            assertEquals(2, s.diskRatio());
            assertEquals(0, s.diskFailures());
            assertEquals(0, s.recoveries());
            // a disk round whose flush was coalesced into the next one is not written: at most 3
            assertTrue(s.diskCheckpoints() >= 1 && s.diskCheckpoints() <= 3, s.toString());
            // rank 0 commits; the last round (6) is written by every rank before close returns
            if (rank == 0) {
                assertTrue(s.diskCommits() >= 1 && s.diskCommits() <= s.diskCheckpoints(), s.toString());
            } else {
                assertEquals(0, s.diskCommits(), s.toString());
            }
        }
    }
}
