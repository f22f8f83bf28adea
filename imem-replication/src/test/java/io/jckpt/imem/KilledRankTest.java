package io.jckpt.imem;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.jckpt.spi.Collective;
import io.jckpt.spi.LocalRankCollective;
import io.jckpt.spi.RankCollective;
import io.jckpt.wire.RankStatus;
import java.io.IOException;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A real process for rank 1 of 3, killed with SIGKILL while the ring is replicating 1 MiB rounds.
 * The survivors report the failure within the bound; the plan restores bit-identical data, both
 * when rank 1's node-local store survived (it restores locally) and when it was wiped (it receives).
 */
class KilledRankTest {
    /** The collective of the tests' recovery steps. */
    private static final Collective TEST = Collective.of(Collective.Kind.TEST);

    private Path root;

    @BeforeEach
    void setUp() throws IOException {
        Path shm = Path.of("/dev/shm");
        root = Files.createTempDirectory(Files.isDirectory(shm) ? shm : Path.of(System.getProperty("java.io.tmpdir")),
                "jckpt-kill-test");
    }

    @AfterEach
    void tearDown() throws IOException {
        ReplicaStore.wipe(root);
    }

    @Test
    void sigkillWhileReplicating() throws Exception {
        int n = 3;
        int m = 1;
        int size = 1 << 20;
        long capacity = size + 4096;
        JobSecret secret = JobSecret.random();
        ReplicaStore[] stores = new ReplicaStore[n];
        DataEndpoint[] eps = new DataEndpoint[n];
        ReplicationAgent[] agents = new ReplicationAgent[n];
        for (int r : new int[] {0, 2}) {
            stores[r] = ReplicaStore.open(new ReplicaStoreConfig(root.resolve("rank-" + r), r, n, m, 2, capacity, 1L << 30));
            eps[r] = DataEndpoint.bindLoopback(r, secret);
        }
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), RingRankMain.class.getName(),
                root.resolve("rank-1").toString(), "1", "3", "1", secret.toHex(), Integer.toString(size))
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        ExecutorService pool = TestRing.pool("jckpt-test-killed", 4);
        try {
            BlockingQueue<String> lines = ReplicaStoreTest.lines(child);
            String addr = lines.poll(30, TimeUnit.SECONDS);
            assertTrue(addr != null && addr.startsWith("ADDR "), String.valueOf(addr));
            InetSocketAddress childAddr = new InetSocketAddress(eps[0].address().getAddress(),
                    Integer.parseInt(addr.substring(5)));
            try (Writer w = new OutputStreamWriter(child.getOutputStream(), StandardCharsets.UTF_8)) {
                w.write("NEXT " + eps[2].address().getPort() + "\n");
            }
            Future<RingLinks> l0 = pool.submit(() -> eps[0].joinRing(n, childAddr, Duration.ofSeconds(20)));
            Future<RingLinks> l2 = pool.submit(() -> eps[2].joinRing(n, eps[0].address(), Duration.ofSeconds(20)));
            agents[0] = ReplicationAgent.start(stores[0], TestRing.get(l0), Duration.ofSeconds(10), false, -1);
            agents[2] = ReplicationAgent.start(stores[2], TestRing.get(l2), Duration.ofSeconds(10), false, -1);
            List<Future<Long>> loops = new ArrayList<>();
            for (int r : new int[] {0, 2}) {
                final int rank = r;
                loops.add(pool.submit(() -> {
                    long round = 1;
                    try {
                        for (; ; round++) {
                            byte[] img = RingReplicationTest.image(rank, round, size);
                            ReplicaWrite wr = agents[rank].beginRound(round, img.length, Duration.ofSeconds(30));
                            wr.image().put(img);
                            agents[rank].commitRound(wr);
                            Thread.sleep(2);
                        }
                    } catch (ReplicationException expected) {
                        return round;
                    }
                }));
            }
            ReplicaStoreTest.awaitLine(lines, "ROUND 5");
            Thread.sleep(new Random().nextInt(15));
            long killedAt = System.nanoTime();
            ReplicaStoreTest.kill(child);
            for (Future<Long> f : loops) {
                long stoppedAt = f.get(20, TimeUnit.SECONDS); // the failure surfaces in here(): never a hang
                assertTrue(stoppedAt >= 5);
            }
            assertTrue(System.nanoTime() - killedAt < 20_000_000_000L);
        } finally {
            pool.shutdownNow();
            if (child.isAlive()) {
                ReplicaStoreTest.kill(child);
            }
            for (ReplicationAgent a : agents) {
                if (a != null) {
                    a.close();
                }
            }
        }
        // process death, node-local store survived: rank 1 reopens it (torn slots discarded) and restores locally
        stores[1] = ReplicaStore.open(new ReplicaStoreConfig(root.resolve("rank-1"), 1, n, m, 2, capacity, 1L << 30));
        List<RankStatus> kept = List.of(stores[0].rankStatus(false), stores[1].rankStatus(true), stores[2].rankStatus(false));
        RollbackPlan plan = RollbackPlanner.plan(kept);
        assertTrue(plan.recoverable(), plan.toString());
        assertTrue(plan.round() >= 4, plan.toString());
        for (int r = 0; r < n; r++) {
            RestoreAction a = plan.action(r);
            assertArrayEquals(RingReplicationTest.image(r, plan.round(), size),
                    RingReplicationTest.read(stores[a.source()].find(r, plan.round())), "rank " + r);
        }
        // node loss: rank 1's store wiped; it receives its data from rank 2 over the data channel
        stores[1].close();
        ReplicaStore.wipe(root.resolve("rank-1"));
        stores[1] = ReplicaStore.open(new ReplicaStoreConfig(root.resolve("rank-1"), 1, n, m, 2, capacity, 1L << 30));
        eps[1] = DataEndpoint.bindLoopback(1, secret);
        List<LocalRankCollective> exchange = LocalRankCollective.group(n);
        ExecutorService rb = TestRing.pool("jckpt-test-killed-rollback", n);
        try {
            List<Future<long[]>> fs = new ArrayList<>();
            for (int r = 0; r < n; r++) {
                final int rank = r;
                fs.add(rb.submit(() -> {
                    RankCollective ex = exchange.get(rank);
                    RollbackPlan p = ImemRecovery.plan(ex, TEST, stores[rank], rank == 1, Duration.ofSeconds(10));
                    InetSocketAddress[] addrs = ImemRecovery.addresses(ex, TEST, eps[rank], Duration.ofSeconds(10));
                    ReplicaSlot s = ImemRecovery.restore(p, stores[rank], eps[rank], addrs, Duration.ofSeconds(20));
                    assertArrayEquals(RingReplicationTest.image(rank, p.round(), size), RingReplicationTest.read(s));
                    return new long[] {p.round(), p.action(rank).kind().ordinal(), p.action(rank).source()};
                }));
            }
            long round = -1;
            for (int r = 0; r < n; r++) {
                long[] res = TestRing.get(fs.get(r));
                round = round < 0 ? res[0] : round;
                assertEquals(round, res[0]); // identical plan everywhere
                if (r == 1) {
                    assertEquals(RestoreAction.Kind.RECEIVE.ordinal(), res[1]);
                    assertEquals(2, res[2]);
                }
            }
        } finally {
            rb.shutdownNow();
            for (int r = 0; r < n; r++) {
                eps[r].close();
                stores[r].close();
            }
        }
    }
}
