package io.jckpt.perf;

import io.jckpt.policy.TwoLevelCheckpointer;
import io.jckpt.testkit.Baselines;
import io.jckpt.testkit.RankThreads;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * here() blocking time vs memcpy, and full replication time vs raw loopback TCP, through the real
 * {@link TwoLevelCheckpointer} with n = m + 1 ranks as threads of this JVM. Rank 0 checkpoints
 * {@code size} bytes; the other ranks checkpoint 8 bytes (so that rounds complete globally). Each
 * iteration, interleaved on rank 0's thread: a plain copy of the same bytes into a pre-touched
 * direct buffer; here(); the wait until the round is replicated everywhere
 * ({@code awaitReplicated}); a raw TCP transfer of the same bytes between two threads, and one to
 * a second JVM.
 */
final class MicroBench {
    /** Per size and m: the samples. */
    record Result(int size, int m, Samples memcpy, Samples here, Samples replicationWall, Samples replicationAgent,
                  Samples tcpThreads, Samples tcpJvms, Samples handOffFloor, Samples crc, Samples wakeLatency) {
    }

    private final Path root;
    private final Baselines.ThreadPair threads;
    private final Baselines.TwoJvmPair jvms;

    MicroBench(Path root, Baselines.ThreadPair threads, Baselines.TwoJvmPair jvms) {
        this.root = root;
        this.threads = threads;
        this.jvms = jvms;
    }

    Result run(int size, int m, int iterations, int warmup) throws Exception {
        int n = m + 1;
        Samples memcpy = new Samples();
        Samples here = new Samples();
        Samples replWall = new Samples();
        Samples replAgent = new Samples();
        Samples tcpT = new Samples();
        Samples tcpJ = new Samples();
        Samples floor = new Samples();
        Samples crc = new Samples();
        Samples wakeLatency = new Samples();
        long[] sink = new long[1];
        try (RankThreads<TwoLevelCheckpointer> ranks = TimedRounds.ranks(n);
             Baselines.Sleeper sleeper = new Baselines.Sleeper()) {
            List<TwoLevelCheckpointer> world = ranks.open("micro-" + size + "-m" + m, 0,
                    TimedRounds.options(root.resolve("micro-" + size + "-m" + m), null, m, 0), r -> false, null, null);
            CyclicBarrier barrier = new CyclicBarrier(n);
            ranks.parallel(rank -> {
                TwoLevelCheckpointer c = world.get(rank);
                byte[] data = new byte[rank == 0 ? size : 8];
                ThreadLocalRandom.current().nextBytes(data);
                c.register("data", data);
                // Two destinations per baseline, used in turn, as the store keeps two versions: each
                // buffer was last written two rounds ago, as here()'s slot was, with the same traffic
                // (transfers, other copies) in between. One hot buffer would be a copy from cache to
                // cache that no checkpoint store keeping its previous version can be.
                ByteBuffer[] plain = rank == 0 ? new ByteBuffer[] {Baselines.pretouched(size), Baselines.pretouched(size)} : null;
                ByteBuffer[] floorDst = rank == 0 ? new ByteBuffer[] {Baselines.pretouched(size), Baselines.pretouched(size)} : null;
                for (int i = -warmup; i < iterations; i++) {
                    barrier.await(TimedRounds.BOUND.toSeconds(), TimeUnit.SECONDS);
                    long copy = rank == 0 ? Baselines.copy(data, plain[i & 1]) : 0;
                    data[i & 7] ^= 1; // the program changed its data since the last round
                    TimedRounds.Round timed = TimedRounds.timedRound(c, rank);
                    if (rank == 0 && i >= 0) { // warm-up rounds: only the checkpoint path, to get it compiled
                        long tcp1 = threads.transfer(size);
                        long tcp2 = jvms.transfer(size);
                        // last, so that the sleeper has been idle about as long as the agent before here()
                        floor.add(Baselines.copy(data, floorDst[i & 1]) + sleeper.wake());
                        crc.add(Baselines.crc32c(floorDst[i & 1], sink)); // just written, as the agent's CRC reads the new slot
                        wakeLatency.add(sleeper.lastWakeLatency());
                        memcpy.add(copy);
                        here.add(timed.hereNanos());
                        replWall.add(timed.replicatedNanos());
                        replAgent.add(c.stats().lastReplicationNanos());
                        tcpT.add(tcp1);
                        tcpJ.add(tcp2);
                    }
                }
                return null;
            });
            ranks.closeAll(world);
        }
        return new Result(size, m, memcpy, here, replWall, replAgent, tcpT, tcpJ, floor, crc, wakeLatency);
    }

    static void report(Report report, List<Result> results) {
        List<List<String>> rows = new ArrayList<>();
        for (Result r : results) {
            rows.add(List.of(Samples.size(r.size()), Integer.toString(r.m()), Integer.toString(r.here().count()),
                    r.memcpy().timeCell(), r.here().timeCell(), "**" + Samples.ratio(r.here().median(), r.memcpy().median()) + "**",
                    r.handOffFloor().timeCell(), Samples.ratio(r.here().median(), r.handOffFloor().median())));
        }
        report.table(List.of("size", "m", "n", "memcpy into pre-touched off-heap (baseline)", "here() blocking",
                "here() / memcpy (target ≤ 1.25x)", "memcpy + waking a thread asleep in select (hand-off floor)",
                "here() / hand-off floor"), rows);
        rows = new ArrayList<>();
        for (Result r : results) {
            rows.add(List.of(Samples.size(r.size()), Integer.toString(r.m()),
                    r.tcpJvms().timeCell() + " (" + Samples.gbps(r.size(), r.tcpJvms().median()) + ")",
                    r.tcpThreads().timeCell(),
                    r.replicationAgent().timeCell() + " (" + Samples.gbps(r.size(), r.replicationAgent().median()) + ")",
                    r.replicationWall().timeCell(),
                    "**" + Samples.ratio(r.tcpJvms().median(), r.replicationAgent().median()) + "**",
                    Samples.time(r.tcpJvms().median() + r.crc().median()),
                    Samples.ratio(r.tcpJvms().median() + r.crc().median(), r.replicationAgent().median()),
                    r.wakeLatency().timeCell(),
                    Samples.ratio(r.tcpJvms().median() + r.crc().median() + r.wakeLatency().median(), r.replicationAgent().median()),
                    Samples.ratio(r.m() * r.tcpJvms().median(), r.replicationAgent().median())));
        }
        report.table(List.of("size", "m", "raw TCP, two JVMs (baseline)", "raw TCP, two threads", "replication time (agent: hand-off → replicated at all m holders)",
                "here() start → replicated everywhere (awaitReplicated, wall)", "throughput vs raw TCP two JVMs (target ≥ 0.80)",
                "checksummed transfer: raw TCP two JVMs + one CRC32C pass", "throughput vs checksummed transfer",
                "hand-off latency: waking a thread asleep in select until it runs", "throughput vs checksummed transfer + hand-off latency",
                "bytes moved per second (m x size) vs raw TCP two JVMs"), rows);
    }
}
