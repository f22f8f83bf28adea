package io.jckpt.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.imem.ReplicaStore;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankEvent;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The events a rank's checkpointer sends the launcher are typed: a disk commit, a restore (from memory
 * with its kind, from disk, with the program's step), a restart from the beginning and the totals at close
 * arrive as their records with the values the run had, not as lines to parse. Ranks as threads with real
 * stores, sockets and a disk level; a node loss and then every node's loss.
 */
class EmittedRankEventsTest {
    private static final int N = 3;
    private static final Duration WAIT = Duration.ofSeconds(30);

    @TempDir
    Path tmp;

    /** Each rank's events, in the order it sent them. */
    private static List<List<RankEvent>> sinks() {
        List<List<RankEvent>> sinks = new ArrayList<>();
        for (int r = 0; r < N; r++) {
            sinks.add(Collections.synchronizedList(new ArrayList<>()));
        }
        return sinks;
    }

    private static <T extends RankEvent> List<T> of(List<RankEvent> events, Class<T> type) {
        synchronized (events) {
            return events.stream().filter(type::isInstance).map(type::cast).toList();
        }
    }

    @Test
    void commitsRestoresAndTotalsArriveAsTheirRecords() throws Exception {
        Path nodes = tmp.resolve("nodes");
        Path disk = Files.createDirectories(tmp.resolve("disk"));
        String job = "typed-events";
        List<List<RankEvent>> world0Events = sinks();
        CountDownLatch committedRound4 = new CountDownLatch(1);
        List<TwoLevelCheckpointer> world0 = RankGroup.open(LocalRankCollective.group(N), job, 0,
                r -> RankGroup.options(nodes, r, 1, disk, 2), r -> false, r -> e -> {
                    world0Events.get(r).add(e);
                    if (e.equals(new RankEvent.DiskCommitted(4))) {
                        committedRound4.countDown();
                    }
                });
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world0.get(rank);
            long[] data = {0};
            c.register("data", data);
            for (int k = 1; k <= 4; k++) {
                data[0] = 100 * rank + k;
                c.here(10 * k);
            }
            assertTrue(c.awaitReplicated(WAIT));
            return null;
        });
        assertTrue(committedRound4.await(WAIT.toSeconds(), TimeUnit.SECONDS), world0Events.toString());
        List<RankEvent.DiskCommitted> commits = of(world0Events.get(0), RankEvent.DiskCommitted.class);
        assertEquals(new RankEvent.DiskCommitted(4), commits.get(commits.size() - 1), commits.toString());
        assertTrue(commits.stream().allMatch(d -> d.round() == 2 || d.round() == 4), commits.toString());
        for (int r = 1; r < N; r++) {
            assertEquals(List.of(), of(world0Events.get(r), RankEvent.DiskCommitted.class), "rank 0 alone commits");
        }
        world0.forEach(TwoLevelCheckpointer::crashForTest);

        // rank 2's node lost: it receives its copy, the others restore their own
        ReplicaStore.wipe(nodes.resolve("node-2"));
        List<List<RankEvent>> world1Events = sinks();
        List<TwoLevelCheckpointer> world1 = RankGroup.open(LocalRankCollective.group(N), job, 1,
                r -> RankGroup.options(nodes, r, 1, disk, 2), r -> r == 2, r -> world1Events.get(r)::add);
        for (int r = 0; r < N; r++) {
            assertEquals(List.of(new RankEvent.Restored(4, "memory", r == 2 ? "RECEIVE" : "LOCAL", 40)),
                    of(world1Events.get(r), RankEvent.Restored.class), "rank " + r);
        }
        world1.forEach(TwoLevelCheckpointer::crashForTest);

        // every node lost: the disk generation of round 4, with its step
        for (int r = 0; r < N; r++) {
            ReplicaStore.wipe(nodes.resolve("node-" + r));
        }
        List<List<RankEvent>> world2Events = sinks();
        List<TwoLevelCheckpointer> world2 = RankGroup.open(LocalRankCollective.group(N), job, 2,
                r -> RankGroup.options(nodes, r, 1, disk, 2), r -> true, r -> world2Events.get(r)::add);
        RankGroup.parallel(N, rank -> {
            TwoLevelCheckpointer c = world2.get(rank);
            long[] data = {0};
            c.rollback("data", data);
            assertEquals(100 * rank + 4, data[0], "rank " + rank);
            c.here(50);
            return null;
        });
        RankGroup.closeAll(world2);
        for (int r = 0; r < N; r++) {
            List<RankEvent> events = world2Events.get(r);
            assertEquals(List.of(new RankEvent.Restored(4, "disk", "", 40)), of(events, RankEvent.Restored.class),
                    "rank " + r);
            List<RankEvent.Totals> totals = of(events, RankEvent.Totals.class);
            assertEquals(1, totals.size(), "rank " + r + ": " + events);
            assertEquals(world2.get(r).stats().checkpoints(), totals.get(0).checkpoints(), "rank " + r);
            assertEquals(world2.get(r).stats().lastImageBytes(), totals.get(0).bytes(), "rank " + r);
        }
    }

    @Test
    void aRecoveryWithNothingToRestoreSaysItRestarts() throws Exception {
        Path nodes = tmp.resolve("nodes");
        List<List<RankEvent>> events = sinks();
        List<TwoLevelCheckpointer> world = RankGroup.open(LocalRankCollective.group(N), "nothing-yet", 1,
                r -> RankGroup.options(nodes, r, 1, null, 0), r -> false, r -> events.get(r)::add);
        RankGroup.closeAll(world);
        for (int r = 0; r < N; r++) {
            assertEquals(List.of(new RankEvent.Restarted("no rank holds a checkpoint")),
                    of(events.get(r), RankEvent.Restarted.class), "rank " + r);
            assertEquals(List.of(), of(events.get(r), RankEvent.Restored.class), "rank " + r);
        }
    }
}
